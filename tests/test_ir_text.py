"""Reading and writing real JAX MLIR text with :mod:`jax_use_donated.xdsl_plugin.parser_printer`."""

from __future__ import annotations

import re
from collections.abc import Callable
from io import StringIO
from typing import Any

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    IntAttr,
    ModuleOp,
    NameLoc,
    StringAttr,
)
from xdsl.dialects.func import FuncOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError

from jax_use_donated.opt.driver import JaxDonateOptMain
from jax_use_donated.xdsl_plugin.parser_printer import (
    JaxTextPrinter,
    dense_float_bits,
    file_line_col_range,
    location_range_end,
    parse_module,
    print_module,
)

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


@pytest.fixture(scope="module")
def ctx() -> Context:
    """The driver's context: xDSL's dialects plus ours (StableHLO, CHLO, Shardy)."""
    context = JaxDonateOptMain(args=[]).ctx
    context.allow_unregistered = True
    return context


def _max_reduce(x: Any, y: Any) -> Any:
    return jnp.max(x, axis=0) + jnp.min(y), x * 2


def _relu_and_inf(x: Any, y: Any) -> Any:
    return jax.nn.relu(x) + y, jnp.where(x > 0, -jnp.inf, jnp.nan)


def _while_loop(x: Any, y: Any) -> Any:
    return jax.lax.fori_loop(0, 3, lambda i, c: c * y + jnp.max(c), x), y


PROGRAMS: dict[str, Callable[..., Any]] = {
    "max_reduce": _max_reduce,
    "relu_and_inf": _relu_and_inf,
    "while_loop": _while_loop,
}


def _lowered(fn: Callable[..., Any]) -> Any:
    x = jnp.ones((4, 4), jnp.float32)
    return jax.jit(fn, donate_argnums=(0, 1)).lower(x, x)


def _jaxlib_canonical(text: str) -> str:
    """jaxlib's own generic rendering of ``text`` without locations: equal strings mean equal
    programs (same ops, attributes, constants and types). All-empty ``arg_attrs``/``res_attrs``
    arrays mean the same as none (xDSL's pretty ``func.func`` omits them)."""
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir  # pyright: ignore[reportPrivateImportUsage]

    with mlir.make_ir_context():
        module = ir.Module.parse(text)
        assert module.operation.verify()
        asm = str(module.operation.get_asm(print_generic_op_form=True, enable_debug_info=False))
    return re.sub(r"(arg|res)_attrs = \[\{\}(, \{\})*\], ", "", asm)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("form", ["generic", "pretty"])
def test_jax_text_round_trips_through_jaxlib(ctx: Context, name: str, form: str) -> None:
    lowered = _lowered(PROGRAMS[name])
    if form == "pretty":
        text = lowered.as_text(debug_info=True)
    else:
        text = lowered.compiler_ir().operation.get_asm(print_generic_op_form=True,
                                                       enable_debug_info=True)
    assert "#loc" in text
    module = parse_module(ctx, text, f"{name}.mlir")
    for generic in (False, True):
        printed = print_module(module, dialects=ctx.loaded_dialects, debug_info=True,
                               generic=generic)
        assert "e+09" not in printed
        assert _jaxlib_canonical(printed) == _jaxlib_canonical(text)


def test_xdsl_builtin_parser_corrupts_hex_floats_and_ours_does_not(ctx: Context) -> None:
    src = '"test.op"() {v = dense<0xFF800000> : tensor<f32>} : () -> ()'
    upstream = Parser(ctx, src).parse_module()
    ours = parse_module(ctx, src)
    upstream_attr = upstream.body.block.first_op.attributes["v"]  # type: ignore[union-attr]
    ours_attr = ours.body.block.first_op.attributes["v"]  # type: ignore[union-attr]
    assert isinstance(upstream_attr, DenseIntOrFPElementsAttr)
    assert isinstance(ours_attr, DenseIntOrFPElementsAttr)
    assert dense_float_bits(upstream_attr) != [0xFF800000]  # the bug this module works around
    assert dense_float_bits(ours_attr) == [0xFF800000]
    assert "dense<0xFF800000> : tensor<f32>" in print_module(ours)


@pytest.mark.parametrize(
    ("literal", "type_", "bits"),
    [
        ("0xFF800000", "tensor<f32>", [0xFF800000]),
        ("[0x7FC00001, 0xFFF00000, 1.5]", "tensor<3xf32>", [0x7FC00001, 0xFFF00000, 0x3FC00000]),
        ("0x7E00", "tensor<2xf16>", [0x7E00, 0x7E00]),
        ("[0xFF80, 1.0]", "tensor<2xbf16>", [0xFF80, 0x3F80]),
        ("0xFFF0000000000000", "tensor<f64>", [0xFFF0000000000000]),
    ],
)
def test_hex_float_elements_keep_their_bits(ctx: Context, literal: str, type_: str,
                                            bits: list[int]) -> None:
    src = f'"test.op"() {{v = dense<{literal}> : {type_}}} : () -> ()'
    module = parse_module(ctx, src)
    attr = module.body.block.first_op.attributes["v"]  # type: ignore[union-attr]
    assert isinstance(attr, DenseIntOrFPElementsAttr)
    assert dense_float_bits(attr) == bits
    again = parse_module(ctx, print_module(module))
    again_attr = again.body.block.first_op.attributes["v"]  # type: ignore[union-attr]
    assert isinstance(again_attr, DenseIntOrFPElementsAttr)
    assert dense_float_bits(again_attr) == bits


def test_hex_integers_stay_integers(ctx: Context) -> None:
    module = parse_module(ctx, '"test.op"() {v = dense<0xFF> : tensor<i32>} : () -> ()')
    assert "dense<255> : tensor<i32>" in print_module(module)


def test_hex_float_too_wide_is_refused_not_altered(ctx: Context) -> None:
    with pytest.raises(ParseError, match="does not fit f32"):
        parse_module(ctx, '"test.op"() {v = dense<0x1FF800000> : tensor<f32>} : () -> ()')


def test_location_ranges_and_trailing_aliases(ctx: Context) -> None:
    src = """
    func.func @f(%a: tensor<4xf32> loc("a")) -> tensor<4xf32> {
      %0 = "test.op"(%a) : (tensor<4xf32>) -> tensor<4xf32> loc(#loc3)
      func.return %0 : tensor<4xf32> loc(#loc1)
    } loc(#loc1)
    #loc1 = loc("f.py":4:11 to :16)
    #loc2 = loc("f.py":9:1 to 10:2)
    #loc3 = loc(callsite(#loc1 at #loc2))
    """
    module = parse_module(ctx, src)
    func = module.body.block.first_op
    assert isinstance(func, FuncOp)
    assert func.location == FileLineColLoc(StringAttr("f.py"), IntAttr(4), IntAttr(11))
    op = func.body.block.first_op
    assert op is not None
    assert "callsite(" in str(op.location)
    assert isinstance(func.args[0].location, NameLoc)
    assert location_range_end(func.location) == (4, 16)
    printed = print_module(module, debug_info=True)
    assert 'loc(callsite("f.py":4:11 to :16 at "f.py":9:1 to 10:2))' in printed
    assert '} loc("f.py":4:11 to :16)' in printed
    assert "#loc" not in printed
    assert print_module(parse_module(ctx, printed), debug_info=True) == printed


@pytest.mark.parametrize(
    ("text", "end"),
    [
        ('"f.py":4:11 to :16', (4, 16)),
        ('"f.py":4:11 to 5:3', (5, 3)),
        ('"f.py":4:11', None),
    ],
)
def test_location_range_keeps_its_end_and_reads_as_its_start(ctx: Context, text: str,
                                                             end: tuple[int, int] | None) -> None:
    module = parse_module(ctx, f'"test.op"() : () -> () loc({text})')
    op = module.body.block.first_op
    assert op is not None
    # Everything reading locations (diagnostics) sees an ordinary point: the start.
    assert type(op.location) is FileLineColLoc
    assert op.location == FileLineColLoc(StringAttr("f.py"), IntAttr(4), IntAttr(11))
    assert location_range_end(op.location) == end
    assert f"loc({text})" in print_module(module, debug_info=True)
    assert f"loc({text})" in print_module(module, debug_info=True, generic=True)


def test_location_range_is_printed_as_mlir_does() -> None:
    same_line = file_line_col_range("f.py", 4, 11, 4, 16)
    assert location_range_end(same_line) == (4, 16)
    assert location_range_end(file_line_col_range("f.py", 4, 11, 4, 11)) is None  # a point
    assert location_range_end(FileLineColLoc(StringAttr("f.py"), IntAttr(4), IntAttr(11))) is None
    out = StringIO()
    JaxTextPrinter(stream=out).print_attribute(same_line)
    assert out.getvalue() == 'loc("f.py":4:11 to :16)'  # MLIR omits the end line if unchanged


def test_undefined_location_alias_is_a_parse_error(ctx: Context) -> None:
    with pytest.raises(ParseError, match="undefined location alias '#loc9'"):
        parse_module(ctx, '"test.op"() : () -> () loc(#loc9)')


def test_fused_location_with_metadata(ctx: Context) -> None:
    module = parse_module(ctx, '"test.op"() : () -> () loc(fused<"m">["a.py":1:2, "b.py":3:4])')
    printed = print_module(module, debug_info=True)
    assert 'loc(fused<"m">["a.py":1:2, "b.py":3:4])' in printed


def test_dialect_resources_survive_printing(ctx: Context) -> None:
    src = """
    "test.op"() {v = dense_resource<blob1> : tensor<2xf32>} : () -> ()
    {-#
      dialect_resources: {
        builtin: {
          blob1: "0x040000000000803F00000040"
        }
      }
    #-}
    """
    module = parse_module(ctx, src)
    assert isinstance(module, ModuleOp)
    printed = print_module(module, dialects=ctx.loaded_dialects)
    assert "dialect_resources" in printed
    assert 'blob1: "0x040000000000803F00000040"' in printed


# ------------------------------------------------------------------ multi-result result groups
def _two_results(x: Any, y: Any) -> Any:
    a = jax.lax.fori_loop(0, 3, lambda i, c: c * y + jnp.max(c), x)
    s1, s2 = jax.lax.sort((x[0], y[0]), num_keys=1)
    m, i = jax.lax.reduce((x, y), (-jnp.inf, 0.0),
                          lambda p, q: (jnp.maximum(p[0], q[0]), p[1] + q[1]), (0,))
    return a, s1, s2, m, i


def _ssa_neutral(text: str) -> list[str]:
    """``text``'s lines with SSA value and block names replaced (their numbering differs)."""
    text = text.replace('"builtin.module"', '"module"').replace("builtin.module", "module")
    text = text.replace("func.return", "return")
    return [re.sub(r"\^bb\d+", "^B", re.sub(r"%[\w$.]+", "%V", line))
            for line in text.splitlines()]


@pytest.mark.parametrize("generic", [False, True])
def test_multi_result_ops_print_as_jaxlib_does(ctx: Context, generic: bool) -> None:
    """while / sort / variadic reduce print ``%N:K = ...`` and are used as ``%N#i``; the text
    equals jaxlib's own print (locations with ranges included) up to SSA numbering."""
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir  # pyright: ignore[reportPrivateImportUsage]

    x = jnp.ones((4, 4), jnp.float32)
    text = jax.jit(_two_results).lower(x, x).compiler_ir().operation.get_asm(
        print_generic_op_form=generic, enable_debug_info=True)
    printed = print_module(parse_module(ctx, text), debug_info=True, generic=generic)
    assert re.search(r"%\d+:3 = \"?stablehlo\.while", printed)
    assert re.search(r"%\d+:2 = \"?stablehlo\.sort", printed)
    assert re.search(r"%\d+:2 = \"?stablehlo\.reduce", printed)
    assert re.search(r"return\"?[( ]%\d+#2, %\d+#0, %\d+#1, %\d+#0, %\d+#1", printed)
    assert " to :" in printed  # location ranges survive
    with mlir.make_ir_context() as context:
        context.allow_unregistered_dialects = False
        module = ir.Module.parse(printed)
        assert module.operation.verify()
        theirs = module.operation.get_asm(print_generic_op_form=generic, enable_debug_info=True,
                                          use_local_scope=True)
    assert _ssa_neutral(printed) == _ssa_neutral(str(theirs))


def test_result_group_names_and_distinct_hints(ctx: Context) -> None:
    src = """
    %0:2 = "test.op"() : () -> (i32, i32)
    %big:2 = "test.op"() : () -> (i32, i32)
    %a, %b = "test.op"() : () -> (i32, i32)
    "test.op"(%0#1, %0#0, %big#1, %b) : (i32, i32, i32, i32) -> ()
    %1 = "test.op"() : () -> i32
    """
    printed = print_module(parse_module(ctx, src), generic=True)
    assert '%0:2 = "test.op"() : () -> (i32, i32)' in printed
    assert '%big:2 = "test.op"()' in printed
    # Results named apart (as xDSL tests write them) keep their own names.
    assert '%a, %b = "test.op"()' in printed
    assert '"test.op"(%0#1, %0#0, %big#1, %b)' in printed
    # Later values keep xDSL's numbering (a group of K takes K numbers).
    assert '%2 = "test.op"() : () -> i32' in printed
    assert print_module(parse_module(ctx, printed), generic=True) == printed


# ------------------------------------------------------------------------- exact float spelling
_GENERIC_CONSTANTS = [
    "dense<0xFFFF> : tensor<f16>",
    "dense<[0x7C00, 0xFC00, 5.960460e-08, 3.332520e-01]> : tensor<4xf16>",
    "dense<[0x7FC00001, 1.500000e+00]> : tensor<2xf32>",
    "dense<[(0x7FC00000,-0.000000e+00), (1.500000e+00,2.000000e+00)]> : tensor<2xcomplex<f32>>",
    "dense<1.401300e-45> : tensor<f32>",
    "dense<3.40282347E+38> : tensor<f32>",
    "dense<0x4CEB79A3> : tensor<f32>",
    "dense<1.000440e-10> : tensor<3xbf16>",
    "dense<0xFF80> : tensor<bf16>",
    "dense<1.000000e-01> : tensor<f64>",
    "dense<0xFFF0000000000000> : tensor<f64>",
    "dense<2.000000e+00> : tensor<f8E4M3FN>",
    "dense<[1, -2]> : tensor<2xi32>",
    "dense<[true, false]> : tensor<2xi1>",
]


def _jaxlib_generic(text: str) -> str:
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir  # pyright: ignore[reportPrivateImportUsage]

    with mlir.make_ir_context() as context:
        context.allow_unregistered_dialects = True
        return str(ir.Module.parse(text).operation.get_asm(print_generic_op_form=True))


@pytest.mark.parametrize("literal", _GENERIC_CONSTANTS)
def test_generic_dense_attributes_print_bit_exactly_as_mlir(ctx: Context, literal: str) -> None:
    """Generic form goes through the attribute printer, not the constant op's: NaN payloads
    (f16 ``0xFFFF`` stays ``0xFFFF``, never ``0xFE00``) and MLIR's digits are kept."""
    src = f'"test.op"() {{v = {literal}}} : () -> ()'
    module = parse_module(ctx, src)
    printed = print_module(module, generic=True)
    assert f"{{v = {literal}}}" in printed
    assert printed.strip() == _jaxlib_generic(src).strip().replace('"module"', '"builtin.module"')
    attr = module.body.block.first_op.attributes["v"]  # type: ignore[union-attr]
    again = parse_module(ctx, printed).body.block.first_op.attributes["v"]  # type: ignore[union-attr]
    assert isinstance(attr, DenseIntOrFPElementsAttr)
    assert isinstance(again, DenseIntOrFPElementsAttr)
    assert again.data.data == attr.data.data


def test_float_attributes_use_mlir_spelling(ctx: Context) -> None:
    src = ('"test.op"() {a = 1.000000e-01 : f32, b = 9.997550e-02 : f16, c = 0x7F800000 : f32, '
           'd = array<f32: 1.500000e+00, 1.000000e-01>, e = 3.40282347E+38 : f32} : () -> ()')
    printed = print_module(parse_module(ctx, src), generic=True)
    assert src in printed
    assert printed.strip() == _jaxlib_generic(src).strip().replace('"module"', '"builtin.module"')
