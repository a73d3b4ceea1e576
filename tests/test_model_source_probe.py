"""The issue-15 probe's text scan reads what jaxlib reads: every op that has results (a
reduction printed as ``applies stablehlo.add`` holds one such op that has no line)."""

from __future__ import annotations

import sys
from pathlib import Path

from jax_use_donated.fast_path import parse

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.jax_modules import lower
from benchmarks.model_source_probe import text_scan


def _ops_with_results(text: str) -> int:
    module = parse(text.encode())
    count = 0

    def visit(op: object) -> None:
        nonlocal count
        operation = op.operation  # type: ignore[attr-defined]
        count += 1 if len(operation.results) else 0
        for region in operation.regions:
            for block in region.blocks:
                for inner in block.operations:
                    visit(inner)

    for op in module.body.operations:
        visit(op)
    return count


def test_text_scan_counts_the_ops_jaxlib_parses() -> None:
    text = lower(3)
    compact = text.count(" applies ")
    assert compact > 0
    assert text_scan(text) + compact == _ops_with_results(text) > 100


def test_text_scan_counts_multi_result_and_quoted_ops() -> None:
    text = """func.func @f(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0:2 = "test.pair"(%a) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %1 = stablehlo.add %0#0, %0#1 : tensor<2xf32>
  return %1, %0#1 : tensor<2xf32>, tensor<2xf32>
}"""
    assert text_scan(text) == 2
