"""Reading and writing real JAX MLIR text with xDSL 0.75, without changing its meaning.

JAX's ``lowered.as_text(debug_info=True)`` uses syntax xDSL's builtin parser rejects or, worse,
misreads. :class:`JaxTextParser` extends xDSL's :class:`~xdsl.parser.Parser` (no text rewriting):

* location ranges ``loc("f.py":4:11 to :16)`` / ``loc("f.py":4:11 to 5:2)`` are read as an
  ordinary ``FileLineColLoc`` for their start (what diagnostics and the adapters see; xDSL 0.75
  has no range location, and code matching ``type(loc) is FileLineColLoc`` would miss a new
  class); the end is remembered in a side table keyed by that attribute object
  (:func:`location_range_end`, held weakly) and :class:`JaxTextPrinter` prints the range again.
  A location rebuilt from its fields (``FileLineColLoc(...)``) is a point; a plain xDSL
  ``Printer`` prints the start only;
* ``fused<metadata>[...]`` locations keep their metadata;
* ``#loc`` aliases used before their definition (JAX prints most of them after the module) are
  parsed as placeholders and resolved once the whole input is read; an alias never defined is
  a parse error;
* an input with no operation (empty, whitespace, comments) is an empty module, as in
  ``mlir-opt``; xDSL refuses it;
* ``func.func`` declarations keep their argument attributes in MLIR's unnamed form
  ``func.func private @f(tensor<4xf32> {jax.buffer_donor = true})`` (xDSL drops them);
* an unregistered op in the custom (pretty) form, read with ``--allow-unregistered-dialect``,
  is reported by name (xDSL says ``Operation builtin.unregistered does not have a custom
  format``);
* block labels: a second definition of a forward-referenced block is a located error, and
  numeric labels (``^4:``) are read (xDSL raises ``KeyError`` and ``ValueError``);
* hex-float elements in dense literals (``dense<0xFF800000> : tensor<f32>``, i.e. ``-inf``)
  are read as bit patterns, as MLIR does; xDSL reads them as the integer 4286578688. Literals
  xDSL cannot read at all (f16 ``0x7C00``, hex inside complex pairs) are read with the StableHLO
  dialect's exact dense parser. Floats whose bits cannot be represented exactly are refused
  with an error, never altered.

:class:`JaxTextPrinter` prints as MLIR does where xDSL's printer differs: result groups
``%0:2 = stablehlo.while(...)`` used as ``%0#1`` (a group of K results takes K numbers, so later
values keep xDSL's numbering), ``func.func`` declarations with their argument and result
attributes (xDSL drops them), and floats and ``dense<...>`` attributes spelled bit-exactly from
their bits by :mod:`jax_use_donated.dialects.stablehlo.float_format` in generic form too (NaN payloads kept).
:func:`print_module` prints the ``dialect_resources`` section too (``Printer.print_op`` alone
drops it).
"""

from __future__ import annotations

import functools
import math
import re
import struct
import weakref
from collections.abc import Iterable, Sequence
from io import StringIO
from typing import IO, cast

from xdsl.context import Context
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    BFloat16Type,
    BytesAttr,
    CallSiteLoc,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FileLineColLoc,
    Float16Type,
    Float32Type,
    Float64Type,
    FunctionType,
    FusedLoc,
    IntAttr,
    LocationAttr,
    ModuleOp,
    NameLoc,
    NoneAttr,
    RankedStructure,
    StringAttr,
    TensorType,
    UnknownLoc,
    UnregisteredOp,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Dialect, Operation, TypeAttribute
from xdsl.parser import Parser
from xdsl.parser.generic_parser import ParserState
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError
from xdsl.utils.hints import isa
from xdsl.utils.lexer import Input, Span
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from jax_use_donated.dialects.stablehlo.constant import (
    dense_text,
    float_format_of,
    parse_dense_attr,
)
from jax_use_donated.dialects.stablehlo.float_format import float_to_bits, format_float_bits


class _JaxLexer(MLIRLexer):
    """xDSL's lexer with a string-literal regex that fails in linear time.

    xDSL 0.75's regex nests quantifiers (``(?:[^"...]+|...)*``): on an unterminated literal it
    backtracks exponentially (a 30-character tail takes minutes; found by
    benchmarks/fuzz_driver.py; docs/xdsl_bugs.md). The same pattern with possessive
    quantifiers matches exactly the same literals (the alternatives start with disjoint
    characters). Only :class:`JaxTextParser` uses it: xDSL's own lexer is left unchanged."""

    _unescaped_characters_regex = re.compile(
        r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"'
    )

_PENDING_PREFIX = "\x00pending-loc:"
"""Description of the placeholder :class:`NameLoc` standing for a not-yet-defined alias."""


class _HexBits(int):
    """An integer literal written in hex, kept apart so float elements can use its bits."""


class HexFloatError(ValueError):
    """A hex literal that cannot be stored as the float type's bits."""


def _float_bits_to_bytes(element_type: Attribute, value: float | int) -> bytes:
    """Little-endian bytes of one float element (``_HexBits`` are raw bit patterns)."""
    widths = {Float16Type: 2, BFloat16Type: 2, Float32Type: 4, Float64Type: 8}
    width = widths.get(type(element_type))
    if width is None:
        raise HexFloatError(f"hex float literals are not supported for {element_type}")
    if isinstance(value, _HexBits):
        if value < 0 or value >= 1 << (8 * width):
            raise HexFloatError(f"hex literal 0x{int(value):X} does not fit {element_type}")
        return int(value).to_bytes(width, "little")
    if isinstance(element_type, BFloat16Type):
        bits32 = struct.unpack("<I", struct.pack("<f", float(value)))[0]
        rounded = (bits32 + 0x7FFF + ((bits32 >> 16) & 1)) >> 16
        return rounded.to_bytes(2, "little")
    fmt = {2: "<e", 4: "<f", 8: "<d"}[width]
    return struct.pack(fmt, float(value))


_RANGE_ENDS: dict[int, tuple[weakref.ref[FileLineColLoc], int, int]] = {}
"""End (line, column) of the :class:`FileLineColLoc` objects that stand for a range, by
``id``; each entry holds its location weakly and disappears with it."""


def file_line_col_range(filename: str, line: int, column: int, end_line: int,
                        end_column: int) -> FileLineColLoc:
    """``loc("f.py":4:11 to 5:3)``: a new :class:`FileLineColLoc` for the start whose end is
    remembered for printing (:func:`location_range_end`). An empty range is the plain point, as
    in MLIR. Everything that reads locations sees an ordinary ``FileLineColLoc``."""
    loc = FileLineColLoc(StringAttr(filename), IntAttr(line), IntAttr(column))
    if (end_line, end_column) != (line, column):
        key = id(loc)
        ref = weakref.ref(loc, lambda _: _RANGE_ENDS.pop(key, None))
        _RANGE_ENDS[key] = (ref, end_line, end_column)
    return loc


def location_range_end(loc: Attribute) -> tuple[int, int] | None:
    """The (line, column) where the range ``loc`` ends, or ``None`` for anything else."""
    if type(loc) is not FileLineColLoc:
        return None
    entry = _RANGE_ENDS.get(id(loc))
    if entry is None or entry[0]() is not loc:
        return None
    return entry[1], entry[2]


_PLAIN_TENSOR_TYPE = re.compile(r"tensor<(?:(?:\d+|\?)x)*[A-Za-z][A-Za-z0-9]*>")
"""A ranked tensor type with no encoding and a builtin element type, as JAX prints most."""


class JaxTextParser(Parser):
    """xDSL's parser, extended for the MLIR text JAX prints (see the module docstring)."""

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>") -> None:
        super().__init__(ctx, "", name)  # xDSL's lexer reads nothing, then ours takes over
        text = input.decode("utf-8") if isinstance(input, bytes) else input
        self._resume_from(ParserState(_JaxLexer(Input(text, name))))
        self._pending: dict[str, Span] = {}
        self._dense_elements: list[AttrParserElement] | None = None
        self._exact_dense = False
        self._custom_op_name: Span | None = None
        """The name token of the operation being read in the custom form (else ``None``)."""
        self._tensor_types: dict[str, TypeAttribute] = {}
        """Plain tensor types read so far, by their text (:meth:`parse_optional_type`)."""

    # --------------------------------------------------------------------------------- types
    def parse_optional_type(self) -> TypeAttribute | None:
        """xDSL's type parser, with plain tensor types (``tensor<64x64xf32>``, no encoding,
        builtin element type: :data:`_PLAIN_TENSOR_TYPE`) read once per distinct text: a
        train step spells a few dozen types tens of thousands of times, and xDSL's type
        parser was 40% of its parse. Types are values, so every op may share one object."""
        token = self._current_token
        if token.kind != MLIRTokenKind.BARE_IDENT or token.text != "tensor":
            return super().parse_optional_type()
        start = token.span.start
        m = _PLAIN_TENSOR_TYPE.match(self.lexer.input.content, start)
        if m is None:
            return super().parse_optional_type()
        text = m.group()
        known = self._tensor_types.get(text)
        if known is not None:
            self._resume_from(m.end())
            return known
        parsed = super().parse_optional_type()
        if parsed is not None and self._current_token.span.start >= m.end() and not (
                self.lexer.input.content[m.end():self._current_token.span.start].strip()):
            self._tensor_types[text] = parsed
        return parsed

    # ----------------------------------------------------------------------------- locations
    def _parse_location(self) -> LocationAttr:
        token = self._current_token
        if token.kind == MLIRTokenKind.HASH_IDENT and token.text not in self.attribute_aliases:
            self._consume_token(MLIRTokenKind.HASH_IDENT)
            self._pending.setdefault(token.text, token.span)
            return NameLoc(StringAttr(_PENDING_PREFIX + token.text), NoneAttr())
        if token.kind == MLIRTokenKind.STRING_LIT:
            pos = token.span.start
            filename = self.parse_str_literal()
            if self.parse_optional_punctuation(":") is None:
                self._resume_from(pos)
                return super()._parse_location()
            line = self.parse_integer(False, False)
            self.parse_punctuation(":")
            col = self.parse_integer(False, False)
            if self.parse_optional_keyword("to") is None:
                return FileLineColLoc(StringAttr(filename), IntAttr(line), IntAttr(col))
            end_line = line
            if self.parse_optional_punctuation(":") is None:
                end_line = self.parse_integer(False, False)
                self.parse_punctuation(":")
            end_col = self.parse_integer(False, False)
            return file_line_col_range(filename, line, col, end_line, end_col)
        if token.kind == MLIRTokenKind.BARE_IDENT and token.text == "fused":
            self._consume_token(MLIRTokenKind.BARE_IDENT)
            metadata: Attribute = NoneAttr()
            if self.parse_optional_punctuation("<") is not None:
                metadata = self.parse_attribute()
                self.parse_punctuation(">")
            locs = self.parse_comma_separated_list(self.Delimiter.SQUARE, self._parse_location)
            return FusedLoc(tuple(locs), metadata)
        return super()._parse_location()

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        try:
            module = super().parse_module(allow_implicit_module)
        except ParseError as err:
            # xDSL refuses an input without operations; mlir-opt reads an empty module.
            if not (allow_implicit_module and err.msg == "Could not parse entire input!"
                    and self._current_token.kind == MLIRTokenKind.EOF):
                raise
            module = ModuleOp([])
        if self._pending:
            self._resolve_pending_locations(module)
        return module

    def _resolve_alias(self, name: str, resolving: tuple[str, ...] = ()) -> LocationAttr:
        value = self.attribute_aliases.get(name)
        if value is None:
            raise ParseError(self._pending[name], f"undefined location alias '{name}'")
        if name in resolving:
            raise ParseError(self._pending[name], f"location alias '{name}' refers to itself")
        if not isa(value, LocationAttr):
            raise ParseError(self._pending[name], f"alias '{name}' is not a location")
        resolved = self._resolve_loc(value, (*resolving, name))
        self.attribute_aliases[name] = resolved
        return resolved

    def _resolve_loc(self, loc: Attribute, resolving: tuple[str, ...] = ()) -> LocationAttr:
        match loc:
            case NameLoc() if loc.desc.data.startswith(_PENDING_PREFIX):
                return self._resolve_alias(loc.desc.data[len(_PENDING_PREFIX):], resolving)
            case NameLoc():
                if isinstance(loc.location, NoneAttr):
                    return loc
                return NameLoc(loc.desc, self._resolve_loc(loc.location, resolving))
            case CallSiteLoc():
                return CallSiteLoc(self._resolve_loc(loc.callee, resolving),
                                   self._resolve_loc(loc.caller, resolving))
            case FusedLoc():
                locs = cast(Iterable[Attribute], loc.locations)
                return FusedLoc(tuple(self._resolve_loc(x, resolving) for x in locs),
                                loc.metadata)
            case _:
                return cast(LocationAttr, loc)

    def _resolve_pending_locations(self, module: ModuleOp) -> None:
        cache: dict[Attribute, LocationAttr] = {}

        def resolve(loc: LocationAttr) -> LocationAttr:
            if isinstance(loc, UnknownLoc | FileLineColLoc):
                return loc
            got = cache.get(loc)
            if got is None:
                got = cache[loc] = self._resolve_loc(loc)
            return got

        for op in module.walk():
            op.location = resolve(op.location)
            for region in op.regions:
                for block in region.blocks:
                    for arg in block.args:
                        arg.location = resolve(arg.location)
        self._pending.clear()

    # -------------------------------------------------------------------------------- blocks
    def _parse_block(self) -> Block:
        """xDSL's block, with two fixes. It remembers where a forward-referenced block is
        defined: xDSL 0.75 forgets it, and a second definition of the block then fails with
        ``KeyError`` (an internal error) instead of ``re-declaration of block``::

            "test.op"()[^bb1] : () -> ()   // forward reference
          ^bb1:                            // definition
          ^bb1:                            // here: KeyError in xDSL, located error here

        And it reads labels MLIR accepts but xDSL cannot keep as a name (``^4:``, ``ValueError:
        Invalid Block name format`` in xDSL) as an unnamed block, printed ``^bb0:``.
        """
        token = self._current_token
        try:
            block = super()._parse_block()
        except ValueError:
            content = self.lexer.input.content
            if token.kind != MLIRTokenKind.CARET_IDENT or \
                    content[token.span.end:self.pos].strip():
                raise  # not the label's name hint: the block's name was read, nothing more
            block = self.blocks[token.text[1:]][0]
            self._parse_optional_block_arg_list(block)
            self.parse_punctuation(":")
            self._parse_block_body(block)
        if token.kind == MLIRTokenKind.CARET_IDENT:
            name = token.text[1:]
            entry = self.blocks.get(name)
            if entry is not None and entry[0] is block and entry[1] is None:
                self.blocks[name] = (block, token.span)
        return block

    def parse_optional_successor(self) -> Block | None:
        """xDSL's successor; a forward reference to a label xDSL cannot keep as a name
        (``^4``) is an unnamed block, not xDSL's ``ValueError``."""
        token = self._current_token
        name = token.text[1:]
        if token.kind != MLIRTokenKind.CARET_IDENT or name in self.blocks or \
                Block.is_default_block_name(name) or Block.is_valid_name(name):
            return super().parse_optional_successor()
        self._consume_token(MLIRTokenKind.CARET_IDENT)
        self.forward_block_references[name].append(token.span)
        block = Block()
        self.blocks[name] = (block, None)
        return block

    # ---------------------------------------------------------------------------- operations
    def _parse_op_result_list(self) -> list[tuple[Span, int]]:
        results = super()._parse_op_result_list()
        # ``parse_operation`` reads the custom form iff the op name is a bare identifier.
        token = self._current_token
        self._custom_op_name = token.span if token.kind == MLIRTokenKind.BARE_IDENT else None
        return results

    def _get_op_by_name(self, name: str) -> type[Operation]:
        span, self._custom_op_name = self._custom_op_name, None
        if span is None or span.text != name:
            return super()._get_op_by_name(name)  # the generic form
        try:
            op_type = super()._get_op_by_name(name)
        except ParseError as err:  # located at the op's name, not at the token after it
            raise ParseError(span, err.msg) from None
        if issubclass(op_type, UnregisteredOp):
            self.raise_error(self._unknown_custom_op_message(name), span)
        if op_type is FuncOp:
            return cast(type[Operation], _FuncOpReader)
        return op_type

    def _unknown_custom_op_message(self, name: str) -> str:
        dialect = name.partition(".")[0] if "." in name else None
        if dialect is None:
            why = "no dialect prefix, and no registered op has this name"
        elif dialect in self.ctx.registered_dialect_names:
            why = f"not registered in the {dialect} dialect"
        else:
            why = f"dialect '{dialect}' is not registered"
        return (f"unknown operation '{name}': {why}; --allow-unregistered-dialect keeps "
                f"unknown ops in the generic form only, e.g. "
                f"\"{name}\"(%x) : (tensor<4xf32>) -> tensor<4xf32>")

    # ------------------------------------------------------------------------- hex floats
    def _parse_tensor_literal_element(self) -> AttrParserElement:
        token = self._current_token
        if token.kind == MLIRTokenKind.INTEGER_LIT and token.text[:2] in ("0x", "0X"):
            self._consume_token(MLIRTokenKind.INTEGER_LIT)
            element = self._TensorLiteralElement(False, _HexBits(int(token.text, 16)), token.span)
        else:
            element = super()._parse_tensor_literal_element()
        if self._dense_elements is not None:
            self._dense_elements.append(element)
        return element

    def parse_dense_int_or_fp_elements_attr(
        self, type: RankedStructure[Attribute] | None  # type: ignore[override]
    ) -> DenseIntOrFPElementsAttr:
        outer = self._dense_elements
        self._dense_elements = []
        start = self._current_token.span
        try:
            try:
                attr = super().parse_dense_int_or_fp_elements_attr(type)  # type: ignore[arg-type]
            except (OverflowError, struct.error, ParseError) as err:
                # Hex bit patterns xDSL reads as numbers (too large for f16 ``0x7C00``; inside
                # complex pairs ``(0x7FC00000,-0.0)``): read the literal with the StableHLO
                # dialect's bit-exact dense parser, as MLIR prints it.
                return self._parse_dense_exactly(start, err)
            elements = self._dense_elements
        finally:
            self._dense_elements = outer
        if not any(isinstance(e.value, _HexBits) for e in elements):
            return attr
        element_type = attr.get_element_type()
        if not isinstance(element_type, Float16Type | BFloat16Type | Float32Type | Float64Type):
            if any(isinstance(e.value, tuple) for e in elements):
                self.raise_error("hex literals in complex dense attributes are not supported",
                                 start)
            return attr  # integer element types: xDSL reads hex integers correctly
        try:
            chunks = [_float_bits_to_bytes(element_type, cast(float | int, e.value))
                      for e in elements]
        except HexFloatError as err:
            self.raise_error(str(err), start)
        count = len(attr)
        data = b"".join(chunks) * count if len(chunks) == 1 and count != 1 else b"".join(chunks)
        return DenseIntOrFPElementsAttr(attr.type, BytesAttr(data))

    def _parse_dense_exactly(self, start: Span, err: Exception) -> DenseIntOrFPElementsAttr:
        """Re-read ``dense<...> : type`` (``start``: its ``<``) with :func:`parse_dense_attr`;
        ``err`` (xDSL's failure) is raised again where that cannot help."""
        content = self.lexer.input.content
        before = content[:start.start].rstrip() if isinstance(content, str) else ""
        if self._exact_dense or not before.endswith("dense"):
            raise err
        self._resume_from(len(before) - len("dense"))
        self._exact_dense = True
        try:
            attr = parse_dense_attr(self)
        finally:
            self._exact_dense = False
        if not isinstance(attr, DenseIntOrFPElementsAttr):
            self.raise_error("expected a dense elements attribute", start)
        return attr


AttrParserElement = Parser._TensorLiteralElement  # pyright: ignore[reportPrivateUsage]


class _FuncOpReader:
    """Reads the custom form of ``func.func`` as :class:`FuncOp` does, and the argument
    attributes of a declaration written with unnamed arguments, which xDSL 0.75 drops::

        func.func private @f(tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32>
        // xDSL: arg_attrs = None;  here: arg_attrs = [{jax.buffer_donor = true}]
    """

    @staticmethod
    def dialect_name() -> str:
        return FuncOp.dialect_name()

    @staticmethod
    def parse(parser: JaxTextParser) -> FuncOp:
        start = parser.pos
        op = FuncOp.parse(parser)
        if op.body.blocks or op.arg_attrs is not None or not op.function_type.inputs:
            return op
        end = parser.pos
        parser._resume_from(start)  # pyright: ignore[reportPrivateUsage]
        parser.parse_optional_visibility_keyword()
        parser.parse_symbol_name()
        if parser.parse_optional_punctuation("(") is None or \
                parser._current_token.kind == MLIRTokenKind.PERCENT_IDENT:  # pyright: ignore[reportPrivateUsage]
            parser._resume_from(end)  # pyright: ignore[reportPrivateUsage]
            return op  # named arguments: xDSL kept their attributes

        def read_input() -> dict[str, Attribute]:
            parser.parse_type()
            attrs = parser.parse_optional_dictionary_attr_dict()
            parser.parse_optional_location()
            return attrs

        attrs = [read_input()]
        while parser.parse_optional_punctuation(",") is not None:
            attrs.append(read_input())
        parser._resume_from(end)  # pyright: ignore[reportPrivateUsage]
        if any(attrs):
            op.arg_attrs = ArrayAttr(DictionaryAttr(a) for a in attrs)
        return op


@functools.lru_cache(maxsize=4096)
def _plain_tensor_text(t: TensorType) -> str:
    """xDSL's spelling of a tensor type without encoding, which :class:`JaxTextPrinter` prints
    as xDSL does, worked out once per type: a train step prints a few dozen types tens of
    thousands of times."""
    out = StringIO()
    Printer(stream=out).print_attribute(t)
    return out.getvalue()


class JaxTextPrinter(Printer):
    """xDSL's printer, printing what MLIR (and therefore JAX) prints where xDSL differs:

    * multi-result ops as one result group, ``%0:2 = stablehlo.while(...)``, used as ``%0#1``
      (results with distinct name hints, as xDSL tests write them, keep ``%a, %b = ...``);
    * floats with LLVM's exact spelling (:mod:`jax_use_donated.dialects.stablehlo.float_format`) and float/int
      ``dense<...>`` attributes from their raw bits (:func:`dense_text`), so NaN payloads
      (``dense<0xFFFF> : tensor<f16>``) and every other bit survive, in generic form too;
    * location ranges kept by the parser (:func:`location_range_end`):
      ``loc("f.py":4:11 to :16)``.
    """

    # ---------------------------------------------------------------------- result groups
    def _print_results(self, op: Operation) -> None:
        results = op.results
        if (len(results) < 2 or len({r.name_hint for r in results}) != 1
                or any(r in self._ssa_values for r in results)):
            super()._print_results(op)
            return
        hint = results[0].name_hint
        if hint:
            index = self.ssa_names.get(hint, 0)
            name = f"{hint}_{index}" if index else hint
            self.ssa_names[hint] = index + len(results)
        else:
            name = self._get_new_valid_name_id()
            for _ in results[1:]:  # keep xDSL's numbering of everything printed later
                self._get_new_valid_name_id()
        for i, result in enumerate(results):
            self._ssa_values[result] = f"{name}#{i}"
        self.print_string(f"%{name}:{len(results)} = ")

    # -------------------------------------------------------------------- declarations
    def print_op(self, op: Operation) -> None:
        if isinstance(op, FuncOp) and not op.body.blocks and not self.print_generic_format:
            self._print_func_declaration(op)
        else:
            super().print_op(op)

    def _print_func_declaration(self, op: FuncOp) -> None:
        """A ``func.func`` without body as MLIR prints it, with its argument and result
        attributes (xDSL 0.75 drops both)::

            func.func private @f(tensor<4xf32> {jax.buffer_donor = true}) -> (tensor<4xf32> {jax.result_info = "r"})
        """
        begin = self._current_column
        self.print_string(op.name)
        if op in self.diagnostic.op_messages:
            for message in self.diagnostic.op_messages[op]:
                self._add_message_on_next_line(message, begin, self._current_column)
        if op.sym_visibility is not None:
            self.print_string(f" {op.sym_visibility.data}")
        self.print_string(" ")
        self.print_symbol_name(op.sym_name.data)
        function_type = op.function_type
        self.print_string("(")
        self._print_typed_list(function_type.inputs.data, op.arg_attrs)
        self.print_string(")")
        outputs: Sequence[Attribute] = function_type.outputs.data
        res_attrs = op.res_attrs
        if res_attrs is not None and not any(d.data for d in res_attrs):
            res_attrs = None
        if outputs:
            self.print_string(" -> ")
            parens = len(outputs) > 1 or res_attrs is not None or \
                any(isinstance(t, FunctionType) for t in outputs)
            if parens:
                self.print_string("(")
            self._print_typed_list(outputs, res_attrs)
            if parens:
                self.print_string(")")
        self.print_op_attributes(op.attributes, print_keyword=True)
        if self.print_debuginfo:
            self.print_string(" ")
            self.print_attribute(op.location)

    def _print_typed_list(self, types: Sequence[Attribute],
                          attrs: ArrayAttr[DictionaryAttr] | None) -> None:
        for i, type_ in enumerate(types):
            if i:
                self.print_string(", ")
            self.print_attribute(type_)
            if attrs is not None and i < len(attrs) and attrs.data[i].data:
                self.print_string(" ")
                self.print_attr_dict(attrs.data[i].data)

    # ------------------------------------------------------------------------------ floats
    def print_float(self, value: float, type: AnyFloat) -> None:
        fmt = float_format_of(type)
        if fmt is None:
            super().print_float(value, type)
            return
        self.print_string(format_float_bits(float_to_bits(value, fmt), fmt))

    def print_attribute(self, attribute: Attribute) -> None:
        if type(attribute) is DenseIntOrFPElementsAttr:
            try:
                text = dense_text(attribute)
            except ValueError:  # an element type float_format does not know
                pass
            else:
                self.print_string(text)
                return
        elif (end := location_range_end(attribute)) is not None:
            self._print_location_range(cast(FileLineColLoc, attribute), *end)
            return
        elif type(attribute) is TensorType and isinstance(attribute.encoding, NoneAttr):
            self.print_string(_plain_tensor_text(attribute))
            return
        super().print_attribute(attribute)

    # --------------------------------------------------------------------------- locations
    def _print_location_range(self, loc: FileLineColLoc, end_line: int, end_col: int) -> None:
        """MLIR's ``FileLineColRange`` syntax: ``"f.py":4:11 to :16`` or ``... to 5:3``."""
        with self.in_location():
            self.print_attribute(loc.filename)
            self.print_string(f":{loc.line.data}:{loc.column.data} to ")
            if end_line != loc.line.data:
                self.print_string(str(end_line))
            self.print_string(f":{end_col}")


def parse_module(ctx: Context, text: str | bytes, name: str = "<input>",
                 allow_implicit_module: bool = True) -> ModuleOp:
    """Parse JAX MLIR text (pretty or generic, with or without debug info)."""
    return JaxTextParser(ctx, text, name).parse_module(allow_implicit_module)


def print_module(
    module: Operation,
    stream: IO[str] | None = None,
    *,
    dialects: Iterable[Dialect] = (),
    debug_info: bool = False,
    generic: bool = False,
) -> str:
    """Print ``module`` with its ``dialect_resources`` section; returns the text when no
    ``stream`` is given (else writes to it and returns ``""``)."""
    out = StringIO() if stream is None else stream
    printer = JaxTextPrinter(stream=out, print_debuginfo=debug_info,
                             print_generic_format=generic)
    printer.print_op(module)
    printer.print_metadata(dialects)
    out.write("\n")
    return out.getvalue() if isinstance(out, StringIO) and stream is None else ""


def dense_float_bits(attr: DenseIntOrFPElementsAttr) -> list[int]:
    """The raw bit patterns of a float dense attribute (for exact comparisons in tests)."""
    size = attr.get_element_type().compile_time_size
    data = attr.data.data
    return [int.from_bytes(data[i:i + size], "little") for i in range(0, len(data), size)]


def is_nonfinite_bits(attr: DenseIntOrFPElementsAttr) -> bool:
    """Whether any element of a float dense attribute is ``inf`` or NaN."""
    values = cast(tuple[float, ...], attr.get_values())
    return any(math.isinf(v) or math.isnan(v) for v in values)
