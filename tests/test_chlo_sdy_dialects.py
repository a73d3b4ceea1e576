"""CHLO and Shardy dialects: traits the donation pass relies on, and the parts of their syntax
that are easy to get subtly wrong (factor names, stripped shardings, priorities, sub-axes).
Completeness against the installed jaxlib: ``tests/test_jaxlib_registry.py``."""

from __future__ import annotations

import re
from functools import cache
from io import StringIO
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, Builtin, IntAttr
from xdsl.dialects.func import Func
from xdsl.ir import Attribute
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, IsTerminator, Pure
from xdsl.utils.exceptions import VerifyException

from jax_use_donated.dialects import chlo, sdy
from jax_use_donated.dialects.stablehlo.traits import Elementwise


def test_traits_for_in_place_classification() -> None:
    assert chlo.ErfOp.has_trait(Elementwise) and chlo.ErfOp.has_trait(Pure)
    assert chlo.IsInfOp.has_trait(Elementwise)
    assert chlo.NextAfterOp.has_trait(Elementwise)
    # Broadcasting ops are element-wise only after broadcasting: never plain Elementwise.
    assert chlo.BroadcastAddOp.has_trait(chlo.BroadcastingElementwise)
    assert not chlo.BroadcastAddOp.has_trait(Elementwise)
    assert not chlo.TopKOp.has_trait(Elementwise)
    assert sdy.ShardingConstraintOp.has_trait(Elementwise)
    assert sdy.ReshardOp.has_trait(Elementwise) and sdy.ReshardOp.has_trait(Pure)
    assert not sdy.ShardingConstraintOp.has_trait(Pure)  # it constrains propagation: keep it
    assert sdy.ManualComputationOp.has_trait(IsolatedFromAbove)
    assert sdy.ReturnOp.has_trait(IsTerminator)


@pytest.mark.parametrize("index", range(40))
def test_factor_symbols_round_trip(index: int) -> None:
    symbol = sdy.factor_symbol(index)
    assert sdy.parse_factor_symbols(symbol) == [index]
    assert sdy.parse_factor_symbols(symbol + sdy.factor_symbol(index + 1)) == [index, index + 1]


def test_factor_symbols_match_shardy() -> None:
    assert [sdy.factor_symbol(i) for i in (0, 1, 17, 18, 19)] == ["i", "j", "z", "z_1", "z_2"]
    assert sdy.parse_factor_symbols("zz_1") == [17, 18]
    assert sdy.parse_factor_symbols("z_8z_9z_10") == [25, 26, 27]
    assert sdy.parse_factor_symbols("ab") is None


@cache
def _ctx() -> Context:
    ctx = Context()
    for d in (Builtin, Func, chlo.CHLO, sdy.Sdy):
        ctx.load_dialect(d)
    return ctx


def _attr(text: str) -> Attribute:
    return Parser(_ctx(), text).parse_attribute()


def _str(attr: Attribute) -> str:
    out = StringIO()
    Printer(stream=out).print_attribute(attr)
    return out.getvalue()


@pytest.mark.parametrize(
    "text",
    [
        '#sdy.sharding<@mesh, [{"a", ?}p1, {?}], replicated={"b"}>',
        '#sdy.sharding<@mesh, [{"a":(1)2, "b"}p0, {}], unreduced={"c"}>',
        '#sdy.sharding<mesh<["x"=2, "y"=2]>, []>',
        '#sdy.sharding_per_value<[<@mesh, [{"a"}]>, <@maximal_mesh_0, []>]>',
        '#sdy.mesh<["a"=2, "b"=2], device_ids=[3, 2, 1, 0]>',
        "#sdy.op_sharding_rule<([i, j], [j, k])->([i, k]) {i=2, j=4, k=8} reduction={j}, custom>",
        "#sdy.op_sharding_rule<([], [])->([])>",
        '#sdy<manual_axes{"a", "b"}>',
        '#sdy<list_of_axis_ref_lists[{}, {"a":(2)2}]>',
        '#sdy<all_to_all_param_list[{"a"}: 0->1, {"b"}: 2->3]>',
        "#chlo<comparison_direction GE>",
        "#chlo.ragged_dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]>",
    ],
)
def test_attribute_syntax_round_trips(text: str) -> None:
    assert _str(_attr(text)) == text


def test_sharding_attribute_structure() -> None:
    attr = _attr('#sdy.sharding<@mesh, [{"a":(1)2, "b"}p3, {?}], replicated={"c"}>')
    assert isinstance(attr, sdy.TensorShardingAttr)
    first, second = attr.dim_shardings.data
    assert first.closed and first.priority == IntAttr(3)
    assert [a.axis_name.data for a in first.axes.data] == ["a", "b"]
    assert isinstance(first.axes.data[0].sub_axis_info, sdy.SubAxisInfoAttr)
    assert not second.closed and not second.axes.data


def test_manual_computation_local_shape_with_sub_axes() -> None:
    text = """
    sdy.mesh @mesh = <["a"=8, "b"=2]>
    func.func @f(%x: tensor<16x6xf32>) -> tensor<16x6xf32> {
      %0 = sdy.manual_computation(%x) in_shardings=[<@mesh, [{"a":(1)4, "b"}, {}]>] out_shardings=[<@mesh, [{"a":(1)4, "b"}, {}]>] manual_axes={"a"} (%arg1: tensor<4x6xf32>) {
        sdy.return %arg1 : tensor<4x6xf32>
      } : (tensor<16x6xf32>) -> tensor<16x6xf32>
      func.return %0 : tensor<16x6xf32>
    }
    """
    Parser(_ctx(), text).parse_module().verify()
    bad = text.replace("tensor<4x6xf32>", "tensor<2x6xf32>")
    with pytest.raises(VerifyException, match=r"expected shape \[4, 6\]"):
        Parser(_ctx(), bad).parse_module().verify()


def test_broadcast_shapes_follow_numpy_and_broadcast_dimensions() -> None:
    ok = """
    func.func @f(%a: tensor<4x1xf32>, %b: tensor<8xf32>, %c: tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
      %0 = chlo.broadcast_add %a, %b : (tensor<4x1xf32>, tensor<8xf32>) -> tensor<4x8xf32>
      %1 = chlo.broadcast_add %0, %c {broadcast_dimensions = array<i64: 0>} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
      func.return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
    }
    """
    Parser(_ctx(), ok).parse_module().verify()
    with pytest.raises(VerifyException, match="cannot broadcast dimensions 8 and 4"):
        Parser(_ctx(), ok.replace("array<i64: 0>", "array<i64: 1>")).parse_module().verify()


# ----------------------------------------------------------------------------- properties
_axis_names = st.sampled_from(["a", "b", "x", "y", "data", "model"])


@st.composite
def _axis_refs(draw: st.DrawFn) -> sdy.AxisRefAttr:
    name = draw(_axis_names)
    if draw(st.booleans()):
        return sdy.AxisRefAttr(name)
    return sdy.AxisRefAttr(name, (draw(st.sampled_from([1, 2, 4])), draw(st.sampled_from([2, 4]))))


@st.composite
def _shardings(draw: st.DrawFn) -> sdy.TensorShardingAttr:
    dims = [
        sdy.DimensionShardingAttr(
            draw(st.lists(_axis_refs(), max_size=3)),
            is_closed=draw(st.booleans()),
            priority=draw(st.none() | st.integers(0, 9)),
        )
        for _ in range(draw(st.integers(0, 4)))
    ]
    mesh: str | sdy.MeshAttr = draw(st.sampled_from(["mesh", "maximal_mesh_0"]))
    if draw(st.booleans()):
        mesh = sdy.MeshAttr([(n, 8) for n in ("a", "b", "x", "y", "data", "model")])
    replicated = draw(st.lists(_axis_refs(), max_size=2))
    unreduced = draw(st.lists(_axis_refs(), max_size=2))
    try:
        return sdy.TensorShardingAttr.get(mesh, dims, replicated, unreduced)
    except VerifyException:  # an axis used twice, or a sub-axis that does not fit
        assume(False)
        raise


@settings(max_examples=80, deadline=None)
@given(_shardings())
def test_sharding_print_parse_is_identity(sharding: sdy.TensorShardingAttr) -> None:
    text = _str(sharding)
    assert _attr(text) == sharding, text
    per_value = sdy.TensorShardingPerValueAttr(ArrayAttr([sharding, sharding]))
    assert _attr(_str(per_value)) == per_value


@st.composite
def _rules(draw: st.DrawFn) -> str:
    n = draw(st.integers(0, 24))
    factors = list(range(n))

    def mapping() -> str:
        if not factors:
            return "[]"
        dims = draw(
            st.lists(st.lists(st.sampled_from(factors), min_size=1, max_size=3), max_size=4)
        )
        return "[" + ", ".join("".join(sdy.factor_symbol(f) for f in d) for d in dims) + "]"

    operands = ", ".join(mapping() for _ in range(draw(st.integers(1, 3))))
    results = ", ".join(mapping() for _ in range(draw(st.integers(1, 2))))
    text = f"#sdy.op_sharding_rule<({operands})->({results})"
    if n:
        text += (
            " {"
            + ", ".join(f"{sdy.factor_symbol(i)}={draw(st.integers(1, 64))}" for i in factors)
            + "}"
        )
        special = draw(st.permutations(factors))
        for key, chunk in zip(
            ("reduction", "need_replication", "permutation"),
            (special[:2], special[2:3], special[3:4]),
            strict=True,
        ):
            if chunk and draw(st.booleans()):
                text += f" {key}={{" + ", ".join(sdy.factor_symbol(f) for f in sorted(chunk)) + "}"
    if draw(st.booleans()):
        text += ", custom"
    return text + ">"


@settings(max_examples=80, deadline=None)
@given(_rules())
def test_sharding_rule_print_is_exact(text: str) -> None:
    attr = _attr(text)
    assert isinstance(attr, sdy.OpShardingRuleAttr)
    assert _str(attr) == text


# ----------------------------------------------------------------------------- exact syntax
_LIT = Path(__file__).resolve().parent.parent / "lit_tests" / "dialects"
_OP_LINE = re.compile(r'^(?:%[\w#:, %]+ = )?("?(?:chlo|sdy)\..*)$')
_SSA = re.compile(r"%[\w#]+")


def _op_lines(text: str) -> list[str]:
    """The chlo/sdy op lines of ``text``, SSA names replaced (printer naming is not syntax)."""
    out = []
    for line in text.splitlines():
        m = _OP_LINE.match(line.strip())
        if m:
            out.append(_SSA.sub("%_", m.group(1)))
    return out


@pytest.mark.parametrize("name", ["chlo_ops.mlir", "sdy_ops.mlir"])
def test_op_syntax_is_exactly_mlirs(name: str) -> None:
    """Every CHLO/Shardy op line we print is character-for-character jaxlib's print."""
    from tests.corpus.roundtrip import jaxlib_print, parse, print_text

    reference = jaxlib_print((_LIT / name).read_text())
    ours = print_text(parse(reference))
    expected, got = _op_lines(reference), _op_lines(ours)
    assert len(expected) > 20
    assert got == expected
