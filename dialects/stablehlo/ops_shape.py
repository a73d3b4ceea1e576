"""Shape and data-movement ops: broadcast, reshape, transpose, slice, pad, concatenate,
gather, iota, dynamic variants, tuples, bitcasts.

    %0 = stablehlo.broadcast_in_dim %x, dims = [0] : (tensor<2xf32>) -> tensor<2x3xf32>
    %1 = stablehlo.slice %x [0:2, 1:4:2] : (tensor<4x4xf32>) -> tensor<2x2xf32>
    %2 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<1xf32>, tensor<2xf32>) -> tensor<3xf32>
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I32,
    I64,
    AnyTensorType,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    TensorType,
    TupleType,
    i32,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AnyAttr,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from jax_use_donated.dialects.stablehlo.attributes import GatherDimensionNumbersAttr
from jax_use_donated.dialects.stablehlo.base import (
    Keyword,
    KeywordFormat,
    StableHLOOp,
    TypeFormat,
    array_keyword,
    array_values,
    i64_array,
    int_keyword,
    parse_operand_list,
    resolve,
)
from jax_use_donated.dialects.stablehlo.traits import (
    DYN,
    CompatibleOperandsAndResultType,
    SameOperandsAndResultElementType,
)


def _shape(t: Attribute) -> tuple[int, ...]:
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


def _static(shape: tuple[int, ...]) -> bool:
    return DYN not in shape


def _check_scalar_indices(op: StableHLOOp, indices: Sequence[SSAValue]) -> None:
    """``HLO_ScalarIntTensor`` start indices, all of one type."""
    for i, v in enumerate(indices):
        t = v.type
        if not (isinstance(t, TensorType) and t.get_shape() == () and isinstance(t.get_element_type(), IntegerType)):
            raise VerifyException(f"'{op.name}' start index #{i} must be a 0-d integer tensor, got {t}")
        if t != indices[0].type:
            raise VerifyException(
                f"'{op.name}' start indices must share one type: #{i} is {t}, #0 is {indices[0].type}"
            )


def _check_slice_sizes(op: StableHLOOp, shape: tuple[int, ...], sizes: Sequence[int]) -> None:
    """Each slice size fits its dimension (``dynamic_slice``, ``gather``)."""
    for d, (n, s) in enumerate(zip(shape, sizes, strict=True)):
        if s < 0 or (n != DYN and s > n):
            raise VerifyException(f"'{op.name}' slice size {s} exceeds dimension {d} of size {n}")


@irdl_op_definition
class IotaOp(KeywordFormat):
    """``stablehlo.iota dim = 0 : tensor<4x4xi32>``."""

    name = "stablehlo.iota"
    KEYWORDS: ClassVar[tuple[Keyword, ...]] = (int_keyword("dim", "iota_dimension"),)
    TYPES: ClassVar[TypeFormat] = "result"
    iota_dimension = prop_def(IntegerAttr[I64])
    output = result_def(AnyTensorType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        rank = len(_shape(self.output.type))
        d = self.iota_dimension.value.data
        if not 0 <= d < max(rank, 1) or rank == 0:
            raise VerifyException(f"'{self.name}' iota_dimension {d} is out of range for rank {rank}")


@irdl_op_definition
class DynamicIotaOp(KeywordFormat):
    """``stablehlo.dynamic_iota %shape, dim = 0 : (tensor<2xi64>) -> tensor<?x?xi32>``."""

    name = "stablehlo.dynamic_iota"
    KEYWORDS: ClassVar[tuple[Keyword, ...]] = (int_keyword("dim", "iota_dimension"),)
    output_shape = operand_def(AnyTensorType)
    iota_dimension = prop_def(IntegerAttr[I64])
    result = result_def(AnyTensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class BroadcastInDimOp(KeywordFormat):
    """``stablehlo.broadcast_in_dim %x, dims = [0] : (tensor<2xf32>) -> tensor<2x3xf32>``."""

    name = "stablehlo.broadcast_in_dim"
    KEYWORDS: ClassVar[tuple[Keyword, ...]] = (array_keyword("dims", "broadcast_dimensions"),)
    operand = operand_def(AnyTensorType)
    broadcast_dimensions = prop_def(DenseArrayBase)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure(), SameOperandsAndResultElementType())

    def verify_(self) -> None:
        dims = array_values(self.broadcast_dimensions)
        src, dst = _shape(self.operand.type), _shape(self.result.type)
        if len(dims) != len(src):
            raise VerifyException(
                f"'{self.name}' broadcast_dimensions has {len(dims)} entries for an operand of rank {len(src)}"
            )
        if len(set(dims)) != len(dims):
            raise VerifyException(f"'{self.name}' broadcast_dimensions {list(dims)} has duplicates")
        for i, d in enumerate(dims):
            if not 0 <= d < len(dst):
                raise VerifyException(
                    f"'{self.name}' broadcast_dimensions[{i}] = {d} is out of range for result rank {len(dst)}"
                )
            if src[i] not in (1, DYN) and dst[d] != DYN and src[i] != dst[d]:
                raise VerifyException(
                    f"'{self.name}' operand dimension {i} of size {src[i]} cannot broadcast to "
                    f"result dimension {d} of size {dst[d]}"
                )


@irdl_op_definition
class BroadcastOp(KeywordFormat):
    """``stablehlo.broadcast %x, sizes = [2] : (tensor<3xf32>) -> tensor<2x3xf32>``."""

    name = "stablehlo.broadcast"
    KEYWORDS: ClassVar[tuple[Keyword, ...]] = (array_keyword("sizes", "broadcast_sizes"),)
    operand = operand_def(AnyTensorType)
    broadcast_sizes = prop_def(DenseArrayBase)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure(), SameOperandsAndResultElementType())


@irdl_op_definition
class TransposeOp(KeywordFormat):
    """``stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>``."""

    name = "stablehlo.transpose"
    KEYWORDS: ClassVar[tuple[Keyword, ...]] = (array_keyword("dims", "permutation"),)
    operand = operand_def(AnyTensorType)
    permutation = prop_def(DenseArrayBase)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure(), SameOperandsAndResultElementType())

    def verify_(self) -> None:
        perm = array_values(self.permutation)
        src, dst = _shape(self.operand.type), _shape(self.result.type)
        if sorted(perm) != list(range(len(src))):
            raise VerifyException(
                f"'{self.name}' permutation {list(perm)} is not a permutation of 0..{len(src) - 1}"
            )
        if len(dst) != len(src):
            raise VerifyException(f"'{self.name}' result rank {len(dst)} differs from operand rank {len(src)}")
        for i, p in enumerate(perm):
            if DYN not in (dst[i], src[p]) and dst[i] != src[p]:
                raise VerifyException(
                    f"'{self.name}' result dimension {i} is {dst[i]} but operand dimension {p} is {src[p]}"
                )


@irdl_op_definition
class ReverseOp(KeywordFormat):
    """``stablehlo.reverse %x, dims = [0] : tensor<4xf32>``."""

    name = "stablehlo.reverse"
    KEYWORDS: ClassVar[tuple[Keyword, ...]] = (array_keyword("dims", "dimensions"),)
    TYPES: ClassVar[TypeFormat] = "same"
    operand = operand_def(AnyTensorType)
    dimensions = prop_def(DenseArrayBase)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure(), CompatibleOperandsAndResultType())


@irdl_op_definition
class ReshapeOp(KeywordFormat):
    """``stablehlo.reshape %x : (tensor<4x4xf32>) -> tensor<16xf32>``."""

    name = "stablehlo.reshape"
    operand = operand_def(AnyTensorType)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure(), SameOperandsAndResultElementType())

    def verify_(self) -> None:
        src, dst = _shape(self.operand.type), _shape(self.result.type)
        if not _static(dst):
            raise VerifyException(f"'{self.name}' result must have a static shape, got {self.result.type}")
        if _static(src) and math.prod(src) != math.prod(dst):
            raise VerifyException(
                f"'{self.name}' operand has {math.prod(src)} elements but result has {math.prod(dst)}"
            )


@irdl_op_definition
class DynamicReshapeOp(KeywordFormat):
    """``stablehlo.dynamic_reshape %x, %shape : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x?xf32>``."""

    name = "stablehlo.dynamic_reshape"
    operand = operand_def(AnyTensorType)
    output_shape = operand_def(AnyTensorType)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class BitcastConvertOp(KeywordFormat):
    """``stablehlo.bitcast_convert %x : (tensor<4xf32>) -> tensor<4xi32>``."""

    name = "stablehlo.bitcast_convert"
    operand = operand_def(AnyTensorType)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class DynamicUpdateSliceOp(KeywordFormat):
    """``stablehlo.dynamic_update_slice %x, %u, %i, %j : (...) -> tensor<4x4xf32>``."""

    name = "stablehlo.dynamic_update_slice"
    operand = operand_def(AnyTensorType)
    update = operand_def(AnyTensorType)
    start_indices = var_operand_def(AnyTensorType)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        x, u = _shape(self.operand.type), _shape(self.update.type)
        _check_scalar_indices(self, list(self.start_indices))
        if len(self.start_indices) != len(x):
            raise VerifyException(
                f"'{self.name}' has {len(self.start_indices)} start indices for an operand of rank {len(x)}"
            )
        if len(u) != len(x) or any(DYN not in (a, b) and a > b for a, b in zip(u, x, strict=True)):
            raise VerifyException(f"'{self.name}' update {self.update.type} does not fit in operand {self.operand.type}")
        if self.result.type != self.operand.type and _static(_shape(self.result.type)) and _static(x):
            raise VerifyException(f"'{self.name}' result type must equal the operand type {self.operand.type}")


@irdl_op_definition
class RealDynamicSliceOp(KeywordFormat):
    """``stablehlo.real_dynamic_slice %x, %start, %limit, %strides : (...) -> tensor<?xf32>``."""

    name = "stablehlo.real_dynamic_slice"
    operand = operand_def(AnyTensorType)
    start_indices = operand_def(AnyTensorType)
    limit_indices = operand_def(AnyTensorType)
    strides = operand_def(AnyTensorType)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class DynamicPadOp(KeywordFormat):
    """``stablehlo.dynamic_pad %x, %v, %lo, %hi, %in : (...) -> tensor<?xf32>``."""

    name = "stablehlo.dynamic_pad"
    operand = operand_def(AnyTensorType)
    padding_value = operand_def(AnyTensorType)
    edge_padding_low = operand_def(AnyTensorType)
    edge_padding_high = operand_def(AnyTensorType)
    interior_padding = operand_def(AnyTensorType)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class DynamicBroadcastInDimOp(KeywordFormat):
    """``stablehlo.dynamic_broadcast_in_dim %x, %shape, dims = [] : (...) -> tensor<?x?xf32>``."""

    name = "stablehlo.dynamic_broadcast_in_dim"
    KEYWORDS: ClassVar[tuple[Keyword, ...]] = (array_keyword("dims", "broadcast_dimensions"),)
    operand = operand_def(AnyTensorType)
    output_dimensions = operand_def(AnyTensorType)
    broadcast_dimensions = prop_def(DenseArrayBase)
    known_expanding_dimensions = opt_prop_def(DenseArrayBase)
    known_nonexpanding_dimensions = opt_prop_def(DenseArrayBase)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class SliceOp(StableHLOOp):
    """``stablehlo.slice %x [0:2, 1:4:2] : (tensor<4x4xf32>) -> tensor<2x2xf32>``."""

    name = "stablehlo.slice"
    operand = operand_def(AnyTensorType)
    start_indices = prop_def(DenseArrayBase)
    limit_indices = prop_def(DenseArrayBase)
    strides = prop_def(DenseArrayBase)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure(), SameOperandsAndResultElementType())

    @classmethod
    def parse(cls, parser: Parser):
        x = parser.parse_unresolved_operand()
        starts: list[int] = []
        limits: list[int] = []
        strides: list[int] = []

        def one() -> None:
            starts.append(parser.parse_integer())
            parser.parse_punctuation(":")
            limits.append(parser.parse_integer())
            strides.append(parser.parse_integer() if parser.parse_optional_punctuation(":") else 1)

        parser.parse_comma_separated_list(parser.Delimiter.SQUARE, one)
        attrs: dict[str, Attribute] = {
            "start_indices": i64_array(starts),
            "limit_indices": i64_array(limits),
            "strides": i64_array(strides),
        }
        return cls.parse_attrs_and_types(parser, [x], attrs)

    def print(self, printer: Printer) -> None:
        self.print_operands(printer)
        parts = []
        for s, lim, st in zip(array_values(self.start_indices), array_values(self.limit_indices),
                              array_values(self.strides), strict=True):
            parts.append(f"{s}:{lim}" + (f":{st}" if st != 1 else ""))
        printer.print_string(" [" + ", ".join(parts) + "]")
        self.print_attrs_and_types(printer, ("start_indices", "limit_indices", "strides"))

    def verify_(self) -> None:
        src, dst = _shape(self.operand.type), _shape(self.result.type)
        starts, limits = array_values(self.start_indices), array_values(self.limit_indices)
        strides = array_values(self.strides)
        if not len(starts) == len(limits) == len(strides) == len(src):
            raise VerifyException(
                f"'{self.name}' needs {len(src)} start/limit/stride entries, got "
                f"{len(starts)}/{len(limits)}/{len(strides)}"
            )
        for d, (s, lim, st) in enumerate(zip(starts, limits, strides, strict=True)):
            if st <= 0:
                raise VerifyException(f"'{self.name}' stride {st} in dimension {d} must be positive")
            if s < 0 or lim < s or (src[d] != DYN and lim > src[d]):
                raise VerifyException(
                    f"'{self.name}' slice {s}:{lim} is out of bounds for dimension {d} of size {src[d]}"
                )
            want = -(-(lim - s) // st)
            if dst[d] != DYN and dst[d] != want:
                raise VerifyException(
                    f"'{self.name}' result dimension {d} should be {want}, got {dst[d]}"
                )


@irdl_op_definition
class DynamicSliceOp(KeywordFormat):
    """``stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 2] : (...) -> tensor<2x2xf32>``."""

    name = "stablehlo.dynamic_slice"
    KEYWORDS: ClassVar[tuple[Keyword, ...]] = (array_keyword("sizes", "slice_sizes"),)
    operand = operand_def(AnyTensorType)
    start_indices = var_operand_def(AnyTensorType)
    slice_sizes = prop_def(DenseArrayBase)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        src = _shape(self.operand.type)
        sizes = array_values(self.slice_sizes)
        _check_scalar_indices(self, list(self.start_indices))
        if len(self.start_indices) != len(src) or len(sizes) != len(src):
            raise VerifyException(
                f"'{self.name}' operand of rank {len(src)} needs {len(src)} start indices and sizes, got "
                f"{len(self.start_indices)} and {len(sizes)}"
            )
        _check_slice_sizes(self, src, sizes)


@irdl_op_definition
class PadOp(KeywordFormat):
    """``stablehlo.pad %x, %v, low = [0], high = [1], interior = [0] : (...) -> tensor<5xf32>``."""

    name = "stablehlo.pad"
    KEYWORDS: ClassVar[tuple[Keyword, ...]] = (
        array_keyword("low", "edge_padding_low"),
        array_keyword("high", "edge_padding_high"),
        array_keyword("interior", "interior_padding"),
    )
    operand = operand_def(AnyTensorType)
    padding_value = operand_def(AnyTensorType)
    edge_padding_low = prop_def(DenseArrayBase)
    edge_padding_high = prop_def(DenseArrayBase)
    interior_padding = prop_def(DenseArrayBase)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure(), SameOperandsAndResultElementType())

    def verify_(self) -> None:
        src, dst = _shape(self.operand.type), _shape(self.result.type)
        lo, hi, inner = (array_values(self.properties[k.prop]) for k in self.KEYWORDS)
        if not len(lo) == len(hi) == len(inner) == len(src):
            raise VerifyException(f"'{self.name}' padding arrays must have {len(src)} entries")
        if _shape(self.padding_value.type):
            raise VerifyException(f"'{self.name}' padding_value must be a 0-d tensor")
        for d in range(len(src)):
            if inner[d] < 0:
                raise VerifyException(f"'{self.name}' interior padding in dimension {d} is negative")
            if src[d] != DYN and dst[d] != DYN:
                want = lo[d] + hi[d] + src[d] + max(src[d] - 1, 0) * inner[d]
                if want != dst[d]:
                    raise VerifyException(f"'{self.name}' result dimension {d} should be {want}, got {dst[d]}")


@irdl_op_definition
class ConcatenateOp(KeywordFormat):
    """``stablehlo.concatenate %a, %b, dim = 0 : (...) -> tensor<8x4xf32>``."""

    name = "stablehlo.concatenate"
    KEYWORDS: ClassVar[tuple[Keyword, ...]] = (int_keyword("dim", "dimension"),)
    inputs = var_operand_def(AnyTensorType)
    dimension = prop_def(IntegerAttr[I64])
    result = result_def(AnyTensorType)
    traits = traits_def(Pure(), SameOperandsAndResultElementType())

    def verify_(self) -> None:
        if not self.inputs:
            raise VerifyException(f"'{self.name}' needs at least one input")
        d = self.dimension.value.data
        shapes = [_shape(o.type) for o in self.inputs]
        rank = len(shapes[0])
        if not 0 <= d < rank:
            raise VerifyException(f"'{self.name}' dimension {d} is out of range for rank {rank}")
        for i, s in enumerate(shapes):
            if len(s) != rank:
                raise VerifyException(f"'{self.name}' input #{i} has rank {len(s)}, expected {rank}")
            for k in range(rank):
                if k != d and DYN not in (s[k], shapes[0][k]) and s[k] != shapes[0][k]:
                    raise VerifyException(
                        f"'{self.name}' input #{i} dimension {k} is {s[k]}, expected {shapes[0][k]}"
                    )
        out = _shape(self.result.type)
        if all(s[d] != DYN for s in shapes) and out[d] != DYN and out[d] != sum(s[d] for s in shapes):
            raise VerifyException(
                f"'{self.name}' result dimension {d} should be {sum(s[d] for s in shapes)}, got {out[d]}"
            )


@irdl_op_definition
class GetDimensionSizeOp(KeywordFormat):
    """``stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>``."""

    name = "stablehlo.get_dimension_size"
    KEYWORDS: ClassVar[tuple[Keyword, ...]] = (int_keyword("dim", "dimension"),)
    operand = operand_def(AnyTensorType)
    dimension = prop_def(IntegerAttr[I64])
    result = result_def(AnyTensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class SetDimensionSizeOp(KeywordFormat):
    """``stablehlo.set_dimension_size %x, %n, dim = 0 : (...) -> tensor<?x4xf32, #stablehlo.bounds<4, ?>>``."""

    name = "stablehlo.set_dimension_size"
    KEYWORDS: ClassVar[tuple[Keyword, ...]] = (int_keyword("dim", "dimension"),)
    operand = operand_def(AnyTensorType)
    size = operand_def(AnyTensorType)
    dimension = prop_def(IntegerAttr[I64])
    result = result_def(AnyTensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class GatherOp(StableHLOOp):
    """Generic form: ``"stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<...>,
    indices_are_sorted = false, slice_sizes = array<i64: 1, 4>}>``."""

    name = "stablehlo.gather"
    operand = operand_def(AnyTensorType)
    start_indices = operand_def(AnyTensorType)
    dimension_numbers = prop_def(GatherDimensionNumbersAttr)
    slice_sizes = prop_def(DenseArrayBase)
    indices_are_sorted = opt_prop_def(Attribute)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        src = _shape(self.operand.type)
        idx = _shape(self.start_indices.type)
        sizes = array_values(self.slice_sizes)
        dn = self.dimension_numbers
        if len(sizes) != len(src):
            raise VerifyException(
                f"'{self.name}' slice_sizes has {len(sizes)} entries for an operand of rank {len(src)}"
            )
        for field in ("collapsed_slice_dims", "operand_batching_dims", "start_index_map"):
            for d in dn.dims(field):
                if not 0 <= d < len(src):
                    raise VerifyException(
                        f"'{self.name}' {field} entry {d} is out of range for operand rank {len(src)}"
                    )
        for d in dn.dims("collapsed_slice_dims"):
            if sizes[d] > 1:
                raise VerifyException(
                    f"'{self.name}' collapsed dimension {d} must have slice size <= 1, got {sizes[d]}"
                )
        _check_slice_sizes(self, src, sizes)
        ivd = dn.int_field("index_vector_dim")
        if not 0 <= ivd <= len(idx):
            raise VerifyException(
                f"'{self.name}' index_vector_dim {ivd} is out of range for start_indices rank {len(idx)}"
            )


@irdl_op_definition
class DynamicGatherOp(StableHLOOp):
    """Generic-form ``stablehlo.dynamic_gather`` (slice sizes as an operand)."""

    name = "stablehlo.dynamic_gather"
    operand = operand_def(AnyTensorType)
    start_indices = operand_def(AnyTensorType)
    slice_sizes = operand_def(AnyTensorType)
    dimension_numbers = prop_def(GatherDimensionNumbersAttr)
    indices_are_sorted = opt_prop_def(Attribute)
    result = result_def(AnyTensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class TorchIndexSelectOp(StableHLOOp):
    """Generic-form ``stablehlo.torch_index_select``."""

    name = "stablehlo.torch_index_select"
    operand = operand_def(AnyTensorType)
    index = operand_def(AnyTensorType)
    dim = prop_def(IntegerAttr[I64])
    batch_dims = prop_def(IntegerAttr[I64])
    result = result_def(AnyTensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class TupleOp(StableHLOOp):
    """``stablehlo.tuple %a, %b : tuple<tensor<f32>, tensor<i32>>``."""

    name = "stablehlo.tuple"
    val = var_operand_def(AnyAttr())
    result = result_def(TupleType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        ops = parse_operand_list(parser)
        attrs = cls.parse_attr_dict(parser)
        parser.parse_punctuation(":")
        t = parser.parse_type()
        if not isinstance(t, TupleType):
            parser.raise_error(f"stablehlo.tuple: expected a tuple type, got {t}")
        return cls.create_parsed(parser, [resolve(parser, ops, list(t.types.data))], [t], attrs)

    def print(self, printer: Printer) -> None:
        self.print_operands(printer)
        self.print_attr_dict(printer)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        t = self.result.type
        assert isinstance(t, TupleType)
        if list(t.types.data) != [v.type for v in self.val]:
            raise VerifyException(f"'{self.name}' result type {t} does not match its operand types")


@irdl_op_definition
class GetTupleElementOp(StableHLOOp):
    """``stablehlo.get_tuple_element %t[0] : (tuple<tensor<f32>>) -> tensor<f32>``."""

    name = "stablehlo.get_tuple_element"
    operand = operand_def(TupleType)
    index = prop_def(IntegerAttr[I32])
    result = result_def(AnyAttr())
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        x = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        attrs: dict[str, Attribute] = {"index": IntegerAttr(parser.parse_integer(), i32)}
        parser.parse_punctuation("]")
        return cls.parse_attrs_and_types(parser, [x], attrs)

    def print(self, printer: Printer) -> None:
        self.print_operands(printer)
        printer.print_string(f"[{self.index.value.data}]")
        self.print_attrs_and_types(printer, ("index",))

    def verify_(self) -> None:
        t = self.operand.type
        assert isinstance(t, TupleType)
        i = self.index.value.data
        if not 0 <= i < len(t.types.data):
            raise VerifyException(f"'{self.name}' index {i} is out of range for {t}")
        if t.types.data[i] != self.result.type:
            raise VerifyException(
                f"'{self.name}' result type {self.result.type} differs from element {i} of {t}"
            )


SHAPE_OPS: list[type[StableHLOOp]] = [
    IotaOp, DynamicIotaOp, BroadcastInDimOp, BroadcastOp, TransposeOp, ReverseOp, ReshapeOp,
    DynamicReshapeOp, BitcastConvertOp, DynamicUpdateSliceOp, RealDynamicSliceOp, DynamicPadOp,
    DynamicBroadcastInDimOp, SliceOp, DynamicSliceOp, PadOp, ConcatenateOp, GetDimensionSizeOp,
    SetDimensionSizeOp, GatherOp, DynamicGatherOp, TorchIndexSelectOp, TupleOp, GetTupleElementOp,
]
