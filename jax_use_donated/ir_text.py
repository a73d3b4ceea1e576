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
* hex-float elements in dense literals (``dense<0xFF800000> : tensor<f32>``, i.e. ``-inf``)
  are read as bit patterns, as MLIR does; xDSL reads them as the integer 4286578688. Literals
  xDSL cannot read at all (f16 ``0x7C00``, hex inside complex pairs) are read with the StableHLO
  dialect's exact dense parser. Floats whose bits cannot be represented exactly are refused
  with an error, never altered.

:class:`JaxTextPrinter` prints as MLIR does where xDSL's printer differs: result groups
``%0:2 = stablehlo.while(...)`` used as ``%0#1`` (a group of K results takes K numbers, so later
values keep xDSL's numbering), and floats and ``dense<...>`` attributes spelled bit-exactly from
their bits by :mod:`dialects.stablehlo.float_format` in generic form too (NaN payloads kept).
:func:`print_module` prints the ``dialect_resources`` section too (``Printer.print_op`` alone
drops it).
"""

from __future__ import annotations

import math
import re
import struct
import weakref
from collections.abc import Iterable
from io import StringIO
from typing import IO, cast

from xdsl.context import Context
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    BytesAttr,
    CallSiteLoc,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    Float16Type,
    Float32Type,
    Float64Type,
    FusedLoc,
    IntAttr,
    LocationAttr,
    ModuleOp,
    NameLoc,
    NoneAttr,
    RankedStructure,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, Dialect, Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError
from xdsl.utils.hints import isa
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from dialects.stablehlo.constant import dense_text, float_format_of, parse_dense_attr
from dialects.stablehlo.float_format import float_to_bits, format_float_bits

# xDSL 0.75's string-literal regex nests quantifiers (``(?:[^"...]+|...)*``): on an unterminated
# literal it backtracks exponentially (a 30-character tail takes minutes; found by
# benchmarks/fuzz_driver.py). The same pattern with possessive quantifiers matches exactly the
# same literals (the alternatives start with disjoint characters) and fails in linear time.
MLIRLexer._unescaped_characters_regex = re.compile(  # pyright: ignore[reportPrivateUsage]
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


class JaxTextParser(Parser):
    """xDSL's parser, extended for the MLIR text JAX prints (see the module docstring)."""

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>") -> None:
        super().__init__(ctx, input, name)
        self._pending: dict[str, Span] = {}
        self._dense_elements: list[AttrParserElement] | None = None
        self._exact_dense = False

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
        module = super().parse_module(allow_implicit_module)
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


class JaxTextPrinter(Printer):
    """xDSL's printer, printing what MLIR (and therefore JAX) prints where xDSL differs:

    * multi-result ops as one result group, ``%0:2 = stablehlo.while(...)``, used as ``%0#1``
      (results with distinct name hints, as xDSL tests write them, keep ``%a, %b = ...``);
    * floats with LLVM's exact spelling (:mod:`dialects.stablehlo.float_format`) and float/int
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
