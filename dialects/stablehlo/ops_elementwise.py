"""Elementwise StableHLO ops: unary and binary math, ``compare``, ``select``, ``clamp``,
``complex``, ``convert``, ``reduce_precision`` and uniform (de)quantisation.

Printed forms follow ``StablehloOps.td``:

    %0 = stablehlo.add %a, %b : tensor<4xf32>
    %1 = stablehlo.convert %i : (tensor<4xi32>) -> tensor<4xf32>
    %2 = stablehlo.compare  GT, %a, %b,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %3 = stablehlo.select %p, %a, %b : tensor<4xi1>, tensor<4xf32>
    %4 = stablehlo.reduce_precision %a, format = e5m10 : tensor<4xf32>
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import ClassVar

from xdsl.dialects.builtin import I32, AnyTensorType, IntegerAttr, TensorType, i1, i32
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
from xdsl.traits import Commutative, OpTrait, Pure
from xdsl.utils.exceptions import VerifyException

from jax_use_donated.dialects.stablehlo.attributes import (
    ComparisonDirection,
    ComparisonDirectionAttr,
    ComparisonType,
    ComparisonTypeAttr,
    ResultAccuracyAttr,
)
from jax_use_donated.dialects.stablehlo.base import (
    KeywordFormat,
    StableHLOOp,
    TypeFormat,
    define_op,
    parse_functional_type,
    parse_keyword_equals,
    parse_operands,
    print_functional_type,
    resolve,
)
from jax_use_donated.dialects.stablehlo.traits import (
    CompatibleOperandsAndResultType,
    Elementwise,
    SameOperandsAndResultShape,
    SameOperandsElementType,
    shapes_compatible,
    verify_i1_results,
)


class UnaryElementwiseOp(KeywordFormat):
    """``$operand attr-dict : custom<SameOperandsAndResultType>``."""

    TYPES: ClassVar[TypeFormat] = "same"
    operand = operand_def(AnyTensorType)
    result = result_def(AnyTensorType)


class AccuracyUnaryElementwiseOp(UnaryElementwiseOp):
    """A unary op with an optional ``result_accuracy`` (elided when it is the default)."""

    result_accuracy = opt_prop_def(ResultAccuracyAttr)
    PRINT_DEFAULTS: ClassVar[Mapping[str, Attribute]] = {
        "result_accuracy": ResultAccuracyAttr.from_fields()
    }


class BinaryElementwiseOp(KeywordFormat):
    """``$lhs, $rhs attr-dict : custom<SameOperandsAndResultType>``."""

    TYPES: ClassVar[TypeFormat] = "same"
    lhs = operand_def(AnyTensorType)
    rhs = operand_def(AnyTensorType)
    result = result_def(AnyTensorType)


_SAME = (Pure(), Elementwise(), CompatibleOperandsAndResultType())
_SHAPE_ONLY = (Pure(), Elementwise(), SameOperandsAndResultShape())


def _unary(name: str, cls_name: str, traits: tuple[OpTrait, ...], accuracy: bool) -> type[UnaryElementwiseOp]:
    base: type[UnaryElementwiseOp] = AccuracyUnaryElementwiseOp if accuracy else UnaryElementwiseOp
    return define_op(base, cls_name, f"stablehlo.{name}", f"``stablehlo.{name}`` (elementwise).",
                     traits=traits_def(*traits))


def _binary(name: str, cls_name: str, traits: tuple[OpTrait, ...]) -> type[BinaryElementwiseOp]:
    return define_op(BinaryElementwiseOp, cls_name, f"stablehlo.{name}",
                     f"``stablehlo.{name}`` (elementwise).", traits=traits_def(*traits))


AbsOp = _unary("abs", "AbsOp", _SHAPE_ONLY, False)  # complex -> real changes the element type
CbrtOp = _unary("cbrt", "CbrtOp", _SAME, True)
CeilOp = _unary("ceil", "CeilOp", _SAME, False)
ConvertOp = _unary("convert", "ConvertOp", _SHAPE_ONLY, False)
ClzOp = _unary("count_leading_zeros", "ClzOp", _SAME, False)
CosineOp = _unary("cosine", "CosineOp", _SAME, True)
ExpOp = _unary("exponential", "ExpOp", _SAME, True)
Exp2Op = _unary("exp2", "Exp2Op", _SAME, True)  # jaxlib >= 0.12.1
Expm1Op = _unary("exponential_minus_one", "Expm1Op", _SAME, True)
FloorOp = _unary("floor", "FloorOp", _SAME, False)
ImagOp = _unary("imag", "ImagOp", _SHAPE_ONLY, False)
LogOp = _unary("log", "LogOp", _SAME, True)
Log2Op = _unary("log2", "Log2Op", _SAME, True)  # jaxlib >= 0.12.1
Log1pOp = _unary("log_plus_one", "Log1pOp", _SAME, True)
LogisticOp = _unary("logistic", "LogisticOp", _SAME, True)
NotOp = _unary("not", "NotOp", _SAME, False)
NegOp = _unary("negate", "NegOp", _SAME, False)
PopulationCountOp = _unary("popcnt", "PopulationCountOp", _SAME, False)
RealOp = _unary("real", "RealOp", _SHAPE_ONLY, False)
RoundOp = _unary("round_nearest_afz", "RoundOp", _SAME, False)
RoundNearestEvenOp = _unary("round_nearest_even", "RoundNearestEvenOp", _SAME, False)
RsqrtOp = _unary("rsqrt", "RsqrtOp", _SAME, True)
SignOp = _unary("sign", "SignOp", _SAME, False)
SineOp = _unary("sine", "SineOp", _SAME, True)
SqrtOp = _unary("sqrt", "SqrtOp", _SAME, True)
TanOp = _unary("tan", "TanOp", _SAME, True)
TanhOp = _unary("tanh", "TanhOp", _SAME, True)
UniformQuantizeOp = _unary("uniform_quantize", "UniformQuantizeOp", _SHAPE_ONLY, False)
UniformDequantizeOp = _unary("uniform_dequantize", "UniformDequantizeOp", _SHAPE_ONLY, False)

_COMM = (Commutative(), *_SAME)
AddOp = _binary("add", "AddOp", _COMM)
Atan2Op = _binary("atan2", "Atan2Op", _SAME)
DivOp = _binary("divide", "DivOp", _SAME)
MaxOp = _binary("maximum", "MaxOp", _COMM)
MinOp = _binary("minimum", "MinOp", _COMM)
MulOp = _binary("multiply", "MulOp", _COMM)
PowOp = _binary("power", "PowOp", _SAME)
RemOp = _binary("remainder", "RemOp", _SAME)
ShiftLeftOp = _binary("shift_left", "ShiftLeftOp", _SAME)
ShiftRightArithmeticOp = _binary("shift_right_arithmetic", "ShiftRightArithmeticOp", _SAME)
ShiftRightLogicalOp = _binary("shift_right_logical", "ShiftRightLogicalOp", _SAME)
SubtractOp = _binary("subtract", "SubtractOp", _SAME)
AndOp = _binary("and", "AndOp", _COMM)
OrOp = _binary("or", "OrOp", _COMM)
XorOp = _binary("xor", "XorOp", _COMM)


@irdl_op_definition
class IsFiniteOp(KeywordFormat):
    """``stablehlo.is_finite %x : (tensor<4xf32>) -> tensor<4xi1>``."""

    name = "stablehlo.is_finite"
    x = operand_def(AnyTensorType)
    y = result_def(AnyTensorType)
    traits = traits_def(Pure(), Elementwise(), SameOperandsAndResultShape())

    def verify_(self) -> None:
        verify_i1_results(self)


@irdl_op_definition
class ComplexOp(StableHLOOp):
    """``stablehlo.complex %re, %im : tensor<4xcomplex<f32>>``."""

    name = "stablehlo.complex"
    lhs = operand_def(AnyTensorType)
    rhs = operand_def(AnyTensorType)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure(), Elementwise(), SameOperandsAndResultShape(), SameOperandsElementType())

    @staticmethod
    def _part_type(t: Attribute) -> Attribute | None:
        from xdsl.dialects.builtin import ComplexType

        if isinstance(t, TensorType) and isinstance(t.get_element_type(), ComplexType):
            return TensorType(t.get_element_type().element_type, t.get_shape(), t.encoding)  # pyright: ignore[reportUnknownMemberType, reportAttributeAccessIssue, reportUnknownArgumentType]
        return None

    @classmethod
    def parse(cls, parser: Parser):
        operands = parse_operands(parser, 2)
        attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        if parser._current_token.text == "(":  # pyright: ignore[reportPrivateUsage]
            ins, outs = parse_functional_type(parser)
            out = outs[0]
        else:
            out = parser.parse_type()
            part = cls._part_type(out)
            if part is None:
                parser.raise_error(f"stablehlo.complex: expected a tensor of complex type, got {out}")
            ins = [part, part]
        return cls.create_parsed(parser, resolve(parser, operands, ins), [out], attrs)

    def print(self, printer: Printer) -> None:
        self.print_operands(printer)
        self.print_attr_dict(printer)
        part = self._part_type(self.result.type)
        if part is not None and self.lhs.type == part and self.rhs.type == part:
            printer.print_string(" : ")
            printer.print_attribute(self.result.type)
        else:
            print_functional_type(printer, [self.lhs.type, self.rhs.type], [self.result.type])


@irdl_op_definition
class CompareOp(StableHLOOp):
    """``stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>``."""

    name = "stablehlo.compare"
    lhs = operand_def(AnyTensorType)
    rhs = operand_def(AnyTensorType)
    result = result_def(AnyTensorType)
    comparison_direction = prop_def(ComparisonDirectionAttr)
    compare_type = opt_prop_def(ComparisonTypeAttr)
    traits = traits_def(Pure(), Elementwise(), SameOperandsElementType(), SameOperandsAndResultShape())

    @classmethod
    def parse(cls, parser: Parser):
        direction = parser.parse_str_enum(ComparisonDirection)
        parser.parse_punctuation(",")
        operands = parse_operands(parser, 2)
        attrs: dict[str, Attribute] = {"comparison_direction": ComparisonDirectionAttr(direction)}
        if parser.parse_optional_punctuation(","):
            attrs["compare_type"] = ComparisonTypeAttr(parser.parse_str_enum(ComparisonType))
        return cls.parse_attrs_and_types(parser, operands, attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.comparison_direction.data.value},")
        self.print_operands(printer)
        if self.compare_type is not None:
            printer.print_string(f", {self.compare_type.data.value}")
        self.print_attrs_and_types(printer, ("comparison_direction", "compare_type"))

    def verify_(self) -> None:
        verify_i1_results(self)


@irdl_op_definition
class SelectOp(StableHLOOp):
    """``stablehlo.select %pred, %t, %f : tensor<4xi1>, tensor<4xf32>`` (scalar pred allowed)."""

    name = "stablehlo.select"
    pred = operand_def(AnyTensorType)
    on_true = operand_def(AnyTensorType)
    on_false = operand_def(AnyTensorType)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure(), Elementwise())

    @classmethod
    def parse(cls, parser: Parser):
        ops = parse_operands(parser, 3)
        attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        if parser._current_token.text == "(":  # pyright: ignore[reportPrivateUsage]
            ins, outs = parse_functional_type(parser)
        else:
            pred = parser.parse_type()
            parser.parse_punctuation(",")
            t = parser.parse_type()
            ins, outs = [pred, t, t], [t]
        return cls.create_parsed(parser, resolve(parser, ops, ins), outs, attrs)

    def print(self, printer: Printer) -> None:
        self.print_operands(printer)
        self.print_attr_dict(printer)
        t = self.result.type
        if self.on_true.type == t and self.on_false.type == t:
            printer.print_string(" : ")
            printer.print_attribute(self.pred.type)
            printer.print_string(", ")
            printer.print_attribute(t)
        else:
            print_functional_type(printer, [o.type for o in self.operands], [t])

    def verify_(self) -> None:
        p, t, f, r = self.pred.type, self.on_true.type, self.on_false.type, self.result.type
        assert isinstance(p, TensorType) and isinstance(t, TensorType) and isinstance(f, TensorType)
        if p.get_element_type() != i1:
            raise VerifyException(f"'{self.name}' pred must be a tensor of i1, got {p}")
        if t.get_element_type() != f.get_element_type():
            raise VerifyException(
                f"'{self.name}' on_true and on_false must have the same element type, got {t} and {f}"
            )
        if p.get_shape() and not shapes_compatible(tuple(p.get_shape()), tuple(t.get_shape())):
            raise VerifyException(
                f"'{self.name}' pred must be a scalar or have the shape of on_true, got {p} and {t}"
            )
        if not shapes_compatible(tuple(t.get_shape()), tuple(f.get_shape())):
            raise VerifyException(f"'{self.name}' on_true {t} and on_false {f} shapes differ")
        assert isinstance(r, TensorType)
        if not shapes_compatible(tuple(t.get_shape()), tuple(r.get_shape())):
            raise VerifyException(f"'{self.name}' result {r} does not match on_true {t}")


@irdl_op_definition
class ClampOp(KeywordFormat):
    """``stablehlo.clamp %min, %x, %max : tensor<4xf32>`` (scalar bounds allowed)."""

    name = "stablehlo.clamp"
    TYPES: ClassVar[TypeFormat] = "same"
    min = operand_def(AnyTensorType)
    operand = operand_def(AnyTensorType)
    max = operand_def(AnyTensorType)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure(), Elementwise())

    def verify_(self) -> None:
        x = self.operand.type
        assert isinstance(x, TensorType)
        for label, v in (("min", self.min), ("max", self.max)):
            t = v.type
            assert isinstance(t, TensorType)
            if t.get_element_type() != x.get_element_type():
                raise VerifyException(f"'{self.name}' {label} element type {t} differs from operand {x}")
            if t.get_shape() and not shapes_compatible(tuple(t.get_shape()), tuple(x.get_shape())):
                raise VerifyException(
                    f"'{self.name}' {label} must be a scalar or have the operand's shape, got {t} for {x}"
                )


@irdl_op_definition
class FmaOp(KeywordFormat):
    """``stablehlo.fma %a, %b, %c : tensor<4xf32>``: ``a * b + c`` rounded once (jaxlib >=
    0.12.1; JAX 0.12.1 lowers ``erf_inv`` and the threefry hash's polynomials with it)."""

    name = "stablehlo.fma"
    TYPES: ClassVar[TypeFormat] = "same"
    a = operand_def(AnyTensorType)
    b = operand_def(AnyTensorType)
    c = operand_def(AnyTensorType)
    result = result_def(AnyTensorType)
    traits = traits_def(*_SAME)


@irdl_op_definition
class ReducePrecisionOp(StableHLOOp):
    """``stablehlo.reduce_precision %x, format = e5m10 : tensor<4xf32>``."""

    name = "stablehlo.reduce_precision"
    TYPES: ClassVar[TypeFormat] = "same"
    operand = operand_def(AnyTensorType)
    output = result_def(AnyTensorType)
    exponent_bits = prop_def(IntegerAttr[I32])
    mantissa_bits = prop_def(IntegerAttr[I32])
    traits = traits_def(Pure(), Elementwise(), CompatibleOperandsAndResultType())

    @classmethod
    def parse(cls, parser: Parser):
        x = parser.parse_unresolved_operand()
        parse_keyword_equals(parser, "format")
        word = parser.parse_identifier()
        m = re.fullmatch(r"e(\d+)m(\d+)", word)
        if m is None:
            parser.raise_error(f"expected a format like e5m10, got '{word}'")
        attrs: dict[str, Attribute] = {
            "exponent_bits": IntegerAttr(int(m.group(1)), i32),
            "mantissa_bits": IntegerAttr(int(m.group(2)), i32),
        }
        return cls.parse_attrs_and_types(parser, [x], attrs)

    def print(self, printer: Printer) -> None:
        self.print_operands(printer)
        printer.print_string(
            f", format = e{self.exponent_bits.value.data}m{self.mantissa_bits.value.data}"
        )
        self.print_attrs_and_types(printer, ("exponent_bits", "mantissa_bits"))

    def verify_(self) -> None:
        if self.exponent_bits.value.data < 1:
            raise VerifyException(f"'{self.name}' exponent_bits must be >= 1")
        if self.mantissa_bits.value.data < 0:
            raise VerifyException(f"'{self.name}' mantissa_bits must be >= 0")


ELEMENTWISE_OPS: list[type[StableHLOOp]] = [
    AbsOp, CbrtOp, CeilOp, ConvertOp, ClzOp, CosineOp, ExpOp, Exp2Op, Expm1Op, FloorOp, ImagOp,
    LogOp, Log2Op, Log1pOp, LogisticOp, NotOp, NegOp, PopulationCountOp, RealOp, RoundOp, RoundNearestEvenOp,
    RsqrtOp, SignOp, SineOp, SqrtOp, TanOp, TanhOp, UniformQuantizeOp, UniformDequantizeOp,
    AddOp, Atan2Op, DivOp, MaxOp, MinOp, MulOp, PowOp, RemOp, ShiftLeftOp, ShiftRightArithmeticOp,
    ShiftRightLogicalOp, SubtractOp, AndOp, OrOp, XorOp, IsFiniteOp, ComplexOp, CompareOp,
    SelectOp, ClampOp, FmaOp, ReducePrecisionOp,
]

