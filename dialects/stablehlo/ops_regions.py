"""Ops with regions (reduce, reduce_window, select_and_scatter, sort, scatter, map, while,
if, case, all_reduce...) and ``stablehlo.return``.

``reduce`` prints JAX's compact form when its body is one commutative binary op
on the block arguments:

    %0 = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [0]
         : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>

and otherwise the long form with a ``reducer(%a: T, %b: T) {...}`` body. ``while``:

    %0:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %x) : tensor<i32>, tensor<4xf32>
    cond { ... } do { ... }
"""

from __future__ import annotations

from xdsl.dialects.builtin import AnyTensorType, DenseArrayBase, IntegerAttr, TensorType, i1, i32
from xdsl.ir import Attribute, Block, Region
from xdsl.irdl import (
    AnyAttr,
    SameVariadicOperandSize,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Commutative, IsTerminator, Pure, RecursiveMemoryEffect, ReturnLike
from xdsl.utils.exceptions import VerifyException

from jax_use_donated.dialects.stablehlo.base import (
    StableHLOOp,
    array_values,
    define_op,
    i64_array,
    int_array_text,
    parse_functional_type,
    parse_int_array,
    parse_operand_list,
    print_functional_type,
    resolve,
)


@irdl_op_definition
class ReturnOp(StableHLOOp):
    """``stablehlo.return %a, %b : tensor<f32>, tensor<i32>``."""

    name = "stablehlo.return"
    results_ = var_operand_def(AnyAttr())
    traits = traits_def(Pure(), IsTerminator(), ReturnLike())

    @classmethod
    def parse(cls, parser: Parser):
        ops = parse_operand_list(parser)
        attrs = cls.parse_attr_dict(parser)
        types: list[Attribute] = []
        if parser.parse_optional_punctuation(":"):
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        return cls.create_parsed(parser, [resolve(parser, ops, types)], [], attrs)

    def print(self, printer: Printer) -> None:
        if self.results_:
            printer.print_string(" ")
            printer.print_list(self.results_, printer.print_operand)
        self.print_attr_dict(printer)
        if self.results_:
            printer.print_string(" : ")
            printer.print_list([v.type for v in self.results_], printer.print_attribute)


def _parse_located_argument(parser: Parser) -> Parser.Argument:
    """``%name: type loc(...)?`` (block arguments carry locations under debug info)."""
    arg = parser.parse_argument()
    location = parser.parse_optional_location()
    if location is not None:
        arg.location = location
    return arg


def _check_terminator(op: StableHLOOp, region: Region, label: str) -> None:
    if not region.blocks:
        raise VerifyException(f"'{op.name}' {label} region must not be empty")
    last = region.blocks.first.last_op  # pyright: ignore[reportOptionalMemberAccess]
    if last is None or not last.has_trait(IsTerminator):
        raise VerifyException(f"'{op.name}' {label} region must end with a terminator")


def _compact_reduce_op(op: ReduceOp) -> str | None:
    """Name of the inner op when ``reduce`` qualifies for ``applies <op>``.

    StableHLO's ``isEligibleForCompactPrint``: the body is one commutative, region-free,
    single-result StableHLO op applied to the block arguments in order, whose result is
    returned, all typed ``tensor<elem>`` of the input element type. (We also require the inner
    op to carry no attributes, which the compact form could not print.)
    """
    if len(op.inputs) != 1 or len(op.body.blocks) != 1:
        return None
    block = op.body.blocks.first
    assert block is not None
    ops = list(block.ops)
    if len(ops) != 2 or len(block.args) != 2:
        return None
    inner, ret = ops
    if not isinstance(ret, ReturnOp) or not inner.has_trait(Commutative):
        return None
    if inner.regions or inner.attributes or inner.properties or len(inner.results) != 1:
        return None
    if not inner.name.startswith("stablehlo."):
        return None
    if list(inner.operands) != list(block.args) or list(ret.operands) != list(inner.results):
        return None
    in_t = op.inputs[0].type
    if not isinstance(in_t, TensorType):
        return None
    scalar = TensorType(in_t.get_element_type(), [])
    if any(v.type != scalar for v in (*block.args, *inner.results)):
        return None
    return inner.name


@irdl_op_definition
class ReduceOp(StableHLOOp):
    """``stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [0] : ...``."""

    name = "stablehlo.reduce"
    inputs = var_operand_def(AnyTensorType)
    init_values = var_operand_def(AnyTensorType)
    dimensions = prop_def(DenseArrayBase)
    body = region_def()
    res = var_result_def(AnyTensorType)
    irdl_options = (SameVariadicOperandSize(),)
    traits = traits_def(RecursiveMemoryEffect())

    @classmethod
    def parse(cls, parser: Parser):
        pairs = []

        def one() -> None:
            x = parser.parse_unresolved_operand()
            parser.parse_keyword("init")
            parser.parse_punctuation(":")
            pairs.append((x, parser.parse_unresolved_operand()))

        parser.parse_comma_separated_list(parser.Delimiter.PAREN, one)
        while parser.parse_optional_punctuation(","):
            parser.parse_punctuation("(")
            one()
            parser.parse_punctuation(")")
        applies = None
        if parser.parse_optional_keyword("applies"):
            applies = parser.parse_identifier_or_str_literal()
        parser.parse_keyword("across")
        parser.parse_keyword("dimensions")
        parser.parse_punctuation("=")
        attrs: dict[str, Attribute] = {"dimensions": i64_array(parse_int_array(parser))}
        attrs.update(cls.parse_attr_dict(parser))
        parser.parse_punctuation(":")
        ins, outs = parse_functional_type(parser)
        n = len(pairs)
        unresolved = [p[0] for p in pairs] + [p[1] for p in pairs]
        vals = resolve(parser, unresolved, ins)
        if applies is not None:
            op_def = parser.ctx.get_optional_op(applies)
            if op_def is None:
                parser.raise_error(f"unknown reduction op '{applies}'")
            t = ins[0]
            assert isinstance(t, TensorType)
            scalar = TensorType(t.get_element_type(), [])
            block = Block(arg_types=[scalar, scalar])
            inner = op_def.create(operands=list(block.args), result_types=[scalar])
            block.add_op(inner)
            block.add_op(ReturnOp.build(operands=[[inner.results[0]]]))
            region = Region(block)
        else:
            parser.parse_keyword("reducer")
            firsts, seconds = [], []
            for _ in range(n):
                parser.parse_punctuation("(")
                firsts.append(_parse_located_argument(parser))
                parser.parse_punctuation(",")
                seconds.append(_parse_located_argument(parser))
                parser.parse_punctuation(")")
            region = parser.parse_region(firsts + seconds)
        return cls.create_parsed(parser, [vals[:n], vals[n:]], [outs], attrs, [region])

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        for i, (x, c) in enumerate(zip(self.inputs, self.init_values, strict=True)):
            if i:
                printer.print_string(", (")
            printer.print_operand(x)
            printer.print_string(" init: ")
            printer.print_operand(c)
            printer.print_string(")")
        compact = _compact_reduce_op(self)
        if compact is not None:
            printer.print_string(f" applies {compact}")
        printer.print_string(f" across dimensions = {int_array_text(array_values(self.dimensions))}")
        self.print_attr_dict(printer, ("dimensions",))
        print_functional_type(printer, [o.type for o in self.operands], [r.type for r in self.results])
        if compact is not None:
            return
        block = self.body.blocks.first
        assert block is not None
        n = len(self.inputs)
        printer._print_new_line()  # pyright: ignore[reportPrivateUsage]
        printer.print_string(" reducer")
        for i in range(n):
            printer.print_string("(" if i == 0 else " (")
            printer.print_block_argument(block.args[i])
            printer.print_string(", ")
            printer.print_block_argument(block.args[n + i])
            printer.print_string(")")
        printer.print_string("  ")
        printer.print_region(self.body, print_entry_block_args=False)

    def verify_(self) -> None:
        if len(self.inputs) != len(self.init_values):
            raise VerifyException(f"'{self.name}' needs one init value per input")
        dims = array_values(self.dimensions)
        for i, x in enumerate(self.inputs):
            t = x.type
            assert isinstance(t, TensorType)
            for d in dims:
                if not 0 <= d < t.get_num_dims():
                    raise VerifyException(
                        f"'{self.name}' dimension {d} is out of range for input #{i} of rank {t.get_num_dims()}"
                    )
        if len(set(dims)) != len(dims):
            raise VerifyException(f"'{self.name}' dimensions {list(dims)} has duplicates")
        _check_terminator(self, self.body, "body")
        block = self.body.blocks.first
        assert block is not None
        if len(block.args) != 2 * len(self.inputs):
            raise VerifyException(
                f"'{self.name}' body takes {len(block.args)} arguments, expected {2 * len(self.inputs)}"
            )


@irdl_op_definition
class WhileOp(StableHLOOp):
    """``stablehlo.while(%iterArg = %x) : tensor<f32> cond {...} do {...}``."""

    name = "stablehlo.while"
    operand = var_operand_def(AnyAttr())
    cond = region_def()
    body = region_def()
    res = var_result_def(AnyAttr())
    traits = traits_def(RecursiveMemoryEffect())

    @classmethod
    def parse(cls, parser: Parser):
        names = []
        operands = []

        def one() -> None:
            names.append(parser.parse_argument(expect_type=False))
            parser.parse_punctuation("=")
            operands.append(parser.parse_unresolved_operand())

        parser.parse_comma_separated_list(parser.Delimiter.PAREN, one)
        types: list[Attribute] = []
        if parser.parse_optional_punctuation(":"):
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        attrs_dict = parser.parse_optional_attr_dict_with_keyword()
        attrs = dict(attrs_dict.data) if attrs_dict is not None else {}
        vals = resolve(parser, operands, types)
        parser.parse_keyword("cond")
        cond = parser.parse_region([n.resolve(t) for n, t in zip(names, types, strict=True)])
        parser.parse_keyword("do")
        body = parser.parse_region([n.resolve(t) for n, t in zip(names, types, strict=True)])
        return cls.create_parsed(parser, [vals], [types], attrs, [cond, body])

    def print(self, printer: Printer) -> None:
        cond_block = self.cond.blocks.first
        body_block = self.body.blocks.first
        assert cond_block is not None and body_block is not None
        printer.print_string("(")
        for i, (arg, x) in enumerate(zip(cond_block.args, self.operand, strict=True)):
            if i:
                printer.print_string(", ")
            name = printer.print_ssa_value(arg)
            if i < len(body_block.args):
                printer._ssa_values[body_block.args[i]] = name  # pyright: ignore[reportPrivateUsage]
            printer.print_string(" = ")
            printer.print_operand(x)
        printer.print_string(")")
        if self.operand:
            printer.print_string(" : ")
            printer.print_list([o.type for o in self.operand], printer.print_attribute)
        merged = self.merged_attrs()
        if merged:
            printer.print_string(" attributes ")
            printer.print_attr_dict(merged)
        printer._print_new_line()  # pyright: ignore[reportPrivateUsage]
        printer.print_string("cond ")
        printer.print_region(self.cond, print_entry_block_args=False)
        printer.print_string(" do ")
        printer.print_region(self.body, print_entry_block_args=False)

    def verify_(self) -> None:
        types = [o.type for o in self.operand]
        if [r.type for r in self.res] != types:
            raise VerifyException(f"'{self.name}' result types must equal operand types {types}")
        for label, region in (("cond", self.cond), ("body", self.body)):
            _check_terminator(self, region, label)
            block = region.blocks.first
            assert block is not None
            if [a.type for a in block.args] != types:
                raise VerifyException(
                    f"'{self.name}' {label} block arguments {[str(a.type) for a in block.args]} "
                    f"must match operand types {[str(t) for t in types]}"
                )


def _branch_results(op: StableHLOOp, regions: list[Region]) -> None:
    """Every branch returns exactly the op's result types."""
    want = [r.type for r in op.results]
    for i, region in enumerate(regions):
        _check_terminator(op, region, f"branch #{i}")
        block = region.blocks.first
        assert block is not None
        if block.args:
            raise VerifyException(f"'{op.name}' branch #{i} must not take arguments")
        last = block.last_op
        assert last is not None
        got = [v.type for v in last.operands]
        if got != want:
            raise VerifyException(
                f"'{op.name}' branch #{i} returns ({', '.join(map(str, got))}) but the op "
                f"results are ({', '.join(map(str, want))})"
            )


def _verify_if(op: StableHLOOp) -> None:
    pred = op.operands[0].type
    if not (isinstance(pred, TensorType) and pred.get_shape() == () and pred.get_element_type() == i1):
        raise VerifyException(f"'{op.name}' pred must be tensor<i1>, got {pred}")
    _branch_results(op, list(op.regions))


def _verify_case(op: StableHLOOp) -> None:
    index = op.operands[0].type
    if not (isinstance(index, TensorType) and index.get_shape() == () and index.get_element_type() == i32):
        raise VerifyException(f"'{op.name}' index must be tensor<i32>, got {index}")
    if not op.regions:
        raise VerifyException(f"'{op.name}' needs at least one branch")
    _branch_results(op, list(op.regions))


def _verify_sort(op: StableHLOOp) -> None:
    if not op.operands:
        raise VerifyException(f"'{op.name}' needs at least one input")
    shapes = {tuple(o.type.get_shape()) for o in op.operands if isinstance(o.type, TensorType)}
    if len(shapes) != 1:
        raise VerifyException(f"'{op.name}' inputs must all have the same shape")
    rank = len(next(iter(shapes)))
    dim_attr = op.properties.get("dimension")
    if isinstance(dim_attr, IntegerAttr):
        d = dim_attr.value.data
        if not -rank <= d < max(rank, 1):
            raise VerifyException(f"'{op.name}' dimension {d} is out of range for rank {rank}")
    block = op.regions[0].blocks.first
    if block is None or len(block.args) != 2 * len(op.operands):
        raise VerifyException(
            f"'{op.name}' comparator must take {2 * len(op.operands)} scalar arguments"
        )
    _check_terminator(op, op.regions[0], "comparator")


def _verify_scatter(op: StableHLOOp) -> None:
    n = len(op.results)
    if len(op.operands) != 2 * n + 1:
        raise VerifyException(
            f"'{op.name}' needs one update per input: {len(op.operands)} operands for {n} results"
        )
    for i in range(n):
        if op.operands[i].type != op.results[i].type:
            raise VerifyException(
                f"'{op.name}' result #{i} type {op.results[i].type} differs from input #{i} type "
                f"{op.operands[i].type}"
            )
    _check_terminator(op, op.regions[0], "update_computation")


def _generic_region_op(name: str, cls_name: str, doc: str, body: dict[str, object]) -> type[StableHLOOp]:
    return define_op(StableHLOOp, cls_name, name, doc, **body)


IfOp = _generic_region_op(
    "stablehlo.if", "IfOp", "Generic-form ``stablehlo.if`` with true and false branches.",
    {"pred": operand_def(AnyTensorType), "true_branch": region_def(), "false_branch": region_def(),
     "res": var_result_def(AnyAttr()), "traits": traits_def(RecursiveMemoryEffect()),
     "verify_": _verify_if},
)
CaseOp = _generic_region_op(
    "stablehlo.case", "CaseOp", "Generic-form ``stablehlo.case``: one region per branch.",
    {"index": operand_def(AnyTensorType), "branches": var_region_def(),
     "res": var_result_def(AnyAttr()), "traits": traits_def(RecursiveMemoryEffect()),
     "verify_": _verify_case},
)
SortOp = _generic_region_op(
    "stablehlo.sort", "SortOp", "Generic-form ``stablehlo.sort`` with a comparator region.",
    {"inputs": var_operand_def(AnyTensorType), "dimension": opt_prop_def(Attribute),
     "is_stable": opt_prop_def(Attribute), "comparator": region_def(),
     "res": var_result_def(AnyTensorType), "traits": traits_def(RecursiveMemoryEffect()),
     "verify_": _verify_sort},
)
ScatterOp = _generic_region_op(
    "stablehlo.scatter", "ScatterOp", "Generic-form ``stablehlo.scatter``.",
    {"inputs": var_operand_def(AnyTensorType), "scatter_indices": operand_def(AnyTensorType),
     "updates": var_operand_def(AnyTensorType), "scatter_dimension_numbers": prop_def(Attribute),
     "indices_are_sorted": opt_prop_def(Attribute), "unique_indices": opt_prop_def(Attribute),
     "update_computation": region_def(), "res": var_result_def(AnyTensorType),
     "irdl_options": (SameVariadicOperandSize(),), "traits": traits_def(RecursiveMemoryEffect()),
     "verify_": _verify_scatter},
)
ReduceWindowOp = _generic_region_op(
    "stablehlo.reduce_window", "ReduceWindowOp", "Generic-form ``stablehlo.reduce_window``.",
    {"inputs": var_operand_def(AnyTensorType), "init_values": var_operand_def(AnyTensorType),
     "window_dimensions": prop_def(DenseArrayBase), "window_strides": opt_prop_def(DenseArrayBase),
     "base_dilations": opt_prop_def(DenseArrayBase), "window_dilations": opt_prop_def(DenseArrayBase),
     "padding": opt_prop_def(Attribute), "body": region_def(), "res": var_result_def(AnyTensorType),
     "irdl_options": (SameVariadicOperandSize(),), "traits": traits_def(RecursiveMemoryEffect())},
)
SelectAndScatterOp = _generic_region_op(
    "stablehlo.select_and_scatter", "SelectAndScatterOp", "Generic-form ``stablehlo.select_and_scatter``.",
    {"operand": operand_def(AnyTensorType), "source": operand_def(AnyTensorType),
     "init_value": operand_def(AnyTensorType), "window_dimensions": opt_prop_def(DenseArrayBase),
     "window_strides": opt_prop_def(DenseArrayBase), "padding": opt_prop_def(Attribute),
     "select": region_def(), "scatter": region_def(), "res": result_def(AnyTensorType),
     "traits": traits_def(RecursiveMemoryEffect())},
)
MapOp = _generic_region_op(
    "stablehlo.map", "MapOp", "Generic-form ``stablehlo.map``.",
    {"inputs": var_operand_def(AnyTensorType), "dimensions": prop_def(DenseArrayBase),
     "computation": region_def(), "res": result_def(AnyTensorType),
     "traits": traits_def(RecursiveMemoryEffect())},
)

REGION_OPS: list[type[StableHLOOp]] = [
    ReturnOp, ReduceOp, WhileOp, IfOp, CaseOp, SortOp, ScatterOp, ReduceWindowOp,
    SelectAndScatterOp, MapOp,
]
