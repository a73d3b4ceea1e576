"""The jaxlib path's own steps (parse, model building with locations, rewrite, print) and the
text route's reader grow linearly: time per op at two module sizes within a factor (best of
three runs each, small modules). The planning core is measured by
``benchmarks/pass_scaling.py --end-to-end``."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from jax_use_donated.opt import jaxlib_path
from jax_use_donated.xdsl_plugin.plan_donation import JaxPlanDonation

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.pass_scaling import generate

FACTOR = 2.5
"""Allowed growth of the time per op from the small to the large module (1.0 = linear; a
quadratic step gives 8 at these sizes)."""


def _own_seconds(text: str) -> float:
    """Seconds of the driver's own steps on ``text``: everything but the core's planning."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        module = jaxlib_path.parse(text.encode())
        parsed = time.perf_counter()
        outcome = jaxlib_path.run_pipeline(module, [JaxPlanDonation()])
        printed_at = time.perf_counter()
        jaxlib_path.print_module(module)
        end = time.perf_counter()
        own = (parsed - start) + (printed_at - parsed - outcome.seconds["plan"]) + (
            end - printed_at)
        best = min(best, own)
    return best


def test_time_per_op_is_flat() -> None:
    small, _ = generate(1_000)
    large, _ = generate(8_000)
    per_op_small = _own_seconds(small) / small.count("\n")
    per_op_large = _own_seconds(large) / large.count("\n")
    assert per_op_large < FACTOR * per_op_small, (per_op_small, per_op_large)


def _reader_seconds(text: str) -> float:
    """Seconds of the text route's reader (:mod:`.adapters.jax_text`) on jaxlib's print of
    ``text``: the module read and every donated function's model built (best of three)."""
    from jax_use_donated.adapters import jax_text

    module = jaxlib_path.parse(text.encode())
    printed = module.operation.get_asm(enable_debug_info=True, assume_verified=True)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        read = jax_text.read_module(printed)
        adapter = jax_text.TextModuleAdapter(read)
        for fn in adapter.functions_with_donors():
            adapter.build(fn)
        best = min(best, time.perf_counter() - start)
    return best


def test_text_reader_time_per_op_is_flat() -> None:
    small, _ = generate(1_000)
    large, _ = generate(8_000)
    per_op_small = _reader_seconds(small) / small.count("\n")
    per_op_large = _reader_seconds(large) / large.count("\n")
    assert per_op_large < FACTOR * per_op_small, (per_op_small, per_op_large)
