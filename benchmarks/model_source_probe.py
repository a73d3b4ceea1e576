"""Issue 15: the model from jaxlib's bindings against the model read from the text.

The jaxlib path builds the core's model either by walking jaxlib's in-memory module through
the Python bindings (``ModuleAdapter.build``, 10-13 µs per op: every binding call makes a
Python object) or by reading the text jaxlib printed (:class:`.jax_text.TextModuleAdapter`,
the text route's reader). This benchmark times both on the same real JAX text
(:mod:`benchmarks.jax_modules`), alternating ``--reps`` runs, with the garbage collector
paused as in ``jax-donate-opt``, checks that the two models are equal, and times
``plan_donation`` on it (the core's cost, for scale). jaxlib's parse is not timed (the text
route runs it in a child, beside the reader).

Run: ``python benchmarks/model_source_probe.py [--layers 145 1450] [--reps 3]``; writes
``benchmarks/results/model_source_probe.md``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.jax_modules import train_step_text
from jax_use_donated.adapters.jax_text import TextModuleAdapter, read_module
from jax_use_donated.adapters.jaxlib_ir import ModuleAdapter
from jax_use_donated.analysis.model import FunctionModel
from jax_use_donated.analysis.plan import plan_donation
from jax_use_donated.opt.fronts import fix_locations, fix_op_locations
from jax_use_donated.opt.jaxlib_io import parse
from jax_use_donated.planning import gc_paused

RESULTS = Path(__file__).resolve().parent / "results" / "model_source_probe.md"


def _view(fn: FunctionModel) -> tuple[object, ...]:
    """What the rules read of a model, handles aside."""
    return ([(a.value, a.type_text, a.donation, a.placement, a.loc.name) for a in fn.args],
            [(op.name, op.operands, op.results, [t.text if t else None for t in op.result_types],
              sorted(op.region_uses), op.max_trips, op.call_forwards, op.target)
             for op in fn.ops],
            [(r.value, r.type_text, r.placement) for r in fn.results])


def probe(layers: int, reps: int) -> tuple[int, int, float, float, float]:
    """``(model ops, op lines, bindings s, text s, plan s)``, medians of ``reps``; raises
    when the two models differ."""
    path = train_step_text(layers)
    data = path.read_bytes()
    text = data.decode()
    module = parse(data)
    adapter = ModuleAdapter(module.operation)
    main_op = adapter.function("main")
    assert main_op is not None
    walk: list[float] = []
    read: list[float] = []
    plan: list[float] = []
    ops = lines = 0
    for _ in range(reps):
        with gc_paused():  # as jax-donate-opt runs
            t0 = time.perf_counter()
            fn = ModuleAdapter(module.operation).build(main_op)
            t1 = time.perf_counter()
            read_text = read_module(text)
            from_text = TextModuleAdapter(read_text).build(read_text.functions["main"])
            t2 = time.perf_counter()
            plan_donation(from_text, "dataflow")  # jax-plan-donation's defaults
            t3 = time.perf_counter()
        fix_locations(fn, main_op)
        fix_op_locations(fn, "loc(" in text)
        if _view(fn) != _view(from_text):
            raise AssertionError(f"{layers} layers: the text model differs from the bindings'")
        ops = len(fn.ops)
        lines = len(read_text.functions["main"].body or ())
        walk.append(t1 - t0)
        read.append(t2 - t1)
        plan.append(t3 - t2)
    return ops, lines, statistics.median(walk), statistics.median(read), statistics.median(plan)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--layers", type=int, nargs="+", default=[145, 1450])
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args(argv)
    rows = [
        "# The model from jaxlib's bindings against the model read from the text (issue 15)",
        "",
        f"Command: `python benchmarks/model_source_probe.py --layers "
        f"{' '.join(map(str, args.layers))} --reps {args.reps}`; medians; the two models "
        "are equal (checked).",
        "",
        "| layers | model ops | op lines | bindings | text | text/bindings | plan |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n in args.layers:
        ops, lines, walk, read, plan = probe(n, args.reps)
        rows.append(f"| {n} | {ops:,} | {lines:,} | {walk:.3f} s | {read:.3f} s "
                    f"| {read / walk:.2f}x | {plan:.3f} s |")
        print(rows[-1], flush=True)
    RESULTS.write_text("\n".join(rows) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
