"""The CHLO ("client HLO") dialect as jaxlib registers it, in xDSL.

Every op of jaxlib's ``chlo`` dialect (``jax._src.lib.mlir.dialects.chlo``) is defined, with
the custom assembly formats MLIR prints, for example::

    %0 = chlo.erf %arg0 : tensor<4xf32> -> tensor<4xf32>
    %1 = chlo.broadcast_add %a, %b {broadcast_dimensions = array<i64: 1>} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %values, %indices = chlo.top_k(%x, k = 3) : tensor<4x8xf32> -> (tensor<4x3xf32>, tensor<4x3xi32>)
    %2 = chlo.constant dense<1.0> : tensor<4xf32>
    %3:2 = chlo.scan(%xs) inits (%c) dimension=0  {...} : (tensor<5x3xf32>, tensor<3xf32>) -> (...)

``chlo.constant_like`` and ``chlo.ragged_dot`` have no custom format in MLIR and print in
generic form.  Inherent attributes are properties (``<{...}>`` in generic form), as in MLIR.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    ComplexType,
    DenseArrayBase,
    IntAttr,
    IntegerAttr,
    IntegerType,
    TensorType,
    UnrankedTensorType,
    i32,
    i64,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    Dialect,
    Operation,
    ParametrizedAttribute,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
)
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    AttrSizedResultSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import Commutative, OpTrait, Pure, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from jax_use_donated.dialects.dense_constant import DenseConstantOp
from jax_use_donated.dialects.stablehlo.attributes import (
    ComparisonDirection,
    ComparisonType,
    Precision,
)
from jax_use_donated.dialects.stablehlo.base import define_op
from jax_use_donated.dialects.stablehlo.traits import (
    CompatibleOperandsAndResultType,
    Elementwise,
    SameOperandsAndResultShape,
)

_TENSOR = base(TensorType) | base(UnrankedTensorType)


# ------------------------------------------------------------------------------ helpers
def _shape(t: Attribute) -> tuple[int, ...] | None:
    """Static-or-dynamic shape of a ranked tensor (``-1`` = dynamic), None if unranked."""
    return tuple(t.get_shape()) if isinstance(t, TensorType) else None


def _element(t: Attribute) -> Attribute:
    if isinstance(t, TensorType | UnrankedTensorType):
        return t.element_type
    return t


def _is_float(t: Attribute) -> bool:
    from xdsl.dialects.builtin import AnyFloat

    return isinstance(_element(t), AnyFloat)


def _is_float_or_complex(t: Attribute) -> bool:
    e = _element(t)
    return _is_float(e) or isinstance(e, ComplexType)


def _is_pred(t: Attribute) -> bool:
    e = _element(t)
    return isinstance(e, IntegerType) and e.width.data == 1


def _dims_compatible(a: int, b: int) -> bool:
    return a == -1 or b == -1 or a == b


# ------------------------------------------------------------------------------ enums
# The value sets are StableHLO's; CHLO spells them ``#chlo<comparison_direction EQ>`` etc.
@irdl_attr_definition
class ComparisonDirectionAttr(EnumAttribute[ComparisonDirection], SpacedOpaqueSyntaxAttribute):
    name = "chlo.comparison_direction"


@irdl_attr_definition
class ComparisonTypeAttr(EnumAttribute[ComparisonType], SpacedOpaqueSyntaxAttribute):
    name = "chlo.comparison_type"


@irdl_attr_definition
class PrecisionAttr(EnumAttribute[Precision], SpacedOpaqueSyntaxAttribute):
    name = "chlo.precision"


_RAGGED_DOT_FIELDS = (
    "lhs_batching_dimensions",
    "rhs_batching_dimensions",
    "lhs_contracting_dimensions",
    "rhs_contracting_dimensions",
    "lhs_ragged_dimensions",
    "rhs_group_dimensions",
)


@irdl_attr_definition
class RaggedDotDimensionNumbersAttr(ParametrizedAttribute):
    """``#chlo.ragged_dot<lhs_batching_dimensions = [0], ..., rhs_group_dimensions = [0]>``."""

    name = "chlo.ragged_dot"

    lhs_batching_dimensions: ArrayAttr[IntAttr]
    rhs_batching_dimensions: ArrayAttr[IntAttr]
    lhs_contracting_dimensions: ArrayAttr[IntAttr]
    rhs_contracting_dimensions: ArrayAttr[IntAttr]
    lhs_ragged_dimensions: ArrayAttr[IntAttr]
    rhs_group_dimensions: ArrayAttr[IntAttr]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        values: dict[str, ArrayAttr[IntAttr]] = {}

        def parse_field() -> None:
            key = parser.parse_identifier()
            if key not in _RAGGED_DOT_FIELDS:
                parser.raise_error(f"unknown #chlo.ragged_dot field '{key}'")
            if key in values:
                parser.raise_error(f"#chlo.ragged_dot field '{key}' given twice")
            parser.parse_punctuation("=")
            ints = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, lambda: IntAttr(parser.parse_integer())
            )
            values[key] = ArrayAttr(ints)

        parser.parse_comma_separated_list(parser.Delimiter.ANGLE, parse_field)
        return [values.get(k, ArrayAttr(())) for k in _RAGGED_DOT_FIELDS]

    def print_parameters(self, printer: Printer) -> None:
        def print_field(key: str) -> None:
            printer.print_string(f"{key} = [")
            printer.print_list(getattr(self, key).data, lambda i: printer.print_string(str(i.data)))
            printer.print_string("]")

        # As MLIR's struct printer: empty dimension lists are left out.
        printer.print_string("<")
        printer.print_list([k for k in _RAGGED_DOT_FIELDS if getattr(self, k).data], print_field)
        printer.print_string(">")


# ------------------------------------------------------------------------------ traits
class Broadcasting(OpTrait):
    """CHLO's implicit (numpy-style or ``broadcast_dimensions``) broadcasting."""


class BroadcastingElementwise(OpTrait):
    """Element-wise after broadcasting the operands to the result shape
    (``HLO_BroadcastingElementwise``): in place only when no operand is broadcast."""


# ------------------------------------------------------------------------------ unary ops
class UnaryElementwiseOp(IRDLOperation):
    """``chlo.<op> %x : tensor<...> -> tensor<...>`` (element-wise, same shape)."""

    operand = operand_def(_TENSOR)
    result = result_def(_TENSOR)

    assembly_format = "$operand attr-dict `:` type($operand) `->` type($result)"

    OPERAND_KIND: ClassVar[str] = "float"
    """What the operand's element type must be: ``float``, ``float_or_complex`` or ``any``."""

    def __init__(self, operand: SSAValue | Operation, result_type: Attribute | None = None) -> None:
        value = SSAValue.get(operand)
        super().__init__(operands=[value], result_types=[result_type or value.type])

    def verify_(self) -> None:
        check = {"float": _is_float, "float_or_complex": _is_float_or_complex}.get(
            self.OPERAND_KIND
        )
        if check is not None and not check(self.operand.type):
            kind = self.OPERAND_KIND.replace("_", " or ")
            raise VerifyException(
                f"'{self.name}' operand must be a tensor of {kind} values, got {self.operand.type}"
            )


def _class_name(mnemonic: str) -> str:
    """``is_neg_inf`` -> ``IsNegInfOp``."""
    return "".join(p.capitalize() for p in mnemonic.strip("_").split("_")) + "Op"


def _unary(
    mnemonic: str, kind: str, same_type: bool = True, summary: str = ""
) -> type[UnaryElementwiseOp]:
    traits = [Pure(), Elementwise(), SameOperandsAndResultShape()]
    if same_type:
        traits.append(CompatibleOperandsAndResultType())
    return define_op(
        UnaryElementwiseOp,
        _class_name(mnemonic),
        f"chlo.{mnemonic}",
        summary or f"Element-wise ``{mnemonic}``.",
        OPERAND_KIND=kind,
        traits=traits_def(*traits),
    )


AcosOp = _unary("acos", "float_or_complex")
AcoshOp = _unary("acosh", "float_or_complex")
AsinOp = _unary("asin", "float_or_complex")
AsinhOp = _unary("asinh", "float_or_complex")
AtanOp = _unary("atan", "float_or_complex")
AtanhOp = _unary("atanh", "float_or_complex")
AsinAcosKernelOp = _unary(
    "_asin_acos_kernel", "float_or_complex", summary="Kernel shared by complex asin/acos."
)
BesselI1eOp = _unary(
    "bessel_i1e",
    "float_or_complex",
    summary="Exponentially scaled modified Bessel function of order 1.",
)
ConjOp = _unary("conj", "float_or_complex")
CoshOp = _unary("cosh", "float_or_complex")
SinhOp = _unary("sinh", "float_or_complex")
TanOp = _unary("tan", "float_or_complex")
SquareOp = _unary("square", "any")
DigammaOp = _unary("digamma", "float")
ErfOp = _unary("erf", "float")
ErfInvOp = _unary("erf_inv", "float")
ErfcOp = _unary("erfc", "float")
LgammaOp = _unary("lgamma", "float")


class _PredicateOp(UnaryElementwiseOp):
    def __init__(self, operand: SSAValue | Operation, result_type: Attribute | None = None) -> None:
        value = SSAValue.get(operand)
        if result_type is None:
            shape = _shape(value.type)
            result_type = (
                TensorType(IntegerType(1), shape)
                if shape is not None
                else UnrankedTensorType(IntegerType(1))
            )
        super().__init__(value, result_type)

    def verify_(self) -> None:
        super().verify_()
        if not _is_pred(self.result.type):
            raise VerifyException(
                f"'{self.name}' result must be a tensor of i1, got {self.result.type}"
            )


def _predicate(mnemonic: str, summary: str) -> type[UnaryElementwiseOp]:
    return define_op(
        _PredicateOp,
        _class_name(mnemonic),
        f"chlo.{mnemonic}",
        summary,
        OPERAND_KIND="float",
        traits=traits_def(Pure(), Elementwise(), SameOperandsAndResultShape()),
    )


IsInfOp = _predicate("is_inf", "True where the element is +/-inf.")
IsNegInfOp = _predicate("is_neg_inf", "True where the element is -inf.")
IsPosInfOp = _predicate("is_pos_inf", "True where the element is +inf.")


# ------------------------------------------------------------------------------ binary ops
class BinaryElementwiseOp(IRDLOperation):
    """``chlo.<op> %a, %b : tensor<...>, tensor<...> -> tensor<...>`` (same shapes)."""

    lhs = operand_def(_TENSOR)
    rhs = operand_def(_TENSOR)
    result = result_def(_TENSOR)

    assembly_format = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)"

    OPERAND_KIND: ClassVar[str] = "float"

    def __init__(
        self,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
        result_type: Attribute | None = None,
    ) -> None:
        a, b = SSAValue.get(lhs), SSAValue.get(rhs)
        super().__init__(operands=[a, b], result_types=[result_type or a.type])

    def verify_(self) -> None:
        if self.OPERAND_KIND == "float" and not (
            _is_float(self.lhs.type) and _is_float(self.rhs.type)
        ):
            raise VerifyException(
                f"'{self.name}' operands must be tensors of floats, got {self.lhs.type} and {self.rhs.type}"
            )
        if self.OPERAND_KIND == "integer":
            for t in (self.lhs.type, self.rhs.type):
                if not isinstance(_element(t), IntegerType):
                    raise VerifyException(
                        f"'{self.name}' operands must be tensors of integers, got {t}"
                    )


def _binary(mnemonic: str, kind: str, summary: str) -> type[BinaryElementwiseOp]:
    return define_op(
        BinaryElementwiseOp,
        _class_name(mnemonic),
        f"chlo.{mnemonic}",
        summary,
        OPERAND_KIND=kind,
        traits=traits_def(
            Pure(), Elementwise(), SameOperandsAndResultShape(), CompatibleOperandsAndResultType()
        ),
    )


NextAfterOp = _binary("next_after", "float", "Next representable value of ``x`` towards ``y``.")
PolygammaOp = _binary("polygamma", "float", "Polygamma function ``psi^(n)(x)``.")
ZetaOp = _binary("zeta", "float", "Hurwitz zeta function ``zeta(x, q)``.")
MulhiOp = _binary("mulhi", "integer", "High half of the full-width integer product.")


# ------------------------------------------------------------------------------ broadcasting binary ops
class BroadcastBinaryOp(IRDLOperation):
    """``chlo.broadcast_<op> %a, %b {broadcast_dimensions = array<i64: ...>} : (A, B) -> R``.

    Ranks broadcast numpy-style (trailing dimensions aligned) unless ``broadcast_dimensions``
    maps the lower-ranked operand's dimensions into the higher-ranked one.
    """

    lhs = operand_def(_TENSOR)
    rhs = operand_def(_TENSOR)
    result = result_def(_TENSOR)
    broadcast_dimensions = opt_prop_def(DenseArrayBase.constr(i64))
    irdl_options = (ParsePropInAttrDict(),)

    assembly_format = (
        "$lhs `,` $rhs attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->` type($result)"
    )

    RESULT_ELEMENT: ClassVar[str] = "same"
    """Result element type rule: ``same``, ``pred`` (comparison) or ``complex``."""

    def __init__(
        self,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
        result_type: Attribute,
        broadcast_dimensions: Sequence[int] | None = None,
    ) -> None:
        props: dict[str, Attribute] = {}
        if broadcast_dimensions is not None:
            props["broadcast_dimensions"] = DenseArrayBase.from_list(i64, broadcast_dimensions)
        super().__init__(operands=[lhs, rhs], result_types=[result_type], properties=props)

    def _broadcast_shape(self) -> tuple[int, ...] | None:
        a, b = _shape(self.lhs.type), _shape(self.rhs.type)
        if a is None or b is None:
            return None
        if len(a) < len(b):
            a, b = b, a
        dims = self.broadcast_dimensions
        mapping = (
            [int(d) for d in dims.get_values()]
            if dims is not None
            else list(range(len(a) - len(b), len(a)))
        )
        if len(mapping) != len(b):
            raise VerifyException(
                f"'{self.name}' broadcast_dimensions size ({len(mapping)}) does not match the lower rank ({len(b)})"
            )
        if len(set(mapping)) != len(mapping) or any(not 0 <= d < len(a) for d in mapping):
            raise VerifyException(
                f"'{self.name}' broadcast_dimensions {mapping} are not distinct dimensions of rank {len(a)}"
            )
        out = list(a)
        for small_dim, big_dim in zip(b, mapping, strict=True):
            big = out[big_dim]
            if small_dim == 1 or big == small_dim:
                continue
            if big == 1:
                out[big_dim] = small_dim
            elif big == -1 or small_dim == -1:
                out[big_dim] = -1 if big == -1 and small_dim == -1 else max(big, small_dim)
            else:
                raise VerifyException(
                    f"'{self.name}' cannot broadcast dimensions {big} and {small_dim}"
                )
        return tuple(out)

    def verify_(self) -> None:
        expected = self._broadcast_shape()
        result = _shape(self.result.type)
        if (expected is not None and result is not None) and (
            len(expected) != len(result) or not all(map(_dims_compatible, expected, result))
        ):
            raise VerifyException(
                f"'{self.name}' result shape {list(result)} does not match the broadcast shape {list(expected)}"
            )
        rule = self.RESULT_ELEMENT
        lhs_el, rhs_el, res_el = (
            _element(self.lhs.type),
            _element(self.rhs.type),
            _element(self.result.type),
        )
        if rule != "complex" and lhs_el != rhs_el:
            raise VerifyException(
                f"'{self.name}' operand element types differ: {lhs_el} vs {rhs_el}"
            )
        if rule == "same" and res_el != lhs_el:
            raise VerifyException(
                f"'{self.name}' result element type {res_el} differs from operands' {lhs_el}"
            )
        if rule == "pred" and not _is_pred(res_el):
            raise VerifyException(
                f"'{self.name}' result must be a tensor of i1, got {self.result.type}"
            )
        if rule == "complex" and not (
            isinstance(res_el, ComplexType) and res_el.element_type == lhs_el
        ):
            raise VerifyException(f"'{self.name}' result must be complex<{lhs_el}>, got {res_el}")


def _broadcast(mnemonic: str, summary: str, commutative: bool = False) -> type[BroadcastBinaryOp]:
    traits: list[OpTrait] = [Pure(), BroadcastingElementwise(), Broadcasting()]
    if commutative:
        traits.append(Commutative())
    return define_op(
        BroadcastBinaryOp,
        "Broadcast" + _class_name(mnemonic),
        f"chlo.broadcast_{mnemonic}",
        summary,
        traits=traits_def(*traits),
    )


BroadcastAddOp = _broadcast("add", "``lhs + rhs`` with broadcasting.", commutative=True)
BroadcastAndOp = _broadcast("and", "Logical/bitwise and with broadcasting.", commutative=True)
BroadcastAtan2Op = _broadcast("atan2", "``atan2(lhs, rhs)`` with broadcasting.")
BroadcastDivOp = _broadcast("divide", "``lhs / rhs`` with broadcasting.")
BroadcastMaxOp = _broadcast("maximum", "``max(lhs, rhs)`` with broadcasting.", commutative=True)
BroadcastMinOp = _broadcast("minimum", "``min(lhs, rhs)`` with broadcasting.", commutative=True)
BroadcastMulOp = _broadcast("multiply", "``lhs * rhs`` with broadcasting.", commutative=True)
BroadcastNextAfterOp = _broadcast("next_after", "``nextafter(lhs, rhs)`` with broadcasting.")
BroadcastOrOp = _broadcast("or", "Logical/bitwise or with broadcasting.", commutative=True)
BroadcastPolygammaOp = _broadcast("polygamma", "Polygamma with broadcasting.")
BroadcastPowOp = _broadcast("power", "``lhs ^ rhs`` with broadcasting.")
BroadcastRemOp = _broadcast("remainder", "``lhs % rhs`` with broadcasting.")
BroadcastShiftLeftOp = _broadcast("shift_left", "``lhs << rhs`` with broadcasting.")
BroadcastShiftRightArithmeticOp = _broadcast(
    "shift_right_arithmetic", "Arithmetic ``lhs >> rhs`` with broadcasting."
)
BroadcastShiftRightLogicalOp = _broadcast(
    "shift_right_logical", "Logical ``lhs >> rhs`` with broadcasting."
)
BroadcastSubOp = _broadcast("subtract", "``lhs - rhs`` with broadcasting.")
BroadcastXorOp = _broadcast("xor", "Logical/bitwise xor with broadcasting.", commutative=True)
BroadcastZetaOp = _broadcast("zeta", "Hurwitz zeta with broadcasting.")


@irdl_op_definition
class BroadcastComplexOp(BroadcastBinaryOp):
    """``complex(lhs, rhs)`` with broadcasting; the result is ``complex<element>``."""

    name = "chlo.broadcast_complex"
    traits = traits_def(Pure(), BroadcastingElementwise(), Broadcasting())
    RESULT_ELEMENT: ClassVar[str] = "complex"


@irdl_op_definition
class BroadcastCompareOp(BroadcastBinaryOp):
    """``chlo.broadcast_compare %a, %b {comparison_direction = #chlo<comparison_direction LT>} : ...``."""

    name = "chlo.broadcast_compare"
    comparison_direction = prop_def(ComparisonDirectionAttr)
    compare_type = opt_prop_def(ComparisonTypeAttr)
    traits = traits_def(Pure(), BroadcastingElementwise(), Broadcasting())
    RESULT_ELEMENT: ClassVar[str] = "pred"

    def __init__(  # pyright: ignore[reportIncompatibleMethodOverride]
        self,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
        result_type: Attribute,
        comparison_direction: ComparisonDirection,
        compare_type: ComparisonType | None = None,
        broadcast_dimensions: Sequence[int] | None = None,
    ) -> None:
        super().__init__(lhs, rhs, result_type, broadcast_dimensions)
        self.properties["comparison_direction"] = ComparisonDirectionAttr(comparison_direction)
        if compare_type is not None:
            self.properties["compare_type"] = ComparisonTypeAttr(compare_type)


@irdl_op_definition
class BroadcastSelectOp(IRDLOperation):
    """``chlo.broadcast_select %pred, %t, %f : (P, T, F) -> R`` with numpy-style broadcasting."""

    name = "chlo.broadcast_select"
    pred = operand_def(_TENSOR)
    on_true = operand_def(_TENSOR)
    on_false = operand_def(_TENSOR)
    result = result_def(_TENSOR)
    traits = traits_def(Pure(), BroadcastingElementwise(), Broadcasting())

    assembly_format = (
        "$pred `,` $on_true `,` $on_false attr-dict `:` "
        "`(` type($pred) `,` type($on_true) `,` type($on_false) `)` `->` type($result)"
    )

    def verify_(self) -> None:
        if not _is_pred(self.pred.type):
            raise VerifyException(
                f"'chlo.broadcast_select' predicate must be a tensor of i1, got {self.pred.type}"
            )
        if _element(self.on_true.type) != _element(self.on_false.type):
            raise VerifyException(
                "'chlo.broadcast_select' on_true and on_false element types differ"
            )
        if _element(self.result.type) != _element(self.on_true.type):
            raise VerifyException(
                "'chlo.broadcast_select' result element type differs from the selected values"
            )


# ------------------------------------------------------------------------------ constants
@irdl_op_definition
class ConstantOp(DenseConstantOp):
    """``chlo.constant dense<...> : tensor<...>`` (result type = the value's type)."""

    name = "chlo.constant"
    traits = traits_def(Pure())


@irdl_op_definition
class ConstantLikeOp(IRDLOperation):
    """Splat of ``value`` with ``operand``'s shape (printed in generic form, as MLIR does)."""

    name = "chlo.constant_like"
    value = prop_def(AnyAttr())
    operand = operand_def(_TENSOR)
    result = result_def(_TENSOR)
    traits = traits_def(
        Pure(), Broadcasting(), BroadcastingElementwise(), SameOperandsAndResultShape()
    )

    def verify_(self) -> None:
        value_type = getattr(self.value, "type", None)
        element = _element(self.result.type)
        if value_type is not None and value_type != element:
            raise VerifyException(
                f"'chlo.constant_like' value type {value_type} differs from the result element type {element}"
            )


# ------------------------------------------------------------------------------ top_k, ragged_dot, scan
@irdl_op_definition
class TopKOp(IRDLOperation):
    """``%v, %i = chlo.top_k(%x, k = 3) : tensor<4x8xf32> -> (tensor<4x3xf32>, tensor<4x3xi32>)``."""

    name = "chlo.top_k"
    operand = operand_def(_TENSOR)
    k = prop_def(IntegerAttr.constr(type=i64))
    values = result_def(_TENSOR)
    indices = result_def(_TENSOR)
    traits = traits_def(Pure())

    def __init__(
        self, operand: SSAValue | Operation, k: int, values_type: Attribute, indices_type: Attribute
    ) -> None:
        super().__init__(
            operands=[operand],
            result_types=[values_type, indices_type],
            properties={"k": IntegerAttr(k, i64)},
        )

    @classmethod
    def parse(cls, parser: Parser) -> TopKOp:
        parser.parse_punctuation("(")
        operand = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        parser.parse_keyword("k")
        parser.parse_punctuation("=")
        k = parser.parse_integer()
        parser.parse_punctuation(")")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        operand_type = parser.parse_type()
        parser.parse_punctuation("->")
        parser.parse_punctuation("(")
        values_type = parser.parse_type()
        parser.parse_punctuation(",")
        indices_type = parser.parse_type()
        parser.parse_punctuation(")")
        op = cls(parser.resolve_operand(operand, operand_type), k, values_type, indices_type)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_operand(self.operand)
        printer.print_string(f", k = {self.k.value.data})")
        if self.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.operand.type)
        printer.print_string(" -> (")
        printer.print_attribute(self.values.type)
        printer.print_string(", ")
        printer.print_attribute(self.indices.type)
        printer.print_string(")")

    def verify_(self) -> None:
        shape = _shape(self.operand.type)
        k = self.k.value.data
        if k < 0:
            raise VerifyException(f"'chlo.top_k' k must be non-negative, got {k}")
        if shape is None:
            return
        if not shape:
            raise VerifyException("'chlo.top_k' operand must have rank >= 1")
        if shape[-1] != -1 and shape[-1] < k:
            raise VerifyException(
                f"'chlo.top_k' operand's last dimension ({shape[-1]}) is smaller than k = {k}"
            )
        expected = (*shape[:-1], k)
        for what, t in (("values", self.values.type), ("indices", self.indices.type)):
            got = _shape(t)
            if got is not None and (
                len(got) != len(expected) or not all(map(_dims_compatible, got, expected))
            ):
                raise VerifyException(
                    f"'chlo.top_k' {what} shape {list(got)} should be {list(expected)}"
                )
        if _element(self.values.type) != _element(self.operand.type):
            raise VerifyException("'chlo.top_k' values element type differs from the operand's")
        if _element(self.indices.type) != i32:
            raise VerifyException(
                f"'chlo.top_k' indices must be i32, got {_element(self.indices.type)}"
            )


@irdl_op_definition
class RaggedDotOp(IRDLOperation):
    """Dot product with a ragged dimension split into groups (printed in generic form)."""

    name = "chlo.ragged_dot"
    lhs = operand_def(_TENSOR)
    rhs = operand_def(_TENSOR)
    group_sizes = operand_def(TensorType)
    result = result_def(_TENSOR)
    ragged_dot_dimension_numbers = prop_def(RaggedDotDimensionNumbersAttr)
    precision_config = opt_prop_def(ArrayAttr[PrecisionAttr])
    traits = traits_def(Pure())

    def verify_(self) -> None:
        dn = self.ragged_dot_dimension_numbers
        if len(dn.lhs_ragged_dimensions.data) != 1:
            raise VerifyException("'chlo.ragged_dot' needs exactly one lhs ragged dimension")
        if len(dn.lhs_batching_dimensions.data) != len(dn.rhs_batching_dimensions.data):
            raise VerifyException(
                "'chlo.ragged_dot' lhs and rhs batching dimensions differ in number"
            )
        if len(dn.lhs_contracting_dimensions.data) != len(dn.rhs_contracting_dimensions.data):
            raise VerifyException(
                "'chlo.ragged_dot' lhs and rhs contracting dimensions differ in number"
            )
        if self.precision_config is not None and len(self.precision_config.data) not in (0, 2):
            raise VerifyException("'chlo.ragged_dot' precision_config must have 0 or 2 entries")
        if not isinstance(_element(self.group_sizes.type), IntegerType):
            raise VerifyException("'chlo.ragged_dot' group_sizes must be a tensor of integers")


@irdl_op_definition
class ScanOp(IRDLOperation):
    """``chlo.scan(%xs) inits (%c) dimension=0  attributes {...} {^bb0(...): ...} : (...) -> (...)``.

    The body gets one slice of each input plus each carry and returns the output slices
    followed by the new carries.
    """

    name = "chlo.scan"
    inputs = var_operand_def(_TENSOR)
    inits = var_operand_def(_TENSOR)
    outputs = var_result_def(_TENSOR)
    carries = var_result_def(_TENSOR)
    dimension = prop_def(IntegerAttr.constr(type=i64))
    scan_dim_size = opt_prop_def(IntegerAttr.constr(type=i64))
    is_reverse = opt_prop_def(BoolAttr)
    is_associative = opt_prop_def(BoolAttr)
    body = region_def()
    traits = traits_def(RecursiveMemoryEffect())
    irdl_options = (
        AttrSizedOperandSegments(as_property=True),
        AttrSizedResultSegments(as_property=True),
    )

    OPTIONAL_PROPS: ClassVar[tuple[str, ...]] = ("scan_dim_size", "is_reverse", "is_associative")

    @classmethod
    def parse(cls, parser: Parser) -> ScanOp:
        def operand_list() -> list[UnresolvedOperand]:
            return parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_unresolved_operand
            )

        inputs = operand_list()
        parser.parse_keyword("inits")
        inits = operand_list()
        parser.parse_keyword("dimension")
        parser.parse_punctuation("=")
        dimension = parser.parse_integer()
        extra = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        parser.parse_punctuation(":")
        fn_type = parser.parse_function_type()
        if len(fn_type.inputs.data) != len(inputs) + len(inits):
            parser.raise_error("chlo.scan: the functional type does not match the operand count")
        operands = parser.resolve_operands([*inputs, *inits], fn_type.inputs.data, parser.pos)
        n_out = len(fn_type.outputs.data) - len(inits)
        if n_out < 0:
            parser.raise_error("chlo.scan needs one carry result per init")
        properties: dict[str, Attribute] = {"dimension": IntegerAttr(dimension, i64)}
        attributes: dict[str, Attribute] = dict(extra.data) if extra is not None else {}
        for key in cls.OPTIONAL_PROPS:
            if key in attributes:
                properties[key] = attributes.pop(key)
        outs = fn_type.outputs.data
        return cls.build(
            operands=[operands[: len(inputs)], operands[len(inputs) :]],
            result_types=[outs[:n_out], outs[n_out:]],
            properties=dict(sorted(properties.items())),
            attributes=attributes,
            regions=[body],
        )

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_list(self.inputs, printer.print_operand)
        printer.print_string(") inits (")
        printer.print_list(self.inits, printer.print_operand)
        printer.print_string(f") dimension={self.dimension.value.data} ")
        extra: dict[str, Attribute] = dict(self.attributes)
        for key in self.OPTIONAL_PROPS:
            if key in self.properties:
                extra[key] = self.properties[key]
        if extra:
            printer.print_string(" attributes ")
            printer.print_attr_dict(extra)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=True, print_empty_block=True)
        printer.print_string(" : ")
        printer.print_function_type([o.type for o in self.operands], [r.type for r in self.results])

    def verify_(self) -> None:
        block = self.body.blocks.first
        if block is None:
            raise VerifyException("'chlo.scan' body must have a block")
        n_in, n_carry = len(self.inputs), len(self.inits)
        if len(block.args) != n_in + n_carry:
            raise VerifyException(
                f"'chlo.scan' body takes {n_in + n_carry} arguments, got {len(block.args)}"
            )
        if len(self.carries) != n_carry:
            raise VerifyException("'chlo.scan' needs one carry result per init")
        for init, carry in zip(self.inits, self.carries, strict=True):
            if init.type != carry.type:
                raise VerifyException(
                    f"'chlo.scan' carry type {carry.type} differs from its init {init.type}"
                )


CHLO = Dialect(
    "chlo",
    [
        AcosOp,
        AcoshOp,
        AsinAcosKernelOp,
        AsinOp,
        AsinhOp,
        AtanOp,
        AtanhOp,
        BesselI1eOp,
        BroadcastAddOp,
        BroadcastAndOp,
        BroadcastAtan2Op,
        BroadcastCompareOp,
        BroadcastComplexOp,
        BroadcastDivOp,
        BroadcastMaxOp,
        BroadcastMinOp,
        BroadcastMulOp,
        BroadcastNextAfterOp,
        BroadcastOrOp,
        BroadcastPolygammaOp,
        BroadcastPowOp,
        BroadcastRemOp,
        BroadcastSelectOp,
        BroadcastShiftLeftOp,
        BroadcastShiftRightArithmeticOp,
        BroadcastShiftRightLogicalOp,
        BroadcastSubOp,
        BroadcastXorOp,
        BroadcastZetaOp,
        ConjOp,
        ConstantLikeOp,
        ConstantOp,
        CoshOp,
        DigammaOp,
        ErfInvOp,
        ErfOp,
        ErfcOp,
        IsInfOp,
        IsNegInfOp,
        IsPosInfOp,
        LgammaOp,
        MulhiOp,
        NextAfterOp,
        PolygammaOp,
        RaggedDotOp,
        ScanOp,
        SinhOp,
        SquareOp,
        TanOp,
        TopKOp,
        ZetaOp,
    ],
    [ComparisonDirectionAttr, ComparisonTypeAttr, PrecisionAttr, RaggedDotDimensionNumbersAttr],
)
"""The ``chlo`` dialect: every op jaxlib registers (51) and its attributes."""
