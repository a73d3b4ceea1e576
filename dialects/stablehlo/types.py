"""StableHLO types and tensor encodings.

- ``!stablehlo.token``: ordering token of side-effecting ops (``after_all``, ``outfeed``...).
- ``!stablehlo.future<tensor<...>, ...>``: result of ``async_start``.
- ``#stablehlo.bounds<8, ?>``: the encoding of a bounded dynamic tensor
  (``tensor<?x4xf32, #stablehlo.bounds<8, ?>>``: dimension 0 is at most 8).
- ``#stablehlo.type_extensions<bounds = [8, ?]>``: the older spelling of the same.
Tuples are xDSL's builtin ``tuple<...>`` (:class:`xdsl.dialects.builtin.TupleType`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, IntAttr, TensorType
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

DYNAMIC = -1
"""A ``?`` bound (no bound) in ``#stablehlo.bounds``."""


@irdl_attr_definition
class TokenType(ParametrizedAttribute, TypeAttribute):
    """``!stablehlo.token``."""

    name = "stablehlo.token"


@irdl_attr_definition
class FutureType(ParametrizedAttribute, TypeAttribute):
    """``!stablehlo.future<tensor<8x8xf32>>``: the pending results of ``async_start``."""

    name = "stablehlo.future"
    types: ArrayAttr[Attribute]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return [ArrayAttr(parser.parse_comma_separated_list(parser.Delimiter.ANGLE, parser.parse_type))]

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_list(self.types.data, printer.print_attribute)


def _parse_bound(parser: AttrParser) -> IntAttr:
    if parser.parse_optional_punctuation("?") is not None:
        return IntAttr(DYNAMIC)
    return IntAttr(parser.parse_integer(allow_boolean=False))


def _bound_text(b: IntAttr) -> str:
    return "?" if b.data == DYNAMIC else str(b.data)


class _BoundsBase(ParametrizedAttribute):
    bounds: ArrayAttr[IntAttr]

    def bound_values(self) -> tuple[int | None, ...]:
        return tuple(None if b.data == DYNAMIC else b.data for b in self.bounds.data)

    def verify(self) -> None:
        for b in self.bounds.data:
            if b.data < DYNAMIC:
                raise VerifyException(f"#{self.name}: bound {b.data} must be ? or non-negative")


@irdl_attr_definition
class BoundsAttr(_BoundsBase):
    """``#stablehlo.bounds<8, ?>``: per-dimension upper bounds of a dynamic tensor."""

    name = "stablehlo.bounds"

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            if parser._current_token.text == ">":  # pyright: ignore[reportPrivateUsage]
                return [ArrayAttr(())]
            items = parser.parse_comma_separated_list(parser.Delimiter.NONE, lambda: _parse_bound(parser))
        return [ArrayAttr(items)]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<" + ", ".join(_bound_text(b) for b in self.bounds.data) + ">")


@irdl_attr_definition
class TypeExtensionsAttr(_BoundsBase):
    """``#stablehlo.type_extensions<bounds = [8, ?]>``."""

    name = "stablehlo.type_extensions"

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            parser.parse_keyword("bounds")
            parser.parse_punctuation("=")
            items = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, lambda: _parse_bound(parser))
        return [ArrayAttr(items)]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<bounds = [" + ", ".join(_bound_text(b) for b in self.bounds.data) + "]>")


def tensor_bounds(t: Attribute) -> tuple[int | None, ...] | None:
    """The bounds of a bounded dynamic tensor type, or None when it has no bounds encoding."""
    if isinstance(t, TensorType) and isinstance(t.encoding, _BoundsBase):
        return t.encoding.bound_values()
    return None


def verify_bounded_tensor(t: TensorType[Attribute]) -> None:
    """A bounds encoding has one entry per dimension; static dimensions carry ``?``."""
    enc = t.encoding
    if not isinstance(enc, _BoundsBase):
        return
    shape = t.get_shape()
    bounds = enc.bound_values()
    if len(bounds) != len(shape):
        raise VerifyException(
            f"{t}: #{enc.name} has {len(bounds)} bounds for a rank-{len(shape)} tensor"
        )
    for dim, (size, bound) in enumerate(zip(shape, bounds, strict=True)):
        if size != DYNAMIC_INDEX and bound is not None:
            raise VerifyException(f"{t}: static dimension {dim} cannot have a bound")


STABLEHLO_TYPES: list[type[Attribute]] = [TokenType, FutureType, BoundsAttr, TypeExtensionsAttr]
