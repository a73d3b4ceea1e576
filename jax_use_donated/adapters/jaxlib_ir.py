"""Build the core's :class:`~jax_use_donated.analysis.model.FunctionModel` straight from jaxlib's
in-memory MLIR module (``jax._src.lib.mlir.ir``), with no text round trip.

This is the jit hook's front end, so it is written for speed: one pass over the top-level ops,
each op's name, operands and results read once (every binding call builds a Python object;
these calls are about half of the build's time, the ``model`` step that
``benchmarks/hook_overhead.py`` reports). A one-result op (nearly all) is read with
``Operation.result`` and ``Value.type`` rather than the result list and ``results.types``
(fewer objects); region-free op names (:data:`REGION_FREE_OPS`) skip the
region query; values are keyed by jaxlib's hashable ``ir.Value`` wrappers; one
:class:`TensorInfo` per distinct ``ir.Type``; attribute dictionaries are read only for
``custom_call`` and ``func.call``. Op source locations cost a string print each, so they are
read only on request (:class:`OpLocation`), for the few ops a diagnostic names. Measured and
not worth their complexity: keying values by ``hash(ir.Value)``, iterating ops with ``walk``
instead of ``block.operations``, printing the module and scanning the text (the print alone
costs more than the whole build).

Example (an in-memory ``@main``)::

    func.func public @main(%arg0: tensor<4xf32> {jax.buffer_donor = true} loc("x")) ...
      %0 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32>
      return %0

becomes ``Arg(0, value 0, tensor<4xf32>, donation=BUFFER_DONOR, loc.name="x")``,
``Op(0, "stablehlo.multiply", operands [0, 0], results [1])`` and ``Result(0, value 1)``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import partial
from typing import Any

from jaxlib.mlir import ir  # the module jax._src.lib.mlir re-exports

from jax_use_donated.adapters.jax_text import operand_alias_pairs
from jax_use_donated.adapters.jax_text import unescape as _unescape
from jax_use_donated.analysis.building import (
    CASE,
    MANUAL_COMPUTATION,
    dot_dims,
    loop_trips,
    placement,
    xla_region,
)
from jax_use_donated.analysis.building import (
    element_bits as element_bits_of,
)
from jax_use_donated.analysis.collectives import combine_all_reduces
from jax_use_donated.analysis.cse import (
    MERGEABLE_OPS,
    IdenticalOps,
    canonical_op_text,
    merge_identical_ops,
)
from jax_use_donated.analysis.errors import (
    ALIASING_OUTPUT,
    BUFFER_DONOR,
    DonationError,
    multi_block_error,
    read_donation,
)
from jax_use_donated.analysis.inline import has_calls, inline_calls
from jax_use_donated.analysis.liveness import CalleeSummaries, short_loop_forwards
from jax_use_donated.analysis.model import (
    Arg,
    Donation,
    DonationKind,
    FunctionModel,
    Op,
    Placement,
    Result,
    SourceLoc,
    TensorInfo,
    ValueId,
    same_value_positions,
)
from jax_use_donated.analysis.semantics import ELEMENTWISE_OPS

RESULT_INFO_ATTR = "jax.result_info"

_NAME_LOC = re.compile(r'^loc\("((?:[^"\\]|\\.)*)"\)$')
_FILE_LOC = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')


def location_name(loc: ir.Location) -> str | None:
    """``loc("params['w1']")`` -> ``params['w1']``; any other location -> ``None``."""
    m = _NAME_LOC.match(str(loc))
    return _unescape(m.group(1)) if m else None


def location_text(loc: ir.Location) -> str | None:
    """The innermost ``file:line:col`` of a location (a callsite's callee comes first in its
    printed form, a named or fused location's first file location), or ``None``."""
    m = _FILE_LOC.search(str(loc))
    if m is None:
        return None
    return f"{_unescape(m.group(1))}:{m.group(2)}:{m.group(3)}"


def location_frames(loc: ir.Location) -> tuple[str, ...]:
    """Every ``file:line:col`` of a location, innermost first (a callsite chain prints the
    callee before its callers): the Python call stack JAX recorded for an op."""
    return tuple(f"{_unescape(m.group(1))}:{m.group(2)}:{m.group(3)}"
                 for m in _FILE_LOC.finditer(str(loc)))


def element_bits(element: ir.Type) -> int | None:
    """Bits per element (:func:`.building.element_bits` of its text): ``f32`` 32, ``i1`` 1,
    ``complex<f32>`` 64, ``f8E4M3FN`` 8."""
    return element_bits_of(str(element))


class OpLocation(SourceLoc):
    """An op's :class:`SourceLoc` whose ``text`` is read from jaxlib on first use: printing a
    location costs microseconds, and diagnostics name only a few of a module's ops. ``name``
    is ``None`` (the class default of :class:`SourceLoc`)."""

    _text: str | bool | None = False
    """``False`` until read."""

    def __init__(self, operation: ir.Operation) -> None:
        self.__dict__["_operation"] = operation  # frozen dataclass: no __setattr__

    @property
    def text(self) -> str | None:  # type: ignore[override]
        cached = self._text
        if cached is False:
            cached = location_text(self.__dict__["_operation"].location)
            self.__dict__["_text"] = cached
        return cached  # type: ignore[return-value]

    @property
    def frames(self) -> tuple[str, ...]:
        """The op's whole recorded call stack, innermost first (see :func:`location_frames`)."""
        return location_frames(self.__dict__["_operation"].location)

    def __reduce__(self) -> tuple[type[SourceLoc], tuple[str | None, str | None]]:
        return (SourceLoc, (self.text, self.name))


class _TypeTable:
    """One :class:`TensorInfo` (or ``None`` for non-tensors) per distinct ``ir.Type``."""

    def __init__(self) -> None:
        self.cache: dict[ir.Type, TensorInfo | None] = {}

    def get(self, t: ir.Type) -> TensorInfo | None:
        """The cached entry of ``t`` (the builder's per-op loop inlines this lookup)."""
        info = self.cache.get(t)
        if info is None and t not in self.cache:
            info = self.add(t)
        return info

    def add(self, t: ir.Type) -> TensorInfo | None:
        info: TensorInfo | None = None
        if isinstance(t, ir.RankedTensorType):
            shape = tuple(
                None if t.is_dynamic_dim(i) else t.get_dim_size(i) for i in range(t.rank)
            )
            element = t.element_type
            info = TensorInfo(str(t), shape, str(element), element_bits(element))
        self.cache[t] = info
        return info


def _attr_value(attr: ir.Attribute) -> object:
    """A donation attribute as plain Python: ``True``/``False``, an ``int``, else its text."""
    if isinstance(attr, ir.BoolAttr):
        return bool(attr.value)
    if isinstance(attr, ir.IntegerAttr):
        return int(attr.value)
    return str(attr)


def _text_attr(d: ir.DictAttr, name: str) -> str | None:
    if name not in d:
        return None
    attr = d[name]
    if isinstance(attr, ir.StringAttr):
        return attr.value
    return str(attr)


def placement_of(d: ir.DictAttr | None) -> Placement:
    """Sharding (``mhlo.sharding`` or ``sdy.sharding``), memory kind and layout mode
    (:func:`.building.placement`)."""
    if d is None or len(d) == 0:
        return Placement()
    return placement(partial(_text_attr, d))


def _dict_list(func_op: ir.Operation, name: str, count: int) -> list[ir.DictAttr | None]:
    if name not in func_op.attributes:
        return [None] * count
    array = func_op.attributes[name]
    return [array[i] for i in range(len(array))]  # type: ignore[index]


def attribute_key(op: Op) -> object:
    """``op``'s identity for XLA's CSE (:mod:`.analysis.cse`): :func:`operation_key` of its IR
    op; ``None`` without an IR handle."""
    operation = getattr(op.handle, "operation", op.handle)
    if not isinstance(operation, ir.Operation):
        return None
    return operation_key(operation)


def operation_key(operation: ir.Operation) -> object:
    """What XLA's CSE compares besides operands and result types: the op's (uniqued)
    attributes, and for an op with regions the op printed on its own (SSA names renumbered).
    Printing is kept to ops with regions: jaxlib numbers the whole enclosing function to print
    one op."""
    if len(operation.regions):
        return canonical_op_text(str(operation.get_asm(print_generic_op_form=True)))
    attributes = operation.attributes
    # MLIR attributes are uniqued per context: comparing them is a pointer comparison.
    if _HAS_ATTRIBUTE_ITEMS:  # (name, attribute) pairs in one binding call
        return tuple(attributes.items())  # pyright: ignore[reportAttributeAccessIssue]
    return tuple((a.name, a.attr) for a in (attributes[i] for i in range(len(attributes))))


_HAS_ATTRIBUTE_ITEMS = hasattr(ir.OpAttributeMap, "items")


def symbol_name(func_op: ir.Operation) -> str:
    return ir.StringAttr(func_op.attributes["sym_name"]).value


def _operand_aliases(operation: ir.Operation) -> tuple[tuple[int, int], ...]:
    """custom_call ``output_operand_aliases`` -> ``((result_index, operand_index), ...)``."""
    if "output_operand_aliases" not in operation.attributes:
        return ()
    return operand_alias_pairs(str(operation.attributes["output_operand_aliases"]))


def _target(operation: ir.Operation, name: str) -> str | None:
    attrs = operation.attributes
    if name == "stablehlo.custom_call" and "call_target_name" in attrs:
        return ir.StringAttr(attrs["call_target_name"]).value
    if name == "func.call" and "callee" in attrs:
        return ir.FlatSymbolRefAttr(attrs["callee"]).value
    return None


class ModuleAdapter:
    """Builds models of the functions of one module; callee summaries are memoised.

    With ``inline`` (the default) a model's ``func.call``s of defined single-block functions
    are replaced by the callee bodies, as XLA inlines them before copy insertion
    (:func:`.analysis.inline.inline_calls`)."""

    def __init__(self, module_op: ir.Operation | None, inline: bool = True, *,
                 cse_while_walking: bool = True) -> None:
        self.module_op = module_op
        self.inline = inline
        self.cse_while_walking = cse_while_walking
        """``False``: identical ops are merged after the walk instead (the same model, slower;
        the reference the tests compare the walk against)."""
        self.types = _TypeTable()
        self._functions: dict[str, ir.Operation] | None = None
        self.summaries = CalleeSummaries(self._summary_model)
        self.pure_callees = self.summaries.pure
        """Callee name -> whether it has no side effects (known once summarised)."""

    def function(self, name: str) -> ir.Operation | None:
        if self._functions is None:
            self._functions = {}
            if self.module_op is not None:
                for op in self.module_op.regions[0].blocks[0].operations:
                    op = op.operation
                    if op.name == "func.func":
                        self._functions[symbol_name(op)] = op
        return self._functions.get(name)

    def callee_forwards(self, callee: str, same_as: tuple[int, ...] = (),
                        ) -> dict[int, tuple[int, ...]] | None:
        """Result index -> the callee argument it returns unchanged (through forwarding ops).
        ``{}`` for an unknown or recursive callee: forwards nothing, reads every operand.
        ``same_as`` (:func:`.model.same_value_positions` of the call's operands) summarises the
        callee for a call passing one value at several positions (``@where(%p, %x, %x)``
        returns ``%x``)."""
        return self.summaries.forwards(callee, same_as)

    def _summary_model(self, callee: str, same_as: tuple[int, ...]) -> FunctionModel | None:
        func_op = self.function(callee)
        if func_op is None or len(func_op.regions[0].blocks) != 1:
            return None
        return self.build(func_op, donated=(), same_arg_as=same_as, inline=False)

    def build(
        self,
        func_op: ir.Operation,
        donated: Sequence[int] | None = None,
        fixed_aliases: dict[int, int] | None = None,
        same_arg_as: tuple[int, ...] = (),
        inline: bool | None = None,
    ) -> FunctionModel:
        """The model of ``func_op`` (its calls inlined when ``inline``, by default the
        adapter's setting).

        ``donated=None`` reads each argument's donation from its ``jax.buffer_donor`` /
        ``tf.aliasing_output`` attributes (validated by :func:`read_donation`); otherwise the
        listed argument indices are buffer donors and ``fixed_aliases`` (argument -> result)
        are ``tf.aliasing_output`` pairs, whatever the attributes say (the jit hook's view).
        """
        name = symbol_name(func_op)
        region = func_op.regions[0]
        blocks = list(region.blocks)
        types = self.types
        arg_dicts = _dict_list(func_op, "arg_attrs", 0)
        res_dicts = _dict_list(func_op, "res_attrs", 0)
        if len(blocks) != 1:
            if donated is None and any(
                d is not None and (BUFFER_DONOR in d or ALIASING_OUTPUT in d) for d in arg_dicts
            ):
                raise multi_block_error(name, len(blocks), func_op)
            if donated:
                raise multi_block_error(name, len(blocks), func_op)
            return FunctionModel(name, [], [], [], handle=func_op)
        block = blocks[0]

        values: dict[ir.Value, ValueId] = {}
        value_types: list[TensorInfo | None] = []
        args: list[Arg] = []
        donor_set = set(donated) if donated is not None else set()
        for i, barg in enumerate(block.arguments):
            t = barg.type
            info = types.get(t)
            d = arg_dicts[i] if i < len(arg_dicts) else None
            loc = SourceLoc(name=location_name(barg.location))
            if donated is None:
                donation = Donation()
                if d is not None and (BUFFER_DONOR in d or ALIASING_OUTPUT in d):
                    donation = read_donation(
                        i,
                        loc.name,
                        _attr_value(d[BUFFER_DONOR]) if BUFFER_DONOR in d else None,
                        _attr_value(d[ALIASING_OUTPUT]) if ALIASING_OUTPUT in d else None,
                        func_op,
                    )
            elif fixed_aliases and i in fixed_aliases:
                donation = Donation(DonationKind.ALIASING_OUTPUT, fixed_aliases[i])
            elif i in donor_set:
                donation = Donation(DonationKind.BUFFER_DONOR)
            else:
                donation = Donation()
            first_same = same_arg_as[i] if i < len(same_arg_as) else i
            values[barg] = first_same if first_same < i else i
            value_types.append(info)
            args.append(
                Arg(index=i, value=i, tensor=info, type_text=str(t) if info is None else info.text,
                    placement=placement_of(d), donation=donation, loc=loc, handle=barg)
            )

        xla_view = self.inline if inline is None else inline
        # XLA's view merges identical ops (analysis/cse.py): while walking, and once more
        # after inlining, where a callee's ops may repeat the caller's.
        walking = xla_view and self.cse_while_walking
        dedup: IdenticalOps[ir.Operation] | None = (IdenticalOps(operation_key) if walking
                                                    else None)
        fn = self._block_model(name, block, values, value_types, args, res_dicts, func_op,
                               dedup=dedup)
        if xla_view and (has_calls(fn) or not walking):
            if has_calls(fn):
                fn = inline_calls(fn, self.callee_model)
            fn = merge_identical_ops(fn, attribute_key)
        if xla_view:
            fn = combine_all_reduces(fn, attribute_key)
        return fn

    def callee_model(self, callee: str) -> FunctionModel | None:
        """The model of ``@callee`` to inline (no donors, its own calls left as calls), or
        ``None`` when it is not defined here or has several blocks."""
        func_op = self.function(callee)
        if func_op is None or len(func_op.regions[0].blocks) != 1:
            return None
        return self.build(func_op, donated=(), inline=False)

    def _block_model(
        self,
        name: str,
        block: ir.Block,
        values: dict[ir.Value, ValueId],
        value_types: list[TensorInfo | None],
        args: list[Arg],
        res_dicts: Sequence[ir.DictAttr | None],
        handle: object,
        outer: dict[ir.Value, ValueId] | None = None,
        dedup: IdenticalOps[ir.Operation] | None = None,
    ) -> FunctionModel:
        """The model of ``block`` once its arguments are ``args`` (ids in ``values``). With
        ``outer``, a value defined outside the block (a loop body closing over it) becomes one
        more argument; otherwise it is an error. With ``dedup``, an op identical to an earlier
        one (:class:`.cse.IdenticalOps`) is no op of the model: its results are the earlier
        op's."""
        types = self.types

        def outside(v: ir.Value) -> ValueId:
            info = types.get(v.type)
            vid = values[v] = len(value_types)
            value_types.append(info)
            args.append(Arg(index=len(args), value=vid, tensor=info,
                            type_text=str(v.type) if info is None else info.text, handle=v,
                            outer=outer.get(v) if outer is not None else None))
            return vid

        next_id = len(value_types)
        ops: list[Op] = []
        results: list[Result] = []
        terminator: ir.Operation | None = None
        type_cache = types.cache
        add_type = types.add
        for view in block.operations:
            operation = view.operation
            op_name = operation.name
            if op_name in _TERMINATORS:
                terminator = operation
                break
            try:
                operands = [values[v] for v in operation.operands]
            except KeyError:
                if outer is None:
                    raise DonationError(
                        f"@{name}: {op_name} uses a value defined after it", operation
                    ) from None
                operands = [values[v] if v in values else outside(v) for v in operation.operands]
                next_id = len(value_types)
            try:  # one result (nearly every op): one binding call instead of a list
                result = operation.result
            except ValueError:
                result_values = list(operation.results)
                result_ids = list(range(next_id, next_id + len(result_values)))
                result_types = [types.get(r.type) for r in result_values]
            else:
                result_values = [result]
                result_ids = [next_id]
                t = result.type
                info = type_cache.get(t)  # types.get, inlined
                if info is None and t not in type_cache:
                    info = add_type(t)
                result_types = [info]
            if dedup is not None and op_name in MERGEABLE_OPS:
                first = dedup.earlier(
                    op_name, operands,
                    tuple(i.text if i is not None else None for i in result_types),
                    operation, result_ids)
                if first is not None:  # XLA's CSE: this op is the earlier one
                    for r, vid in zip(result_values, first, strict=True):
                        values[r] = vid
                    continue
            for r in result_values:
                values[r] = next_id
                next_id += 1
            value_types += result_types
            # Positional, in field order: cheaper than keyword matching, once per op.
            op = Op(len(ops), op_name, operands, result_ids,
                    [value_types[v] for v in operands], result_types,
                    loc=OpLocation(operation), handle=operation)
            if op_name == "stablehlo.dot_general" and "dot_dimension_numbers" in \
                    operation.attributes:
                op.dot_dims = dot_dims(str(operation.attributes["dot_dimension_numbers"]))
            if op_name not in REGION_FREE_OPS and len(operation.regions):
                op.region_uses = self._region_uses(operation.regions, values)
                regions = len(operation.regions)
                body = xla_region(op_name, regions,
                                  _scalar_int_constant(operation.operands[0])
                                  if op_name == CASE and operation.operands else None)
                # Built now, not on demand: a model may outlive jaxlib's module, whose
                # operations then dangle.
                if body is not None:
                    region_model = self._region_model(
                        operation, body, operands if op_name == MANUAL_COMPUTATION else [],
                        values, op_name)
                    op.xla_body = partial(_given, region_model)
                elif op_name == CASE:
                    op.branches = partial(_given, self._branch_models(operation, values))
                if op_name == "stablehlo.while":
                    op.max_trips, exact = while_trips(operation)
                    if op.max_trips is not None and op.max_trips <= 1:
                        op.call_forwards = short_loop_forwards(
                            exact, len(operands),
                            partial(self._loop_body_model, operation, operands))
            if op_name in _CALL_LIKE:
                target = _target(operation, op_name)
                op.target = target
                if op_name == "stablehlo.custom_call":
                    op.operand_aliases = _operand_aliases(operation)
                else:
                    op.call_forwards = (self.callee_forwards(target,
                                                             same_value_positions(operands))
                                        if target else {})
                    op.pure_call = bool(target) and self.pure_callees.get(target, False)
            ops.append(op)
        if terminator is not None:
            for k, v in enumerate(terminator.operands):
                info = types.get(v.type)
                d = res_dicts[k] if k < len(res_dicts) else None
                vid = values[v] if v in values or outer is None else outside(v)
                results.append(
                    Result(index=k, value=vid, tensor=info,
                           type_text=str(v.type) if info is None else info.text,
                           placement=placement_of(d))
                )
        return FunctionModel(name, args, ops, results, handle=handle, return_handle=terminator)

    def _loop_body_model(self, operation: ir.Operation, operands: list[ValueId]
                         ) -> FunctionModel:
        """A ``stablehlo.while`` body as a function of its carries (``operands``, one value
        passed at several positions kept as one), for :func:`.liveness.short_loop_forwards`."""
        return self._region_model(operation, 1, operands, {}, "while body")

    def _region_model(self, operation: ir.Operation, region: int, operands: list[ValueId],
                      outer: dict[ir.Value, ValueId], name: str) -> FunctionModel:
        """Region ``region`` of ``operation`` as a function of its block arguments (bound to
        ``operands``; one value passed at several positions kept as one), then of the values
        of the enclosing block it closes over (``Arg.outer``: their ids in ``outer``)."""
        body = next(iter(operation.regions[region].blocks))
        same_as = same_value_positions(operands)
        values: dict[ir.Value, ValueId] = {}
        value_types: list[TensorInfo | None] = []
        args: list[Arg] = []
        for i, barg in enumerate(body.arguments):
            info = self.types.get(barg.type)
            first = same_as[i] if i < len(same_as) else i
            values[barg] = first if first < i else i
            value_types.append(info)
            args.append(Arg(index=i, value=i, tensor=info,
                            type_text=str(barg.type) if info is None else info.text))
        return self._block_model(name, body, values, value_types, args, [], operation,
                                 outer=outer)

    def _branch_models(self, operation: ir.Operation, outer: dict[ir.Value, ValueId]
                       ) -> list[FunctionModel]:
        """Every region of a ``stablehlo.case``, as functions of the values they close over."""
        return [self._region_model(operation, i, [], outer, f"branch {i}")
                for i in range(len(operation.regions))]

    @staticmethod
    def _region_uses(regions: Iterable[ir.Region], values: dict[ir.Value, ValueId]
                     ) -> list[ValueId]:
        """The outer values used anywhere inside ``regions`` (first use order)."""
        out: list[ValueId] = []
        seen: set[ValueId] = set()
        stack: list[Any] = list(regions)
        while stack:
            region = stack.pop()
            for block in region.blocks:
                for view in block.operations:
                    operation = view.operation
                    for v in operation.operands:
                        vid = values.get(v)
                        if vid is not None and vid not in seen:
                            seen.add(vid)
                            out.append(vid)
                    if len(operation.regions):
                        stack.extend(operation.regions)
        return out


def _given(value: Any) -> Any:
    """``value`` (a thunk's result, built in advance)."""
    return value


def _scalar_int_constant(value: ir.Value) -> int | None:
    """The value of ``stablehlo.constant dense<N> : tensor<iK>`` defining ``value``."""
    owner = value.owner
    if not isinstance(owner, ir.Operation | ir.OpView):
        return None
    operation = owner.operation
    if operation.name != "stablehlo.constant" or "value" not in operation.attributes:
        return None
    try:
        dense = ir.DenseIntElementsAttr(operation.attributes["value"])
    except ValueError:
        return None
    if not dense.is_splat or ir.RankedTensorType(dense.type).rank != 0:
        return None
    return int(ir.IntegerAttr(dense.get_splat_value()).value)


def _loop_counter(operation: ir.Operation) -> tuple[int, int, int] | None:
    """``(carry position, start, stop)`` of a ``stablehlo.while`` whose condition is
    ``compare LT, %counter, constant`` and whose counter starts at a constant."""
    cond = operation.regions[0]
    blocks = list(cond.blocks)
    if len(blocks) != 1:
        return None
    ops = list(blocks[0].operations)
    if not ops or len(ops[-1].operands) != 1:
        return None
    compare = ops[-1].operands[0].owner
    if not isinstance(compare, ir.Operation | ir.OpView):
        return None
    compare = compare.operation
    if compare.name != "stablehlo.compare" or len(compare.operands) != 2:
        return None
    try:
        direction = str(compare.attributes["comparison_direction"])
    except KeyError:
        return None
    if not direction.endswith("LT>"):
        return None
    counter, bound = compare.operands
    if not isinstance(counter, ir.BlockArgument) or counter.owner != blocks[0] \
            or counter.arg_number >= len(operation.operands):
        return None
    start = _scalar_int_constant(operation.operands[counter.arg_number])
    stop = _scalar_int_constant(bound)
    if start is None or stop is None:
        return None
    return counter.arg_number, start, stop


def while_trips(operation: ir.Operation) -> tuple[int | None, int | None]:
    """``(max_trips, exact_trips)`` of a ``stablehlo.while`` whose condition is ``compare LT,
    %counter, constant`` and whose counter starts at a constant (JAX's ``fori_loop`` and
    ``scan``), by the shared rule :func:`.building.loop_trips`; ``(None, None)`` otherwise."""
    counter = _loop_counter(operation)
    if counter is None:
        return None, None
    position, start, stop = counter
    return loop_trips(start, stop, partial(_counts_up_by_one, operation, position))


def _counts_up_by_one(operation: ir.Operation, position: int) -> bool:
    """Whether the loop body returns ``counter + 1`` (a constant 1) at ``position``."""
    blocks = list(operation.regions[1].blocks)
    if len(blocks) != 1:
        return False
    ops = list(blocks[0].operations)
    if not ops or len(ops[-1].operands) <= position:
        return False
    update = ops[-1].operands[position].owner
    if not isinstance(update, ir.Operation | ir.OpView):
        return False
    update = update.operation
    if update.name != "stablehlo.add" or len(update.operands) != 2:
        return False
    for i in (0, 1):
        arg, step = update.operands[i], update.operands[1 - i]
        if isinstance(arg, ir.BlockArgument) and arg.owner == blocks[0] \
                and arg.arg_number == position and _scalar_int_constant(step) == 1:
            return True
    return False


_TERMINATORS = frozenset({"func.return", "stablehlo.return", "sdy.return"})
REGION_FREE_OPS: frozenset[str] = ELEMENTWISE_OPS | frozenset(
    f"stablehlo.{name}"
    for name in ("constant", "broadcast_in_dim", "reshape", "transpose", "dot_general", "convert",
                 "slice", "dynamic_slice", "dynamic_update_slice", "concatenate", "iota", "pad")
)
"""Op names whose definitions have no regions: the builder skips asking for theirs."""
_CALL_LIKE = frozenset({"stablehlo.custom_call", "func.call"})


def function_model(
    func_op: ir.Operation,
    donated: Sequence[int] | None = None,
    fixed_aliases: dict[int, int] | None = None,
    inline: bool = True,
) -> FunctionModel:
    """The model of one ``func.func`` of a jaxlib module (see :meth:`ModuleAdapter.build`),
    its calls inlined unless ``inline=False``. Op locations (:class:`OpLocation`) are read when
    first asked for."""
    func_op = func_op.operation
    parent = func_op.parent
    adapter = ModuleAdapter(parent.operation if parent is not None else None, inline)
    return adapter.build(func_op, donated, fixed_aliases)


def module_function(module: ir.Module, name: str = "main") -> ir.Operation | None:
    """The ``func.func @name`` of ``module``, or ``None``."""
    for view in module.body.operations:
        op = view.operation
        if op.name == "func.func" and symbol_name(op) == name:
            return op
    return None


def result_names(func_op: ir.Operation) -> list[str | None]:
    """``jax.result_info`` of each result (``result[0]['w']``), ``None`` where absent."""
    func_op = func_op.operation
    count = len(ir.FunctionType(ir.TypeAttr(func_op.attributes["function_type"]).value).results)
    out: list[str | None] = []
    for d in _dict_list(func_op, "res_attrs", count):
        out.append(_text_attr(d, RESULT_INFO_ATTR) if d is not None else None)
    return out


def set_arg_donations(
    func_op: ir.Operation,
    pairs: dict[int, int],
    buffer_donors: Iterable[int] = (),
) -> None:
    """Rewrite ``func_op``'s argument attributes in place: ``tf.aliasing_output = k : i32`` on
    each paired argument, ``jax.buffer_donor = true`` on each listed donor, and neither on any
    other argument; every other attribute is kept.

    Before: ``%arg0: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %arg1: ... {}``;
    after ``pairs={1: 0}``: ``%arg0: tensor<4xf32> {}, %arg1: ... {tf.aliasing_output = 0 : i32}``.
    """
    func_op = func_op.operation
    nargs = len(func_op.regions[0].blocks[0].arguments)
    old = _dict_list(func_op, "arg_attrs", nargs)
    donors = set(buffer_donors)
    with func_op.context:
        i32 = ir.IntegerType.get_signless(32)
        new: list[ir.Attribute] = []
        for i in range(nargs):
            d = old[i] if i < len(old) else None
            entries: dict[str, ir.Attribute] = {}
            if d is not None:
                for j in range(len(d)):
                    named = d[j]
                    if named.name not in (ALIASING_OUTPUT, BUFFER_DONOR):
                        entries[named.name] = named.attr
            if i in pairs:
                entries[ALIASING_OUTPUT] = ir.IntegerAttr.get(i32, pairs[i])
            elif i in donors:
                entries[BUFFER_DONOR] = ir.BoolAttr.get(True)
            new.append(ir.DictAttr.get(entries))
        func_op.attributes["arg_attrs"] = ir.ArrayAttr.get(new)


def arg_donations(func_op: ir.Operation) -> dict[int, tuple[str, object]]:
    """The donation attributes present on ``func_op``'s arguments (for tests and checks):
    argument index -> (attribute name, value)."""
    func_op = func_op.operation
    out: dict[int, tuple[str, object]] = {}
    for i, d in enumerate(_dict_list(func_op, "arg_attrs", 0)):
        if d is None:
            continue
        for attr_name in (ALIASING_OUTPUT, BUFFER_DONOR):
            if attr_name in d:
                out[i] = (attr_name, _attr_value(d[attr_name]))
    return out

