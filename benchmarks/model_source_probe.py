"""Probe for issue 15: what a model read from the text instead of jaxlib's bindings could save.

The jaxlib path builds the core's model by walking jaxlib's in-memory module through the
Python bindings (``ModuleAdapter.build``), about 10-13 µs per op: every binding call makes a
Python object. This probe times, side by side on the same real JAX text
(:mod:`benchmarks.jax_modules`), alternating ``--reps`` runs:

* ``bindings``: ``ModuleAdapter.build`` of ``@main`` on a module jaxlib parsed (parse not timed);
  the garbage collector paused for all three, as ``jax-donate-opt`` runs;
* ``text scan``: one regular-expression pass over the printed text that reads, per op line,
  the result name, the op name and the operand names, and numbers the values (def-use only:
  no types, no attributes, no CSE keys, ops inside regions counted as lines). It is a lower
  bound of what a text-read model costs, not a model;
* ``plan``: ``plan_donation`` on the bindings' model with ``jax-plan-donation``'s defaults
  (the core's cost, for scale).

Run: ``python benchmarks/model_source_probe.py [--layers 145 1450] [--reps 3]``; writes
``benchmarks/results/model_source_probe.md``.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks.jax_modules import train_step_text
from jax_use_donated.adapters.jaxlib_ir import ModuleAdapter, symbol_name
from jax_use_donated.analysis.plan import plan_donation
from jax_use_donated.fast_path import parse
from jax_use_donated.gc_pause import gc_paused

RESULTS = Path(__file__).resolve().parent / "results" / "model_source_probe.md"
_OP_LINE = re.compile(r'^\s*(%[\w.$-]+)(?::\d+)?\s*=\s*"?([a-z_][\w.]*)"?(.*)$', re.M)
_VALUE = re.compile(r"%[\w.$#-]+")


def text_scan(text: str) -> int:
    """Def-use of every op line of ``text`` (see the module docstring); the op count."""
    values: dict[str, int] = {}
    ops: list[tuple[str, list[int | None], int]] = []
    for m in _OP_LINE.finditer(text):
        result, name, rest = m.groups()
        operands = [values.get(v) for v in _VALUE.findall(rest.split(" : ", 1)[0])]
        vid = values[result] = len(values)
        ops.append((name, operands, vid))
    return len(ops)


def probe(layers: int, reps: int) -> tuple[int, int, float, float, float]:
    """``(model ops, scanned lines, bindings s, text scan s, plan s)``, medians of ``reps``."""
    path = train_step_text(layers)
    data = path.read_bytes()
    text = data.decode()
    module = parse(data)
    main = next(op.operation for op in module.body.operations
                if op.operation.name == "func.func" and symbol_name(op.operation) == "main")
    walk: list[float] = []
    scan: list[float] = []
    plan: list[float] = []
    ops = lines = 0
    for _ in range(reps):
        with gc_paused():  # as jax-donate-opt runs
            t0 = time.perf_counter()
            fn = ModuleAdapter(module.operation).build(main)
            t1 = time.perf_counter()
            lines = text_scan(text)
            t2 = time.perf_counter()
            plan_donation(fn, "dataflow")  # jax-plan-donation's defaults
            t3 = time.perf_counter()
        ops = len(fn.ops)
        walk.append(t1 - t0)
        scan.append(t2 - t1)
        plan.append(t3 - t2)
    return ops, lines, statistics.median(walk), statistics.median(scan), statistics.median(plan)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--layers", type=int, nargs="+", default=[145, 1450])
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args(argv)
    rows = [
        "# Model from jaxlib's bindings against a text scan (issue 15 probe)",
        "",
        f"Command: `python benchmarks/model_source_probe.py --layers "
        f"{' '.join(map(str, args.layers))} --reps {args.reps}`; medians.",
        "",
        "| layers | model ops | scanned op lines | bindings | text scan | scan/bindings "
        "| plan |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n in args.layers:
        ops, lines, walk, scan, plan = probe(n, args.reps)
        rows.append(f"| {n} | {ops:,} | {lines:,} | {walk:.3f} s | {scan:.3f} s "
                    f"| {scan / walk:.2f}x | {plan:.3f} s |")
        print(rows[-1], flush=True)
    RESULTS.write_text("\n".join(rows) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
