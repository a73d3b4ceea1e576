"""The jit hook's cost, this checkout against another one, side by side in one run.

Each round starts one fresh process per checkout (alternating which goes first) that lowers and
compiles the same train step (:mod:`benchmarks.mlp_adam_step`, default 128 layers, about 21k
ops, 768 donated leaves) with plain ``jax.jit`` and with that checkout's
``jax_use_donated.jit`` (order alternating), and reports wall and CPU seconds. Two A/B
figures, each the median over rounds of a per-round ratio: ``ours[this] / ours[baseline]`` (the
drop-in's whole lower+compile) and ``(ours / plain)[this] / (ours / plain)[baseline]`` (its
cost relative to JAX's own lower+compile in the same process); 1.000 means the same.

A baseline from before the package's folders moved needs its own interpreter
(``benchmarks/baseline_venv.sh DIR`` makes one)::

    python benchmarks/hook_ab.py --baseline DIR [--baseline-python PY] [--rounds 7]
        [--layers 128] [--out benchmarks/results/hook_ab.md]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import gc, importlib.util, json, sys, time, warnings
checkout, step_file, layers, width, first, kwargs = sys.argv[1:7]
sys.path.insert(0, checkout)
import jax
import jax_use_donated as jud
spec = importlib.util.spec_from_file_location("mlp_adam_step", step_file)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
step, inputs = mod.make_train_step(int(layers), int(width), 32)

def fresh():
    def train_step(*a):
        return step(*a)
    return train_step

def timed(make, extra):
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make(fresh(), donate_argnums=(0, 1, 2), **extra).lower(*inputs).compile()
    return time.perf_counter() - wall, time.process_time() - cpu

# one untimed warm-up of JAX's tracing caches for this step, shared by both
jax.jit(fresh(), donate_argnums=(0, 1, 2)).lower(*inputs)
order = [("plain", jax.jit, {}), ("ours", jud.jit, json.loads(kwargs))]
if first == "ours":
    order.reverse()
out = {}
for name, make, extra in order:
    out[name + "_wall"], out[name + "_cpu"] = timed(make, extra)
print(json.dumps(out))
"""


def run_child(python: str, checkout: Path, layers: int, width: int, first: str,
              kwargs: str = "{}") -> dict[str, float]:
    done = subprocess.run(
        [python, "-c", CHILD, str(checkout), str(ROOT / "benchmarks" / "mlp_adam_step.py"),
         str(layers), str(width), first, kwargs],
        capture_output=True, text=True, check=False, cwd="/")
    if done.returncode:
        raise SystemExit(f"{checkout}: exit {done.returncode}\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def rev(path: Path) -> str:
    done = subprocess.run(["git", "-C", str(path), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=False)
    return done.stdout.strip() or path.name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True, help="the other checkout")
    parser.add_argument("--baseline-python", default=sys.executable,
                        help="interpreter for the baseline (benchmarks/baseline_venv.sh)")
    parser.add_argument("--python", default=sys.executable,
                        help="interpreter for this checkout")
    parser.add_argument("--this-kwargs", default="{}",
                        help="JSON keyword arguments of this checkout's jax_use_donated.jit "
                        "(e.g. '{\"footprint_guard\": false}': options the baseline lacks)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--layers", type=int, default=128)
    parser.add_argument("--width", type=int, default=128)
    parser.add_argument("--out", type=Path,
                        default=ROOT / "benchmarks" / "results" / "hook_ab.md",
                        help="markdown file for the table, appended to ('-' for none)")
    args = parser.parse_args(argv)
    ours_rev, base_rev = rev(ROOT), rev(args.baseline)
    load_start = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    rows: list[tuple[dict[str, float], dict[str, float]]] = []
    for r in range(args.rounds):
        first = "ours" if r % 2 else "plain"
        sides = [("this", args.python, ROOT, args.this_kwargs),
                 ("base", args.baseline_python, args.baseline, "{}")]
        if r % 2:
            sides.reverse()
        got = {name: run_child(py, checkout, args.layers, args.width, first, kwargs)
               for name, py, checkout, kwargs in sides}
        rows.append((got["this"], got["base"]))
        t, b = got["this"], got["base"]
        print(f"round {r}: {ours_rev} ours/plain {t['ours_cpu'] / t['plain_cpu']:.3f} cpu "
              f"{t['ours_wall'] / t['plain_wall']:.3f} wall; {base_rev} "
              f"{b['ours_cpu'] / b['plain_cpu']:.3f} cpu {b['ours_wall'] / b['plain_wall']:.3f}"
              " wall", flush=True)
    lines = [
        f"# The jit hook's cost: {ours_rev} against {base_rev}",
        "",
        f"Command: `python benchmarks/hook_ab.py --baseline <checkout of {base_rev}> "
        f"--baseline-python <its venv> --rounds {args.rounds} --layers {args.layers}"
        + (f" --this-kwargs '{args.this_kwargs}'" if args.this_kwargs != "{}" else "") + "` "
        f"({args.layers}-layer MLP Adam step, `lower(...).compile()` of a fresh function, plain "
        "`jax.jit` and `jax_use_donated.jit` in one fresh process per checkout and round; "
        f"on a shared {os.cpu_count()}-core machine, load average at the start {load_start}, "
        f"at the end {', '.join(f'{x:.1f}' for x in os.getloadavg())}).",
        "",
        "| clock | plain jax.jit, this / baseline process | ours "
        f"{ours_rev} | ours {base_rev} | A/B of ours: median of per-round ratios (quartiles) "
        f"| ours/plain {ours_rev} | ours/plain {base_rev} | A/B of ours/plain (quartiles) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def spread(values: list[float]) -> str:
        values = sorted(values)
        q = statistics.quantiles(values, n=4) if len(values) > 1 else values * 3
        return f"{statistics.median(values):.3f}x ({q[0]:.3f} to {q[-1]:.3f})"

    for clock in ("wall", "cpu"):
        this = [t[f"ours_{clock}"] / t[f"plain_{clock}"] for t, _ in rows]
        base = [b[f"ours_{clock}"] / b[f"plain_{clock}"] for _, b in rows]
        lines.append(
            f"| {clock} s | {statistics.median(t[f'plain_{clock}'] for t, _ in rows):.2f} / "
            f"{statistics.median(b[f'plain_{clock}'] for _, b in rows):.2f} | "
            f"{statistics.median(t[f'ours_{clock}'] for t, _ in rows):.2f} | "
            f"{statistics.median(b[f'ours_{clock}'] for _, b in rows):.2f} | "
            f"{spread([t[f'ours_{clock}'] / b[f'ours_{clock}'] for t, b in rows])} | "
            f"{statistics.median(this):.3f} | {statistics.median(base):.3f} | "
            f"{spread([x / y for x, y in zip(this, base, strict=True)])} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if str(args.out) != "-":
        args.out.parent.mkdir(exist_ok=True)
        with args.out.open("a") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
