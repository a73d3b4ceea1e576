"""``classify_all`` answers most ops without ``classify``: ops outside ``RULE_NAMES`` get
``NO_SEMANTICS`` and elementwise ops of equal name and types share one answer. These tests pin
that shortcut to ``classify`` itself, over every op name our dialects define."""

from __future__ import annotations

import itertools

import pytest

from jax_use_donated.analysis.model import Op, TensorInfo
from jax_use_donated.analysis.semantics import (
    NO_SEMANTICS,
    RULE_NAMES,
    classify,
    classify_all,
)
from jax_use_donated.dialects.chlo import CHLO
from jax_use_donated.dialects.sdy import Sdy
from jax_use_donated.dialects.stablehlo import StableHLO
from tests.model_builder import tensor

F32 = tensor("4x4")
I32 = tensor("4x4", "i32")
SCALAR = tensor("", "f32")
DIALECT_OP_NAMES = sorted(
    op.name for dialect in (StableHLO, CHLO, Sdy) for op in dialect.operations
)
TYPE_CHOICES: list[TensorInfo | None] = [F32, I32, SCALAR, None]


def _ops_named(name: str) -> list[Op]:
    """``name`` with 0-3 operands and 0-2 results over a few types (same, mixed, non-tensor)."""
    ops: list[Op] = []
    for n_operands, n_results in itertools.product(range(4), range(3)):
        for t in TYPE_CHOICES:
            operand_types = [t] * n_operands
            result_types = [t] * n_results
            ops.append(Op(len(ops), name, list(range(n_operands)),
                          list(range(10, 10 + n_results)), operand_types, result_types))
        if n_operands and n_results:
            ops.append(Op(len(ops), name, [0] * n_operands, list(range(10, 10 + n_results)),
                          [F32] * n_operands, [I32] * n_results))
    return ops


def test_the_dialects_define_the_names_we_test() -> None:
    assert "stablehlo.broadcast_in_dim" in DIALECT_OP_NAMES
    assert "chlo.erf" in DIALECT_OP_NAMES
    assert "sdy.sharding_constraint" in DIALECT_OP_NAMES
    assert len(DIALECT_OP_NAMES) > 150


@pytest.mark.parametrize("name", [n for n in DIALECT_OP_NAMES if n not in RULE_NAMES])
def test_every_name_outside_rule_names_has_no_semantics(name: str) -> None:
    for op in _ops_named(name):
        assert classify(op) is NO_SEMANTICS, (name, op.operand_types, op.result_types)


@pytest.mark.parametrize("name", [n for n in DIALECT_OP_NAMES if n in RULE_NAMES])
def test_classify_all_agrees_with_classify_on_rule_names(name: str) -> None:
    ops = _ops_named(name)
    assert classify_all(ops) == [classify(op) for op in ops]


def test_classify_all_keeps_the_exceptions_to_the_name_shortcut() -> None:
    """A summarised call, a destination-passing op and an op the IR library marks elementwise
    are classified by ``classify`` whatever their name."""
    call = Op(0, "func.call", [0, 1], [2], [F32, F32], [F32], call_forwards={0: (1,)})
    dps = Op(1, "linalg.generic", [0, 1], [3], [F32, F32], [F32], dps_inits=(1,))
    marked = Op(2, "mydialect.add", [0, 1], [4], [F32, F32], [F32], elementwise=True)
    plain = Op(3, "mydialect.add", [0, 1], [5], [F32, F32], [F32])
    sems = classify_all([call, dps, marked, plain])
    assert sems == [classify(op) for op in (call, dps, marked, plain)]
    assert sems[0].forwards == {0: (1,)}
    assert sems[1].in_place == {0: frozenset({1})}
    assert sems[2].in_place == {0: frozenset({0, 1})}
    assert sems[3] is NO_SEMANTICS


def test_elementwise_answers_are_shared_only_between_equal_types() -> None:
    same = [Op(i, "stablehlo.add", [0, 1], [2 + i], [F32, F32], [F32]) for i in range(2)]
    mixed = Op(2, "stablehlo.add", [0, 1], [4], [F32, I32], [F32])
    sems = classify_all([*same, mixed])
    assert sems[0] is sems[1]
    assert sems[2].in_place == {0: frozenset({0})}
    assert sems[0].in_place == {0: frozenset({0, 1})}
