"""StableHLO attributes: enums (``#stablehlo<comparison_direction GT>``) and structs
(``#stablehlo.gather<...>``, ``#stablehlo.dot<...>``, ``#stablehlo.conv<...>``, ...).

Struct attributes print their fields the way StableHLO's C++ printer does: in declaration
order, ``name = value``, with empty dimension lists and default values left out.

>>> str(ChannelHandleAttr.new_handle(1, 1))
'#stablehlo.channel_handle<handle = 1, type = 1>'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

from xdsl.dialects.builtin import ArrayAttr, IntAttr
from xdsl.dialects.utils import EnumAttribute, StrEnum
from xdsl.ir import Attribute, Data, ParametrizedAttribute, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from jax_use_donated.dialects.stablehlo.float_format import (
    FLOAT_FORMATS,
    float_to_bits,
    format_float_bits,
    parse_float_text,
)

# ---------------------------------------------------------------------------------------
# Enums


class ComparisonDirection(StrEnum):
    EQ = "EQ"
    NE = "NE"
    GE = "GE"
    GT = "GT"
    LE = "LE"
    LT = "LT"


class ComparisonType(StrEnum):
    NOTYPE = "NOTYPE"
    FLOAT = "FLOAT"
    TOTALORDER = "TOTALORDER"
    SIGNED = "SIGNED"
    UNSIGNED = "UNSIGNED"


class Precision(StrEnum):
    DEFAULT = "DEFAULT"
    HIGH = "HIGH"
    HIGHEST = "HIGHEST"


class FftType(StrEnum):
    FFT = "FFT"
    IFFT = "IFFT"
    RFFT = "RFFT"
    IRFFT = "IRFFT"


class RngAlgorithm(StrEnum):
    DEFAULT = "DEFAULT"
    THREE_FRY = "THREE_FRY"
    PHILOX = "PHILOX"


class RngDistribution(StrEnum):
    UNIFORM = "UNIFORM"
    NORMAL = "NORMAL"


class Transpose(StrEnum):
    TRANSPOSE_INVALID = "TRANSPOSE_INVALID"
    NO_TRANSPOSE = "NO_TRANSPOSE"
    TRANSPOSE = "TRANSPOSE"
    ADJOINT = "ADJOINT"


class ResultAccuracyMode(StrEnum):
    DEFAULT = "DEFAULT"
    HIGHEST = "HIGHEST"
    TOLERANCE = "TOLERANCE"


@irdl_attr_definition
class ComparisonDirectionAttr(EnumAttribute[ComparisonDirection], SpacedOpaqueSyntaxAttribute):
    """``#stablehlo<comparison_direction GT>``."""

    name = "stablehlo.comparison_direction"


@irdl_attr_definition
class ComparisonTypeAttr(EnumAttribute[ComparisonType], SpacedOpaqueSyntaxAttribute):
    """``#stablehlo<comparison_type FLOAT>``."""

    name = "stablehlo.comparison_type"


@irdl_attr_definition
class PrecisionAttr(EnumAttribute[Precision], SpacedOpaqueSyntaxAttribute):
    """``#stablehlo<precision DEFAULT>`` (one entry of ``precision_config``)."""

    name = "stablehlo.precision"


@irdl_attr_definition
class FftTypeAttr(EnumAttribute[FftType], SpacedOpaqueSyntaxAttribute):
    """``#stablehlo<fft_type FFT>``."""

    name = "stablehlo.fft_type"


@irdl_attr_definition
class RngAlgorithmAttr(EnumAttribute[RngAlgorithm], SpacedOpaqueSyntaxAttribute):
    """``#stablehlo<rng_algorithm THREE_FRY>``."""

    name = "stablehlo.rng_algorithm"


@irdl_attr_definition
class RngDistributionAttr(EnumAttribute[RngDistribution], SpacedOpaqueSyntaxAttribute):
    """``#stablehlo<rng_distribution UNIFORM>``."""

    name = "stablehlo.rng_distribution"


@irdl_attr_definition
class TransposeAttr(EnumAttribute[Transpose], SpacedOpaqueSyntaxAttribute):
    """``#stablehlo<transpose NO_TRANSPOSE>``."""

    name = "stablehlo.transpose"


@irdl_attr_definition
class ResultAccuracyModeAttr(Data[ResultAccuracyMode]):
    """``#stablehlo.result_accuracy_mode<TOLERANCE>`` (dotted, not opaque, syntax)."""

    name = "stablehlo.result_accuracy_mode"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> ResultAccuracyMode:
        with parser.in_angle_brackets():
            word = parser.parse_identifier()
        if word not in ResultAccuracyMode._value2member_map_:
            parser.raise_error(f"unknown result accuracy mode '{word}'")
        return ResultAccuracyMode(word)

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f"<{self.data.value}>")


# ---------------------------------------------------------------------------------------
# Struct attributes


FieldKind = Literal["dims", "int", "bool", "type", "f64", "attr", "bound_list"]


@dataclass(frozen=True)
class Field:
    """One ``name = value`` entry; ``default`` is elided when printing (None: always
    printed, and required when parsing)."""

    name: str
    kind: FieldKind
    default: object = None


def _parse_dims(parser: AttrParser) -> ArrayAttr[IntAttr]:
    return ArrayAttr(
        IntAttr(v)
        for v in parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
    )


def _print_dims(printer: Printer, dims: ArrayAttr[IntAttr]) -> None:
    printer.print_string("[" + ", ".join(str(d.data) for d in dims.data) + "]")


def _parse_field_value(parser: AttrParser, kind: FieldKind) -> Attribute:
    if kind == "dims":
        return _parse_dims(parser)
    if kind == "int":
        return IntAttr(parser.parse_integer(allow_boolean=False))
    if kind == "bool":
        return IntAttr(int(parser.parse_boolean()))
    if kind == "type":
        return parser.parse_type()
    if kind == "f64":
        negative = parser.parse_optional_punctuation("-") is not None
        token = parser._current_token  # pyright: ignore[reportPrivateUsage]
        text = token.text
        parser._consume_token()  # pyright: ignore[reportPrivateUsage]
        fmt = FLOAT_FORMATS["f64"]
        if text.startswith("0x"):
            return IntAttr(int(text, 16))
        return IntAttr(parse_float_text(("-" if negative else "") + text, fmt))
    return parser.parse_attribute()


def _print_field_value(printer: Printer, kind: FieldKind, value: Attribute) -> None:
    if kind == "dims":
        assert isinstance(value, ArrayAttr)
        _print_dims(printer, value)  # pyright: ignore[reportUnknownArgumentType]
    elif kind == "int":
        assert isinstance(value, IntAttr)
        printer.print_string(str(value.data))
    elif kind == "bool":
        assert isinstance(value, IntAttr)
        printer.print_string("true" if value.data else "false")
    elif kind == "f64":
        assert isinstance(value, IntAttr)
        printer.print_string(format_float_bits(value.data, FLOAT_FORMATS["f64"]))
    else:
        printer.print_attribute(value)


def _default_attr(field: Field) -> Attribute:
    if field.kind == "dims":
        return ArrayAttr(IntAttr(v) for v in field.default)  # type: ignore[union-attr]
    if field.kind in ("int", "bool"):
        return IntAttr(int(field.default))  # type: ignore[arg-type]
    if field.kind == "f64":
        return IntAttr(float_to_bits(float(field.default), FLOAT_FORMATS["f64"]))  # type: ignore[arg-type]
    assert isinstance(field.default, Attribute)
    return field.default


class StructAttr(ParametrizedAttribute):
    """Base of ``#stablehlo.NAME<field = value, ...>`` attributes."""

    FIELDS: ClassVar[tuple[Field, ...]] = ()

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        values: dict[str, Attribute] = {}
        by_name = {f.name: f for f in cls.FIELDS}
        with parser.in_angle_brackets():

            def parse_entry() -> None:
                name = parser.parse_identifier()
                field = by_name.get(name)
                if field is None:
                    parser.raise_error(
                        f"unknown field '{name}' in #{cls.name}; expected one of "
                        + ", ".join(by_name)
                    )
                if name in values:
                    parser.raise_error(f"duplicate field '{name}' in #{cls.name}")
                parser.parse_punctuation("=")
                values[name] = _parse_field_value(parser, field.kind)

            if parser._current_token.text != ">":  # pyright: ignore[reportPrivateUsage]
                parser.parse_comma_separated_list(parser.Delimiter.NONE, parse_entry)
        params: list[Attribute] = []
        for f in cls.FIELDS:
            if f.name in values:
                params.append(values[f.name])
            elif f.default is None:
                parser.raise_error(f"#{cls.name} is missing field '{f.name}'")
            else:
                params.append(_default_attr(f))
        return params

    def print_parameters(self, printer: Printer) -> None:
        entries: list[str] = []
        for f, value in zip(self.FIELDS, self.parameters, strict=True):
            if f.default is not None and value == _default_attr(f):
                continue
            entries.append(f.name)
        printer.print_string("<")
        first = True
        for f, value in zip(self.FIELDS, self.parameters, strict=True):
            if f.name not in entries:
                continue
            if not first:
                printer.print_string(", ")
            first = False
            printer.print_string(f"{f.name} = ")
            _print_field_value(printer, f.kind, value)
        printer.print_string(">")

    def field(self, name: str) -> Attribute:
        for f, value in zip(self.FIELDS, self.parameters, strict=True):
            if f.name == name:
                return value
        raise KeyError(name)

    def dims(self, name: str) -> tuple[int, ...]:
        value = self.field(name)
        assert isinstance(value, ArrayAttr)
        return tuple(v.data for v in value.data)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]

    def int_field(self, name: str) -> int:
        value = self.field(name)
        assert isinstance(value, IntAttr)
        return value.data

    @classmethod
    def from_fields(cls, **kwargs: object) -> StructAttr:
        """Build from Python values: lists of ints, ints, bools, types, attributes."""
        params: list[Attribute] = []
        for f in cls.FIELDS:
            v = kwargs.get(f.name, f.default)
            if v is None:
                raise ValueError(f"#{cls.name} needs '{f.name}'")
            if isinstance(v, Attribute):
                params.append(v)
            elif f.kind == "dims":
                params.append(ArrayAttr(IntAttr(int(x)) for x in v))  # type: ignore[union-attr]
            elif f.kind == "f64":
                params.append(IntAttr(float_to_bits(float(v), FLOAT_FORMATS["f64"])))  # type: ignore[arg-type]
            else:
                params.append(IntAttr(int(v)))  # type: ignore[arg-type]
        return cls(*params)


def _check_dims_distinct(attr: StructAttr, *names: str) -> None:
    for n in names:
        d = attr.dims(n)
        if any(x < 0 for x in d):
            raise VerifyException(f"#{attr.name}: {n} must be non-negative, got {list(d)}")
        if len(set(d)) != len(d):
            raise VerifyException(f"#{attr.name}: {n} has duplicate dimensions {list(d)}")


@irdl_attr_definition
class DotDimensionNumbersAttr(StructAttr):
    """``#stablehlo.dot<lhs_batching_dimensions = [0], ..., rhs_contracting_dimensions = [1]>``."""

    name = "stablehlo.dot"
    lhs_batching_dimensions: ArrayAttr[IntAttr]
    rhs_batching_dimensions: ArrayAttr[IntAttr]
    lhs_contracting_dimensions: ArrayAttr[IntAttr]
    rhs_contracting_dimensions: ArrayAttr[IntAttr]
    FIELDS = (
        Field("lhs_batching_dimensions", "dims", ()),
        Field("rhs_batching_dimensions", "dims", ()),
        Field("lhs_contracting_dimensions", "dims", ()),
        Field("rhs_contracting_dimensions", "dims", ()),
    )

    def verify(self) -> None:
        _check_dims_distinct(self, *(f.name for f in self.FIELDS))


@irdl_attr_definition
class GatherDimensionNumbersAttr(StructAttr):
    """``#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], ...>``."""

    name = "stablehlo.gather"
    offset_dims: ArrayAttr[IntAttr]
    collapsed_slice_dims: ArrayAttr[IntAttr]
    operand_batching_dims: ArrayAttr[IntAttr]
    start_indices_batching_dims: ArrayAttr[IntAttr]
    start_index_map: ArrayAttr[IntAttr]
    index_vector_dim: IntAttr
    FIELDS = (
        Field("offset_dims", "dims", ()),
        Field("collapsed_slice_dims", "dims", ()),
        Field("operand_batching_dims", "dims", ()),
        Field("start_indices_batching_dims", "dims", ()),
        Field("start_index_map", "dims", ()),
        Field("index_vector_dim", "int", 0),
    )


@irdl_attr_definition
class ScatterDimensionNumbersAttr(StructAttr):
    """``#stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], ...>``."""

    name = "stablehlo.scatter"
    update_window_dims: ArrayAttr[IntAttr]
    inserted_window_dims: ArrayAttr[IntAttr]
    input_batching_dims: ArrayAttr[IntAttr]
    scatter_indices_batching_dims: ArrayAttr[IntAttr]
    scatter_dims_to_operand_dims: ArrayAttr[IntAttr]
    index_vector_dim: IntAttr
    FIELDS = (
        Field("update_window_dims", "dims", ()),
        Field("inserted_window_dims", "dims", ()),
        Field("input_batching_dims", "dims", ()),
        Field("scatter_indices_batching_dims", "dims", ()),
        Field("scatter_dims_to_operand_dims", "dims", ()),
        Field("index_vector_dim", "int", 0),
    )


@irdl_attr_definition
class ChannelHandleAttr(StructAttr):
    """``#stablehlo.channel_handle<handle = 1, type = 1>``."""

    name = "stablehlo.channel_handle"
    handle: IntAttr
    type: IntAttr
    FIELDS = (Field("handle", "int"), Field("type", "int"))

    @staticmethod
    def new_handle(handle: int, type: int) -> ChannelHandleAttr:
        return ChannelHandleAttr(IntAttr(handle), IntAttr(type))


@irdl_attr_definition
class OutputOperandAliasAttr(StructAttr):
    """``#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0,
    operand_tuple_indices = []>`` (all fields always printed)."""

    name = "stablehlo.output_operand_alias"
    output_tuple_indices: ArrayAttr[IntAttr]
    operand_index: IntAttr
    operand_tuple_indices: ArrayAttr[IntAttr]
    FIELDS = (
        Field("output_tuple_indices", "dims"),
        Field("operand_index", "int"),
        Field("operand_tuple_indices", "dims"),
    )

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<output_tuple_indices = ")
        _print_dims(printer, self.output_tuple_indices)
        printer.print_string(f", operand_index = {self.operand_index.data}, operand_tuple_indices = ")
        _print_dims(printer, self.operand_tuple_indices)
        printer.print_string(">")


@irdl_attr_definition
class DotAlgorithmAttr(StructAttr):
    """``#stablehlo.dot_algorithm<lhs_precision_type = tf32, ..., allow_imprecise_accumulation = false>``."""

    name = "stablehlo.dot_algorithm"
    lhs_precision_type: Attribute
    rhs_precision_type: Attribute
    accumulation_type: Attribute
    lhs_component_count: IntAttr
    rhs_component_count: IntAttr
    num_primitive_operations: IntAttr
    allow_imprecise_accumulation: IntAttr
    FIELDS = (
        Field("lhs_precision_type", "type"),
        Field("rhs_precision_type", "type"),
        Field("accumulation_type", "type"),
        Field("lhs_component_count", "int"),
        Field("rhs_component_count", "int"),
        Field("num_primitive_operations", "int"),
        Field("allow_imprecise_accumulation", "bool"),
    )

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        for i, (f, value) in enumerate(zip(self.FIELDS, self.parameters, strict=True)):
            printer.print_string((", " if i else "") + f"{f.name} = ")
            _print_field_value(printer, f.kind, value)
        printer.print_string(">")


@irdl_attr_definition
class ResultAccuracyAttr(StructAttr):
    """``#stablehlo.result_accuracy<atol = 1.000000e-05, ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>``."""

    name = "stablehlo.result_accuracy"
    atol: IntAttr
    rtol: IntAttr
    ulps: IntAttr
    mode: ResultAccuracyModeAttr
    FIELDS = (
        Field("atol", "f64", 0.0),
        Field("rtol", "f64", 0.0),
        Field("ulps", "int", 0),
        Field("mode", "attr", ResultAccuracyModeAttr(ResultAccuracyMode.DEFAULT)),
    )

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        for f, value in zip(self.FIELDS[:3], self.parameters[:3], strict=True):
            if value != _default_attr(f):
                printer.print_string(f"{f.name} = ")
                _print_field_value(printer, f.kind, value)
                printer.print_string(", ")
        printer.print_string("mode = ")
        printer.print_attribute(self.mode)
        printer.print_string(">")


# ---------------------------------------------------------------------------------------
# Convolution dimension numbers: `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`


@irdl_attr_definition
class ConvDimensionNumbersAttr(StructAttr):
    """``#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>``; the same text (without
    the wrapper) is the ``dim_numbers = ...`` of ``stablehlo.convolution``."""

    name = "stablehlo.conv"
    input_batch_dimension: IntAttr
    input_feature_dimension: IntAttr
    input_spatial_dimensions: ArrayAttr[IntAttr]
    kernel_input_feature_dimension: IntAttr
    kernel_output_feature_dimension: IntAttr
    kernel_spatial_dimensions: ArrayAttr[IntAttr]
    output_batch_dimension: IntAttr
    output_feature_dimension: IntAttr
    output_spatial_dimensions: ArrayAttr[IntAttr]
    FIELDS = (
        Field("input_batch_dimension", "int", 0),
        Field("input_feature_dimension", "int", 0),
        Field("input_spatial_dimensions", "dims", ()),
        Field("kernel_input_feature_dimension", "int", 0),
        Field("kernel_output_feature_dimension", "int", 0),
        Field("kernel_spatial_dimensions", "dims", ()),
        Field("output_batch_dimension", "int", 0),
        Field("output_feature_dimension", "int", 0),
        Field("output_spatial_dimensions", "dims", ()),
    )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            if parser.parse_optional_keyword("raw") is not None:
                params: dict[str, Attribute] = {}

                def entry() -> None:
                    name = parser.parse_identifier()
                    parser.parse_punctuation("=")
                    kind: FieldKind | None = next((f.kind for f in cls.FIELDS if f.name == name), None)
                    if kind is None:
                        parser.raise_error(f"unknown convolution dimension field '{name}'")
                    params[name] = _parse_field_value(parser, kind)

                parser.parse_comma_separated_list(parser.Delimiter.NONE, entry)
                return [params.get(f.name, _default_attr(f)) for f in cls.FIELDS]
            return parse_conv_dims_body(parser).parameters

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<" + conv_dims_text(self) + ">")


def _conv_side(parser: AttrParser, a: str, b: str) -> tuple[int, int, list[int]]:
    entries: list[str | int] = []

    def one() -> None:
        if (n := parser.parse_optional_integer(allow_boolean=False)) is not None:
            entries.append(n)
        else:
            entries.append(parser.parse_identifier())

    parser.parse_comma_separated_list(parser.Delimiter.SQUARE, one)
    pos_a = pos_b = -1
    spatial: dict[int, int] = {}
    for i, e in enumerate(entries):
        if e == a and pos_a < 0:
            pos_a = i
        elif e == b and pos_b < 0:
            pos_b = i
        elif isinstance(e, int) and e not in spatial:
            spatial[e] = i
        else:
            parser.raise_error(
                f"convolution dimension numbers: unexpected or repeated '{e}', "
                f"expected '{a}', '{b}' and spatial indices"
            )
    if pos_a < 0 or pos_b < 0 or sorted(spatial) != list(range(len(spatial))):
        parser.raise_error(f"convolution dimension numbers need '{a}', '{b}' and spatial dims 0..n-1")
    return pos_a, pos_b, [spatial[i] for i in range(len(spatial))]


def parse_conv_dims_body(parser: AttrParser) -> ConvDimensionNumbersAttr:
    """Parse ``[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]``."""
    ib, if_, isp = _conv_side(parser, "b", "f")
    parser.parse_keyword("x") if parser._current_token.text == "x" else None  # pyright: ignore[reportPrivateUsage]
    ki, ko, ksp = _conv_side(parser, "i", "o")
    parser.parse_punctuation("->")
    ob, of, osp = _conv_side(parser, "b", "f")
    return ConvDimensionNumbersAttr(
        IntAttr(ib), IntAttr(if_), ArrayAttr(map(IntAttr, isp)),
        IntAttr(ki), IntAttr(ko), ArrayAttr(map(IntAttr, ksp)),
        IntAttr(ob), IntAttr(of), ArrayAttr(map(IntAttr, osp)),
    )


def _side_text(a: str, pa: int, b: str, pb: int, spatial: tuple[int, ...]) -> str:
    n = 2 + len(spatial)
    slots: list[str] = ["?"] * n
    for label, pos in ((a, pa), (b, pb)):
        if 0 <= pos < n:
            slots[pos] = label
    for i, pos in enumerate(spatial):
        if 0 <= pos < n:
            slots[pos] = str(i)
    return "[" + ", ".join(slots) + "]"


def conv_dims_text(attr: ConvDimensionNumbersAttr) -> str:
    return (
        _side_text("b", attr.int_field("input_batch_dimension"), "f",
                   attr.int_field("input_feature_dimension"), attr.dims("input_spatial_dimensions"))
        + "x"
        + _side_text("i", attr.int_field("kernel_input_feature_dimension"), "o",
                     attr.int_field("kernel_output_feature_dimension"),
                     attr.dims("kernel_spatial_dimensions"))
        + "->"
        + _side_text("b", attr.int_field("output_batch_dimension"), "f",
                     attr.int_field("output_feature_dimension"),
                     attr.dims("output_spatial_dimensions"))
    )


STABLEHLO_ATTRIBUTES: list[type[Attribute]] = [
    ComparisonDirectionAttr,
    ComparisonTypeAttr,
    PrecisionAttr,
    FftTypeAttr,
    RngAlgorithmAttr,
    RngDistributionAttr,
    TransposeAttr,
    ResultAccuracyModeAttr,
    DotDimensionNumbersAttr,
    GatherDimensionNumbersAttr,
    ScatterDimensionNumbersAttr,
    ChannelHandleAttr,
    OutputOperandAliasAttr,
    DotAlgorithmAttr,
    ResultAccuracyAttr,
    ConvDimensionNumbersAttr,
]
