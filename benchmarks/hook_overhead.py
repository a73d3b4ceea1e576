"""What the jit hook adds to lower + compile on a large train step.

A 128-layer MLP (matmul, bias, layer norm, GELU, residual) trained by Adam, about 21k StableHLO
ops in ``@main``, params and both Adam states donated (768 leaves). Each repetition jits a fresh
function with plain ``jax.jit`` and with ``jax_use_donated.jit``, lowers and compiles both (the
order alternates between repetitions), and the medians are compared in this one run, in wall
time and in process CPU time (the CPU ratio is the one to trust on a loaded machine). The hook's
own time is broken down into its steps (model build, plan, diagnostics, rewrite, the check
before compilation), and the opt-in exact check of the executable (``verify_executable=True``)
is timed on the side. The donors left unpaired are listed grouped by the reason the plan gives,
and XLA's own copy count on a smaller version of the step shows whether XLA could reuse them.

    python benchmarks/hook_overhead.py [--layers 128] [--reps 5] [--copies-layers 8] [--out PATH]
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import jax_use_donated as jud
from benchmarks.mlp_adam_step import make_train_step
from jax_use_donated.dropin import LoweringRecord
from jax_use_donated.dropin.hlo_alias import executable_aliases

STEPS = ("model", "plan", "diagnostics", "rewrite", "call plan", "release", "check", "measure")
DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "hook_overhead.md"


class _GcClock:
    """CPU seconds the cyclic garbage collector spends, via ``gc.callbacks``."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._start = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start = time.thread_time()
        else:
            self.seconds += time.thread_time() - self._start


GC = _GcClock()


def _timed(fn: Callable[[], Any]) -> tuple[float, float, float, Any]:
    """Wall, process CPU and garbage-collection CPU seconds of ``fn()``, and its result."""
    wall, cpu, collected = time.perf_counter(), time.process_time(), GC.seconds
    out = fn()
    return (time.perf_counter() - wall, time.process_time() - cpu, GC.seconds - collected,
            out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--layers", type=int, default=128)
    parser.add_argument("--width", type=int, default=128)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--copies-layers", type=int, default=8,
                        help="also count XLA's copies on a train step this deep (0: skip)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="markdown file for the results ('-' for none)")
    args = parser.parse_args(argv)
    step, inputs = make_train_step(args.layers, args.width, 32)

    def fresh() -> Callable[..., Any]:
        def train_step(*a: Any) -> Any:
            return step(*a)
        return train_step

    phases: dict[str, float] = {}

    def lower_then_compile(name: str, jitted: Any) -> Any:
        """``jitted.lower(*inputs).compile()``, timing the two phases into ``phases``."""
        wall, cpu = time.perf_counter(), time.process_time()
        lowered = jitted.lower(*inputs)
        phases[f"{name}_lower_wall"] = time.perf_counter() - wall
        phases[f"{name}_lower_cpu"] = time.process_time() - cpu
        return lowered.compile()

    def plain() -> Any:
        return lower_then_compile("plain", jax.jit(fresh(), donate_argnums=(0, 1, 2)))

    def region() -> Any:
        """Plain ``jax.jit`` with the region-analysis copy insertion the drop-in adds by
        default on CPU: XLA's own cost of that option."""
        return lower_then_compile("region", jax.jit(
            fresh(), donate_argnums=(0, 1, 2),
            compiler_options={"xla_cpu_copy_insertion_use_region_analysis": True}))

    wrappers: list[Any] = []

    def ours() -> Any:
        wrapper = jud.jit(fresh(), donate_argnums=(0, 1, 2))
        wrappers.append(wrapper)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return lower_then_compile("ours", wrapper)

    rows: list[dict[str, float]] = []
    record: LoweringRecord | None = None
    for rep in range(args.reps):
        order = [("plain", plain), ("ours", ours), ("region", region)]
        if rep % 2:
            order.reverse()
        row: dict[str, float] = {}
        compiled: Any = None
        # Each variant starts from the same state: the previous repetition's wrapper and
        # executables freed, and a full collection done, outside the timed region.
        wrappers.clear()
        out = None
        for name, fn in order:
            out = None
            gc.collect()
            row[f"{name}_wall"], row[f"{name}_cpu"], row[f"{name}_gc"], out = _timed(fn)
            if name == "ours":
                compiled = out
        row.update(phases)
        for name in ("plain", "ours", "region"):
            for clock in ("wall", "cpu"):
                row[f"{name}_compile_{clock}"] = (row[f"{name}_{clock}"]
                                                  - row[f"{name}_lower_{clock}"])
        latest: LoweringRecord = wrappers[-1].records[-1]
        record = latest
        assert wrappers[-1].fallback_reason is None, wrappers[-1].fallback_reason
        for s in STEPS:
            row[f"hook_{s}_wall"] = latest.timings.get(s, 0.0)
            row[f"hook_{s}_cpu"] = latest.cpu_timings.get(s, 0.0)
        row["exact_check_wall"], row["exact_check_cpu"], _, actual = _timed(
            lambda c=compiled: executable_aliases(c.runtime_executable()))
        assert actual == latest.expected, "the executable's aliasing differs from the plan"
        rows.append(row)
        print(f"rep {rep}: plain {row['plain_wall']:.2f} s wall / {row['plain_cpu']:.2f} s cpu,"
              f" ours {row['ours_wall']:.2f} / {row['ours_cpu']:.2f}, hook "
              f"{sum(row[f'hook_{s}_wall'] for s in STEPS):.3f} / "
              f"{sum(row[f'hook_{s}_cpu'] for s in STEPS):.3f}", flush=True)
    assert record is not None
    med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    hook_wall = statistics.median(sum(r[f"hook_{s}_wall"] for s in STEPS) for r in rows)
    hook_cpu = statistics.median(sum(r[f"hook_{s}_cpu"] for s in STEPS) for r in rows)

    lines: list[str] = []
    lines.append(f"{args.layers}-layer MLP train step with Adam: {len(record.function.ops)} ops in "
                 f"@main, {len(record.plan.verdicts)} donated leaves, {len(record.plan.pairs)} "
                 f"paired copy-free, {len(record.fallback.kept_pairs)} keep JAX's pairing (XLA "
                 f"copies); {args.reps} repetitions, alternating order, medians")
    lines.append("")
    lines.append("| | wall s | CPU s |")
    lines.append("|---|---:|---:|")
    lines.append(f"| plain jax.jit lower+compile | {med['plain_wall']:.3f} | {med['plain_cpu']:.3f} |")
    lines.append(f"| jax_use_donated.jit lower+compile | {med['ours_wall']:.3f} | "
                 f"{med['ours_cpu']:.3f} |")
    lines.append(f"| **ratio ours / plain** | **{med['ours_wall'] / med['plain_wall']:.3f}** | "
                 f"**{med['ours_cpu'] / med['plain_cpu']:.3f}** |")
    lines.append(f"| plain jax.jit with region analysis, lower+compile | {med['region_wall']:.3f} "
                 f"| {med['region_cpu']:.3f} |")
    lines.append(f"| **region analysis: XLA compile with / without** | "
                 f"**{med['region_compile_wall'] / med['plain_compile_wall']:.3f}** | "
                 f"**{med['region_compile_cpu'] / med['plain_compile_cpu']:.3f}** |")
    for phase in ("lower", "compile"):
        for name, label in (("plain", "plain jax.jit"), ("ours", "jax_use_donated.jit"),
                            ("region", "plain jax.jit, region analysis")):
            lines.append(f"| {label}: {phase} only | {med[f'{name}_{phase}_wall']:.3f} | "
                         f"{med[f'{name}_{phase}_cpu']:.3f} |")
    lines.append("| median of per-repetition ratios ours / plain (lower+compile) | "
                 + " | ".join(f"{statistics.median(r[f'ours_{c}'] / r[f'plain_{c}'] for r in rows):.3f}"
                              for c in ("wall", "cpu")) + " |")
    lines.append(f"| garbage collection during plain lower+compile | | {med['plain_gc']:.3f} |")
    lines.append(f"| garbage collection during ours | | {med['ours_gc']:.3f} |")
    lines.append(f"| hook total (median) | {hook_wall:.3f} | {hook_cpu:.3f} |")
    lines.append(f"| **hook / plain lower+compile** (target <= 5%) | "
                 f"**{100 * hook_wall / med['plain_wall']:.1f}%** | "
                 f"**{100 * hook_cpu / med['plain_cpu']:.1f}%** |")
    shares = sorted(sum(r[f"hook_{s}_cpu"] for s in STEPS) / r["plain_cpu"] for r in rows)
    lines.append(f"| hook / plain lower+compile per repetition (CPU): smallest, median, largest "
                 f"| | {100 * shares[0]:.1f}%, {100 * statistics.median(shares):.1f}%, "
                 f"{100 * shares[-1]:.1f}% |")
    for s in STEPS:
        lines.append(f"| hook step: {s} | {med[f'hook_{s}_wall']:.3f} | "
                     f"{med[f'hook_{s}_cpu']:.3f} |")
    lines.append(f"| opt-in exact executable check (`verify_executable=True`, not in the hook "
                 f"total) | {med['exact_check_wall']:.3f} | {med['exact_check_cpu']:.3f} |")
    lines.append("")
    lines.append("Per repetition (CPU s: plain lower + compile, ours lower + compile, hook; "
                 "odd repetitions run ours first):")
    lines.append("")
    for i, r in enumerate(rows):
        lines.append(f"- rep {i}: {r['plain_lower_cpu']:.2f} + {r['plain_compile_cpu']:.2f}, "
                     f"{r['ours_lower_cpu']:.2f} + {r['ours_compile_cpu']:.2f}, "
                     f"{sum(r[f'hook_{s}_cpu'] for s in STEPS):.3f} (wall: {r['plain_wall']:.2f}, "
                     f"{r['ours_wall']:.2f}, {sum(r[f'hook_{s}_wall'] for s in STEPS):.3f})")
    lines.append("")
    lines += unpaired_summary(record)
    if args.copies_layers:
        lines += copy_evidence(args.copies_layers, args.width)
    load = os.getloadavg()
    lines.append("")
    lines.append(f"Machine: {os.cpu_count()} CPUs, load average at the end {load[0]:.1f} / "
                 f"{load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min); on a loaded machine wall "
                 "times swing by 2x between repetitions, CPU times much less.")
    text = "\n".join(lines)
    print(text)
    if str(args.out) != "-":
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(
            "# Hook overhead\n\n`python benchmarks/hook_overhead.py "
            + " ".join(argv if argv is not None else sys.argv[1:]) + "`\n\n" + text + "\n")
    return 0


def unpaired_summary(record: LoweringRecord) -> list[str]:
    """The donors the plan leaves unpaired, grouped by reason, one example message each."""
    unpaired = [v for v in record.plan.verdicts if v.result is None]
    lines = [f"Unpaired donors: {len(unpaired)} of {len(record.plan.verdicts)}"]
    by_reason = Counter(v.reason.value for v in unpaired)
    for reason, count in by_reason.most_common():
        group = [v for v in unpaired if v.reason.value == reason]
        types = Counter(v.arg.type_text for v in group)
        kept = sum(1 for v in group if v.arg.index in record.fallback.kept_pairs)
        lines.append(f"- {reason}: {count} ({', '.join(f'{n} x {t}' for t, n in types.items())};"
                     f" {kept} keep JAX's pairing with an XLA copy)")
        lines.append(f"  e.g. {group[0].message}")
    return lines


def copy_evidence(layers: int, width: int) -> list[str]:
    """XLA's own copy count on a smaller train step, with no donation, JAX's pairing and ours:
    whether the unpaired donors are ones XLA cannot reuse either."""
    step, inputs = make_train_step(layers, width, 32)

    def train_step(*a: Any) -> Any:
        return step(*a)

    weight = f"f32[{width},{width}]"

    def facts(compiled: Any) -> str:
        copies = [line for line in compiled.as_text().splitlines() if " copy(" in line]
        weights = sum(1 for line in copies if line.split("copy(")[0].split("=")[-1].strip()
                      .startswith(weight))
        temp = compiled.memory_analysis().temp_size_in_bytes
        return f"{len(copies)} copies ({weights} of {weight}), temp {temp} B"

    wrapper = jud.jit(train_step, donate_argnums=(0, 1, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = facts(wrapper.lower(*inputs).compile())
    plan = wrapper.last_plan
    assert plan is not None
    return [
        "",
        f"XLA's copies on the same train step with {layers} layers: no donation "
        f"{facts(jax.jit(train_step).lower(*inputs).compile())}; JAX's pairing "
        f"{facts(jax.jit(train_step, donate_argnums=(0, 1, 2)).lower(*inputs).compile())}; "
        f"ours {ours}; unpaired donors here: {len(plan.not_reused)} "
        f"({', '.join(x.path for x in plan.not_reused[:3])}, ...).",
    ]


if __name__ == "__main__":
    raise SystemExit(main())
