"""``stablehlo.constant`` and exact dense-literal text.

xDSL 0.75 reads ``dense<0xFF800000> : tensor<f32>`` as the integer 4286578688 and prints
floats with Python formatting; both change values (-inf, NaN payloads, denormals). Here a
dense literal whose float elements are written as hex bit patterns is decoded bit-exactly,
and every float is printed with :mod:`jax_use_donated.dialects.stablehlo.float_format`, so that

    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>

prints back unchanged, as jaxlib prints it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import (
    BytesAttr,
    ComplexType,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, prop_def, result_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import ConstantLike, Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.lexer import Token

from jax_use_donated.dialects.stablehlo.base import StableHLOOp
from jax_use_donated.dialects.stablehlo.float_format import (
    FLOAT_FORMATS,
    FloatFormat,
    format_float_bits,
    parse_float_text,
)

HEX_THRESHOLD = 100
"""MLIR prints a non-splat dense literal with more elements than this as a hex blob."""


def float_format_of(t: Attribute) -> FloatFormat | None:
    name = str(t)
    return FLOAT_FORMATS.get(name)


def _storage_bytes(t: Attribute) -> int:
    if isinstance(t, ComplexType):
        return 2 * _storage_bytes(t.element_type)  # pyright: ignore[reportUnknownArgumentType, reportUnknownMemberType]
    if isinstance(t, IndexType):
        return 8
    if isinstance(t, IntegerType):
        return max(1, (t.width.data + 7) // 8)
    fmt = float_format_of(t)
    if fmt is not None:
        return max(1, (fmt.width + 7) // 8)
    raise ValueError(f"unsupported dense element type {t}")


def _element_texts(t: Attribute, raw: bytes) -> list[str]:
    """Each element of a dense buffer in MLIR's spelling."""
    size = _storage_bytes(t)
    n = len(raw) // size if size else 0
    out: list[str] = []
    if isinstance(t, ComplexType):
        inner = t.element_type  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        half = size // 2
        for i in range(n):
            re_ = _element_texts(inner, raw[i * size : i * size + half])[0]  # pyright: ignore[reportUnknownArgumentType]
            im = _element_texts(inner, raw[i * size + half : (i + 1) * size])[0]  # pyright: ignore[reportUnknownArgumentType]
            out.append(f"({re_},{im})")
        return out
    fmt = float_format_of(t)
    for i in range(n):
        chunk = raw[i * size : (i + 1) * size]
        value = int.from_bytes(chunk, "little", signed=False)
        if fmt is not None:
            out.append(format_float_bits(value & ((1 << fmt.width) - 1), fmt))
        elif isinstance(t, IntegerType) and t.width.data == 1:
            out.append("true" if value else "false")
        elif isinstance(t, IntegerType):
            width = t.width.data
            value &= (1 << width) - 1
            if t.signedness.data.name != "UNSIGNED" and value >> (width - 1):
                value -= 1 << width
            out.append(str(value))
        else:  # index
            out.append(str(int.from_bytes(chunk, "little", signed=True)))
    return out


def dense_text(attr: DenseIntOrFPElementsAttr) -> str:
    """``dense<...> : tensor<...>`` exactly as MLIR prints it."""
    t = attr.type
    et = t.get_element_type()
    shape = list(t.get_shape())
    raw = attr.data.data
    elems = _element_texts(et, raw)
    n = math.prod(shape)
    if n == 0 or not elems:
        body = ""
    elif all(e == elems[0] for e in elems):
        body = elems[0]
    elif n > HEX_THRESHOLD and not (isinstance(et, IntegerType) and et.width.data == 1):
        body = '"0x' + raw.hex().upper() + '"'
    else:
        def nest(items: Sequence[str], dims: list[int]) -> str:
            if len(dims) <= 1:
                return "[" + ", ".join(items) + "]"
            step = len(items) // dims[0]
            return "[" + ", ".join(nest(items[i * step : (i + 1) * step], dims[1:]) for i in range(dims[0])) + "]"

        body = nest(elems, shape) if shape else elems[0]
    return f"dense<{body}> : {t}"


def _pack(t: Attribute, literal: object, parser: Parser) -> bytes:
    size = _storage_bytes(t)
    if isinstance(t, ComplexType):
        if not isinstance(literal, tuple):
            parser.raise_error(f"expected a (real, imag) pair for {t}")
        return _pack(t.element_type, literal[0], parser) + _pack(t.element_type, literal[1], parser)  # pyright: ignore[reportUnknownArgumentType, reportUnknownMemberType]
    text = str(literal)
    fmt = float_format_of(t)
    if fmt is not None:
        if text.lstrip("-").startswith("0x"):
            bits = int(text, 16)
        elif text in ("true", "false"):
            parser.raise_error(f"expected a float for {t}, got {text}")
        else:
            bits = parse_float_text(text, fmt)
        return bits.to_bytes(size, "little")
    if text in ("true", "false"):
        value = 1 if text == "true" else 0
        if isinstance(t, IntegerType) and t.width.data == 1:
            return b"\xff" if value else b"\x00"
        return value.to_bytes(size, "little")
    value = int(text, 0)
    if isinstance(t, IntegerType):
        width = t.width.data
        unsigned = t.signedness.data.name == "UNSIGNED"
        low = 0 if unsigned else -(1 << (width - 1))
        high = (1 << width) - 1 if t.signedness.data.name != "SIGNED" else (1 << (width - 1)) - 1
        if not low <= value <= high:
            parser.raise_error(f"integer constant {value} out of range for {t}")
        if width == 1:
            return b"\xff" if value else b"\x00"
    return (value % (1 << (8 * size))).to_bytes(size, "little")


def _literal_tree(tokens: list[Token], parser: Parser) -> object:
    """Nested lists of scalar texts / (re, im) tuples from the tokens of a dense literal."""
    pos = 0

    def scalar() -> str:
        nonlocal pos
        neg = tokens[pos].text == "-"
        if neg:
            pos += 1
        text = tokens[pos].text
        pos += 1
        return ("-" if neg else "") + text

    def element() -> object:
        nonlocal pos
        if tokens[pos].text == "[":
            pos += 1
            items: list[object] = []
            while tokens[pos].text != "]":
                items.append(element())
                if tokens[pos].text == ",":
                    pos += 1
            pos += 1
            return items
        if tokens[pos].text == "(":
            pos += 1
            re_ = scalar()
            if tokens[pos].text != ",":
                parser.raise_error("expected ',' in a complex (real, imag) literal")
            pos += 1
            im = scalar()
            if tokens[pos].text != ")":
                parser.raise_error("expected ')' after a complex literal")
            pos += 1
            return (re_, im)
        return scalar()

    tree = element()
    if pos != len(tokens):
        parser.raise_error("unexpected tokens in dense literal")
    return tree


def _flatten(tree: object, shape: list[int], parser: Parser, t: Attribute) -> list[object]:
    if not isinstance(tree, list):
        return [tree]
    if not shape or len(tree) != shape[0]:  # pyright: ignore[reportUnknownArgumentType]
        parser.raise_error(f"dense literal does not match the shape of {t}")
    out: list[object] = []
    for item in tree:  # pyright: ignore[reportUnknownVariableType]
        if len(shape) == 1 and isinstance(item, list):
            parser.raise_error(f"dense literal does not match the shape of {t}")
        out.extend(_flatten(item, shape[1:], parser, t) if len(shape) > 1 else [item])
    return out


def parse_dense_attr(parser: Parser) -> Attribute:
    """Parse an elements attribute, decoding hex-spelled floats bit-exactly.

    ``dense<...>`` literals are decoded here straight into the attribute's bytes (faster than
    xDSL's own dense parser, and exact for hex floats); any other attribute, and i1 hex blobs,
    go to xDSL's parser.
    """
    start = parser.pos
    if parser._current_token.text != "dense":  # pyright: ignore[reportPrivateUsage]
        return parser.parse_attribute()
    parser._consume_token()  # pyright: ignore[reportPrivateUsage]
    parser.parse_punctuation("<")
    tokens: list[Token] = []
    depth = 0
    while True:
        tok = parser._current_token  # pyright: ignore[reportPrivateUsage]
        if tok.text == ">" and depth == 0:
            break
        if tok.kind.name == "EOF":
            parser.raise_error("unterminated dense literal")
        depth += tok.text in ("[", "(")
        depth -= tok.text in ("]", ")")
        tokens.append(tok)
        parser._consume_token()  # pyright: ignore[reportPrivateUsage]
    parser.parse_punctuation(">")
    parser.parse_punctuation(":")
    t = parser.parse_type()
    et = t.get_element_type() if isinstance(t, TensorType) else None
    blob = len(tokens) == 1 and tokens[0].text.startswith('"')
    try:
        size = _storage_bytes(et) if et is not None else 0
    except ValueError:
        size = 0
    if (
        not isinstance(t, TensorType)
        or size == 0
        or (blob and isinstance(et, IntegerType) and et.width.data == 1)
    ):
        end = parser.pos
        parser._resume_from(start)  # pyright: ignore[reportPrivateUsage]
        attr = parser.parse_attribute()
        assert parser.pos == end
        return attr
    assert et is not None
    shape = list(t.get_shape())
    n = math.prod(shape)
    if blob:
        text = tokens[0].text[1:-1]
        if not text.startswith("0x"):
            parser.raise_error(f"expected a hex string for {t}, got {tokens[0].text}")
        data = bytes.fromhex(text[2:])
        if len(data) == size and n != 1:
            data = data * n
        if len(data) != n * size:
            parser.raise_error(f"hex literal has {len(data)} bytes but {t} needs {n * size}")
        return DenseIntOrFPElementsAttr(t, BytesAttr(data))
    if not tokens:
        if n != 0:
            parser.raise_error(f"empty dense literal for {t}")
        return DenseIntOrFPElementsAttr(t, BytesAttr(b""))
    tree = _literal_tree(tokens, parser)
    if not isinstance(tree, list):
        flat: list[object] = [tree] * n  # splat
    else:
        flat = _flatten(tree, shape, parser, t)
    if len(flat) != n:
        parser.raise_error(f"dense literal has {len(flat)} elements but {t} needs {n}")
    try:
        data = b"".join(_pack(et, lit, parser) for lit in flat)
    except ValueError as e:
        parser.raise_error(f"invalid element in dense literal for {t}: {e}")
    return DenseIntOrFPElementsAttr(t, BytesAttr(data))


@irdl_op_definition
class ConstantOp(StableHLOOp):
    """``%cst = stablehlo.constant dense<0xFF800000> : tensor<f32>``."""

    name = "stablehlo.constant"
    value = prop_def(Attribute)
    output = result_def(TensorType)
    traits = traits_def(Pure(), ConstantLike())

    @classmethod
    def parse(cls, parser: Parser):
        attrs = cls.parse_attr_dict(parser)
        value = parse_dense_attr(parser)
        attrs["value"] = value
        t = getattr(value, "type", None)
        if t is None:
            parser.raise_error(f"stablehlo.constant needs a typed elements attribute, got {value}")
        return cls.create_parsed(parser, [], [t], attrs)

    def print(self, printer: Printer) -> None:
        self.print_attr_dict(printer, ("value",))
        printer.print_string(" ")
        if isinstance(self.value, DenseIntOrFPElementsAttr):
            printer.print_string(dense_text(self.value))
        else:
            printer.print_attribute(self.value)

    def verify_(self) -> None:
        t = getattr(self.value, "type", None)
        if t != self.output.type:
            raise VerifyException(
                f"'{self.name}' value type {t} does not match result type {self.output.type}"
            )


