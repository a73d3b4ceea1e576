"""The Shardy (``sdy``) dialect as jaxlib registers it, in xDSL.

Attributes (printed exactly as MLIR prints them)::

    #sdy.mesh<["x"=2, "y"=2], device_ids=[3, 2, 1, 0]>
    #sdy.sharding<@mesh, [{"x", ?}p1, {"y":(1)2}], replicated={"z"}, unreduced={"w"}>
    #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>, <mesh<["a"=2]>, []>]>
    #sdy.op_sharding_rule<([i, j], [j, k])->([i, k]) {i=8, j=4, k=2} reduction={j}, custom>
    #sdy<manual_axes{"x"}>   #sdy<axis_ref_list{"x"}>   #sdy<list_of_axis_ref_lists[{}, {"x"}]>
    #sdy<all_to_all_param_list[{"x"}: 0->1]>
    #sdy<axis_ref"x":(1)2>   #sdy<mesh_axis"x"=2>   #sdy<dimension_sharding{"x", ?}p1>   #sdy<tensor_mapping[i, jk]>

Ops: every op of jaxlib's ``sdy`` dialect, with MLIR's custom formats, e.g.::

    sdy.mesh @mesh = <["x"=4]>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {"x"}]> : tensor<8x8xf32>
    %2:2 = sdy.manual_computation(%a, %b) in_shardings=[<@mesh, [{"x"}]>, <@mesh, [{}]>]
             out_shardings=[...] manual_axes={"x"} (%arg1: tensor<2xf32>, %arg2: tensor<8xf32>) {
      sdy.return %arg1, %arg2 : tensor<2xf32>, tensor<8xf32>
    } : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)

Shardings are verified against their mesh (axis names, sub-axis sizes, tensor rank) and
``sdy.manual_computation`` bodies against the per-device (local) shapes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar, Self, TypeVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    FunctionType,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    NoneAttr,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
    UnrankedTensorType,
    i32,
    i64,
)
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    OpaqueSyntaxAttribute,
    Operation,
    ParametrizedAttribute,
    Region,
    SSAValue,
)
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
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
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    Pure,
    RecursiveMemoryEffect,
    SingleBlockImplicitTerminator,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException

from jax_use_donated.dialects.dense_constant import DenseConstantOp
from jax_use_donated.dialects.stablehlo.traits import Elementwise

_TENSOR = base(TensorType) | base(UnrankedTensorType)


def _print_str(printer: Printer, s: str) -> None:
    printer.print_string_literal(s)


def _parse_int_list(parser: AttrParser, delimiter: AttrParser.Delimiter) -> list[int]:
    return parser.parse_comma_separated_list(delimiter, parser.parse_integer)


class InlineAttr(ParametrizedAttribute):
    """An sdy attribute written bare inside other sdy attributes and ops (``"x":(1)2``) and
    in angle brackets on its own (``#sdy.axis_ref<"x":(1)2>``): subclasses define the bare
    form, :meth:`parse_inline` and :meth:`print_inline`."""

    @classmethod
    def parse_inline(cls, parser: AttrParser) -> Self:
        raise NotImplementedError

    def print_inline(self, printer: Printer) -> None:
        raise NotImplementedError

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        attr = cls.parse_inline(parser)
        parser.parse_punctuation(">")
        return list(attr.parameters)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            self.print_inline(printer)


class OpaqueInlineAttr(InlineAttr, OpaqueSyntaxAttribute):
    """An :class:`InlineAttr` whose standalone form is MLIR's opaque ``#sdy<axis_ref"x":(1)2>``
    (the mnemonic directly followed by the bare form), as jaxlib prints and parses it."""

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return list(cls.parse_inline(parser).parameters)

    def print_parameters(self, printer: Printer) -> None:
        self.print_inline(printer)


# ======================================================================================
# Attributes
# ======================================================================================
@irdl_attr_definition
class SubAxisInfoAttr(ParametrizedAttribute, OpaqueSyntaxAttribute):
    """``(pre_size)size``: the slice of a mesh axis a sub-axis covers (standalone:
    ``#sdy<sub_axis_info(1)2>``)."""

    name = "sdy.sub_axis_info"

    pre_size: IntAttr
    size: IntAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("(")
        pre = parser.parse_integer(allow_negative=False)
        parser.parse_punctuation(")")
        return [IntAttr(pre), IntAttr(parser.parse_integer(allow_negative=False))]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"({self.pre_size.data}){self.size.data}")


@irdl_attr_definition
class AxisRefAttr(OpaqueInlineAttr):
    """``"x"`` (a full mesh axis) or ``"x":(1)2`` (a sub-axis); standalone ``#sdy<axis_ref"x">``."""

    name = "sdy.axis_ref"

    axis_name: StringAttr
    sub_axis_info: SubAxisInfoAttr | NoneAttr

    def __init__(self, axis_name: str, sub_axis: tuple[int, int] | None = None) -> None:
        info: SubAxisInfoAttr | NoneAttr = NoneAttr()
        if sub_axis is not None:
            info = SubAxisInfoAttr(IntAttr(sub_axis[0]), IntAttr(sub_axis[1]))
        super().__init__(StringAttr(axis_name), info)

    @classmethod
    def parse_inline(cls, parser: AttrParser) -> AxisRefAttr:
        name = parser.parse_str_literal()
        if parser.parse_optional_punctuation(":") is None:
            return cls(name)
        info = SubAxisInfoAttr.new(SubAxisInfoAttr.parse_parameters(parser))
        return cls(name, (info.pre_size.data, info.size.data))

    def print_inline(self, printer: Printer) -> None:
        _print_str(printer, self.axis_name.data)
        if isinstance(self.sub_axis_info, SubAxisInfoAttr):
            printer.print_string(":")
            self.sub_axis_info.print_parameters(printer)


def _parse_axis_set(parser: AttrParser) -> ArrayAttr[AxisRefAttr]:
    """``{"a", "b":(1)2}``."""
    return ArrayAttr(
        parser.parse_comma_separated_list(
            parser.Delimiter.BRACES, lambda: AxisRefAttr.parse_inline(parser)
        )
    )


def _print_inline_list(printer: Printer, attrs: Sequence[InlineAttr]) -> None:
    printer.print_list(attrs, lambda a: a.print_inline(printer))


def _print_axis_set(printer: Printer, axes: ArrayAttr[AxisRefAttr]) -> None:
    with printer.in_braces():
        _print_inline_list(printer, axes.data)


@irdl_attr_definition
class DimensionShardingAttr(OpaqueInlineAttr):
    """``{"x", "y"}`` (closed), ``{"x", ?}`` (open: may be sharded further), ``{"x"}p1`` (priority);
    standalone ``#sdy<dimension_sharding{"x"}>``."""

    name = "sdy.dimension_sharding"

    axes: ArrayAttr[AxisRefAttr]
    is_closed: BoolAttr
    priority: IntAttr | NoneAttr

    def __init__(
        self, axes: Sequence[AxisRefAttr], is_closed: bool = True, priority: int | None = None
    ) -> None:
        super().__init__(
            ArrayAttr(axes),
            BoolAttr.from_bool(is_closed),
            NoneAttr() if priority is None else IntAttr(priority),
        )

    @property
    def closed(self) -> bool:
        return bool(self.is_closed.value.data)

    @classmethod
    def parse_inline(cls, parser: AttrParser) -> DimensionShardingAttr:
        axes: list[AxisRefAttr] = []
        closed = True
        parser.parse_punctuation("{")
        if parser.parse_optional_punctuation("}") is None:
            while True:
                if parser.parse_optional_punctuation("?") is not None:
                    closed = False
                    parser.parse_punctuation("}")
                    break
                axes.append(AxisRefAttr.parse_inline(parser))
                if parser.parse_optional_punctuation(",") is None:
                    parser.parse_punctuation("}")
                    break
        priority: int | None = None
        token = parser._current_token  # pyright: ignore[reportPrivateUsage]
        text = token.text
        if (
            token.kind.name == "BARE_IDENT"
            and len(text) > 1
            and text[0] == "p"
            and text[1:].isdigit()
        ):
            parser.parse_identifier()
            priority = int(text[1:])
        return cls(axes, closed, priority)

    def print_inline(self, printer: Printer) -> None:
        with printer.in_braces():
            _print_inline_list(printer, self.axes.data)
            if not self.closed:
                printer.print_string(", ?" if self.axes.data else "?")
        if isinstance(self.priority, IntAttr):
            printer.print_string(f"p{self.priority.data}")


@irdl_attr_definition
class MeshAxisAttr(OpaqueInlineAttr):
    """``"x"=4``; standalone ``#sdy<mesh_axis"x"=4>``."""

    name = "sdy.mesh_axis"

    axis_name: StringAttr
    size: IntAttr

    @classmethod
    def parse_inline(cls, parser: AttrParser) -> MeshAxisAttr:
        name = parser.parse_str_literal()
        parser.parse_punctuation("=")
        return cls(StringAttr(name), IntAttr(parser.parse_integer(allow_negative=False)))

    def print_inline(self, printer: Printer) -> None:
        _print_str(printer, self.axis_name.data)
        printer.print_string(f"={self.size.data}")


@irdl_attr_definition
class MeshAttr(ParametrizedAttribute):
    """``#sdy.mesh<["x"=2, "y"=2]>``, ``#sdy.mesh<[], device_ids=[0]>`` (maximal mesh)."""

    name = "sdy.mesh"

    axes: ArrayAttr[MeshAxisAttr]
    device_ids: ArrayAttr[IntAttr]

    def __init__(self, axes: Sequence[tuple[str, int]], device_ids: Sequence[int] = ()) -> None:
        super().__init__(
            ArrayAttr([MeshAxisAttr(StringAttr(n), IntAttr(s)) for n, s in axes]),
            ArrayAttr([IntAttr(d) for d in device_ids]),
        )

    def axis_sizes(self) -> dict[str, int]:
        return {a.axis_name.data: a.size.data for a in self.axes.data}

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        axes = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: MeshAxisAttr.parse_inline(parser)
        )
        ids: list[int] = []
        if parser.parse_optional_punctuation(",") is not None:
            parser.parse_keyword("device_ids")
            parser.parse_punctuation("=")
            ids = _parse_int_list(parser, parser.Delimiter.SQUARE)
        parser.parse_punctuation(">")
        return [ArrayAttr(axes), ArrayAttr([IntAttr(i) for i in ids])]

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            with printer.in_square_brackets():
                _print_inline_list(printer, self.axes.data)
            if self.device_ids.data:
                printer.print_string(", device_ids=")
                with printer.in_square_brackets():
                    printer.print_list(self.device_ids.data, lambda i: printer.print_string(str(i.data)))

    def verify(self) -> None:
        names = [a.axis_name.data for a in self.axes.data]
        if len(set(names)) != len(names):
            raise VerifyException(f"sdy.mesh has duplicate axis names: {names}")
        total = 1
        for a in self.axes.data:
            if a.size.data <= 0:
                raise VerifyException(
                    f'sdy.mesh axis "{a.axis_name.data}" must have a positive size'
                )
            total *= a.size.data
        ids = [d.data for d in self.device_ids.data]
        if ids and len(ids) != total:
            raise VerifyException(f"sdy.mesh has {len(ids)} device ids for {total} devices")
        if ids and sorted(ids) != list(range(len(ids))):
            raise VerifyException(
                f"sdy.mesh device ids {ids} must be a permutation of 0..{len(ids) - 1}"
            )


@irdl_attr_definition
class TensorShardingAttr(ParametrizedAttribute):
    """``#sdy.sharding<@mesh, [{"x"}, {}], replicated={"y"}, unreduced={"z"}>``.

    Inside sdy ops it is printed without ``#sdy.sharding`` (``<@mesh, [...]>``).
    """

    name = "sdy.sharding"

    mesh_or_ref: SymbolRefAttr | MeshAttr
    dim_shardings: ArrayAttr[DimensionShardingAttr]
    replicated_axes: ArrayAttr[AxisRefAttr]
    unreduced_axes: ArrayAttr[AxisRefAttr]

    @classmethod
    def get(
        cls,
        mesh: str | MeshAttr,
        dims: Sequence[DimensionShardingAttr],
        replicated: Sequence[AxisRefAttr] = (),
        unreduced: Sequence[AxisRefAttr] = (),
    ) -> TensorShardingAttr:
        ref = SymbolRefAttr(mesh) if isinstance(mesh, str) else mesh
        return cls(ref, ArrayAttr(dims), ArrayAttr(replicated), ArrayAttr(unreduced))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        mesh: SymbolRefAttr | MeshAttr
        if parser.parse_optional_keyword("mesh") is not None:
            mesh = MeshAttr.new(MeshAttr.parse_parameters(parser))
        else:
            mesh = SymbolRefAttr(parser.parse_symbol_name())
        parser.parse_punctuation(",")
        dims = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: DimensionShardingAttr.parse_inline(parser)
        )
        sets: dict[str, ArrayAttr[AxisRefAttr]] = {}
        while parser.parse_optional_punctuation(",") is not None:
            key = parser.parse_keyword_in(("replicated", "unreduced"))
            if key in sets:
                parser.raise_error(f"'{key}' given twice in #sdy.sharding")
            parser.parse_punctuation("=")
            sets[key] = _parse_axis_set(parser)
        parser.parse_punctuation(">")
        return [
            mesh,
            ArrayAttr(dims),
            sets.get("replicated", ArrayAttr(())),
            sets.get("unreduced", ArrayAttr(())),
        ]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        if isinstance(self.mesh_or_ref, MeshAttr):
            printer.print_string("mesh")
            self.mesh_or_ref.print_parameters(printer)
        else:
            printer.print_attribute(self.mesh_or_ref)
        printer.print_string(", ")
        with printer.in_square_brackets():
            _print_inline_list(printer, self.dim_shardings.data)
        for key, axes in (("replicated", self.replicated_axes), ("unreduced", self.unreduced_axes)):
            if axes.data:
                printer.print_string(f", {key}=")
                _print_axis_set(printer, axes)
        printer.print_string(">")

    @classmethod
    def parse_stripped(cls, parser: AttrParser) -> TensorShardingAttr:
        return cls.new(cls.parse_parameters(parser))

    def verify(self) -> None:
        used: list[AxisRefAttr] = [
            *(a for d in self.dim_shardings.data for a in d.axes.data),
            *self.replicated_axes.data,
            *self.unreduced_axes.data,
        ]
        if len(set(used)) != len(used):
            raise VerifyException(f"{self} uses an axis more than once")
        if isinstance(self.mesh_or_ref, MeshAttr):
            self.verify_for_mesh(self.mesh_or_ref, None)

    def mesh(self, anchor: Operation) -> MeshAttr | None:
        """The mesh this sharding refers to, looked up from ``anchor`` (None if not found)."""
        if isinstance(self.mesh_or_ref, MeshAttr):
            return self.mesh_or_ref
        found = SymbolTable.lookup_symbol(anchor, self.mesh_or_ref)
        return found.mesh if isinstance(found, MeshOp) else None

    def verify_for_mesh(self, mesh: MeshAttr, rank: int | None, what: str = "") -> None:
        """Axis names, sub-axis sizes and (when given) the tensor rank against ``mesh``."""
        where = f" ({what})" if what else ""
        if rank is not None and len(self.dim_shardings.data) != rank:
            raise VerifyException(
                f"sharding {self}{where} has {len(self.dim_shardings.data)} dimension shardings for a tensor of rank {rank}"
            )
        sizes = mesh.axis_sizes()
        for axis in (
            *(a for d in self.dim_shardings.data for a in d.axes.data),
            *self.replicated_axes.data,
            *self.unreduced_axes.data,
        ):
            name = axis.axis_name.data
            if name not in sizes:
                raise VerifyException(
                    f'sharding {self}{where} refers to unknown mesh axis "{name}"'
                )
            info = axis.sub_axis_info
            if isinstance(info, SubAxisInfoAttr):
                pre, size = info.pre_size.data, info.size.data
                if pre < 1 or size <= 1 or sizes[name] % (pre * size) != 0:
                    raise VerifyException(
                        f'sharding {self}{where}: sub-axis "{name}":({pre}){size} does not divide axis size {sizes[name]}'
                    )
                if pre * size == sizes[name] and pre == 1:
                    raise VerifyException(
                        f'sharding {self}{where}: sub-axis "{name}":({pre}){size} is the full axis'
                    )

    def local_shape(self, mesh: MeshAttr, shape: Sequence[int], manual_axes: set[str]) -> list[int]:
        """Per-device shape of ``shape`` when the ``manual_axes`` are split off."""
        sizes = mesh.axis_sizes()
        out = list(shape)
        for i, dim in enumerate(self.dim_shardings.data):
            factor = 1
            for axis in dim.axes.data:
                if axis.axis_name.data not in manual_axes:
                    continue
                info = axis.sub_axis_info
                factor *= (
                    info.size.data
                    if isinstance(info, SubAxisInfoAttr)
                    else sizes[axis.axis_name.data]
                )
            if out[i] != -1:
                out[i] //= factor
        return out


@irdl_attr_definition
class TensorShardingPerValueAttr(InlineAttr):
    """``#sdy.sharding_per_value<[<@mesh, [{"x"}]>, <@mesh, []>]>``: one sharding per result."""

    name = "sdy.sharding_per_value"

    shardings: ArrayAttr[TensorShardingAttr]

    @classmethod
    def parse_inline(cls, parser: AttrParser) -> TensorShardingPerValueAttr:
        """The stripped form ``[<@mesh, ...>, ...]`` used inside sdy ops."""
        items = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: TensorShardingAttr.parse_stripped(parser)
        )
        return cls(ArrayAttr(items))

    def print_inline(self, printer: Printer) -> None:
        with printer.in_square_brackets():
            printer.print_list(self.shardings.data, lambda s: s.print_parameters(printer))


@irdl_attr_definition
class ManualAxesAttr(ParametrizedAttribute, OpaqueSyntaxAttribute):
    """``#sdy<manual_axes{"x", "y"}>``; ``manual_axes={"x"}`` inside ``sdy.manual_computation``."""

    name = "sdy.manual_axes"

    axes: ArrayAttr[StringAttr]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        names = parser.parse_comma_separated_list(parser.Delimiter.BRACES, parser.parse_str_literal)
        return [ArrayAttr([StringAttr(n) for n in names])]

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_braces():
            printer.print_list(self.axes.data, lambda s: _print_str(printer, s.data))


@irdl_attr_definition
class AxisRefListAttr(ParametrizedAttribute, OpaqueSyntaxAttribute):
    """``#sdy<axis_ref_list{"x", "y":(1)2}>`` (reduction axes of ``sdy.all_reduce``)."""

    name = "sdy.axis_ref_list"

    axes: ArrayAttr[AxisRefAttr]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return [_parse_axis_set(parser)]

    def print_parameters(self, printer: Printer) -> None:
        _print_axis_set(printer, self.axes)


@irdl_attr_definition
class ListOfAxisRefListsAttr(ParametrizedAttribute, OpaqueSyntaxAttribute):
    """``#sdy<list_of_axis_ref_lists[{}, {"x"}]>``: one axis list per tensor dimension."""

    name = "sdy.list_of_axis_ref_lists"

    lists: ArrayAttr[AxisRefListAttr]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        lists = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: AxisRefListAttr(_parse_axis_set(parser))
        )
        return [ArrayAttr(lists)]

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_square_brackets():
            printer.print_list(self.lists.data, lambda a: a.print_parameters(printer))


@irdl_attr_definition
class AllToAllParamAttr(OpaqueInlineAttr):
    """``{"x"}: 0->1``: move the axes from dimension 0 to dimension 1."""

    name = "sdy.all_to_all_param"

    axes: ArrayAttr[AxisRefAttr]
    src_dim: IntAttr
    tgt_dim: IntAttr

    @classmethod
    def parse_inline(cls, parser: AttrParser) -> AllToAllParamAttr:
        axes = _parse_axis_set(parser)
        parser.parse_punctuation(":")
        src = parser.parse_integer(allow_negative=False)
        parser.parse_punctuation("->")
        return cls(axes, IntAttr(src), IntAttr(parser.parse_integer(allow_negative=False)))

    def print_inline(self, printer: Printer) -> None:
        _print_axis_set(printer, self.axes)
        printer.print_string(f": {self.src_dim.data}->{self.tgt_dim.data}")


@irdl_attr_definition
class AllToAllParamListAttr(ParametrizedAttribute, OpaqueSyntaxAttribute):
    """``#sdy<all_to_all_param_list[{"x"}: 0->1, {"y"}: 2->3]>``."""

    name = "sdy.all_to_all_param_list"

    params: ArrayAttr[AllToAllParamAttr]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        params = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: AllToAllParamAttr.parse_inline(parser)
        )
        return [ArrayAttr(params)]

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_square_brackets():
            _print_inline_list(printer, self.params.data)


# ----------------------------------------------------------------------- sharding rules
def factor_symbol(index: int) -> str:
    """Shardy's factor names: ``i`` .. ``z`` for 0..17, then ``z_1``, ``z_2``, ..."""
    return chr(ord("i") + index) if index < 18 else f"z_{index - 17}"


def parse_factor_symbols(text: str) -> list[int] | None:
    """``"ij"`` -> [0, 1]; ``"zz_1"`` -> [17, 18]; None if ``text`` is not a factor string."""
    out: list[int] = []
    pos = 0
    while pos < len(text):
        c = text[pos]
        if "i" <= c <= "y":
            out.append(ord(c) - ord("i"))
            pos += 1
        elif c == "z":
            pos += 1
            if pos + 1 < len(text) and text[pos] == "_" and text[pos + 1].isdigit():
                end = pos + 1
                while end < len(text) and text[end].isdigit():
                    end += 1
                out.append(17 + int(text[pos + 1 : end]))
                pos = end
            else:
                out.append(17)
        else:
            return None
    return out


@irdl_attr_definition
class DimMappingAttr(ParametrizedAttribute):
    """The factors (``ij`` = factors 0 then 1) one tensor dimension is made of."""

    name = "sdy.dim_mapping"

    factor_indices: ArrayAttr[IntAttr]


def _parse_factor_string(parser: AttrParser) -> list[int]:
    pos = parser.pos
    text = parser.parse_identifier()
    factors = parse_factor_symbols(text)
    if factors is None:
        parser.raise_error(f"'{text}' is not a sharding-rule factor name", pos, parser.pos)
    return factors


@irdl_attr_definition
class TensorMappingAttr(ParametrizedAttribute, OpaqueSyntaxAttribute):
    """``[i, jk]``: the factor mapping of each dimension of one operand or result (standalone:
    ``#sdy<tensor_mapping[i, jk]>``)."""

    name = "sdy.tensor_mapping"

    dim_mappings: ArrayAttr[DimMappingAttr]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        dims = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE,
            lambda: DimMappingAttr(ArrayAttr([IntAttr(f) for f in _parse_factor_string(parser)])),
        )
        return [ArrayAttr(dims)]

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_square_brackets():
            printer.print_list(
                self.dim_mappings.data,
                lambda d: printer.print_string(
                    "".join(factor_symbol(f.data) for f in d.factor_indices.data)
                ),
            )


_SPECIAL_FACTORS = ("reduction", "need_replication", "permutation", "blocked_propagation")


@irdl_attr_definition
class OpShardingRuleAttr(ParametrizedAttribute):
    """``#sdy.op_sharding_rule<([i, j], [j, k])->([i, k]) {i=2, j=4, k=8} reduction={j}, custom>``."""

    name = "sdy.op_sharding_rule"

    factor_sizes: ArrayAttr[IntAttr]
    operand_mappings: ArrayAttr[TensorMappingAttr]
    result_mappings: ArrayAttr[TensorMappingAttr]
    reduction_factors: ArrayAttr[IntAttr]
    need_replication_factors: ArrayAttr[IntAttr]
    permutation_factors: ArrayAttr[IntAttr]
    blocked_propagation_factors: ArrayAttr[IntAttr]
    is_custom_rule: BoolAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        def factor_string() -> list[int]:
            return _parse_factor_string(parser)

        def tensor_mapping() -> TensorMappingAttr:
            return TensorMappingAttr.new(TensorMappingAttr.parse_parameters(parser))

        parser.parse_punctuation("<")
        operands = parser.parse_comma_separated_list(parser.Delimiter.PAREN, tensor_mapping)
        parser.parse_punctuation("->")
        results = parser.parse_comma_separated_list(parser.Delimiter.PAREN, tensor_mapping)
        sizes: dict[int, int] = {}
        if parser.parse_optional_punctuation("{") is not None:
            while True:
                pos = parser.pos
                idx = factor_string()
                if len(idx) != 1:
                    parser.raise_error("expected a single factor name", pos, parser.pos)
                parser.parse_punctuation("=")
                sizes[idx[0]] = parser.parse_integer(allow_negative=False)
                if parser.parse_optional_punctuation(",") is None:
                    break
            parser.parse_punctuation("}")
        if sorted(sizes) != list(range(len(sizes))):
            parser.raise_error(
                f"factor sizes must be given for factors {', '.join(map(factor_symbol, range(len(sizes))))} in order"
            )
        special: dict[str, list[int]] = {}
        while (key := parser.parse_optional_keyword_in(_SPECIAL_FACTORS)) is not None:  # pyright: ignore[reportAttributeAccessIssue]
            parser.parse_punctuation("=")
            special[key] = [
                f
                for group in parser.parse_comma_separated_list(
                    parser.Delimiter.BRACES, factor_string
                )
                for f in group
            ]
        custom = False
        if parser.parse_optional_punctuation(",") is not None:
            parser.parse_keyword("custom")
            custom = True
        parser.parse_punctuation(">")
        return [
            ArrayAttr([IntAttr(sizes[i]) for i in range(len(sizes))]),
            ArrayAttr(operands),
            ArrayAttr(results),
            *(ArrayAttr([IntAttr(f) for f in special.get(k, [])]) for k in _SPECIAL_FACTORS),
            BoolAttr.from_bool(custom),
        ]

    def print_parameters(self, printer: Printer) -> None:
        def print_mapping(m: TensorMappingAttr) -> None:
            m.print_parameters(printer)

        printer.print_string("<(")
        printer.print_list(self.operand_mappings.data, print_mapping)
        printer.print_string(")->(")
        printer.print_list(self.result_mappings.data, print_mapping)
        printer.print_string(")")
        if self.factor_sizes.data:
            printer.print_string(" {")
            printer.print_list(
                list(enumerate(self.factor_sizes.data)),
                lambda p: printer.print_string(f"{factor_symbol(p[0])}={p[1].data}"),
            )
            printer.print_string("}")
        for key in _SPECIAL_FACTORS:
            factors: ArrayAttr[IntAttr] = getattr(self, f"{key}_factors")
            if factors.data:
                printer.print_string(f" {key}={{")
                printer.print_list(
                    factors.data, lambda f: printer.print_string(factor_symbol(f.data))
                )
                printer.print_string("}")
        if self.is_custom_rule.value.data:
            printer.print_string(", custom")
        printer.print_string(">")

    def verify(self) -> None:
        n = len(self.factor_sizes.data)
        for mapping in (*self.operand_mappings.data, *self.result_mappings.data):
            for dim in mapping.dim_mappings.data:
                for f in dim.factor_indices.data:
                    if f.data >= n:
                        raise VerifyException(
                            f"sharding rule uses factor {factor_symbol(f.data)} without a size"
                        )
        seen: set[int] = set()
        for key in _SPECIAL_FACTORS[:3]:
            for f in getattr(self, f"{key}_factors").data:
                if f.data >= n:
                    raise VerifyException(
                        f"sharding rule {key} factor {factor_symbol(f.data)} has no size"
                    )
                if f.data in seen:
                    raise VerifyException(
                        "a factor can only be in one of the reduction, need replication, or permutation factor sets"
                    )
                seen.add(f.data)


# ======================================================================================
# Ops
# ======================================================================================
def _ranked_rank(t: Attribute) -> int | None:
    return len(t.get_shape()) if isinstance(t, TensorType) else None


def _verify_sharding_for(
    op: Operation, sharding: TensorShardingAttr, value_type: Attribute, what: str
) -> None:
    mesh = sharding.mesh(op)
    if mesh is None:
        raise VerifyException(f"'{op.name}' {what} refers to unknown mesh {sharding.mesh_or_ref}")
    sharding.verify_for_mesh(mesh, _ranked_rank(value_type), what)


def _parse_trailing_attrs(parser: Parser) -> dict[str, Attribute]:
    return parser.parse_optional_attr_dict()


def _print_trailing_attrs(printer: Printer, op: Operation) -> None:
    if op.attributes:
        printer.print_string(" ")
        printer.print_attr_dict(op.attributes)


OpT = TypeVar("OpT", bound=IRDLOperation)


def _parse_attrs_and_type(
    cls: type[OpT],
    parser: Parser,
    operand: UnresolvedOperand,
    properties: dict[str, Attribute],
    *,
    has_result: bool = True,
) -> OpT:
    """``{attrs} : T`` after the op's one operand, which (like its result) has type ``T``:
    build the op."""
    attrs = _parse_trailing_attrs(parser)
    parser.parse_punctuation(":")
    t = parser.parse_type()
    return cls.build(
        operands=[parser.resolve_operand(operand, t)],
        result_types=[t] if has_result else [],
        properties=dict(sorted(properties.items())),
        attributes=attrs,
    )


def _print_attrs_and_type(printer: Printer, op: Operation, t: Attribute) -> None:
    """`` {attrs} : T``."""
    _print_trailing_attrs(printer, op)
    printer.print_string(" : ")
    printer.print_attribute(t)


@irdl_op_definition
class MeshOp(IRDLOperation):
    """``sdy.mesh @mesh = <["x"=4, "y"=2]>``: a named mesh, referenced by shardings."""

    name = "sdy.mesh"
    sym_name = prop_def(StringAttr)
    mesh = prop_def(MeshAttr)
    traits = traits_def(SymbolOpInterface(), HasParent(ModuleOp))

    def __init__(self, sym_name: str, mesh: MeshAttr) -> None:
        super().__init__(properties={"mesh": mesh, "sym_name": StringAttr(sym_name)})

    @classmethod
    def parse(cls, parser: Parser) -> MeshOp:
        name = parser.parse_symbol_name().data
        parser.parse_punctuation("=")
        op = cls(name, MeshAttr.new(MeshAttr.parse_parameters(parser)))
        op.attributes |= _parse_trailing_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(" = ")
        self.mesh.print_parameters(printer)
        _print_trailing_attrs(printer, self)


class _ShardingOp(IRDLOperation):
    """``%r = sdy.<op> %x <@mesh, [...]> {attrs} : type``."""

    input = operand_def(_TENSOR)
    sharding = prop_def(TensorShardingAttr)
    result = result_def(_TENSOR)

    def __init__(self, input: SSAValue | Operation, sharding: TensorShardingAttr) -> None:
        value = SSAValue.get(input)
        super().__init__(
            operands=[value], result_types=[value.type], properties={"sharding": sharding}
        )

    @classmethod
    def parse(cls, parser: Parser):
        operand = parser.parse_unresolved_operand()
        sharding = TensorShardingAttr.parse_stripped(parser)
        return _parse_attrs_and_type(cls, parser, operand, {"sharding": sharding})

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.input)
        printer.print_string(" ")
        self.sharding.print_parameters(printer)
        _print_attrs_and_type(printer, self, self.result.type)

    def verify_(self) -> None:
        if self.input.type != self.result.type:
            raise VerifyException(
                f"'{self.name}' result type {self.result.type} differs from the input's {self.input.type}"
            )
        _verify_sharding_for(self, self.sharding, self.input.type, "sharding")


@irdl_op_definition
class ShardingConstraintOp(_ShardingOp):
    """Constrains an intermediate tensor to a sharding (JAX's ``with_sharding_constraint``)."""

    name = "sdy.sharding_constraint"
    traits = traits_def(Elementwise())


@irdl_op_definition
class ReshardOp(_ShardingOp):
    """Reshards a tensor to another sharding (JAX's ``jax.sharding.reshard``)."""

    name = "sdy.reshard"
    traits = traits_def(Pure(), Elementwise())


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """``sdy.return %a, %b : T, U``: terminator of sdy region ops."""

    name = "sdy.return"
    results_ = var_operand_def(AnyAttr())
    traits = traits_def(Pure(), IsTerminator())

    def __init__(self, values: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[list(values)])

    @classmethod
    def parse(cls, parser: Parser) -> ReturnOp:
        attrs = _parse_trailing_attrs(parser)
        values: Sequence[SSAValue] = ()
        operands = parser.parse_optional_undelimited_comma_separated_list(
            parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
        )
        if operands:
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            values = parser.resolve_operands(operands, types, parser.pos)
        op = cls(values)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        _print_trailing_attrs(printer, self)
        if self.results_:
            printer.print_string(" ")
            printer.print_list(self.results_, printer.print_operand)
            printer.print_string(" : ")
            printer.print_list([v.type for v in self.results_], printer.print_attribute)


def _parse_region_with_args(parser: Parser) -> Region:
    """``(%arg1: T loc(...), ...) { ops }``: a single block whose arguments precede it."""

    def argument() -> Parser.Argument:
        arg = parser.parse_argument(expect_type=True)
        loc = parser.parse_optional_location()
        return arg if loc is None else Parser.Argument(arg.name, arg.type, loc)

    args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, argument)
    return parser.parse_region(args)


def _print_region_with_args(printer: Printer, region: Region) -> None:
    block = region.blocks.first
    printer.print_string(" (")
    if block is not None:
        printer.print_list(block.args, printer.print_block_argument)
    printer.print_string(") ")
    printer.print_region(region, print_entry_block_args=False, print_empty_block=False)


def _parse_body_and_signature(
    cls: type[OpT],
    parser: Parser,
    operands: Sequence[UnresolvedOperand],
    properties: dict[str, Attribute],
) -> OpT:
    """``(%arg1: T) {...} {attrs} : (ins) -> outs`` after a region op's operands and
    properties: its one variadic operand, variadic result and body; build the op."""
    body = _parse_region_with_args(parser)
    attrs = _parse_trailing_attrs(parser)
    parser.parse_punctuation(":")
    fn: FunctionType = parser.parse_function_type()
    values = parser.resolve_operands(operands, fn.inputs.data, parser.pos)
    return cls.build(
        operands=[values],
        result_types=[fn.outputs.data],
        properties=dict(sorted(properties.items())),
        attributes=attrs,
        regions=[body],
    )


def _print_body_and_signature(printer: Printer, op: Operation, body: Region) -> None:
    """`` (%arg1: T) {...} {attrs} : (ins) -> outs`` of every operand and result."""
    _print_region_with_args(printer, body)
    _print_trailing_attrs(printer, op)
    printer.print_string(" : ")
    printer.print_function_type([v.type for v in op.operands], [r.type for r in op.results])


def _verify_body_types(
    op: Operation,
    region: Region,
    arg_types: Sequence[Attribute],
    result_types: Sequence[Attribute],
    check: bool,
) -> None:
    block = region.blocks.first
    if block is None:
        raise VerifyException(f"'{op.name}' body must have one block")
    if len(block.args) != len(arg_types):
        raise VerifyException(
            f"'{op.name}' body has {len(block.args)} arguments for {len(arg_types)} operands"
        )
    last = block.last_op
    if not isinstance(last, ReturnOp):
        raise VerifyException(f"'{op.name}' body must end with sdy.return")
    if len(last.results_) != len(result_types):
        raise VerifyException(
            f"'{op.name}' returns {len(last.results_)} values for {len(result_types)} results"
        )
    if not check:
        return
    for i, (arg, t) in enumerate(zip(block.args, arg_types, strict=True)):
        if arg.type != t:
            raise VerifyException(
                f"'{op.name}' body argument {i} has type {arg.type}, expected {t}"
            )
    for i, (v, t) in enumerate(zip(last.results_, result_types, strict=True)):
        if v.type != t:
            raise VerifyException(f"'{op.name}' returned value {i} has type {v.type}, expected {t}")


@irdl_op_definition
class ManualComputationOp(IRDLOperation):
    """Per-device code for the ``manual_axes`` (JAX's ``shard_map``)::

    %0 = sdy.manual_computation(%x) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>]
           manual_axes={"x"} (%arg1: tensor<2xf32>) {
      sdy.return %arg1 : tensor<2xf32>
    } : (tensor<8xf32>) -> tensor<8xf32>
    """

    name = "sdy.manual_computation"
    tensors = var_operand_def(_TENSOR)
    results_ = var_result_def(_TENSOR)
    in_shardings = prop_def(TensorShardingPerValueAttr)
    out_shardings = prop_def(TensorShardingPerValueAttr)
    manual_axes = prop_def(ManualAxesAttr)
    body = region_def("single_block")
    traits = lazy_traits_def(
        lambda: (
            RecursiveMemoryEffect(),
            SingleBlockImplicitTerminator(ReturnOp),
            IsolatedFromAbove(),
        )
    )

    @classmethod
    def parse(cls, parser: Parser) -> ManualComputationOp:
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        props: dict[str, Attribute] = {}
        for key in ("in_shardings", "out_shardings"):
            parser.parse_keyword(key)
            parser.parse_punctuation("=")
            props[key] = TensorShardingPerValueAttr.parse_inline(parser)
        parser.parse_keyword("manual_axes")
        parser.parse_punctuation("=")
        props["manual_axes"] = ManualAxesAttr.new(ManualAxesAttr.parse_parameters(parser))
        return _parse_body_and_signature(cls, parser, operands, props)

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_list(self.tensors, printer.print_operand)
        printer.print_string(") in_shardings=")
        self.in_shardings.print_inline(printer)
        printer.print_string(" out_shardings=")
        self.out_shardings.print_inline(printer)
        printer.print_string(" manual_axes=")
        self.manual_axes.print_parameters(printer)
        _print_body_and_signature(printer, self, self.body)

    def verify_(self) -> None:
        ins, outs = self.in_shardings.shardings.data, self.out_shardings.shardings.data
        if len(ins) != len(self.tensors):
            raise VerifyException(
                f"'sdy.manual_computation' has {len(ins)} in_shardings for {len(self.tensors)} operands"
            )
        if len(outs) != len(self.results_):
            raise VerifyException(
                f"'sdy.manual_computation' has {len(outs)} out_shardings for {len(self.results_)} results"
            )
        manual = {a.data for a in self.manual_axes.axes.data}
        block = self.body.blocks.first
        ret = block.last_op if block is not None else None
        _verify_body_types(
            self,
            self.body,
            [v.type for v in self.tensors],
            [r.type for r in self.results_],
            check=False,
        )
        assert block is not None and isinstance(ret, ReturnOp)
        pairs = [
            *(
                ("operand", i, s, v.type, block.args[i].type)
                for i, (s, v) in enumerate(zip(ins, self.tensors, strict=True))
            ),
            *(
                ("result", i, s, r.type, ret.results_[i].type)
                for i, (s, r) in enumerate(zip(outs, self.results_, strict=True))
            ),
        ]
        for kind, i, sharding, global_type, local_type in pairs:
            mesh = sharding.mesh(self)
            if mesh is None:
                raise VerifyException(
                    f"'sdy.manual_computation' {kind} {i} sharding refers to unknown mesh {sharding.mesh_or_ref}"
                )
            sharding.verify_for_mesh(mesh, _ranked_rank(global_type), f"{kind} {i}")
            unknown = manual - set(mesh.axis_sizes())
            if unknown:
                raise VerifyException(
                    f"'sdy.manual_computation' manual axes {sorted(unknown)} are not in the mesh"
                )
            if isinstance(global_type, TensorType) and isinstance(local_type, TensorType):
                expected = sharding.local_shape(mesh, global_type.get_shape(), manual)
                if (
                    list(local_type.get_shape()) != expected
                    or local_type.element_type != global_type.element_type
                ):
                    raise VerifyException(
                        f"'sdy.manual_computation' {kind} {i}: local type {local_type} does not match global type "
                        f"{global_type} split over manual axes {sorted(manual)} (expected shape {expected})"
                    )


@irdl_op_definition
class NamedComputationOp(IRDLOperation):
    """``sdy.named_computation<"name">(%x) (%arg: T) { ... } : (T) -> U``: a named, inlinable block."""

    name = "sdy.named_computation"
    name_ = prop_def(StringAttr, prop_name="name")
    operands_ = var_operand_def(AnyAttr())
    result = var_result_def(AnyAttr())
    in_shardings = opt_prop_def(TensorShardingPerValueAttr)
    out_shardings = opt_prop_def(TensorShardingPerValueAttr)
    body = region_def("single_block")
    traits = lazy_traits_def(
        lambda: (
            RecursiveMemoryEffect(),
            SingleBlockImplicitTerminator(ReturnOp),
            IsolatedFromAbove(),
        )
    )

    @classmethod
    def parse(cls, parser: Parser) -> NamedComputationOp:
        parser.parse_punctuation("<")
        props: dict[str, Attribute] = {"name": StringAttr(parser.parse_str_literal())}
        parser.parse_punctuation(">")
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        for key in ("in_shardings", "out_shardings"):
            if parser.parse_optional_keyword(key) is not None:
                parser.parse_punctuation("=")
                props[key] = TensorShardingPerValueAttr.parse_inline(parser)
        return _parse_body_and_signature(cls, parser, operands, props)

    def print(self, printer: Printer) -> None:
        printer.print_string("<")
        _print_str(printer, self.name_.data)
        printer.print_string(">(")
        printer.print_list(self.operands_, printer.print_operand)
        printer.print_string(")")
        for key in ("in_shardings", "out_shardings"):
            attr = self.properties.get(key)
            if isinstance(attr, TensorShardingPerValueAttr):
                printer.print_string(f" {key}=")
                attr.print_inline(printer)
        _print_body_and_signature(printer, self, self.body)

    def verify_(self) -> None:
        _verify_body_types(
            self,
            self.body,
            [v.type for v in self.operands_],
            [r.type for r in self.result],
            check=True,
        )
        for key, values in (("in_shardings", self.operands_), ("out_shardings", self.result)):
            attr = self.properties.get(key)
            if isinstance(attr, TensorShardingPerValueAttr) and len(attr.shardings.data) != len(
                values
            ):
                raise VerifyException(
                    f"'sdy.named_computation' {key} has {len(attr.shardings.data)} entries for {len(values)} values"
                )


@irdl_op_definition
class ShardingGroupOp(IRDLOperation):
    """``sdy.sharding_group %x group_id=3 : T``: tensors of one group get the same sharding."""

    name = "sdy.sharding_group"
    input = operand_def(TensorType)
    group_id = prop_def(IntegerAttr.constr(type=i64))

    @classmethod
    def parse(cls, parser: Parser) -> ShardingGroupOp:
        operand = parser.parse_unresolved_operand()
        parser.parse_keyword("group_id")
        parser.parse_punctuation("=")
        gid = IntegerAttr(parser.parse_integer(), i64)
        return _parse_attrs_and_type(cls, parser, operand, {"group_id": gid}, has_result=False)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.input)
        printer.print_string(f" group_id={self.group_id.value.data}")
        _print_attrs_and_type(printer, self, self.input.type)


@irdl_op_definition
class ConstantOp(DenseConstantOp):
    """``sdy.constant {attrs} dense<...> : T``: a constant that is never folded or CSE'd."""

    name = "sdy.constant"
    traits = traits_def(Pure())


@irdl_op_definition
class DataFlowEdgeOp(IRDLOperation):
    """``sdy.data_flow_edge %x sharding=<@mesh, [...]> : T`` (sharding optional)."""

    name = "sdy.data_flow_edge"
    input = operand_def(AnyAttr())
    sharding = opt_prop_def(TensorShardingAttr)
    result = result_def(AnyAttr())

    @classmethod
    def parse(cls, parser: Parser) -> DataFlowEdgeOp:
        operand = parser.parse_unresolved_operand()
        props: dict[str, Attribute] = {}
        if parser.parse_optional_keyword("sharding") is not None:
            parser.parse_punctuation("=")
            props["sharding"] = TensorShardingAttr.parse_stripped(parser)
        return _parse_attrs_and_type(cls, parser, operand, props)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.input)
        if self.sharding is not None:
            printer.print_string(" sharding=")
            self.sharding.print_parameters(printer)
        _print_attrs_and_type(printer, self, self.result.type)

    def verify_(self) -> None:
        if self.input.type != self.result.type:
            raise VerifyException("'sdy.data_flow_edge' result type differs from the input's")
        if self.sharding is not None:
            _verify_sharding_for(self, self.sharding, self.input.type, "sharding")


@irdl_op_definition
class FuncDataFlowEdgeOp(IRDLOperation):
    """``sdy.func_data_flow_edge %call_result : T``."""

    name = "sdy.func_data_flow_edge"
    operand = operand_def(AnyAttr())
    result = result_def(AnyAttr())

    @classmethod
    def parse(cls, parser: Parser) -> FuncDataFlowEdgeOp:
        return _parse_attrs_and_type(cls, parser, parser.parse_unresolved_operand(), {})

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operand)
        _print_attrs_and_type(printer, self, self.result.type)

    def verify_(self) -> None:
        if self.operand.type != self.result.type:
            raise VerifyException(
                "'sdy.func_data_flow_edge' result type differs from the operand's"
            )


_DIRECTIONS = ("NONE", "FORWARD", "BACKWARD", "BOTH")


@irdl_op_definition
class PropagationBarrierOp(IRDLOperation):
    """``sdy.propagation_barrier %x allowed_direction=FORWARD : T`` (stored as ``i32`` as in MLIR)."""

    name = "sdy.propagation_barrier"
    input = operand_def(TensorType)
    allowed_direction = prop_def(IntegerAttr.constr(type=i32))
    result = result_def(TensorType)
    traits = traits_def(Pure(), Elementwise())

    @classmethod
    def parse(cls, parser: Parser) -> PropagationBarrierOp:
        operand = parser.parse_unresolved_operand()
        parser.parse_keyword("allowed_direction")
        parser.parse_punctuation("=")
        direction = IntegerAttr(_DIRECTIONS.index(parser.parse_keyword_in(_DIRECTIONS)), i32)
        return _parse_attrs_and_type(cls, parser, operand, {"allowed_direction": direction})

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.input)
        printer.print_string(f" allowed_direction={_DIRECTIONS[self.allowed_direction.value.data]}")
        _print_attrs_and_type(printer, self, self.input.type)

    def verify_(self) -> None:
        d = self.allowed_direction.value.data
        if not 0 <= d < len(_DIRECTIONS):
            raise VerifyException(
                f"'sdy.propagation_barrier' allowed_direction {d} is not a propagation direction"
            )
        if _DIRECTIONS[d] == "BOTH":
            raise VerifyException(
                "'sdy.propagation_barrier' cannot allow propagation in BOTH directions"
            )
        if self.input.type != self.result.type:
            raise VerifyException("'sdy.propagation_barrier' result type differs from the input's")


# ----------------------------------------------------------------------- collectives
class _CollectiveOp(IRDLOperation):
    """``%r = sdy.<op> <axes> %x out_sharding=<@mesh, [...]> : T`` (result type = operand type)."""

    tensor = operand_def(_TENSOR)
    out_sharding = prop_def(TensorShardingAttr)
    result = result_def(_TENSOR)

    AXES: ClassVar[str | None] = None
    """Name of the axes property printed before the operand (None for collective_permute)."""
    AXES_PARSE: ClassVar[Callable[[AttrParser], Attribute] | None] = None

    @classmethod
    def parse(cls, parser: Parser):
        props: dict[str, Attribute] = {}
        if cls.AXES is not None and cls.AXES_PARSE is not None:
            props[cls.AXES] = cls.AXES_PARSE(parser)
        operand = parser.parse_unresolved_operand()
        parser.parse_keyword("out_sharding")
        parser.parse_punctuation("=")
        props["out_sharding"] = TensorShardingAttr.parse_stripped(parser)
        return _parse_attrs_and_type(cls, parser, operand, props)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        if self.AXES is not None:
            axes = self.properties[self.AXES]
            assert isinstance(axes, ParametrizedAttribute) and hasattr(axes, "print_parameters")
            axes.print_parameters(printer)  # pyright: ignore[reportAttributeAccessIssue]
            printer.print_string(" ")
        printer.print_operand(self.tensor)
        printer.print_string(" out_sharding=")
        self.out_sharding.print_parameters(printer)
        _print_attrs_and_type(printer, self, self.result.type)

    def verify_(self) -> None:
        if self.tensor.type != self.result.type:
            raise VerifyException(
                f"'{self.name}' result type {self.result.type} differs from the operand's {self.tensor.type}"
            )
        _verify_sharding_for(self, self.out_sharding, self.result.type, "out_sharding")
        rank = _ranked_rank(self.tensor.type)
        axes = self.properties.get(self.AXES) if self.AXES else None
        if (
            isinstance(axes, ListOfAxisRefListsAttr)
            and rank is not None
            and len(axes.lists.data) != rank
        ):
            raise VerifyException(
                f"'{self.name}' has {len(axes.lists.data)} axis lists for a tensor of rank {rank}"
            )
        if isinstance(axes, AllToAllParamListAttr) and rank is not None:
            for p in axes.params.data:
                if not (p.src_dim.data < rank and p.tgt_dim.data < rank) or p.src_dim == p.tgt_dim:
                    raise VerifyException(
                        f"'{self.name}' all-to-all dimensions {p.src_dim.data}->{p.tgt_dim.data} are invalid for rank {rank}"
                    )


def _parse_list_of_axis_lists(parser: AttrParser) -> Attribute:
    return ListOfAxisRefListsAttr.new(ListOfAxisRefListsAttr.parse_parameters(parser))


def _parse_axis_list(parser: AttrParser) -> Attribute:
    return AxisRefListAttr.new(AxisRefListAttr.parse_parameters(parser))


def _parse_all_to_all(parser: AttrParser) -> Attribute:
    return AllToAllParamListAttr.new(AllToAllParamListAttr.parse_parameters(parser))


def _collective(
    mnemonic: str, axes: str | None, kind: type[ParametrizedAttribute] | None, doc: str
) -> type[_CollectiveOp]:
    parse_axes = (
        {
            ListOfAxisRefListsAttr: _parse_list_of_axis_lists,
            AxisRefListAttr: _parse_axis_list,
            AllToAllParamListAttr: _parse_all_to_all,
        }.get(kind)
        if kind is not None
        else None
    )  # pyright: ignore[reportArgumentType, reportCallIssue]
    fields: dict[str, object] = {
        "name": f"sdy.{mnemonic}",
        "AXES": axes,
        "AXES_PARSE": staticmethod(parse_axes) if parse_axes is not None else None,
        "__doc__": doc,
        "__annotations__": {"AXES": "ClassVar[str | None]", "AXES_PARSE": "ClassVar[object]"},
    }
    if axes is not None and kind is not None:
        fields[axes] = prop_def(kind)
    cls = type(
        "".join(p.capitalize() for p in mnemonic.split("_")) + "Op", (_CollectiveOp,), fields
    )
    return irdl_op_definition(cls)


AllGatherOp = _collective(
    "all_gather", "gathering_axes", ListOfAxisRefListsAttr, "Gathers chunks of a tensor along axes."
)
AllSliceOp = _collective(
    "all_slice", "slicing_axes", ListOfAxisRefListsAttr, "Slices a tensor along axes."
)
AllReduceOp = _collective(
    "all_reduce", "reduction_axes", AxisRefListAttr, "Sums a tensor over axes."
)
AllToAllOp = _collective(
    "all_to_all", "params", AllToAllParamListAttr, "Moves axes between tensor dimensions."
)
CollectivePermuteOp = _collective(
    "collective_permute", None, None, "Permutes shards between devices."
)
ReduceScatterOp = _collective(
    "reduce_scatter",
    "reduce_scatter_axes",
    ListOfAxisRefListsAttr,
    "Reduces then scatters along axes.",
)
ReplicatedToUnreducedOp = _collective(
    "replicated_to_unreduced", "axes", AxisRefListAttr, "Marks replicated axes as unreduced."
)
ShardedToUnreducedOp = _collective(
    "sharded_to_unreduced",
    "axes",
    ListOfAxisRefListsAttr,
    "Turns sharded axes into unreduced ones.",
)


Sdy = Dialect(
    "sdy",
    [
        AllGatherOp,
        AllReduceOp,
        AllSliceOp,
        AllToAllOp,
        CollectivePermuteOp,
        ConstantOp,
        DataFlowEdgeOp,
        FuncDataFlowEdgeOp,
        ManualComputationOp,
        MeshOp,
        NamedComputationOp,
        PropagationBarrierOp,
        ReduceScatterOp,
        ReplicatedToUnreducedOp,
        ReshardOp,
        ReturnOp,
        ShardedToUnreducedOp,
        ShardingConstraintOp,
        ShardingGroupOp,
    ],
    [
        AllToAllParamAttr,
        AllToAllParamListAttr,
        AxisRefAttr,
        AxisRefListAttr,
        DimMappingAttr,
        DimensionShardingAttr,
        ListOfAxisRefListsAttr,
        ManualAxesAttr,
        MeshAttr,
        MeshAxisAttr,
        OpShardingRuleAttr,
        SubAxisInfoAttr,
        TensorMappingAttr,
        TensorShardingAttr,
        TensorShardingPerValueAttr,
    ],
)
"""The ``sdy`` dialect: every op jaxlib registers (19) and the attributes JAX emits."""

_ = (Block, UnitAttr, UnresolvedOperand)
