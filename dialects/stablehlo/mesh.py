"""Mesh-axes replica groups: how JAX >= 0.11 names the devices of a shard_map collective.

    replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "x">]>
    #stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<axes=[<name = "x", size = 4>]>, axes = [...]>
    #stablehlo.axis_ref<name = "y", sub_axis_info = (1)2>
    #stablehlo<sub_axis_info(1)2>

Printed exactly as jaxlib's printer does (``axes=[...]`` without spaces inside
``#stablehlo.mesh``, mesh axes in their bare ``<name = ..., size = ...>`` form there), parsed as
leniently as jaxlib's parser (keyword fields in any order where jaxlib allows it, bare or full
nested attributes). Verification matches jaxlib's: an inline mesh must define every axis the
group names; a symbol mesh must resolve (checked by the collective op, see
:func:`verify_mesh_symbol`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    IntAttr,
    IntegerType,
    NoneAttr,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, OpaqueSyntaxAttribute, Operation, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import VerifyException


def _parse_fields(
    parser: AttrParser,
    what: str,
    fields: dict[str, Callable[[], Attribute]],
    required: Sequence[str],
) -> dict[str, Attribute]:
    """``<key = value, ...>`` with the keys of ``fields`` in any order, each at most once."""
    values: dict[str, Attribute] = {}

    def entry() -> None:
        key = parser.parse_identifier()
        if key not in fields:
            parser.raise_error(
                f"unknown field '{key}' in #{what}; expected one of {', '.join(fields)}"
            )
        if key in values:
            parser.raise_error(f"duplicate field '{key}' in #{what}")
        parser.parse_punctuation("=")
        values[key] = fields[key]()

    with parser.in_angle_brackets():
        parser.parse_comma_separated_list(parser.Delimiter.NONE, entry)
    for key in required:
        if key not in values:
            parser.raise_error(f"#{what} is missing field '{key}'")
    return values


def _parse_nested(
    parser: AttrParser, cls: type[ParametrizedAttribute], bare: Callable[[], Attribute]
) -> Attribute:
    """A nested attribute written bare (jaxlib's print) or in full (``#stablehlo.x<...>``)."""
    if parser._current_token.text.startswith("#"):  # pyright: ignore[reportPrivateUsage]
        attr = parser.parse_attribute()
        if not isinstance(attr, cls):
            parser.raise_error(f"expected #{cls.name}, got {attr}")
        return attr
    return bare()


@irdl_attr_definition
class SubAxisInfoAttr(ParametrizedAttribute, OpaqueSyntaxAttribute):
    """``#stablehlo<sub_axis_info(1)2>``: a sub-axis of size 2 after a pre-size of 1."""

    name = "stablehlo.sub_axis_info"
    pre_size: IntAttr
    size: IntAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("(")
        pre = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(")")
        return [IntAttr(pre), IntAttr(parser.parse_integer(allow_boolean=False))]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"({self.pre_size.data}){self.size.data}")


@irdl_attr_definition
class AxisRefAttr(ParametrizedAttribute):
    """``#stablehlo.axis_ref<name = "x">``, ``#stablehlo.axis_ref<name = "y", sub_axis_info = (1)2>``."""

    name = "stablehlo.axis_ref"
    axis_name: StringAttr
    sub_axis_info: SubAxisInfoAttr | NoneAttr

    def __init__(self, axis_name: str, sub_axis: tuple[int, int] | None = None) -> None:
        info = (
            NoneAttr()
            if sub_axis is None
            else SubAxisInfoAttr(IntAttr(sub_axis[0]), IntAttr(sub_axis[1]))
        )
        super().__init__(StringAttr(axis_name), info)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        def sub_axis() -> Attribute:
            return _parse_nested(
                parser,
                SubAxisInfoAttr,
                lambda: SubAxisInfoAttr.new(SubAxisInfoAttr.parse_parameters(parser)),
            )

        values = _parse_fields(
            parser,
            cls.name,
            {"name": lambda: StringAttr(parser.parse_str_literal()), "sub_axis_info": sub_axis},
            ("name",),
        )
        return [values["name"], values.get("sub_axis_info", NoneAttr())]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<name = ")
        printer.print_string_literal(self.axis_name.data)
        if isinstance(self.sub_axis_info, SubAxisInfoAttr):
            printer.print_string(", sub_axis_info = ")
            self.sub_axis_info.print_parameters(printer)
        printer.print_string(">")


@irdl_attr_definition
class MeshAxisAttr(ParametrizedAttribute):
    """``#stablehlo.mesh_axis<name = "x", size = 4>`` (bare ``<name = "x", size = 4>`` in a mesh)."""

    name = "stablehlo.mesh_axis"
    axis_name: StringAttr
    size: IntAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        values = _parse_fields(
            parser,
            cls.name,
            {
                "name": lambda: StringAttr(parser.parse_str_literal()),
                "size": lambda: IntAttr(parser.parse_integer(allow_boolean=False)),
            },
            ("name", "size"),
        )
        return [values["name"], values["size"]]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<name = ")
        printer.print_string_literal(self.axis_name.data)
        printer.print_string(f", size = {self.size.data}>")


@irdl_attr_definition
class MeshAttr(ParametrizedAttribute):
    """``#stablehlo.mesh<axes=[<name = "x", size = 4>], device_ids=dense<[3, 2, 1, 0]> : tensor<4xi64>>``."""

    name = "stablehlo.mesh"
    axes: ArrayAttr[MeshAxisAttr]
    device_ids: DenseIntOrFPElementsAttr | NoneAttr

    def __init__(self, axes: Sequence[tuple[str, int]]) -> None:
        super().__init__(
            ArrayAttr([MeshAxisAttr(StringAttr(n), IntAttr(s)) for n, s in axes]), NoneAttr()
        )

    def axis_sizes(self) -> dict[str, int]:
        return {a.axis_name.data: a.size.data for a in self.axes.data}

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        def axis() -> Attribute:
            return _parse_nested(
                parser,
                MeshAxisAttr,
                lambda: MeshAxisAttr.new(MeshAxisAttr.parse_parameters(parser)),
            )

        with parser.in_angle_brackets():
            parser.parse_keyword("axes")
            parser.parse_punctuation("=")
            parser.parse_punctuation("[")
            axes = [axis()]
            while parser.parse_optional_punctuation(",") is not None:
                axes.append(axis())
            parser.parse_punctuation("]")
            device_ids: Attribute = NoneAttr()
            if parser.parse_optional_punctuation(",") is not None:
                parser.parse_keyword("device_ids")
                parser.parse_punctuation("=")
                device_ids = parser.parse_attribute()
        return [ArrayAttr(axes), device_ids]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<axes=[")
        printer.print_list(self.axes.data, lambda a: a.print_parameters(printer))
        printer.print_string("]")
        if isinstance(self.device_ids, DenseIntOrFPElementsAttr):
            printer.print_string(", device_ids=")
            printer.print_attribute(self.device_ids)
        printer.print_string(">")

    def verify(self) -> None:
        if not self.axes.data:
            raise VerifyException("#stablehlo.mesh needs at least one axis")
        ids = self.device_ids
        if isinstance(ids, DenseIntOrFPElementsAttr) and not isinstance(
            ids.get_element_type(), IntegerType
        ):
            raise VerifyException(f"#stablehlo.mesh device_ids must be integers, got {ids}")


@irdl_attr_definition
class ReplicaGroupMeshAxesAttr(ParametrizedAttribute):
    """``#stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "x">]>``:
    the devices that differ only along ``axes`` of ``mesh`` (a symbol or an inline mesh)."""

    name = "stablehlo.replica_group_mesh_axes"
    mesh: SymbolRefAttr | MeshAttr
    axes: ArrayAttr[Attribute]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        values = _parse_fields(
            parser,
            cls.name,
            {"mesh": parser.parse_attribute, "axes": parser.parse_attribute},
            ("mesh", "axes"),
        )
        mesh, axes = values["mesh"], values["axes"]
        flat = isinstance(mesh, SymbolRefAttr) and not mesh.nested_references.data
        if not (flat or isinstance(mesh, MeshAttr)):
            parser.raise_error(
                f"#{cls.name}: mesh must be a flat symbol reference or a #stablehlo.mesh, got {mesh}"
            )
        if not isinstance(axes, ArrayAttr):
            parser.raise_error(f"#{cls.name}: axes must be an array, got {axes}")
        return [mesh, axes]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<mesh = ")
        printer.print_attribute(self.mesh)
        printer.print_string(", axes = ")
        printer.print_attribute(self.axes)
        printer.print_string(">")

    def verify(self) -> None:
        if isinstance(self.mesh, SymbolRefAttr) and self.mesh.nested_references.data:
            raise VerifyException(
                f"#{self.name}: mesh must be a flat symbol reference, got {self.mesh}"
            )
        if not isinstance(self.mesh, MeshAttr):
            return  # jaxlib checks nothing more against a mesh symbol
        sizes = self.mesh.axis_sizes()
        for axis in self.axes.data:
            if not isinstance(axis, AxisRefAttr):
                raise VerifyException(
                    f"#{self.name}: expected #stablehlo.axis_ref in axes, got {axis}"
                )
            if axis.axis_name.data not in sizes:
                raise VerifyException(
                    f"#{self.name}: axis '{axis.axis_name.data}' not found in mesh definition"
                )


def verify_mesh_symbol(op: Operation, replica_groups: Attribute | None) -> None:
    """A collective's ``replica_groups`` naming a mesh symbol must resolve from ``op``."""
    if not isinstance(replica_groups, ReplicaGroupMeshAxesAttr) or not isinstance(
        replica_groups.mesh, SymbolRefAttr
    ):
        return
    name = replica_groups.mesh.root_reference.data
    try:
        found = SymbolTable.lookup_symbol(op, name)
    except ValueError:  # no enclosing symbol table: the symbol cannot resolve
        found = None
    if found is None:
        raise VerifyException(f"'{op.name}' replica_groups: mesh symbol '{name}' not found")


MESH_ATTRIBUTES: list[type[Attribute]] = [
    SubAxisInfoAttr,
    AxisRefAttr,
    MeshAxisAttr,
    MeshAttr,
    ReplicaGroupMeshAxesAttr,
]
