"""Collectives, tokens, host transfer, async wrappers, ``custom_call`` and ``composite``.

    stablehlo.custom_call @target(%x) {api_version = 2 : i32, backend_config = "..."} : (...) -> ...
    %0 = stablehlo.composite "my.op" %x {decomposition = @my.op} : (...) -> ...
    %t = stablehlo.after_all %a, %b : !stablehlo.token
    %0:2 = stablehlo.optimization_barrier %a, %b : tensor<f32>, tensor<f32>

Collectives (``all_reduce``, ``all_gather``, ``collective_reduce``...) have no custom format:
MLIR prints them generically with ``<{channel_handle = ..., replica_groups = ...}>``
properties; ``replica_groups`` is a dense device-id table or, from JAX 0.11 on, a
``#stablehlo.replica_group_mesh_axes`` (:mod:`.mesh`), whose mesh symbol must resolve.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from typing import ClassVar

from xdsl.dialects.builtin import (
    AnyTensorType,
    ArrayAttr,
    BoolAttr,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    i32,
)
from xdsl.ir import Attribute, Operation
from xdsl.irdl import (
    AnyAttr,
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
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    EffectInstance,
    IsolatedFromAbove,
    MemoryEffect,
    Pure,
    RecursiveMemoryEffect,
)
from xdsl.utils.exceptions import VerifyException

from jax_use_donated.dialects.stablehlo.attributes import OutputOperandAliasAttr
from jax_use_donated.dialects.stablehlo.base import (
    KeywordFormat,
    StableHLOOp,
    TypeFormat,
    define_op,
    parse_operand_list,
    resolve,
)
from jax_use_donated.dialects.stablehlo.mesh import verify_mesh_symbol
from jax_use_donated.dialects.stablehlo.traits import PairwiseSameOperandAndResultType
from jax_use_donated.dialects.stablehlo.types import TokenType


def _op(name: str, cls_name: str, doc: str, body: dict[str, object]) -> type[StableHLOOp]:
    return define_op(StableHLOOp, cls_name, name, doc, **body)


_RG = {"replica_groups": prop_def(Attribute), "channel_handle": opt_prop_def(Attribute)}


class _ReplicaGroupsOp(StableHLOOp):
    """A collective whose ``replica_groups`` may name a mesh symbol (checked to resolve)."""

    def verify_(self) -> None:
        verify_mesh_symbol(self, self.properties.get("replica_groups"))


def _rg_op(name: str, cls_name: str, doc: str, body: dict[str, object]) -> type[StableHLOOp]:
    return define_op(_ReplicaGroupsOp, cls_name, name, doc, **body)


AllReduceOp = _rg_op("stablehlo.all_reduce", "AllReduceOp", "Generic-form ``stablehlo.all_reduce``.", {
    "operands_": var_operand_def(AnyTensorType), **_RG, "use_global_device_ids": opt_prop_def(Attribute),
    "computation": region_def(), "res": var_result_def(AnyTensorType)})
AllGatherOp = _rg_op("stablehlo.all_gather", "AllGatherOp", "Generic-form ``stablehlo.all_gather``.", {
    "operands_": var_operand_def(AnyTensorType), "all_gather_dim": prop_def(Attribute), **_RG,
    "use_global_device_ids": opt_prop_def(Attribute), "res": var_result_def(AnyTensorType)})
ReduceScatterOp = _rg_op("stablehlo.reduce_scatter", "ReduceScatterOp", "Generic-form ``stablehlo.reduce_scatter``.", {
    "operand": operand_def(AnyTensorType), "scatter_dimension": prop_def(Attribute), **_RG,
    "use_global_device_ids": opt_prop_def(Attribute), "computation": region_def(),
    "res": result_def(AnyTensorType)})
AllToAllOp = _rg_op("stablehlo.all_to_all", "AllToAllOp", "Generic-form ``stablehlo.all_to_all``.", {
    "operands_": var_operand_def(AnyTensorType), "split_dimension": prop_def(Attribute),
    "concat_dimension": prop_def(Attribute), "split_count": prop_def(Attribute), **_RG,
    "res": var_result_def(AnyTensorType)})
CollectivePermuteOp = _op("stablehlo.collective_permute", "CollectivePermuteOp",
    "Generic-form ``stablehlo.collective_permute``.", {
    "operand": operand_def(AnyTensorType), "source_target_pairs": prop_def(Attribute),
    "channel_handle": opt_prop_def(Attribute), "res": result_def(AnyTensorType)})
CollectiveBroadcastOp = _rg_op("stablehlo.collective_broadcast", "CollectiveBroadcastOp",
    "Generic-form ``stablehlo.collective_broadcast``.", {
    "operand": operand_def(AnyTensorType), **_RG, "res": result_def(AnyTensorType)})


@irdl_op_definition
class CollectiveReduceOp(_ReplicaGroupsOp):
    """Generic-form ``stablehlo.collective_reduce`` (jaxlib >= 0.11.1): reduces each
    data operand over its replica group into the group's root; with ``has_dynamic_root`` the last
    operand is a rank-1 i32 tensor of per-operand roots."""

    name = "stablehlo.collective_reduce"
    operands_ = var_operand_def(AnyTensorType)
    replica_groups = prop_def(Attribute)
    channel_handle = opt_prop_def(Attribute)
    use_global_device_ids = opt_prop_def(Attribute)
    has_dynamic_root = opt_prop_def(Attribute)
    computation = region_def()
    res = var_result_def(AnyTensorType)

    def verify_(self) -> None:
        super().verify_()
        data = list(self.operands_)
        if self.has_dynamic_root is not None:
            if not data:
                raise VerifyException(f"'{self.name}' with has_dynamic_root needs a root operand")
            root = data.pop().type
            if not (isinstance(root, TensorType) and root.get_shape() == (len(data),)
                    and root.element_type == i32):
                raise VerifyException(
                    f"'{self.name}' with has_dynamic_root: the last operand must be "
                    f"tensor<{len(data)}xi32>, got {root}"
                )
        if not data:
            raise VerifyException(f"'{self.name}' requires at least one data operand")
        got = [r.type for r in self.res]
        want = [d.type for d in data]
        if got != want:
            raise VerifyException(
                f"'{self.name}' result types {', '.join(map(str, got))} differ from its data "
                f"operands' {', '.join(map(str, want))}"
            )


CrossReplicaSumOp = _op("stablehlo.cross-replica-sum", "CrossReplicaSumOp",
    "Generic-form ``stablehlo.cross-replica-sum``.", {
    "operand": operand_def(AnyTensorType), "replica_groups": prop_def(Attribute),
    "res": result_def(AnyTensorType), "traits": traits_def(Pure())})
InfeedOp = _op("stablehlo.infeed", "InfeedOp", "Generic-form ``stablehlo.infeed``.", {
    "token": operand_def(TokenType), "infeed_config": opt_prop_def(Attribute),
    "layout": opt_prop_def(Attribute), "res": var_result_def(AnyAttr())})
OutfeedOp = _op("stablehlo.outfeed", "OutfeedOp", "Generic-form ``stablehlo.outfeed``.", {
    "inputs": var_operand_def(AnyTensorType), "token": operand_def(TokenType),
    "outfeed_config": opt_prop_def(Attribute), "res": result_def(TokenType)})
SendOp = _op("stablehlo.send", "SendOp", "Generic-form ``stablehlo.send``.", {
    "inputs": var_operand_def(AnyTensorType), "token": operand_def(TokenType),
    "channel_handle": prop_def(Attribute), "is_host_transfer": opt_prop_def(Attribute),
    "source_target_pairs": opt_prop_def(Attribute), "res": result_def(TokenType)})
RecvOp = _op("stablehlo.recv", "RecvOp", "Generic-form ``stablehlo.recv``.", {
    "token": operand_def(TokenType), "channel_handle": prop_def(Attribute),
    "is_host_transfer": opt_prop_def(Attribute), "source_target_pairs": opt_prop_def(Attribute),
    "res": var_result_def(AnyAttr())})
AsyncStartOp = _op("stablehlo.async_start", "AsyncStartOp", "Generic-form ``stablehlo.async_start``.", {
    "operands_": var_operand_def(AnyAttr()), "body": region_def(), "res": result_def(AnyAttr()),
    "traits": traits_def(RecursiveMemoryEffect(), IsolatedFromAbove())})
AsyncDoneOp = _op("stablehlo.async_done", "AsyncDoneOp", "Generic-form ``stablehlo.async_done``.", {
    "operand": operand_def(AnyAttr()), "res": var_result_def(AnyAttr())})


class _TypeOnly(StableHLOOp):
    """``attr-dict : type(results)``."""

    TYPES: ClassVar[TypeFormat] = "result"

    @classmethod
    def parse(cls, parser: Parser):
        return cls.parse_attrs_and_types(parser, [], {})

    def print(self, printer: Printer) -> None:
        self.print_attrs_and_types(printer)


@irdl_op_definition
class ReplicaIdOp(_TypeOnly):
    """``stablehlo.replica_id : tensor<ui32>``."""

    name = "stablehlo.replica_id"
    res = result_def(AnyTensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class PartitionIdOp(_TypeOnly):
    """``stablehlo.partition_id : tensor<ui32>``."""

    name = "stablehlo.partition_id"
    res = result_def(AnyTensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class CreateTokenOp(_TypeOnly):
    """``stablehlo.create_token : !stablehlo.token``."""

    name = "stablehlo.create_token"
    output = result_def(TokenType)
    traits = traits_def(Pure())


@irdl_op_definition
class AfterAllOp(KeywordFormat):
    """``stablehlo.after_all %a, %b : !stablehlo.token``."""

    name = "stablehlo.after_all"
    TYPES: ClassVar[TypeFormat] = "result"
    inputs = var_operand_def(TokenType)
    result = result_def(TokenType)
    traits = traits_def(Pure())


@irdl_op_definition
class OptimizationBarrierOp(StableHLOOp):
    """``%0:2 = stablehlo.optimization_barrier %a, %b : tensor<f32>, tensor<f32>``."""

    name = "stablehlo.optimization_barrier"
    operand = var_operand_def(AnyAttr())
    result = var_result_def(AnyAttr())
    traits = traits_def(Pure(), PairwiseSameOperandAndResultType())

    @classmethod
    def parse(cls, parser: Parser):
        attrs = cls.parse_attr_dict(parser)
        if parser.parse_optional_punctuation("("):
            parser.parse_punctuation(")")
            return cls.create_parsed(parser, [[]], [[]], attrs)
        ops = parse_operand_list(parser)
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        return cls.create_parsed(parser, [resolve(parser, ops, types)], [types], attrs)

    def print(self, printer: Printer) -> None:
        self.print_attr_dict(printer)
        if not self.operand:
            printer.print_string("()")
            return
        printer.print_string(" ")
        printer.print_list(self.operand, printer.print_operand)
        printer.print_string(" : ")
        printer.print_list([o.type for o in self.operand], printer.print_attribute)


class CustomCallEffects(MemoryEffect):
    """No memory effects unless ``has_side_effect = true`` (then: unknown, i.e. all)."""

    @classmethod
    def get_effects(cls, op: Operation) -> AbstractSet[EffectInstance] | None:
        flag = op.properties.get("has_side_effect")
        if isinstance(flag, IntegerAttr) and flag.value.data:
            return None
        return set()


@irdl_op_definition
class CustomCallOp(StableHLOOp):
    """``stablehlo.custom_call @target(%x) {backend_config = ..., api_version = 2 : i32} : ...``."""

    name = "stablehlo.custom_call"
    inputs = var_operand_def(AnyAttr())
    call_target_name = prop_def(StringAttr)
    has_side_effect = opt_prop_def(Attribute)
    backend_config = opt_prop_def(Attribute)
    api_version = opt_prop_def(Attribute)
    called_computations = opt_prop_def(Attribute)
    operand_layouts = opt_prop_def(Attribute)
    result_layouts = opt_prop_def(Attribute)
    output_operand_aliases = opt_prop_def(Attribute)
    res = var_result_def(AnyAttr())
    traits = traits_def(CustomCallEffects())
    PRINT_DEFAULTS: ClassVar[Mapping[str, Attribute]] = {
        "has_side_effect": BoolAttr.from_bool(False),
        "api_version": IntegerAttr(1, i32),
        "called_computations": ArrayAttr([]),
        "output_operand_aliases": ArrayAttr([]),
    }

    @classmethod
    def parse(cls, parser: Parser):
        target = parser.parse_optional_symbol_name()
        if target is None:
            target = StringAttr(parser.parse_str_literal())
        attrs: dict[str, Attribute] = {"call_target_name": target}
        parser.parse_punctuation("(")
        ops = parse_operand_list(parser)
        parser.parse_punctuation(")")
        return cls.parse_attrs_and_types(parser, ops, attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(SymbolRefAttr(self.call_target_name))
        printer.print_string("(")
        printer.print_list(self.inputs, printer.print_operand)
        printer.print_string(")")
        self.print_attrs_and_types(printer, ("call_target_name",))

    def verify_(self) -> None:
        aliases = self.output_operand_aliases
        if aliases is None:
            return
        for a in getattr(aliases, "data", ()):
            if not isinstance(a, OutputOperandAliasAttr):
                raise VerifyException(f"'{self.name}' output_operand_aliases must hold #stablehlo.output_operand_alias")
            idx = a.operand_index.data
            if not 0 <= idx < len(self.inputs):
                raise VerifyException(
                    f"'{self.name}' output_operand_alias operand_index {idx} is out of range "
                    f"for {len(self.inputs)} operands"
                )


@irdl_op_definition
class CompositeOp(StableHLOOp):
    """``stablehlo.composite "my.op" %x {decomposition = @my.op} : (...) -> ...``."""

    name = "stablehlo.composite"
    inputs = var_operand_def(AnyAttr())
    name_ = prop_def(StringAttr, prop_name="name")
    composite_attributes = opt_prop_def(Attribute)
    decomposition = prop_def(SymbolRefAttr)
    version = opt_prop_def(Attribute)
    res = var_result_def(AnyAttr())
    PRINT_DEFAULTS: ClassVar[Mapping[str, Attribute]] = {
        "version": IntegerAttr(0, i32),
        "composite_attributes": DictionaryAttr({}),
    }

    @classmethod
    def parse(cls, parser: Parser):
        attrs: dict[str, Attribute] = {"name": StringAttr(parser.parse_str_literal())}
        return cls.parse_attrs_and_types(parser, parse_operand_list(parser), attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.name_.data)
        self.print_operands(printer)
        self.print_attrs_and_types(printer, ("name",))


COLLECTIVE_OPS: list[type[StableHLOOp]] = [
    AllReduceOp, AllGatherOp, ReduceScatterOp, AllToAllOp, CollectivePermuteOp,
    CollectiveBroadcastOp, CollectiveReduceOp, CrossReplicaSumOp, InfeedOp, OutfeedOp, SendOp, RecvOp, AsyncStartOp,
    AsyncDoneOp, ReplicaIdOp, PartitionIdOp, CreateTokenOp, AfterAllOp, OptimizationBarrierOp,
    CustomCallOp, CompositeOp,
]
