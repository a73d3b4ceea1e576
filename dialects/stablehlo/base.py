"""Shared machinery of StableHLO ops: MLIR-exact attribute dictionaries and the custom
type directives of ``StablehloOps.td`` (``SameOperandsAndResultType``, ``SelectOpType``,
``PairwiseOpType``, ``DenseI64Array``...).

MLIR keeps an op's inherent attributes as *properties*; in the generic form they print as
``<{...}>`` and in a custom form they merge with the discardable attributes into one
``{...}`` dictionary sorted by name. :class:`StableHLOOp` reproduces both.

Most custom formats are ``operands, key = value, ... attr-dict : types``:
:class:`KeywordFormat` parses and prints them from a declaration (:class:`Keyword` entries and
:attr:`StableHLOOp.TYPES`); hand-written formats reuse its halves
(:meth:`StableHLOOp.parse_attrs_and_types`, :meth:`StableHLOOp.print_attrs_and_types`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Self, TypeVar, cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    LocationAttr,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition
from xdsl.irdl.operations import VariadicDef
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

T = TypeVar("T")
OpT = TypeVar("OpT", bound=IRDLOperation)


def sorted_attrs(attrs: Mapping[str, Attribute]) -> dict[str, Attribute]:
    return dict(sorted(attrs.items()))


TypeFormat = Literal["functional", "same", "result"]
"""How a custom format writes types after ``:``: ``functional`` is ``(T1, T2) -> R``;
``same`` is ``custom<SameOperandsAndResultType>`` (``T`` when every operand and the result
have type ``T``, else functional); ``result`` is the one result's type ``T``, which every
operand has too (``stablehlo.after_all``, ``stablehlo.iota``)."""


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
        from jax_use_donated.dialects.stablehlo.types import verify_bounded_tensor

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

    # -- ``attr-dict : types``, the tail of most custom formats -------------------------
    TYPES: ClassVar[TypeFormat] = "functional"
    """How this op's custom format writes its types (see :data:`TypeFormat`)."""

    @classmethod
    def parse_attrs_and_types(
        cls,
        parser: Parser,
        operands: Sequence[UnresolvedOperand],
        attrs: Mapping[str, Attribute],
    ) -> Self:
        """Parse ``attr-dict : types`` after the operands, resolve the operands against the
        types, group both by the op's definition and build the op with ``attrs`` (the values
        of the format's keywords) plus the parsed dictionary."""
        merged = {**attrs, **cls.parse_attr_dict(parser)}
        start = parser.pos
        if cls.TYPES == "same":
            ins, out = parse_same_operands_and_result_type(parser, len(operands))
            outs = [out]
        else:
            parser.parse_punctuation(":")
            if cls.TYPES == "result":
                outs = [parser.parse_type()]
                ins = outs * len(operands)
            else:
                ins, outs = parse_functional_type(parser)
        values = resolve(parser, operands, ins)
        definition = cls.get_irdl_definition()
        types_text = parser.lexer.input.slice(start, parser.pos) or ""
        span = (start, start + len(types_text.rstrip()))
        return cls.create_parsed(
            parser,
            group_by_definition(parser, span, cls.name, "operand", definition.operands, values),
            group_by_definition(parser, span, cls.name, "result", definition.results, outs),
            merged,
        )

    def print_operands(self, printer: Printer) -> None:
        """`` %a, %b``: the leading space stays with no operands, as MLIR prints
        ``$operands attr-dict``."""
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)

    def print_attrs_and_types(self, printer: Printer, elide: Iterable[str] = ()) -> None:
        """`` {attrs} : types`` of every operand and result, as :attr:`TYPES` says."""
        self.print_attr_dict(printer, elide)
        ins = [o.type for o in self.operands]
        outs = [r.type for r in self.results]
        if self.TYPES == "same":
            print_same_operands_and_result_type(printer, ins, outs[0])
        elif self.TYPES == "result":
            printer.print_string(" : ")
            printer.print_attribute(outs[0])
        else:
            print_functional_type(printer, ins, outs)


@dataclass(frozen=True)
class Keyword:
    """One ``key = value`` entry of a custom format; the value is property ``prop``."""

    key: str
    prop: str
    parse_value: Callable[[Parser], Attribute]
    print_value: Callable[[Printer, Attribute], None]


def _int_value(attr: Attribute) -> int:
    assert isinstance(attr, IntegerAttr)
    return attr.value.data


def int_keyword(key: str, prop: str) -> Keyword:
    """``dim = 0``, an ``i64`` integer."""
    return Keyword(
        key,
        prop,
        lambda parser: int_attr(parser.parse_integer()),
        lambda printer, attr: printer.print_string(str(_int_value(attr))),
    )


def array_keyword(key: str, prop: str) -> Keyword:
    """``dims = [1, 0]``, an ``array<i64: ...>``."""
    return Keyword(
        key,
        prop,
        lambda parser: i64_array(parse_int_array(parser)),
        lambda printer, attr: printer.print_string(int_array_text(array_values(attr))),
    )


def enum_keyword(key: str, prop: str, attr_type: type[EnumAttribute[Any]]) -> Keyword:
    """``distribution = NORMAL``, a bare enum case of ``attr_type``."""

    def print_case(printer: Printer, attr: Attribute) -> None:
        assert isinstance(attr, EnumAttribute)
        printer.print_string(str(attr.data.value))  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]

    return Keyword(
        key, prop, lambda parser: attr_type(parser.parse_str_enum(attr_type.enum_type)), print_case
    )


def string_keyword(key: str, prop: str) -> Keyword:
    """``config = "ab,bc->ac"``, a string literal."""

    def print_string(printer: Printer, attr: Attribute) -> None:
        assert isinstance(attr, StringAttr)
        printer.print_string_literal(attr.data)

    return Keyword(key, prop, lambda parser: StringAttr(parser.parse_str_literal()), print_string)


class KeywordFormat(StableHLOOp):
    """``%a, %b, key = value, ... attr-dict : types``: the operands, the :attr:`KEYWORDS` in
    order, the attribute dictionary (without the keywords' properties) and :attr:`TYPES`::

        %0 = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
        %1 = stablehlo.reverse %x, dims = [0] : tensor<4xf32>        (TYPES = "same")
        %2 = stablehlo.add %a, %b : tensor<4xf32>                    (no keywords)
    """

    KEYWORDS: ClassVar[tuple[Keyword, ...]] = ()

    @classmethod
    def parse(cls, parser: Parser):
        definitions = cls.get_irdl_definition().operands
        keywords = cls.KEYWORDS
        if any(isinstance(d, VariadicDef) for _, d in definitions):
            # As many operands as are written (the count is checked against the types).
            if keywords:
                operands = parse_operands_then_keyword(parser, keywords[0].key)
            else:
                operands = parse_operand_list(parser)
        else:
            operands = parse_operands(parser, len(definitions))
            if keywords:
                if operands:
                    parser.parse_punctuation(",")
                parser.parse_keyword(keywords[0].key)
        attrs: dict[str, Attribute] = {}
        for i, keyword in enumerate(keywords):
            if i:
                parse_keyword_equals(parser, keyword.key)
            else:
                parser.parse_punctuation("=")
            attrs[keyword.prop] = keyword.parse_value(parser)
        return cls.parse_attrs_and_types(parser, operands, attrs)

    def print(self, printer: Printer) -> None:
        self.print_operands(printer)
        for i, keyword in enumerate(self.KEYWORDS):
            printer.print_string(f"{', ' if i or self.operands else ''}{keyword.key} = ")
            keyword.print_value(printer, self.properties[keyword.prop])
        self.print_attrs_and_types(printer, [k.prop for k in self.KEYWORDS])


def define_op(base: type[OpT], cls_name: str, name: str, doc: str, **fields: object) -> type[OpT]:
    """``irdl_op_definition`` of ``class cls_name(base)`` with ``name``, docstring and
    ``fields`` (``operand_def``s, ``traits``, UPPER_CASE constants): for ops that differ only
    in those."""
    constants = {k: "ClassVar[object]" for k in fields if k.isupper()}
    body: dict[str, object] = {"name": name, "__doc__": doc, "__annotations__": constants, **fields}
    return cast(type[OpT], irdl_op_definition(type(cls_name, (base,), body)))


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


def parse_operands(parser: Parser, count: int) -> list[UnresolvedOperand]:
    """Exactly ``count`` comma-separated operands: ``%a, %b``."""
    out: list[UnresolvedOperand] = []
    for i in range(count):
        if i:
            parser.parse_punctuation(",")
        out.append(parser.parse_unresolved_operand())
    return out


def parse_keyword_equals(parser: Parser, keyword: str) -> None:
    """``, keyword =`` (a further entry of a custom format)."""
    parser.parse_punctuation(",")
    parser.parse_keyword(keyword)
    parser.parse_punctuation("=")


def group_by_definition(
    parser: Parser,
    span: tuple[int, int],
    op_name: str,
    what: str,
    definitions: Sequence[tuple[str, object]],
    values: Sequence[T],
) -> list[T | list[T]]:
    """Split a flat list of operands (or result types) into the groups of the op's
    definitions: one value per single definition, a list for its one variadic definition.
    A wrong count is reported at ``span`` (the types that declared the values)."""
    variadic = [i for i, (_, d) in enumerate(definitions) if isinstance(d, VariadicDef)]
    single = len(definitions) - len(variadic)
    if len(variadic) > 1:
        raise TypeError(f"{op_name}: cannot group {what}s between several variadic definitions")
    if len(values) < single or (not variadic and len(values) != single):
        at_least = "at least " if variadic else ""
        parser.raise_error(
            f"{op_name}: expected {at_least}{single} {what}{'s' if single != 1 else ''}, "
            f"got {len(values)}",
            *span,
        )
    if not variadic:
        return list(values)
    i, n = variadic[0], len(values) - single
    return [*values[:i], list(values[i : i + n]), *values[i + n :]]
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

