"""Shared machinery of StableHLO ops: MLIR-exact attribute dictionaries and the custom
type directives of ``StablehloOps.td`` (``SameOperandsAndResultType``, ``SelectOpType``,
``PairwiseOpType``, ``DenseI64Array``...).

MLIR keeps an op's inherent attributes as *properties*; in the generic form they print as
``<{...}>`` and in a custom form they merge with the discardable attributes into one
``{...}`` dictionary sorted by name. :class:`StableHLOOp` reproduces both.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import ClassVar, Self

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    LocationAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException


def sorted_attrs(attrs: Mapping[str, Attribute]) -> dict[str, Attribute]:
    return dict(sorted(attrs.items()))


class StableHLOOp(IRDLOperation):
    """Base of every StableHLO op; adds MLIR-style attribute-dictionary helpers and checks
    bounded-dynamic tensor encodings (``#stablehlo.bounds``) on every operand and result."""

    @classmethod
    def create(
        cls,
        *,
        operands: Sequence[SSAValue] = (),
        result_types: Sequence[Attribute] = (),
        properties: Mapping[str, Attribute] = {},
        attributes: Mapping[str, Attribute] = {},
        location: LocationAttr | None = None,
        successors: Sequence[Block] = (),
        regions: Sequence[Region] = (),
    ) -> Self:
        """As xDSL's, but properties are kept sorted by name, as MLIR prints them."""
        return super().create(
            operands=operands,
            result_types=result_types,
            properties=sorted_attrs(properties),
            attributes=attributes,
            location=location,
            successors=successors,
            regions=regions,
        )

    def verify(self, verify_nested_ops: bool = True) -> None:
        from dialects.stablehlo.types import verify_bounded_tensor

        for kind, values in (("operand", self.operands), ("result", self.results)):
            for i, v in enumerate(values):
                if isinstance(v.type, TensorType):
                    try:
                        verify_bounded_tensor(v.type)
                    except VerifyException as e:
                        raise VerifyException(f"'{self.name}' {kind} #{i}: {e}") from e
        super().verify(verify_nested_ops)

    # -- printing ----------------------------------------------------------------------
    PRINT_DEFAULTS: ClassVar[Mapping[str, Attribute]] = {}
    """Properties whose ODS default value MLIR leaves out of a custom form's ``attr-dict``
    (``DefaultValuedOptionalAttr``), e.g. ``has_side_effect = false`` on ``custom_call``."""

    def merged_attrs(self, elide: Iterable[str] = ()) -> dict[str, Attribute]:
        skip = set(elide)
        merged = {**self.attributes, **self.properties}
        defaults = self.PRINT_DEFAULTS
        return sorted_attrs(
            {
                k: v
                for k, v in merged.items()
                if k not in skip and not (k in self.properties and defaults.get(k) == v)
            }
        )

    def print_attr_dict(self, printer: Printer, elide: Iterable[str] = ()) -> None:
        """`` {a = 1, b}``: properties and attributes, sorted, minus ``elide``."""
        merged = self.merged_attrs(elide)
        if merged:
            printer.print_string(" ")
            printer.print_attr_dict(merged)

    # -- parsing -----------------------------------------------------------------------
    @classmethod
    def parse_attr_dict(cls, parser: Parser) -> dict[str, Attribute]:
        return dict(parser.parse_optional_attr_dict())

    @classmethod
    def create_parsed(
        cls,
        parser: Parser,
        operands: Sequence[SSAValue | Sequence[SSAValue]],
        result_types: Sequence[Attribute | Sequence[Attribute]],
        attrs: Mapping[str, Attribute],
        regions: Sequence[Region | Sequence[Region]] = (),
    ):
        """Build the op, sending declared names to properties and the rest to attributes."""
        prop_names = set(cls.get_irdl_definition().properties)
        props = sorted_attrs({k: v for k, v in attrs.items() if k in prop_names})
        others = {k: v for k, v in attrs.items() if k not in prop_names}
        return cls.build(
            operands=list(operands),
            result_types=list(result_types),
            properties=props,
            attributes=others,
            regions=list(regions),
        )


# ---------------------------------------------------------------------------------------
# Operand lists


def parse_operand_list(parser: Parser) -> list[UnresolvedOperand]:
    """``%a, %b`` (possibly empty) without delimiters."""
    first = parser.parse_optional_unresolved_operand()
    if first is None:
        return []
    out = [first]
    while parser.parse_optional_punctuation(","):
        out.append(parser.parse_unresolved_operand())
    return out


def parse_operands_then_keyword(parser: Parser, keyword: str) -> list[UnresolvedOperand]:
    """``%a, %b, keyword`` (the ``VariadicOperandWithAttribute`` directive)."""
    out: list[UnresolvedOperand] = []
    while (operand := parser.parse_optional_unresolved_operand()) is not None:
        out.append(operand)
        parser.parse_punctuation(",")
    parser.parse_keyword(keyword)
    return out




def resolve(parser: Parser, operands: Sequence[UnresolvedOperand], types: Sequence[Attribute]) -> list[SSAValue]:
    if len(operands) != len(types):
        parser.raise_error(f"expected {len(operands)} operand types but got {len(types)}")
    return [parser.resolve_operand(o, t) for o, t in zip(operands, types, strict=True)]


# ---------------------------------------------------------------------------------------
# Type directives


def parse_functional_type(parser: Parser) -> tuple[list[Attribute], list[Attribute]]:
    ft = parser.parse_function_type()
    return list(ft.inputs.data), list(ft.outputs.data)


def print_functional_type(printer: Printer, inputs: Sequence[Attribute], outputs: Sequence[Attribute]) -> None:
    printer.print_string(" : ")
    printer.print_function_type(inputs, outputs)


def parse_same_operands_and_result_type(parser: Parser, n_operands: int) -> tuple[list[Attribute], Attribute]:
    """``: T`` (all operands and the result have type T) or ``: (T1, T2) -> R``."""
    parser.parse_punctuation(":")
    if parser._current_token.text == "(":  # pyright: ignore[reportPrivateUsage]
        ins, outs = parse_functional_type(parser)
        if len(outs) != 1:
            parser.raise_error(f"expected one result type, got {len(outs)}")
        return ins, outs[0]
    t = parser.parse_type()
    return [t] * n_operands, t


def print_same_operands_and_result_type(printer: Printer, inputs: Sequence[Attribute], result: Attribute) -> None:
    if all(t == result for t in inputs):
        printer.print_string(" : ")
        printer.print_attribute(result)
    else:
        print_functional_type(printer, inputs, [result])


def parse_int_array(parser: Parser) -> list[int]:
    """``[1, 2]`` (the ``DenseI64Array`` directive)."""
    return parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
    )


def int_array_text(values: Iterable[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def i64_array(values: Sequence[int]) -> DenseArrayBase[IntegerType]:
    return DenseArrayBase.from_list(i64, values)


def array_values(attr: Attribute | None) -> tuple[int, ...]:
    """Integers of a ``array<i64: ...>``, ``dense<...>`` or ``[..]`` attribute."""
    if attr is None:
        return ()
    if isinstance(attr, DenseArrayBase):
        return tuple(int(v) for v in attr.get_values())  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    if isinstance(attr, ArrayAttr):
        return tuple(int(v.value.data) if isinstance(v, IntegerAttr) else int(v.data) for v in attr.data)  # type: ignore[union-attr]
    get = getattr(attr, "get_values", None)
    if get is not None:
        return tuple(int(v) for v in get())
    raise TypeError(f"not an integer array: {attr}")








def int_attr(value: int) -> IntegerAttr[IntegerType]:
    return IntegerAttr(value, i64)

