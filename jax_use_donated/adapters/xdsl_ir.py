"""Build :class:`FunctionModel`s from xDSL ``func.func`` ops.

Works on registered ops (the ``dialects`` package) and on unregistered generic-form ops
(``"stablehlo.add"(%a, %b)``) alike: an unregistered op's traits are never consulted
(``UnregisteredOp.has_trait`` answers ``True`` for everything); its ``elementwise`` is left
``None`` and the core's name table decides.

Handles are the xDSL objects: ``Arg.handle`` / ``FunctionModel.handle`` is the ``FuncOp``,
``Op.handle`` the top-level op, ``FunctionModel.return_handle`` the terminator.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial

from xdsl.dialects.builtin import (
    ArrayAttr,
    CallSiteLoc,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FileLineColLoc,
    FusedLoc,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    NameLoc,
    NoneAttr,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnregisteredOp,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from jax_use_donated.analysis.building import (
    CASE,
    MANUAL_COMPUTATION,
    dot_dims,
    element_bits,
    loop_trips,
    placement,
    xla_region,
)
from jax_use_donated.analysis.collectives import combine_all_reduces
from jax_use_donated.analysis.cse import canonical_op_text, merge_identical_ops
from jax_use_donated.analysis.errors import (
    ALIASING_OUTPUT,
    BUFFER_DONOR,
    DonationError,
    multi_block_error,
    read_donation,
)
from jax_use_donated.analysis.inline import has_calls, inline_calls
from jax_use_donated.analysis.liveness import (
    forwarded_arguments,
    short_loop_forwards,
    side_effect_free,
)
from jax_use_donated.analysis.model import (
    Arg,
    Donation,
    DotDims,
    FunctionModel,
    Op,
    Placement,
    Result,
    SourceLoc,
    TensorInfo,
    ValueId,
    same_value_positions,
)

# ------------------------------------------------------------------------------- types


_TYPE_BY_ID: dict[int, tuple[Attribute, TensorInfo | None, str]] = {}
_TYPE_BY_VALUE: dict[Attribute, tuple[Attribute, TensorInfo | None, str]] = {}
"""Type facts by object identity (fast) and by structural equality (the parser makes a new
object for every occurrence of a type, and printing one costs ~100 us). The type is kept in the
entry so its id cannot be reused while cached."""


def _type_entry(type_: Attribute) -> tuple[Attribute, TensorInfo | None, str]:
    entry = _TYPE_BY_ID.get(id(type_))
    if entry is not None and entry[0] is type_:
        return entry
    entry = _TYPE_BY_VALUE.get(type_)
    if entry is None:
        info: TensorInfo | None = None
        text = str(type_)
        if isinstance(type_, TensorType):
            shape = tuple(None if d < 0 else d for d in type_.get_shape())
            element = type_.get_element_type()
            info = TensorInfo(text, shape, str(element), element_bits(str(element)))
        if len(_TYPE_BY_VALUE) > 65536:
            _TYPE_BY_VALUE.clear()
        entry = _TYPE_BY_VALUE[type_] = (type_, info, text)
    if len(_TYPE_BY_ID) > 262144:
        _TYPE_BY_ID.clear()
    _TYPE_BY_ID[id(type_)] = (type_, entry[1], entry[2])
    return entry


def tensor_info(type_: Attribute) -> TensorInfo | None:
    """The model's view of a ranked tensor type, ``None`` for any other type."""
    return _type_entry(type_)[1]


def type_text(type_: Attribute) -> str:
    return _type_entry(type_)[2]


# --------------------------------------------------------------------------- locations

_LOC_CACHE: dict[int, tuple[Attribute, SourceLoc]] = {}


def source_loc(loc: Attribute | None) -> SourceLoc:
    """``file:line:col`` of the innermost user frame, and a ``loc("name")`` label.

    JAX's ``callsite(#callee at #caller)``: the callee is the innermost frame (the user's line
    inside the traced function), so its file location wins; names (``"jit(f)/add"(...)``)
    give ``name`` only when they wrap no file location (argument names such as ``"x"``).
    """
    if loc is None:
        return SourceLoc()
    entry = _LOC_CACHE.get(id(loc))
    if entry is not None and entry[0] is loc:
        return entry[1]
    result = SourceLoc(text=_loc_text(loc), name=_loc_name(loc))
    if len(_LOC_CACHE) > 65536:
        _LOC_CACHE.clear()
    _LOC_CACHE[id(loc)] = (loc, result)
    return result


def _loc_text(loc: Attribute) -> str | None:
    kind = type(loc)
    if kind is FileLineColLoc:
        assert isinstance(loc, FileLineColLoc)
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    if kind is NameLoc:
        assert isinstance(loc, NameLoc)
        return None if type(loc.location) is NoneAttr else _loc_text(loc.location)
    if kind is CallSiteLoc:
        assert isinstance(loc, CallSiteLoc)
        return _loc_text(loc.callee) or _loc_text(loc.caller)
    if kind is FusedLoc:
        assert isinstance(loc, FusedLoc)
        for inner in loc.locations:  # pyright: ignore[reportGeneralTypeIssues]
            text = _loc_text(inner)  # pyright: ignore[reportUnknownArgumentType]
            if text:
                return text
    return None


def _loc_name(loc: Attribute) -> str | None:
    kind = type(loc)
    if kind is NameLoc:
        assert isinstance(loc, NameLoc)
        return loc.desc.data
    if kind is FusedLoc:
        assert isinstance(loc, FusedLoc)
        for inner in loc.locations:  # pyright: ignore[reportGeneralTypeIssues]
            name = _loc_name(inner)  # pyright: ignore[reportUnknownArgumentType]
            if name:
                return name
    return None


# ------------------------------------------------------------------------- attributes


def _dict_at(attrs: ArrayAttr[DictionaryAttr] | None, i: int) -> dict[str, Attribute]:
    if attrs is None or i >= len(attrs.data):
        return {}
    return dict(attrs.data[i].data)


def attribute_value(attr: Attribute | None) -> object:
    """``None``/``True``/``3`` for absent/bool/integer attributes, else the attribute's text
    (what :func:`read_donation` expects)."""
    if attr is None:
        return None
    if isinstance(attr, IntegerAttr):
        value = attr.value.data
        t = attr.type
        if isinstance(t, IntegerType) and t.width.data == 1:
            return bool(value)
        return int(value)
    return str(attr)


def placement_of(attrs: dict[str, Attribute]) -> Placement:
    """Sharding (``mhlo.sharding`` or ``sdy.sharding``), memory kind and layout mode
    (:func:`.building.placement`)."""
    return placement(lambda name: str(attrs[name]) if name in attrs else None)


def has_donation_attrs(func: FuncOp) -> bool:
    if func.arg_attrs is None:
        return False
    return any(BUFFER_DONOR in d.data or ALIASING_OUTPUT in d.data for d in func.arg_attrs.data)


def op_attr(op: Operation, name: str) -> Attribute | None:
    """An op's property or attribute (generic form puts inherent ones in ``<{...}>``)."""
    got = op.properties.get(name)
    return got if got is not None else op.attributes.get(name)


_ALIAS_OPERAND = re.compile(r"operand_index\s*=\s*(\d+)")
_ALIAS_OUTPUT = re.compile(r"output_tuple_indices\s*=\s*\[([^\]]*)\]")
_ALIAS_OPERAND_TUPLE = re.compile(r"operand_tuple_indices\s*=\s*\[([^\]]*)\]")


def output_operand_aliases(op: Operation) -> tuple[tuple[int, int], ...]:
    """``custom_call``'s ``output_operand_aliases`` as ``(result, operand)`` pairs.

    Reads the printed form of each ``#stablehlo.output_operand_alias<...>`` entry, which is the
    same for the registered attribute and the unregistered one. An alias into a tuple element
    of an operand is not a whole-buffer alias and is skipped.
    """
    attr = op_attr(op, "output_operand_aliases")
    if not isinstance(attr, ArrayAttr):
        return ()
    pairs: list[tuple[int, int]] = []
    for entry in attr.data:  # pyright: ignore[reportUnknownVariableType]
        text = str(entry)  # pyright: ignore[reportUnknownArgumentType]
        operand = _ALIAS_OPERAND.search(text)
        if operand is None:
            continue
        operand_tuple = _ALIAS_OPERAND_TUPLE.search(text)
        if operand_tuple and operand_tuple.group(1).strip():
            continue
        output = _ALIAS_OUTPUT.search(text)
        indices = [s for s in (output.group(1).split(",") if output else []) if s.strip()]
        if len(indices) > 1:
            continue
        result = int(indices[0]) if indices else 0
        pairs.append((result, int(operand.group(1))))
    return tuple(pairs)


def op_name(op: Operation) -> str:
    """The op's name; an unregistered op's own name, not ``builtin.unregistered``."""
    return op.op_name.data if isinstance(op, UnregisteredOp) else op.name


def op_target(op: Operation) -> str | None:
    if op_name(op) == "func.call":
        callee = op_attr(op, "callee")
        if isinstance(callee, SymbolRefAttr):
            return callee.string_value()
        return None
    target = op_attr(op, "call_target_name")
    return target.data if isinstance(target, StringAttr) else None


# ------------------------------------------------------------------------------ traits

_ELEMENTWISE_TRAIT_NAMES = frozenset({"Elementwise", "ElementwiseMappable",
                                      "ElementwiseTrait", "SameOperandsAndResultElementwise"})
_MODULE_MARKS_TRAIT: dict[str, bool] = {}
_CLASS_ELEMENTWISE: dict[type[Operation], bool | None] = {}


def _has_elementwise_trait(cls: type[Operation]) -> bool:
    return any(type(t).__name__ in _ELEMENTWISE_TRAIT_NAMES for t in cls.traits)


def _package_marks_elementwise(module_name: str) -> bool:
    """Whether the dialect package defining an op (``jax_use_donated.dialects.stablehlo`` for
    ``jax_use_donated.dialects.stablehlo.ops_shape``, ``xdsl.dialects.x`` for
    ``xdsl.dialects.x.ops``) defines an ``Elementwise`` trait, i.e. marks its elementwise ops;
    a package without one (or a half-written one) says nothing."""
    parts = module_name.split(".")
    depth = 3 if parts[:2] == ["jax_use_donated", "dialects"] else 2
    package = ".".join(parts[:depth])
    known = _MODULE_MARKS_TRAIT.get(package)
    if known is None:
        try:
            module = importlib.import_module(package)
            known = any(isinstance(v, type) and v.__name__ in _ELEMENTWISE_TRAIT_NAMES
                        for v in vars(module).values())
        except Exception:  # a half-written dialect package must not break the adapter
            known = False
        _MODULE_MARKS_TRAIT[package] = known
    return known


def elementwise_of(op: Operation) -> bool | None:
    """The op's ``Elementwise`` trait when its dialect is registered and marks that trait;
    ``None`` otherwise, e.g. for unregistered ops (never ``has_trait``: it answers ``True``
    for them), and the core's name table decides."""
    if isinstance(op, UnregisteredOp):
        return None
    cls = type(op)
    if cls in _CLASS_ELEMENTWISE:
        return _CLASS_ELEMENTWISE[cls]
    result: bool | None
    if _has_elementwise_trait(cls):
        result = True
    else:
        result = False if _package_marks_elementwise(cls.__module__) else None
    _CLASS_ELEMENTWISE[cls] = result
    return result


# ------------------------------------------------------------------------------ builder


@dataclass
class ModuleSymbols:
    """``func.func`` ops of a module by name, and call summaries computed on demand."""

    functions: dict[str, FuncOp]
    summaries: dict[tuple[str, tuple[int, ...]], dict[int, tuple[int, ...]] | None] = field(
        default_factory=dict)
    _in_progress: set[str] = field(default_factory=set)
    pure: dict[str, bool] = field(default_factory=dict)
    """Callee name -> whether it has no side effects (known once summarised)."""

    @staticmethod
    def of(module: Operation) -> ModuleSymbols:
        funcs: dict[str, FuncOp] = {}
        for op in module.walk():
            if isinstance(op, FuncOp):
                funcs.setdefault(op.sym_name.data, op)
        return ModuleSymbols(funcs)

    def call_forwards(self, callee: str | None, same_as: tuple[int, ...] = (),
                      ) -> dict[int, tuple[int, ...]] | None:
        """Result index -> argument indices the callee returns unchanged (through forwarding
        ops); ``None`` when the callee is unknown, external, recursive or multi-block.

        ``same_as`` (:func:`.model.same_value_positions` of the call's operands) summarises
        the callee for a call passing one value at several positions, as XLA sees it after
        inlining: ``@where(%p, %x, %x)`` returns ``%x``."""
        if callee is None:
            return None
        key = (callee, same_as)
        if key in self.summaries:
            return self.summaries[key]
        func = self.functions.get(callee)
        if func is None or func.is_declaration or len(func.body.blocks) != 1 \
                or callee in self._in_progress:
            return None
        self._in_progress.add(callee)
        try:
            callee_model = build_function_model(func, self, read_donations=False,
                                                same_arg_as=same_as)
            summary = forwarded_arguments(callee_model)
            self.pure.setdefault(callee, side_effect_free(callee_model))
        finally:
            self._in_progress.discard(callee)
        self.summaries[key] = summary
        return summary

    def callee_model(self, callee: str) -> FunctionModel | None:
        """The model of ``@callee`` to inline (no donors, its own calls left as calls), or
        ``None`` when it is unknown, a declaration or multi-block."""
        func = self.functions.get(callee)
        if func is None or func.is_declaration or len(func.body.blocks) != 1:
            return None
        return build_function_model(func, self, read_donations=False)


def build_function_model(
    func: FuncOp,
    symbols: ModuleSymbols | None = None,
    *,
    read_donations: bool = True,
    same_arg_as: tuple[int, ...] = (),
    inline: bool = False,
) -> FunctionModel:
    """The model of ``func`` (which must have a body); with ``inline``, its ``func.call``s of
    defined single-block functions are replaced by the callee bodies, as XLA inlines them
    before copy insertion (:func:`.analysis.inline.inline_calls`; the inlined ops' handles
    are the callee's ops, so passes that rewrite through op handles leave it off).

    Raises :class:`DonationError` for malformed donation attributes and for a multi-block body
    when the function has donors.
    """
    name = func.sym_name.data
    blocks = list(func.body.blocks)
    if read_donations and len(blocks) != 1 and has_donation_attrs(func):
        raise multi_block_error(name, len(blocks), func)
    if len(blocks) != 1:
        raise DonationError(f"@{name} has {len(blocks)} blocks; a single block is needed", func)
    block = blocks[0]
    if symbols is None:
        module = func.parent_op()
        symbols = ModuleSymbols.of(module) if module is not None else ModuleSymbols({})

    ids: dict[SSAValue, ValueId] = {}
    args: list[Arg] = []
    for i, ba in enumerate(block.args):
        first = same_arg_as[i] if i < len(same_arg_as) else i
        ids[ba] = ids[block.args[first]] if first < i else len(ids)
        attrs = _dict_at(func.arg_attrs, i)
        loc = source_loc(ba.location)
        donation = Donation()
        if read_donations:
            donation = read_donation(i, loc.name, attribute_value(attrs.get(BUFFER_DONOR)),
                                     attribute_value(attrs.get(ALIASING_OUTPUT)), func)
        args.append(Arg(i, ids[ba], tensor_info(ba.type), type_text(ba.type),
                        placement_of(attrs), donation, loc, func))

    fn = _block_model(name, block, ids, args, symbols, func.res_attrs,
                      source_loc(func.location), func)
    if inline:
        if has_calls(fn):
            fn = inline_calls(fn, symbols.callee_model)
        fn = merge_identical_ops(fn, attribute_key)
        fn = combine_all_reduces(fn, attribute_key)
    return fn


def attribute_key(op: Op) -> object:
    """What XLA's CSE (:mod:`.analysis.cse`) compares besides the operands and result types
    the model already holds: for a registered op without regions its properties and
    attributes (xDSL attributes are values: ``==`` compares them structurally, as MLIR's
    uniqued ones), else the op printed on its own (SSA names renumbered: regions, the called
    computations XLA compares too, and unregistered ops); ``None`` without an IR handle.
    Only ops whose operands the model found equal are compared."""
    handle = op.handle
    if not isinstance(handle, Operation):
        return None
    if not handle.regions and not isinstance(handle, UnregisteredOp):
        key = (tuple(sorted(handle.properties.items())),
               tuple(sorted(handle.attributes.items())))
        try:
            hash(key)
        except TypeError:  # an attribute holding a list or a dict: compare the text
            pass
        else:
            return key
    return canonical_op_text(str(handle))


def _block_model(name: str, block: Block, ids: dict[SSAValue, ValueId], args: list[Arg],
                 symbols: ModuleSymbols, res_attrs: ArrayAttr[DictionaryAttr] | None,
                 loc: SourceLoc, handle: Operation,
                 outer: dict[SSAValue, ValueId] | None = None) -> FunctionModel:
    """The model of ``block`` once its arguments are ``args`` (ids in ``ids``). With
    ``outer`` (the enclosing block's ids), a value defined outside the block (a region closing
    over it) becomes one more argument (``Arg.outer``: its id there); otherwise it is a
    ``KeyError``."""

    def value_id(v: SSAValue) -> ValueId:
        if v in ids or outer is None:
            return ids[v]
        vid = ids[v] = len(ids)
        args.append(Arg(len(args), vid, tensor_info(v.type), type_text(v.type),
                        outer=outer.get(v)))
        return vid

    ops: list[Op] = []
    terminator = block.last_op
    for op in block.ops:
        if op is terminator:
            break
        operands = [value_id(v) for v in op.operands]
        results: list[ValueId] = []
        for r in op.results:
            ids[r] = len(ids)
            results.append(ids[r])
        region_uses: list[ValueId] = []
        if op.regions:
            seen: set[ValueId] = set()
            for inner in op.walk():
                if inner is op:
                    continue
                for v in inner.operands:
                    vid = ids.get(v)
                    if vid is not None and vid not in seen:
                        seen.add(vid)
                        region_uses.append(vid)
        target = op_target(op)
        name_ = op_name(op)
        max_trips, exact = while_trips(op)
        call_forwards = (symbols.call_forwards(target, same_value_positions(operands))
                         if name_ == "func.call" else None)
        if max_trips is not None and max_trips <= 1:
            call_forwards = short_loop_forwards(
                exact, len(operands),
                partial(_loop_body_model, op, operands, symbols))
        region = (xla_region(name_, len(op.regions),
                             _scalar_int_constant(op.operands[0])
                             if name_ == CASE and op.operands else None)
                  if op.regions else None)
        ops.append(Op(
            index=len(ops),
            name=name_,
            operands=operands,
            results=results,
            operand_types=[tensor_info(v.type) for v in op.operands],
            result_types=[tensor_info(r.type) for r in op.results],
            region_uses=region_uses,
            elementwise=elementwise_of(op),
            operand_aliases=output_operand_aliases(op) if name_.endswith("custom_call") else (),
            call_forwards=call_forwards,
            target=target,
            max_trips=max_trips,
            pure_call=name_ == "func.call" and symbols.pure.get(target or "", False),
            dot_dims=_dot_dims(op) if name_ == "stablehlo.dot_general" else None,
            xla_body=(partial(_region_model, op, region,
                              operands if name_ == MANUAL_COMPUTATION else [], symbols, ids)
                      if region is not None else None),
            branches=(partial(_branch_models, op, symbols, ids)
                      if region is None and name_ == CASE and op.regions else None),
            loc=source_loc(op.location),
            handle=op,
        ))

    model_results: list[Result] = []
    if terminator is not None:
        for k, v in enumerate(terminator.operands):
            attrs = _dict_at(res_attrs, k)
            model_results.append(Result(k, value_id(v), tensor_info(v.type), type_text(v.type),
                                        placement_of(attrs)))
    return FunctionModel(name, args, ops, model_results, loc, handle, terminator)


def _loop_body_model(op: Operation, operands: list[ValueId], symbols: ModuleSymbols,
                     ) -> FunctionModel:
    """A ``stablehlo.while`` body as a function of its carries (``operands``, one value passed
    at several positions kept as one), for :func:`.liveness.short_loop_forwards`."""
    return _region_model(op, 1, operands, symbols, {}, "while body")


def _region_model(op: Operation, region: int, operands: list[ValueId], symbols: ModuleSymbols,
                  outer: dict[SSAValue, ValueId], name: str | None = None) -> FunctionModel:
    """Region ``region`` of ``op`` as a function of its block arguments (bound to
    ``operands``; one value passed at several positions kept as one), then of the values of
    the enclosing block it closes over (``Arg.outer``: their ids in ``outer``)."""
    body = op.regions[region].blocks[0]
    same_as = same_value_positions(operands)
    ids: dict[SSAValue, ValueId] = {}
    args: list[Arg] = []
    for i, ba in enumerate(body.args):
        first = same_as[i] if i < len(same_as) else i
        ids[ba] = ids[body.args[first]] if first < i else len(ids)
        args.append(Arg(i, ids[ba], tensor_info(ba.type), type_text(ba.type)))
    return _block_model(name or op_name(op), body, ids, args, symbols, None, SourceLoc(), op,
                        outer=outer)


def _branch_models(op: Operation, symbols: ModuleSymbols, outer: dict[SSAValue, ValueId]
                   ) -> list[FunctionModel]:
    """Every region of a ``stablehlo.case``, as functions of the values they close over."""
    return [_region_model(op, i, [], symbols, outer, f"branch {i}")
            for i in range(len(op.regions))]


def _scalar_int_constant(value: SSAValue) -> int | None:
    """The value of ``stablehlo.constant dense<N> : tensor<iK>`` defining ``value``."""
    op = value.owner
    if not isinstance(op, Operation) or op.name != "stablehlo.constant":
        return None
    attr = op.properties.get("value") or op.attributes.get("value")
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        return None
    element = attr.get_element_type()
    if not isinstance(element, IntegerType) or attr.get_shape() not in ((), None):
        return None
    data = attr.data.data
    if len(data) * 8 != element.width.data:
        return None
    return int.from_bytes(data, "little", signed=True)


def _loop_counter(op: Operation) -> tuple[int, int, int] | None:
    """``(carry position, start, stop)`` of a ``stablehlo.while`` whose condition is
    ``compare LT, %counter, constant`` and whose counter starts at a constant."""
    if op.name != "stablehlo.while" or not op.regions or len(op.regions[0].blocks) != 1:
        return None
    cond = op.regions[0].blocks[0]
    terminator = cond.last_op
    if terminator is None or len(terminator.operands) != 1:
        return None
    compare = terminator.operands[0].owner
    if not isinstance(compare, Operation) or compare.name != "stablehlo.compare":
        return None
    direction = compare.properties.get("comparison_direction") \
        or compare.attributes.get("comparison_direction")
    if getattr(getattr(direction, "data", None), "value", None) != "LT":
        return None
    counter, bound = compare.operands
    if not isinstance(counter, BlockArgument) or counter.block is not cond \
            or counter.index >= len(op.operands):
        return None
    start, stop = _scalar_int_constant(op.operands[counter.index]), _scalar_int_constant(bound)
    if start is None or stop is None:
        return None
    return counter.index, start, stop


def while_trips(op: Operation) -> tuple[int | None, int | None]:
    """``(max_trips, exact_trips)`` of a ``stablehlo.while`` whose condition is ``compare LT,
    %counter, constant`` and whose counter starts at a constant (JAX's ``fori_loop`` and
    ``scan``), by the shared rule :func:`.building.loop_trips`; ``(None, None)`` otherwise."""
    counter = _loop_counter(op)
    if counter is None:
        return None, None
    position, start, stop = counter
    return loop_trips(start, stop, partial(_counts_up_by_one, op, position))


def _counts_up_by_one(op: Operation, position: int) -> bool:
    """Whether the loop body returns ``counter + 1`` (a constant 1) at ``position``."""
    if len(op.regions) < 2 or len(op.regions[1].blocks) != 1:
        return False
    body = op.regions[1].blocks[0]
    terminator = body.last_op
    if terminator is None or len(terminator.operands) <= position:
        return False
    update = terminator.operands[position].owner
    if not isinstance(update, Operation) or update.name != "stablehlo.add" \
            or len(update.operands) != 2:
        return False
    for arg, step in (update.operands, tuple(reversed(update.operands))):
        if isinstance(arg, BlockArgument) and arg.block is body and arg.index == position \
                and _scalar_int_constant(step) == 1:
            return True
    return False


def functions_with_donors(module: ModuleOp) -> Iterable[FuncOp]:
    """Every defined ``func.func`` of ``module`` with a donation attribute on an argument."""
    for op in module.walk():
        if isinstance(op, FuncOp) and not op.is_declaration and has_donation_attrs(op):
            yield op


def _dot_dims(op: Operation) -> DotDims | None:
    """:func:`.building.dot_dims` of a ``stablehlo.dot_general``, from its dimension numbers
    attribute as xDSL prints it (``#stablehlo.dot<lhs_batching_dimensions = ...>``, the
    dialect's and an unregistered op's alike)."""
    dn = op.properties.get("dot_dimension_numbers") or op.attributes.get("dot_dimension_numbers")
    return dot_dims(str(dn)) if dn is not None else None
