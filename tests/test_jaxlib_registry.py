"""Our StableHLO, CHLO and Shardy dialects against the registry of the installed jaxlib.

Ops: exactly jaxlib's op set, up to the ops :data:`tests.jax_versions.OPS_SINCE` says an older
jaxlib lacks. Attributes and types: every attribute and type class jaxlib's Python bindings
expose for the dialect has a sample here, in jaxlib's own print; jaxlib reads each sample back
to that class and prints it unchanged, and we parse it and print the same characters. A class
a new jaxlib adds fails :func:`test_every_jaxlib_attribute_class_has_a_sample` by name.
"""

from __future__ import annotations

import importlib
from functools import cache
from io import StringIO
from typing import Any

import pytest
from jax._src.interpreters import mlir as jax_mlir
from jax._src.lib.mlir import ir  # pyright: ignore[reportPrivateImportUsage]
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin
from xdsl.ir import Dialect
from xdsl.parser import Parser
from xdsl.printer import Printer

from jax_use_donated.dialects import chlo, sdy
from jax_use_donated.dialects.stablehlo import StableHLO
from tests.jax_versions import JAXLIB, OPS_SINCE, jaxlib_has_op

DIALECTS: dict[str, Dialect] = {"stablehlo": StableHLO, "chlo": chlo.CHLO, "sdy": sdy.Sdy}

SAMPLES: dict[str, dict[str, str]] = {
    "stablehlo": {
        "AxisRefAttr": '#stablehlo.axis_ref<name = "y", sub_axis_info = (1)2>',
        "ChannelHandle": "#stablehlo.channel_handle<handle = 1, type = 1>",
        "ComparisonDirectionAttr": "#stablehlo<comparison_direction GT>",
        "ComparisonTypeAttr": "#stablehlo<comparison_type TOTALORDER>",
        "ConvDimensionNumbers": "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>",
        "DotAlgorithm": "#stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 3, allow_imprecise_accumulation = false>",
        "DotDimensionNumbers": "#stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>",
        "FftTypeAttr": "#stablehlo<fft_type RFFT>",
        "GatherDimensionNumbers": "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>",
        "MeshAttr": '#stablehlo.mesh<axes=[<name = "x", size = 2>, <name = "y", size = 2>], device_ids=dense<[3, 2, 1, 0]> : tensor<4xi64>>',
        "MeshAxisAttr": '#stablehlo.mesh_axis<name = "x", size = 4>',
        "OutputOperandAlias": "#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = [1]>",
        "PrecisionAttr": "#stablehlo<precision HIGHEST>",
        "ReplicaGroupMeshAxesAttr": '#stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<axes=[<name = "x", size = 4>, <name = "y", size = 2>]>, axes = [#stablehlo.axis_ref<name = "x">, #stablehlo.axis_ref<name = "y", sub_axis_info = (1)2>]>',
        "ResultAccuracyAttr": "#stablehlo.result_accuracy<atol = 1.000000e-05, ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>",
        "ResultAccuracyModeAttr": "#stablehlo.result_accuracy_mode<TOLERANCE>",
        "RngAlgorithmAttr": "#stablehlo<rng_algorithm PHILOX>",
        "RngDistributionAttr": "#stablehlo<rng_distribution NORMAL>",
        "ScatterDimensionNumbers": "#stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>",
        "SubAxisInfoAttr": "#stablehlo<sub_axis_info(1)2>",
        "TransposeAttr": "#stablehlo<transpose ADJOINT>",
        "TypeExtensions": "#stablehlo.bounds<8, ?>",
        "TokenType": "!stablehlo.token",
        "FutureType": "!stablehlo.future<tensor<4xf32>, tensor<2xi32>>",
    },
    "chlo": {
        "ComparisonDirectionAttr": "#chlo<comparison_direction GE>",
        "ComparisonTypeAttr": "#chlo<comparison_type FLOAT>",
        "PrecisionAttr": "#chlo<precision HIGH>",
        "RaggedDotDimensionNumbers": "#chlo.ragged_dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]>",
    },
    "sdy": {
        "AxisRefAttr": '#sdy<axis_ref"x":(1)2>',
        # jaxlib prints a lone dim mapping as `#sdy.dim_mappingij`, which it cannot read back:
        # it is sampled inside the tensor mapping it belongs to.
        "DimMappingAttr": "#sdy<tensor_mapping[ij, k]>",
        "DimensionShardingAttr": '#sdy<dimension_sharding{"x", ?}p1>',
        "ManualAxesAttr": '#sdy<manual_axes{"a", "b"}>',
        "MeshAttr": '#sdy.mesh<["a"=2, "b"=2], device_ids=[3, 2, 1, 0]>',
        "MeshAxisAttr": '#sdy<mesh_axis"x"=2>',
        "OpShardingRuleAttr": "#sdy.op_sharding_rule<([i, j], [j, k])->([i, k]) {i=2, j=4, k=8} reduction={j}, custom>",
        "SubAxisInfoAttr": "#sdy<sub_axis_info(1)2>",
        "TensorMappingAttr": "#sdy<tensor_mapping[i, z_1]>",
        "TensorShardingAttr": '#sdy.sharding<@mesh, [{"a":(1)2, "b"}p0, {?}], replicated={"c"}, unreduced={"d"}>',
        "TensorShardingPerValueAttr": '#sdy.sharding_per_value<[<@mesh, [{"a"}]>, <@maximal_mesh_0, []>]>',
    },
}
"""Per dialect: jaxlib binding class name -> a sample in jaxlib's print of that class."""

NESTED_ONLY: frozenset[tuple[str, str]] = frozenset({("sdy", "DimMappingAttr")})
"""Classes sampled inside another attribute (see the comment at their sample)."""


def _jaxlib_module(dialect: str) -> Any:
    return importlib.import_module(f"jaxlib.mlir.dialects.{dialect}")


def _jaxlib_ops(dialect: str) -> set[str]:
    return {
        v.OPERATION_NAME
        for v in vars(_jaxlib_module(dialect)).values()
        if isinstance(getattr(v, "OPERATION_NAME", None), str)
    }


def _jaxlib_attribute_classes(dialect: str) -> dict[str, type]:
    return {
        name: v
        for name, v in vars(_jaxlib_module(dialect)).items()
        if isinstance(v, type) and issubclass(v, ir.Attribute | ir.Type)
        and v not in (ir.Attribute, ir.Type)
    }


@cache
def _jax_ctx() -> ir.Context:
    return jax_mlir.make_ir_context()


@cache
def _ctx() -> Context:
    ctx = Context()
    ctx.load_dialect(Builtin)
    for d in DIALECTS.values():
        ctx.load_dialect(d)
    return ctx


@pytest.mark.parametrize("dialect", list(DIALECTS))
def test_every_jaxlib_op_is_defined(dialect: str) -> None:
    """Our ops are jaxlib's, except those the installed jaxlib is too old to register."""
    ours = {op.name for op in DIALECTS[dialect].operations}
    theirs = _jaxlib_ops(dialect)
    assert theirs - ours == set(), f"jaxlib {JAXLIB} registers ops we lack"
    newer = {name for name in ours if not jaxlib_has_op(name)}
    assert ours - theirs == newer, f"ops jaxlib {JAXLIB} does not register"
    assert newer <= set(OPS_SINCE)


def test_op_counts_per_jaxlib_version() -> None:
    """117 StableHLO ops up to jaxlib 0.11.0, 118 from 0.11.1 (``collective_reduce``), 121 from
    0.12.1 (``exp2``, ``fma``, ``log2``); 51 CHLO, 19 sdy."""
    expected = 117 + sum(since <= JAXLIB for since in OPS_SINCE.values())
    assert len(_jaxlib_ops("stablehlo")) == expected
    assert expected == (121 if JAXLIB >= (0, 12, 1) else 118 if JAXLIB >= (0, 11, 1) else 117)
    assert len(_jaxlib_ops("chlo")) == 51
    assert len(_jaxlib_ops("sdy")) == 19


@pytest.mark.parametrize("dialect", list(DIALECTS))
def test_every_jaxlib_attribute_class_has_a_sample(dialect: str) -> None:
    assert set(_jaxlib_attribute_classes(dialect)) == set(SAMPLES[dialect])


_CASES = [(d, name, text) for d, samples in SAMPLES.items() for name, text in samples.items()]


@pytest.mark.parametrize(("dialect", "cls_name", "text"), _CASES, ids=[f"{d}.{n}" for d, n, _ in _CASES])
def test_sample_prints_as_jaxlib_prints(dialect: str, cls_name: str, text: str) -> None:
    """jaxlib reads the sample as that class and prints it unchanged; so do we."""
    is_type = text.startswith("!")
    with _jax_ctx():
        theirs = ir.Type.parse(text) if is_type else ir.Attribute.parse(text)
        cls = _jaxlib_attribute_classes(dialect)[cls_name]
        assert (dialect, cls_name) in NESTED_ONLY or cls.isinstance(theirs)  # pyright: ignore[reportAttributeAccessIssue]
        assert str(theirs) == text
    parser = Parser(_ctx(), text)
    ours = parser.parse_type() if is_type else parser.parse_attribute()
    assert ours.name.split(".")[0] == dialect
    assert type(ours) in DIALECTS[dialect].attributes
    out = StringIO()
    Printer(stream=out).print_attribute(ours)
    assert out.getvalue() == text
