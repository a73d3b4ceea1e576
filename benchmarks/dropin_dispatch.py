"""Dispatch and re-creation cost of ``jax_use_donated.jit`` against ``jax.jit``, side by side.

* **Dispatch**: per-call time of a tiny jitted function on a cache hit (JAX's C++ fast path),
  with and without donation (the donated output feeds the next call). Both variants run in
  alternating blocks; the table gives the median block time per call and the median of the
  per-block ratios (target: within 5%).
* **Re-creation**: ``jit(f)(x)`` with a new jit object each time, 20 times for one ``f``, as
  library helpers and ``functools.partial`` do (target: at most 1.2x ``jax.jit``).

    python benchmarks/dropin_dispatch.py [--blocks 41] [--calls 2000]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp

import jax_use_donated as jud

DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "dropin_dispatch.md"


def tiny(x: jax.Array) -> jax.Array:
    return x + 1.0


def per_call(fn: Callable[[Any], Any], x: Any, calls: int, chain: bool) -> tuple[float, Any]:
    """Seconds per call of ``fn`` over ``calls`` calls (``chain``: each output is the next
    input, as donation requires)."""
    start = time.perf_counter()
    if chain:
        for _ in range(calls):
            x = fn(x)
    else:
        for _ in range(calls):
            fn(x)
    x.block_until_ready()
    return (time.perf_counter() - start) / calls, x


def dispatch(blocks: int, calls: int, donate: bool) -> dict[str, float]:
    kwargs: dict[str, Any] = {"donate_argnums": 0} if donate else {}
    plain = jax.jit(tiny, **kwargs)
    ours = jud.jit(tiny, **kwargs)
    xs = {"plain": jnp.zeros((8,)), "ours": jnp.zeros((8,))}
    for name, fn in (("plain", plain), ("ours", ours)):  # compile and warm up
        _, xs[name] = per_call(fn, xs[name], 100, donate)
    times: dict[str, list[float]] = {"plain": [], "ours": []}
    ratios = []
    for b in range(blocks):
        order = [("plain", plain), ("ours", ours)] if b % 2 == 0 else [("ours", ours),
                                                                      ("plain", plain)]
        got = {}
        for name, fn in order:
            got[name], xs[name] = per_call(fn, xs[name], calls, donate)
            times[name].append(got[name])
        ratios.append(got["ours"] / got["plain"])
    return {"plain_us": statistics.median(times["plain"]) * 1e6,
            "ours_us": statistics.median(times["ours"]) * 1e6,
            "ratio": statistics.median(ratios)}


def recreation(repeats: int, creations: int) -> dict[str, float]:
    """Total seconds of ``creations`` re-creations + calls, median over ``repeats`` rounds
    (each round with a new function object, so the first creation compiles)."""
    def make() -> Callable[[jax.Array], jax.Array]:
        def f(x: jax.Array) -> jax.Array:
            return jnp.sin(x) * 2.0 + jnp.cos(x)

        return f

    results: dict[str, list[float]] = {"plain": [], "ours": []}
    x = jnp.ones((64,))
    for r in range(repeats):
        order = [("plain", jax.jit), ("ours", jud.jit)]
        if r % 2:
            order.reverse()
        for name, jit in order:
            f = make()
            start = time.perf_counter()
            for _ in range(creations):
                jit(f)(x).block_until_ready()
            results[name].append(time.perf_counter() - start)
    plain, ours = statistics.median(results["plain"]), statistics.median(results["ours"])
    return {"plain_s": plain, "ours_s": ours, "ratio": ours / plain}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--blocks", type=int, default=41)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--creations", type=int, default=20)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="markdown file for the results ('-' for none)")
    args = parser.parse_args(argv)
    lines = [
        "# Drop-in dispatch and re-creation against jax.jit",
        "",
        f"`python benchmarks/dropin_dispatch.py --blocks {args.blocks} --calls {args.calls} "
        f"--repeats {args.repeats} --creations {args.creations}` (jax {jax.__version__}, "
        f"{jax.devices()[0].platform})",
        "",
        "| measurement | jax.jit | jax_use_donated.jit | ratio (median of paired runs) |",
        "|---|---|---|---|",
    ]
    for donate in (False, True):
        d = dispatch(args.blocks, args.calls, donate)
        lines.append(f"| per call, tiny function, {'donated' if donate else 'no donation'} | "
                     f"{d['plain_us']:.2f} µs | {d['ours_us']:.2f} µs | {d['ratio']:.3f} |")
    r = recreation(args.repeats, args.creations)
    lines.append(f"| {args.creations} re-creations + calls of one function | "
                 f"{r['plain_s'] * 1e3:.1f} ms | {r['ours_s'] * 1e3:.1f} ms | "
                 f"{r['ratio']:.3f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if str(args.out) != "-":
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
