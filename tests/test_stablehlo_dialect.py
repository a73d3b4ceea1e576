"""The StableHLO dialect: exact printing, traits, verifiers (completeness against the installed
jaxlib: ``tests/test_jaxlib_registry.py``)."""

from __future__ import annotations

import io
import random
import re
import struct
from pathlib import Path

import pytest
from jax._src.interpreters import mlir as jax_mlir
from jax._src.lib.mlir import ir  # pyright: ignore[reportPrivateImportUsage]
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException

from jax_use_donated.analysis.semantics import ELEMENTWISE_OPS
from jax_use_donated.dialects import get_all_dialects
from jax_use_donated.dialects.sdy import Sdy
from jax_use_donated.dialects.stablehlo import STABLEHLO_OPS, Elementwise, StableHLO
from jax_use_donated.dialects.stablehlo.float_format import FLOAT_FORMATS, format_float_bits
from tests.jax_versions import OPS_SINCE, jaxlib_has_op

LIT_DIR = Path(__file__).resolve().parent.parent / "lit_tests" / "dialects"
ROUNDTRIP_FILES = [
    "ops_elementwise.mlir", "ops_shape.mlir", "ops_constant.mlir", "ops_collectives.mlir",
    "ops_regions.mlir", "ops_compute.mlir", "ops_defaults.mlir",
]


@pytest.fixture(scope="module")
def jax_ctx() -> ir.Context:
    return jax_mlir.make_ir_context()


def _ctx() -> Context:
    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(Func)
    ctx.load_dialect(StableHLO)
    ctx.load_dialect(Sdy)  # sdy.mesh symbols for mesh-axes replica groups
    return ctx


def _xdsl_roundtrip(text: str) -> str:
    module = Parser(_ctx(), text).parse_module()
    module.verify()
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def _chunk_ops(chunk: str) -> set[str]:
    return set(re.findall(r"\bstablehlo\.[a-z0-9_-]+(?=[\"(\s])", chunk))


def _inputs(name: str) -> list[str]:
    """The ``// -----`` chunks of a lit round-trip file that hold StableHLO, less those using
    an op the installed jaxlib is too old to register (they cannot be compared with it)."""
    text = (LIT_DIR / name).read_text()
    chunks = [c for c in re.split(r"^// -----$", text, flags=re.M) if "stablehlo" in c]
    return [c for c in chunks if all(jaxlib_has_op(op) for op in _chunk_ops(c))]


def test_only_ops_newer_than_jaxlib_leave_chunks_out() -> None:
    """Every round-trip chunk is compared with jaxlib, except exactly the chunks of the ops the
    installed jaxlib predates (``collective_reduce`` before 0.11.1; ``exp2``, ``log2``, ``fma``
    before 0.12.1)."""
    left_out = {
        (name, op)
        for name in ROUNDTRIP_FILES
        for chunk in re.split(r"^// -----$", (LIT_DIR / name).read_text(), flags=re.M)
        if chunk not in _inputs(name)
        for op in _chunk_ops(chunk)
        if not jaxlib_has_op(op)
    }
    expected = {("ops_collectives.mlir" if op == "stablehlo.collective_reduce" else "ops_elementwise.mlir", op)
                for op in OPS_SINCE if not jaxlib_has_op(op)}  # fmt: skip
    assert left_out == expected


def test_get_all_dialects_is_lazy_and_builds_stablehlo() -> None:
    factories = get_all_dialects()
    assert set(factories) == {"stablehlo", "chlo", "sdy"}
    assert factories["stablehlo"]() is StableHLO


def test_elementwise_trait_matches_semantics_table() -> None:
    marked = {op.name for op in STABLEHLO_OPS if op.has_trait(Elementwise)}
    assert marked == set(ELEMENTWISE_OPS)


@pytest.mark.parametrize("name", ROUNDTRIP_FILES)
def test_roundtrip_equals_jaxlib(name: str, jax_ctx: ir.Context) -> None:
    """xDSL parse -> verify -> print, re-read by jaxlib, equals jaxlib's own print."""
    for chunk in _inputs(name):
        body = "\n".join(line for line in chunk.splitlines() if not line.lstrip().startswith("//"))
        reference = str(ir.Module.parse(body, context=jax_ctx))
        printed = _xdsl_roundtrip(body)
        assert str(ir.Module.parse(printed, context=jax_ctx)) == reference


def _op_lines(text: str) -> list[str]:
    """StableHLO op and region-header lines with result lists dropped and SSA names
    normalised (xDSL spells ``%0:2 = ``/``%0#1`` as ``%0, %1 = ``/``%1``)."""
    out: list[str] = []
    for line in text.splitlines():
        s = line.strip()
        if "stablehlo." not in s and not s.startswith(("^bb", "cond", "reducer", "} do")):
            continue
        head = s.split("stablehlo.", 1)[0]
        if " = " in head:
            s = s.split(" = ", 1)[1]
        out.append(re.sub(r"%[\w#]+", "%v", s))
    return out


@pytest.mark.parametrize("name", ROUNDTRIP_FILES)
def test_printed_text_equals_jaxlib_text(name: str, jax_ctx: ir.Context) -> None:
    """Op by op, xDSL prints the same characters as jaxlib (up to SSA names)."""
    for chunk in _inputs(name):
        body = "\n".join(line for line in chunk.splitlines() if not line.lstrip().startswith("//"))
        expected = _op_lines(str(ir.Module.parse(body, context=jax_ctx)))
        assert _op_lines(_xdsl_roundtrip(body)) == expected


def test_pretty_text_is_jaxlib_text_for_key_forms() -> None:
    cases = [
        "%0 = stablehlo.compare GT, %arg0, %arg0, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>",
        "%0 = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>",
        "%0 = stablehlo.dot_general %arg2, %arg2, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<1x4x4xf32>, tensor<1x4x4xf32>) -> tensor<1x4x4xf32>",
        "%0 = stablehlo.constant dense<0xFF800000> : tensor<f32>",
        "%0 = stablehlo.slice %arg0 [1:3:2] : (tensor<4xf32>) -> tensor<1xf32>",
    ]
    for line in cases:
        text = (
            "func.func @f(%arg0: tensor<4xf32>, %arg1: tensor<f32>, %arg2: tensor<1x4x4xf32>) {\n  "
            + line + "\n  return\n}"
        )
        assert line.split(" = ", 1)[1] in _xdsl_roundtrip(text)


def test_float_printing_matches_jaxlib_bit_for_bit(jax_ctx: ir.Context) -> None:
    """Random and special bit patterns of f32/f16/bf16/f64 print exactly as MLIR does."""
    rng = random.Random(0)
    specials = [0x0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7FC00001, 0x1, 0x7F7FFFFF,
                0x00800000, 0x3F800000, 0x3DCCCCCD, 0x4CEB79A3]
    cases = {
        "f32": specials + [rng.getrandbits(32) for _ in range(300)],
        "f16": [rng.getrandbits(16) for _ in range(200)] + [0x7C00, 0x1, 0x3C00],
        "bf16": [rng.getrandbits(16) for _ in range(200)] + [0xFF80, 0x1],
        "f64": [rng.getrandbits(64) for _ in range(200)] + [struct.unpack("<Q", struct.pack("<d", 0.1))[0]],
    }
    for name, bits_list in cases.items():
        fmt = FLOAT_FORMATS[name]
        lines = [
            f"  %{i} = stablehlo.constant dense<0x{b:0{fmt.width // 4}X}> : tensor<{name}>"
            for i, b in enumerate(bits_list)
        ]
        text = "func.func @f() {\n" + "\n".join(lines) + "\n  return\n}"
        jax_text = str(ir.Module.parse(text, context=jax_ctx))
        jax_values = re.findall(r"dense<([^>]*)>", jax_text)
        ours = [format_float_bits(b, fmt) for b in bits_list]
        assert ours == jax_values, name
        # and the xDSL round trip of the hex text keeps every bit
        assert re.findall(r"dense<([^>]*)>", _xdsl_roundtrip(text)) == jax_values


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("%0 = stablehlo.add %a, %b : (tensor<4xf32>, tensor<5xf32>) -> tensor<4xf32>",
         "requires the same shape"),
        ("%0 = stablehlo.transpose %a, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>",
         "result rank 2 differs from operand rank 1"),
        ("%0 = stablehlo.reshape %a : (tensor<4xf32>) -> tensor<3xf32>", "4 elements but result has 3"),
        ("%0 = stablehlo.select %a, %a, %a : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>",
         "pred must be a tensor of i1"),
        ("%0 = stablehlo.iota dim = 2 : tensor<4xf32>", "iota_dimension 2 is out of range"),
        ('%i = stablehlo.constant dense<[[0]]> : tensor<1x1xi32>\n  %0 = "stablehlo.gather"(%a, %i) '
         "<{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], "
         "index_vector_dim = 1>, slice_sizes = array<i64: 2>}> : (tensor<4xf32>, tensor<1x1xi32>) -> tensor<1xf32>",
         "collapsed dimension 0 must have slice size <= 1, got 2"),
        ("%0 = stablehlo.dynamic_slice %a, %a, sizes = [2] : (tensor<4xf32>, tensor<4xf32>) -> tensor<2xf32>",
         r"start index #0 must be a 0-d integer tensor, got tensor<4xf32>"),
    ],
)
def test_verifier_rejects(text: str, message: str) -> None:
    src = f"func.func @f(%a: tensor<4xf32>, %b: tensor<5xf32>) {{\n  {text}\n  return\n}}"
    module = Parser(_ctx(), src).parse_module()
    with pytest.raises(VerifyException, match=message):
        module.verify()


def test_parse_error_is_a_diagnostic() -> None:
    src = "func.func @f(%a: tensor<4xf32>) {\n  %0 = stablehlo.reduce_precision %a, format = bad : tensor<4xf32>\n  return\n}"
    with pytest.raises(ParseError, match="expected a format like e5m10"):
        Parser(_ctx(), src).parse_module()


@pytest.mark.parametrize("name", [f for f in ROUNDTRIP_FILES if f != "ops_constant.mlir"])
def test_generic_form_roundtrip(name: str, jax_ctx: ir.Context) -> None:
    """Generic form out of xDSL (``"stablehlo.add"(...) <{...}>``) is jaxlib's program.

    ``ops_constant.mlir`` is left out: xDSL's builtin generic attribute printer re-encodes
    some float payloads (f16 NaN ``0xFFFF``), which the pretty ``stablehlo.constant`` avoids.
    """
    for chunk in _inputs(name):
        body = "\n".join(line for line in chunk.splitlines() if not line.lstrip().startswith("//"))
        module = Parser(_ctx(), body).parse_module()
        out = io.StringIO()
        Printer(stream=out, print_generic_format=True).print_op(module)
        assert '"stablehlo.' in out.getvalue()
        back = Parser(_ctx(), out.getvalue()).parse_module()
        back.verify()
        reference = str(ir.Module.parse(body, context=jax_ctx))
        assert str(ir.Module.parse(out.getvalue(), context=jax_ctx)) == reference


def _module(body: str, args: str = "%a: tensor<4xf32>") -> ModuleOp:
    return Parser(_ctx(), f"func.func @f({args}) {{\n{body}\n  return\n}}").parse_module()


def test_compact_reduce_builds_the_body_op() -> None:
    from jax_use_donated.dialects.stablehlo.ops_elementwise import MaxOp
    from jax_use_donated.dialects.stablehlo.ops_regions import ReduceOp, ReturnOp

    m = _module(
        "  %0 = stablehlo.reduce(%a init: %s) applies stablehlo.maximum across dimensions = [0]"
        " : (tensor<4xf32>, tensor<f32>) -> tensor<f32>",
        "%a: tensor<4xf32>, %s: tensor<f32>",
    )
    m.verify()
    reduce = next(op for op in m.walk() if isinstance(op, ReduceOp))
    block = reduce.body.blocks.first
    assert block is not None
    inner, ret = list(block.ops)
    assert isinstance(inner, MaxOp) and isinstance(ret, ReturnOp)
    assert list(inner.operands) == list(block.args)
    assert list(ret.operands) == list(inner.results)


def test_non_commutative_reduce_prints_long_form() -> None:
    text = _xdsl_roundtrip(
        "func.func @f(%a: tensor<4xf32>, %s: tensor<f32>) {\n"
        "  %0 = stablehlo.reduce(%a init: %s) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>\n"
        "   reducer(%x: tensor<f32>, %y: tensor<f32>)  {\n"
        "    %d = stablehlo.subtract %x, %y : tensor<f32>\n"
        "    stablehlo.return %d : tensor<f32>\n  }\n  return\n}"
    )
    assert "applies" not in text
    assert " reducer(%x: tensor<f32>, %y: tensor<f32>)  {" in text


def test_traits_classify_ops() -> None:
    from xdsl.traits import Commutative, IsTerminator, Pure, is_side_effect_free

    from jax_use_donated.dialects.stablehlo.ops_collectives import CustomCallOp
    from jax_use_donated.dialects.stablehlo.ops_elementwise import AddOp, SubtractOp
    from jax_use_donated.dialects.stablehlo.ops_regions import ReturnOp, WhileOp

    assert AddOp.has_trait(Commutative) and not SubtractOp.has_trait(Commutative)
    assert AddOp.has_trait(Pure) and not WhileOp.has_trait(Pure)
    assert ReturnOp.has_trait(IsTerminator)
    m = _module(
        "  %0 = stablehlo.custom_call @pure(%a) : (tensor<4xf32>) -> tensor<4xf32>\n"
        "  %1 = stablehlo.custom_call @io(%a) {has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>"
    )
    pure_call, io_call = [op for op in m.walk() if isinstance(op, CustomCallOp)]
    assert is_side_effect_free(pure_call)
    assert not is_side_effect_free(io_call)


def test_bounded_dynamic_tensors() -> None:
    from jax_use_donated.dialects.stablehlo.types import tensor_bounds

    m = _module("  %0 = stablehlo.abs %a : tensor<?x4xf32, #stablehlo.bounds<8, ?>>",
                "%a: tensor<?x4xf32, #stablehlo.bounds<8, ?>>")
    m.verify()
    abs_op = next(op for op in m.walk() if op.name == "stablehlo.abs")
    assert tensor_bounds(abs_op.results[0].type) == (8, None)
    bad = _module("  %0 = stablehlo.abs %a : tensor<4xf32, #stablehlo.bounds<8>>",
                  "%a: tensor<4xf32, #stablehlo.bounds<8>>")
    with pytest.raises(VerifyException, match="static dimension 0 cannot have a bound"):
        bad.verify()


def test_tuple_and_token_ops() -> None:
    text = (
        "  %t = stablehlo.create_token : !stablehlo.token\n"
        "  %0 = stablehlo.tuple %a, %t : tuple<tensor<4xf32>, !stablehlo.token>\n"
        "  %1 = stablehlo.get_tuple_element %0[0] : (tuple<tensor<4xf32>, !stablehlo.token>) -> tensor<4xf32>"
    )
    _module(text).verify()
    bad = _module(text.replace("%0[0] :", "%0[1] :"))
    with pytest.raises(VerifyException, match="differs from element 1"):
        bad.verify()


_REDUCER = (
    "({\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n    %s = stablehlo.add %x, %y : tensor<f32>\n"
    "    stablehlo.return %s : tensor<f32>\n  })"
)


def _all_reduce(groups: str) -> str:
    return (f'%0 = "stablehlo.all_reduce"(%a) <{{replica_groups = {groups}}}> {_REDUCER} '
            ": (tensor<4xf32>) -> tensor<4xf32>")


def _collective_reduce(operands: str, props: str, types: str, results: str = "%0 = ") -> str:
    return (f'{results}"stablehlo.collective_reduce"({operands}) <{{replica_groups = dense<[[0, 1]]> '
            f": tensor<1x2xi64>{props}}}> {_REDUCER} : {types}")


_MESH = '#stablehlo.mesh<axes=[<name = "x", size = 4>]>'
_MESH_AXES_REJECTED = [
    (_all_reduce('#stablehlo.replica_group_mesh_axes<mesh = @nope, axes = [#stablehlo.axis_ref<name = "x">]>'),
     "mesh symbol 'nope' not found"),
    (_all_reduce(f'#stablehlo.replica_group_mesh_axes<mesh = {_MESH}, axes = [#stablehlo.axis_ref<name = "q">]>'),
     "axis 'q' not found in mesh definition"),
    (_all_reduce(f"#stablehlo.replica_group_mesh_axes<mesh = {_MESH}, axes = [1]>"),
     "expected #stablehlo.axis_ref in axes"),
    (_all_reduce("#stablehlo.replica_group_mesh_axes<mesh = @m::@n, axes = []>"),
     "mesh must be a flat symbol reference or a #stablehlo.mesh"),
    (_all_reduce('#stablehlo.replica_group_mesh_axes<mesh = "m", axes = []>'),
     "mesh must be a flat symbol reference or a #stablehlo.mesh"),
    (_all_reduce("#stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<axes=[]>, axes = []>"),
     "'<' expected"),
    (_all_reduce("#stablehlo.replica_group_mesh_axes<mesh = @m>"), "missing field 'axes'"),
    (_collective_reduce("%a", "", "(tensor<4xf32>) -> tensor<8xf32>"),
     "result types tensor<8xf32> differ from its data operands' tensor<4xf32>"),
    (_collective_reduce("%a, %r", ", has_dynamic_root", "(tensor<4xf32>, tensor<i32>) -> tensor<4xf32>"),
     "the last operand must be tensor<1xi32>, got tensor<i32>"),
    (_collective_reduce("", "", "() -> ()", results=""), "requires at least one data operand"),
]


@pytest.mark.parametrize(("text", "message"), _MESH_AXES_REJECTED)
def test_mesh_axes_and_collective_reduce_rejected_like_jaxlib(
    text: str, message: str, jax_ctx: ir.Context
) -> None:
    """What jaxlib refuses, we refuse, with the reason named."""
    src = (f"sdy.mesh @m = <[\"x\"=4]>\nfunc.func @f(%a: tensor<4xf32>, %r: tensor<i32>) {{\n  {text}\n"
           "  return\n}")
    if "collective_reduce" not in text or jaxlib_has_op("stablehlo.collective_reduce"):
        with pytest.raises(ir.MLIRError):
            ir.Module.parse(src, context=jax_ctx)
    with pytest.raises((ParseError, VerifyException), match=re.escape(message)):
        Parser(_ctx(), src).parse_module().verify()


def test_mesh_symbol_groups_accepted_like_jaxlib(jax_ctx: ir.Context) -> None:
    """jaxlib checks only that a mesh symbol resolves (any symbol), not the axes named."""
    text = _all_reduce('#stablehlo.replica_group_mesh_axes<mesh = @m, axes = [#stablehlo.axis_ref<name = "q">]>')
    for decl in ('sdy.mesh @m = <["x"=4]>', "func.func private @m()"):
        src = f"{decl}\nfunc.func @f(%a: tensor<4xf32>) {{\n  {text}\n  return\n}}"
        ir.Module.parse(src, context=jax_ctx)
        Parser(_ctx(), src).parse_module().verify()


def test_collective_reduce_is_kept_and_not_elementwise() -> None:
    """Like the other collectives: effects unknown (never removed as dead), not elementwise."""
    from xdsl.traits import is_side_effect_free

    from jax_use_donated.dialects.stablehlo.ops_collectives import AllReduceOp, CollectiveReduceOp

    m = _module(_collective_reduce("%a", "", "(tensor<4xf32>) -> tensor<4xf32>"))
    m.verify()
    op = next(o for o in m.walk() if isinstance(o, CollectiveReduceOp))
    assert not is_side_effect_free(op)
    assert not CollectiveReduceOp.has_trait(Elementwise) and not AllReduceOp.has_trait(Elementwise)
