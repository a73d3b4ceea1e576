"""The xDSL side of ``jax-reuse-donated-destinations``: facts read from linalg ops, errors."""

from __future__ import annotations

import pytest
from xdsl.context import Context
from xdsl.dialects.func import FuncOp
from xdsl.utils.exceptions import PassFailedException

from jax_use_donated.diagnostics import collect_diagnostics
from jax_use_donated.oracle.harness import xdsl_context
from jax_use_donated.xdsl_plugin.parser_printer import parse_module
from jax_use_donated.xdsl_plugin.reuse_donated_destinations import (
    JaxReuseDonatedDestinations,
    destination_facts,
)


def _ctx() -> Context:
    return xdsl_context()


GENERIC = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
func.func @f(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %e0 = tensor.empty() : tensor<4x4xf32>
  %e1 = tensor.empty() : tensor<4x4xf32>
  %r:2 = "linalg.generic"(%a, %b, %e0, %e1) <{indexing_maps = [#id, #tr, #id, #tr],
      iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>],
      operandSegmentSizes = array<i32: 2, 2>}> ({
  ^bb0(%x: f32, %y: f32, %o0: f32, %o1: f32):
    "linalg.yield"(%x, %y) : (f32, f32) -> ()
  }) : (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>)
      -> (tensor<4x4xf32>, tensor<4x4xf32>)
  %s = tensor.insert_slice %a into %b[0, 0] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<4x4xf32>
  %e2 = tensor.empty() : tensor<4x4xf32>
  %t = linalg.add ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e2 : tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %r#0, %s : tensor<4x4xf32>, tensor<4x4xf32>
}
"""


def test_destination_facts_of_linalg_and_tensor_ops() -> None:
    module = parse_module(_ctx(), GENERIC)
    func = next(o for o in module.walk() if isinstance(o, FuncOp))
    block = func.body.blocks.first
    assert block is not None
    facts = {op.name: destination_facts(op) for op in block.ops}
    # Two outputs with different maps: no input is read at the element of *every* output.
    assert facts["linalg.generic"] == ((2, 3), frozenset())
    assert facts["tensor.insert_slice"] == ((1,), frozenset())
    assert facts["linalg.add"] == ((2,), frozenset({0, 1}))
    assert facts["tensor.empty"] == ((), frozenset())


def test_malformed_donation_attribute_is_an_anchored_error() -> None:
    text = """
func.func @f(%a: tensor<4xf32> {jax.buffer_donor = 3 : i32}) -> tensor<4xf32> {
  func.return %a : tensor<4xf32>
}
"""
    ctx = _ctx()
    module = parse_module(ctx, text)
    with pytest.raises(PassFailedException, match=r"'jax\.buffer_donor' must be a boolean"):
        JaxReuseDonatedDestinations().apply(ctx, module)


def test_temporaries_option_moves_only_result_chains() -> None:
    text = """
func.func @f(%a: tensor<4xf32> {jax.buffer_donor = true}, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e0 = tensor.empty() : tensor<4xf32>
  %t = linalg.add ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e0 : tensor<4xf32>) -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %r = linalg.mul ins(%t, %b : tensor<4xf32>, tensor<4xf32>) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
"""
    counts = []
    for temporaries in (True, False):
        ctx = _ctx()
        module = parse_module(ctx, text)
        with collect_diagnostics():
            JaxReuseDonatedDestinations(temporaries=temporaries).apply(ctx, module)
        module.verify()
        counts.append(sum(op.name == "tensor.empty" for op in module.walk()))
    assert counts == [0, 1]
