"""Contractions, convolutions, FFT, RNG and linear algebra ops.

    %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1],
         precision = [DEFAULT, DEFAULT] : (tensor<1x4x4xf32>, tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
    %1 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
         window = {stride = [1, 1], pad = [[1, 2], [1, 2]]} {batch_group_count = 1 : i64, ...} : ...
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    AnyTensorType,
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    i1,
    i64,
)
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from jax_use_donated.dialects.stablehlo.attributes import (
    ConvDimensionNumbersAttr,
    DotAlgorithmAttr,
    DotDimensionNumbersAttr,
    FftTypeAttr,
    Precision,
    PrecisionAttr,
    RngAlgorithmAttr,
    RngDistributionAttr,
    TransposeAttr,
    conv_dims_text,
    parse_conv_dims_body,
)
from jax_use_donated.dialects.stablehlo.base import (
    Keyword,
    KeywordFormat,
    StableHLOOp,
    TypeFormat,
    array_keyword,
    array_values,
    enum_keyword,
    i64_array,
    int_array_text,
    parse_int_array,
    parse_operands,
    string_keyword,
)
from jax_use_donated.dialects.stablehlo.traits import DYN, SameOperandsAndResultElementType


def _parse_precision_list(parser: Parser) -> ArrayAttr[PrecisionAttr]:
    return ArrayAttr(
        parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: PrecisionAttr(parser.parse_str_enum(Precision))
        )
    )


def _precision_text(attr: Attribute) -> str:
    assert isinstance(attr, ArrayAttr)
    return "[" + ", ".join(p.data.value for p in attr.data) + "]"  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType, reportAttributeAccessIssue]


@irdl_op_definition
class DotGeneralOp(StableHLOOp):
    """``stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [...] : ...``."""

    name = "stablehlo.dot_general"
    lhs = operand_def(AnyTensorType)
    rhs = operand_def(AnyTensorType)
    dot_dimension_numbers = prop_def(DotDimensionNumbersAttr)
    precision_config = opt_prop_def(ArrayAttr)
    algorithm = opt_prop_def(DotAlgorithmAttr)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        operands = parse_operands(parser, 2)
        dims: dict[str, list[int]] = {}
        attrs: dict[str, Attribute] = {}
        while parser.parse_optional_punctuation(","):
            key = parser.parse_identifier()
            parser.parse_punctuation("=")
            if key in ("batching_dims", "contracting_dims"):
                lhs = parse_int_array(parser)
                parser.parse_keyword("x")
                rhs = parse_int_array(parser)
                prefix = "batching" if key == "batching_dims" else "contracting"
                dims[f"lhs_{prefix}_dimensions"] = lhs
                dims[f"rhs_{prefix}_dimensions"] = rhs
            elif key == "precision":
                attrs["precision_config"] = _parse_precision_list(parser)
            elif key == "algorithm":
                params = DotAlgorithmAttr.parse_parameters(parser)
                attrs["algorithm"] = DotAlgorithmAttr.new(params)
            else:
                parser.raise_error(
                    f"stablehlo.dot_general: unexpected '{key}', expected batching_dims, "
                    "contracting_dims, precision or algorithm"
                )
        attrs["dot_dimension_numbers"] = DotDimensionNumbersAttr.from_fields(**dims)
        return cls.parse_attrs_and_types(parser, operands, attrs)

    def print(self, printer: Printer) -> None:
        dn = self.dot_dimension_numbers
        self.print_operands(printer)
        lb, rb = dn.dims("lhs_batching_dimensions"), dn.dims("rhs_batching_dimensions")
        if lb or rb:
            printer.print_string(f", batching_dims = {int_array_text(lb)} x {int_array_text(rb)}")
        lc, rc = dn.dims("lhs_contracting_dimensions"), dn.dims("rhs_contracting_dimensions")
        printer.print_string(f", contracting_dims = {int_array_text(lc)} x {int_array_text(rc)}")
        if self.precision_config is not None and self.precision_config.data:
            printer.print_string(f", precision = {_precision_text(self.precision_config)}")
        if self.algorithm is not None:
            printer.print_string(", algorithm = ")
            self.algorithm.print_parameters(printer)
        self.print_attrs_and_types(printer, ("dot_dimension_numbers", "precision_config", "algorithm"))

    def verify_(self) -> None:
        dn = self.dot_dimension_numbers
        ls, rs = self.lhs.type, self.rhs.type
        assert isinstance(ls, TensorType) and isinstance(rs, TensorType)
        lshape, rshape = tuple(ls.get_shape()), tuple(rs.get_shape())
        lb, rb = dn.dims("lhs_batching_dimensions"), dn.dims("rhs_batching_dimensions")
        lc, rc = dn.dims("lhs_contracting_dimensions"), dn.dims("rhs_contracting_dimensions")
        if len(lb) != len(rb):
            raise VerifyException(f"'{self.name}' lhs and rhs batching dimensions differ in count: {list(lb)} x {list(rb)}")
        if len(lc) != len(rc):
            raise VerifyException(
                f"'{self.name}' lhs and rhs contracting dimensions differ in count: {list(lc)} x {list(rc)}"
            )
        for side, shape, dims in (("lhs", lshape, lb + lc), ("rhs", rshape, rb + rc)):
            for d in dims:
                if not 0 <= d < len(shape):
                    raise VerifyException(f"'{self.name}' {side} dimension {d} is out of range for rank {len(shape)}")
            if len(set(dims)) != len(dims):
                raise VerifyException(f"'{self.name}' {side} batching and contracting dimensions overlap: {list(dims)}")
        for kind, ld, rd in (("batching", lb, rb), ("contracting", lc, rc)):
            for a, b in zip(ld, rd, strict=True):
                if DYN not in (lshape[a], rshape[b]) and lshape[a] != rshape[b]:
                    raise VerifyException(
                        f"'{self.name}' {kind} dimension sizes differ: lhs dim {a} is {lshape[a]}, "
                        f"rhs dim {b} is {rshape[b]}"
                    )


@irdl_op_definition
class DotOp(StableHLOOp):
    """``stablehlo.dot %a, %b, precision = [DEFAULT, DEFAULT] : (...) -> ...``."""

    name = "stablehlo.dot"
    lhs = operand_def(AnyTensorType)
    rhs = operand_def(AnyTensorType)
    precision_config = opt_prop_def(ArrayAttr)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        operands = parse_operands(parser, 2)
        attrs: dict[str, Attribute] = {}
        if parser.parse_optional_punctuation(","):
            parser.parse_keyword("precision")
            parser.parse_punctuation("=")
            attrs["precision_config"] = _parse_precision_list(parser)
        return cls.parse_attrs_and_types(parser, operands, attrs)

    def print(self, printer: Printer) -> None:
        self.print_operands(printer)
        if self.precision_config is not None and self.precision_config.data:
            printer.print_string(f", precision = {_precision_text(self.precision_config)}")
        self.print_attrs_and_types(printer, ("precision_config",))


_WINDOW_KEYS = (
    ("stride", "window_strides"),
    ("pad", "padding"),
    ("lhs_dilate", "lhs_dilation"),
    ("rhs_dilate", "rhs_dilation"),
    ("reverse", "window_reversal"),
)


@irdl_op_definition
class ConvolutionOp(StableHLOOp):
    """``stablehlo.convolution(%x, %w) dim_numbers = ..., window = {...} {...} : ...``."""

    name = "stablehlo.convolution"
    lhs = operand_def(AnyTensorType)
    rhs = operand_def(AnyTensorType)
    window_strides = opt_prop_def(DenseArrayBase)
    padding = opt_prop_def(DenseIntOrFPElementsAttr)
    lhs_dilation = opt_prop_def(DenseArrayBase)
    rhs_dilation = opt_prop_def(DenseArrayBase)
    window_reversal = opt_prop_def(DenseArrayBase)
    dimension_numbers = prop_def(ConvDimensionNumbersAttr)
    feature_group_count = prop_def(IntegerAttr[I64])
    batch_group_count = prop_def(IntegerAttr[I64])
    precision_config = opt_prop_def(ArrayAttr)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        parser.parse_punctuation("(")
        operands = parse_operands(parser, 2)
        parser.parse_punctuation(")")
        parser.parse_keyword("dim_numbers")
        parser.parse_punctuation("=")
        attrs: dict[str, Attribute] = {"dimension_numbers": parse_conv_dims_body(parser)}
        parser.parse_punctuation(",")
        parser.parse_keyword("window")
        parser.parse_punctuation("=")
        parser.parse_punctuation("{")
        keys = dict(_WINDOW_KEYS)

        def entry() -> None:
            key = parser.parse_identifier()
            if key not in keys:
                parser.raise_error(f"unknown window attribute '{key}', expected one of {', '.join(keys)}")
            parser.parse_punctuation("=")
            if key == "pad":
                rows = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, lambda: parse_int_array(parser))
                flat = [v for r in rows for v in r]
                attrs["padding"] = DenseIntOrFPElementsAttr.from_list(
                    TensorType(i64, [len(rows), 2]), flat
                )
            elif key == "reverse":
                vals = parser.parse_comma_separated_list(
                    parser.Delimiter.SQUARE, lambda: int(parser.parse_boolean())
                )
                attrs["window_reversal"] = DenseArrayBase.from_list(i1, vals)
            else:
                attrs[keys[key]] = i64_array(parse_int_array(parser))

        if parser.parse_optional_punctuation("}") is None:
            parser.parse_comma_separated_list(parser.Delimiter.NONE, entry)
            parser.parse_punctuation("}")
        return cls.parse_attrs_and_types(parser, operands, attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_list(self.operands, printer.print_operand)
        printer.print_string(f") dim_numbers = {conv_dims_text(self.dimension_numbers)}, window = {{")
        parts: list[str] = []
        for key, prop in _WINDOW_KEYS:
            value = self.properties.get(prop)
            if value is None:
                continue
            if prop == "padding":
                assert isinstance(value, DenseIntOrFPElementsAttr)
                flat = [int(v) for v in value.get_values()]  # pyright: ignore[reportUnknownArgumentType, reportUnknownVariableType]
                text = "[" + ", ".join(f"[{flat[i]}, {flat[i + 1]}]" for i in range(0, len(flat), 2)) + "]"
            elif prop == "window_reversal":
                text = "[" + ", ".join("true" if v else "false" for v in array_values(value)) + "]"
            else:
                text = int_array_text(array_values(value))
            parts.append(f"{key} = {text}")
        printer.print_string(", ".join(parts) + "}")
        self.print_attrs_and_types(printer, ["dimension_numbers", *(p for _, p in _WINDOW_KEYS)])


@irdl_op_definition
class DynamicConvOp(StableHLOOp):
    """Generic-form ``stablehlo.dynamic_conv`` (padding as an operand)."""

    name = "stablehlo.dynamic_conv"
    lhs = operand_def(AnyTensorType)
    rhs = operand_def(AnyTensorType)
    padding = operand_def(AnyTensorType)
    window_strides = opt_prop_def(DenseArrayBase)
    lhs_dilation = opt_prop_def(DenseArrayBase)
    rhs_dilation = opt_prop_def(DenseArrayBase)
    window_reversal = opt_prop_def(DenseArrayBase)
    dimension_numbers = prop_def(ConvDimensionNumbersAttr)
    feature_group_count = prop_def(IntegerAttr[I64])
    batch_group_count = prop_def(IntegerAttr[I64])
    precision_config = opt_prop_def(ArrayAttr)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class EinsumOp(KeywordFormat):
    """``stablehlo.einsum %a, %b, config = "ab,bc->ac" : (...) -> ...``."""

    name = "stablehlo.einsum"
    KEYWORDS: ClassVar[tuple[Keyword, ...]] = (string_keyword("config", "einsum_config"),)
    lhs = operand_def(AnyTensorType)
    rhs = operand_def(AnyTensorType)
    einsum_config = prop_def(StringAttr)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class UnaryEinsumOp(KeywordFormat):
    """``stablehlo.unary_einsum %x, config = "ab->a" : (...) -> ...``."""

    name = "stablehlo.unary_einsum"
    KEYWORDS: ClassVar[tuple[Keyword, ...]] = (string_keyword("config", "einsum_config"),)
    operand = operand_def(AnyTensorType)
    einsum_config = prop_def(StringAttr)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class FftOp(KeywordFormat):
    """``stablehlo.fft %x, type = FFT, length = [4] : (...) -> ...``."""

    name = "stablehlo.fft"
    KEYWORDS: ClassVar[tuple[Keyword, ...]] = (
        enum_keyword("type", "fft_type", FftTypeAttr),
        array_keyword("length", "fft_length"),
    )
    operand = operand_def(AnyTensorType)
    fft_type = prop_def(FftTypeAttr)
    fft_length = prop_def(DenseArrayBase)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class RngOp(KeywordFormat):
    """``stablehlo.rng %a, %b, %shape, distribution = NORMAL : (...) -> ...``."""

    name = "stablehlo.rng"
    KEYWORDS: ClassVar[tuple[Keyword, ...]] = (
        enum_keyword("distribution", "rng_distribution", RngDistributionAttr),
    )
    a = operand_def(AnyTensorType)
    b = operand_def(AnyTensorType)
    shape = operand_def(AnyTensorType)
    rng_distribution = prop_def(RngDistributionAttr)
    result = result_def(AnyTensorType)


@irdl_op_definition
class RngBitGeneratorOp(KeywordFormat):
    """``%s, %out = stablehlo.rng_bit_generator %state, algorithm = DEFAULT : (...) -> (...)``."""

    name = "stablehlo.rng_bit_generator"
    KEYWORDS: ClassVar[tuple[Keyword, ...]] = (
        enum_keyword("algorithm", "rng_algorithm", RngAlgorithmAttr),
    )
    initial_state = operand_def(AnyTensorType)
    rng_algorithm = prop_def(RngAlgorithmAttr)
    output_state = result_def(AnyTensorType)
    output = result_def(AnyTensorType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if self.initial_state.type != self.output_state.type:
            raise VerifyException(
                f"'{self.name}' output_state {self.output_state.type} must match initial_state "
                f"{self.initial_state.type}"
            )


@irdl_op_definition
class CholeskyOp(StableHLOOp):
    """``stablehlo.cholesky %a, lower = true : tensor<3x3xf32>``."""

    name = "stablehlo.cholesky"
    TYPES: ClassVar[TypeFormat] = "same"
    a = operand_def(AnyTensorType)
    lower = opt_prop_def(Attribute)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure(), SameOperandsAndResultElementType())

    @classmethod
    def parse(cls, parser: Parser):
        from xdsl.dialects.builtin import BoolAttr

        x = parser.parse_unresolved_operand()
        attrs: dict[str, Attribute] = {}
        if parser.parse_optional_punctuation(","):
            parser.parse_keyword("lower")
            parser.parse_punctuation("=")
            attrs["lower"] = BoolAttr.from_bool(parser.parse_boolean())
        return cls.parse_attrs_and_types(parser, [x], attrs)

    def print(self, printer: Printer) -> None:
        self.print_operands(printer)
        value = getattr(self.lower, "value", None)
        if value is not None and value.data:  # `lower = false` is the default: elided
            printer.print_string(", lower = true")
        self.print_attrs_and_types(printer, ("lower",))


@irdl_op_definition
class TriangularSolveOp(StableHLOOp):
    """Generic-form ``stablehlo.triangular_solve``."""

    name = "stablehlo.triangular_solve"
    a = operand_def(AnyTensorType)
    b = operand_def(AnyTensorType)
    left_side = prop_def(Attribute)
    lower = prop_def(Attribute)
    unit_diagonal = prop_def(Attribute)
    transpose_a = prop_def(TransposeAttr)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure(), SameOperandsAndResultElementType())


class _BatchNorm(StableHLOOp):
    epsilon = prop_def(Attribute)
    feature_index = prop_def(IntegerAttr[I64])

    def verify_(self) -> None:
        t = self.operands[0].type
        assert isinstance(t, TensorType)
        fi = self.feature_index.value.data
        if not 0 <= fi < t.get_num_dims():
            raise VerifyException(f"'{self.name}' feature_index {fi} is out of range for rank {t.get_num_dims()}")


@irdl_op_definition
class BatchNormGradOp(_BatchNorm):
    """Generic-form ``stablehlo.batch_norm_grad``."""

    name = "stablehlo.batch_norm_grad"
    operand = operand_def(AnyTensorType)
    scale = operand_def(AnyTensorType)
    mean = operand_def(AnyTensorType)
    variance = operand_def(AnyTensorType)
    grad_output = operand_def(AnyTensorType)
    grad_operand = result_def(AnyTensorType)
    grad_scale = result_def(AnyTensorType)
    grad_offset = result_def(AnyTensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class BatchNormInferenceOp(_BatchNorm):
    """Generic-form ``stablehlo.batch_norm_inference``."""

    name = "stablehlo.batch_norm_inference"
    operand = operand_def(AnyTensorType)
    scale = operand_def(AnyTensorType)
    offset = operand_def(AnyTensorType)
    mean = operand_def(AnyTensorType)
    variance = operand_def(AnyTensorType)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class BatchNormTrainingOp(_BatchNorm):
    """Generic-form ``stablehlo.batch_norm_training``."""

    name = "stablehlo.batch_norm_training"
    operand = operand_def(AnyTensorType)
    scale = operand_def(AnyTensorType)
    offset = operand_def(AnyTensorType)
    output = result_def(AnyTensorType)
    batch_mean = result_def(AnyTensorType)
    batch_var = result_def(AnyTensorType)
    traits = traits_def(Pure())


COMPUTE_OPS: list[type[StableHLOOp]] = [
    DotGeneralOp, DotOp, ConvolutionOp, DynamicConvOp, EinsumOp, UnaryEinsumOp, FftOp, RngOp,
    RngBitGeneratorOp, CholeskyOp, TriangularSolveOp, BatchNormGradOp, BatchNormInferenceOp,
    BatchNormTrainingOp,
]

