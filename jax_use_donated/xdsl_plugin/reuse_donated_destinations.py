"""The ``jax-reuse-donated-destinations`` pass: destination-passing ops write into donated buffers.

For linalg/tensor IR on tensors (JAX -> StableHLO -> ``stablehlo-legalize-to-linalg`` -> this
pass -> ``eliminate-empty-tensors`` -> ``one-shot-bufferize``). A separate pass, not a mode of
``jax-plan-donation``: it works below StableHLO, on destinations rather than on results.

A destination-passing op whose ``outs`` init is a ``tensor.empty`` of a donor's type writes into
the donor instead once the donor is dead in block order (or read by that op only at the element
it writes). A donor's buffer hosts a sequence of values (temporaries with disjoint lifetimes,
linear scan), ending with the result the core's boundary pairing (``plan_donation(fn,
ordering="program")``) gave it. The same rules run inside ``scf.for`` bodies, with iteration
argument ``i`` as the donor for yielded value ``i``. The rules live in
:mod:`jax_use_donated.analysis.destinations`; this module only reads facts from xDSL ops and
rewrites. Before/after::

    func.func @main(%a: tensor<4xf32> {jax.buffer_donor = true}, %b: tensor<4xf32>)
        -> tensor<4xf32> {
      %e0 = tensor.empty() : tensor<4xf32>
      %t = linalg.generic {...identity maps...} ins(%a, %b : ...) outs(%e0 : ...)  // a*b
      %e1 = tensor.empty() : tensor<4xf32>
      %r = linalg.generic {...identity maps...} ins(%t, %b : ...) outs(%e1 : ...)  // t+b
      func.return %r : tensor<4xf32>
    }
    // after: a's buffer hosts t (a read only elementwise), then r (t read only elementwise)
    func.func @main(%a: tensor<4xf32> {bufferization.writable = true,
                                       tf.aliasing_output = 0 : i32},
                    %b: tensor<4xf32> {bufferization.writable = false}) -> tensor<4xf32> {
      %t = linalg.generic {...} ins(%a, %b : ...) outs(%a : ...)
      %r = linalg.generic {...} ins(%t, %b : ...) outs(%t : ...)
      func.return %r : tensor<4xf32>
    }

Attributes: every argument of a rewritten function gets ``bufferization.writable`` (``true`` on
donors, ``false`` elsewhere: upstream would otherwise write into caller buffers); a donor whose
paired result now lands in its buffer gets ``tf.aliasing_output = k``, the other donors
``jax.buffer_donor = true``.

Options: ``strict=true`` turns every warning (a pair that cannot be realised, a donor used by
an op of unknown effects) into an error; ``temporaries=false`` moves only result chains.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IntegerAttr,
    ModuleOp,
    i32,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from jax_use_donated.adapters.xdsl_ir import (
    build_function_model,
    elementwise_of,
    functions_with_donors,
    source_loc,
    tensor_info,
    type_text,
)
from jax_use_donated.analysis.destinations import (
    DestinationNote,
    DestinationPlan,
    plan_destinations,
)
from jax_use_donated.analysis.errors import ALIASING_OUTPUT, BUFFER_DONOR, DonationError
from jax_use_donated.analysis.liveness import Liveness
from jax_use_donated.analysis.model import (
    Arg,
    Donation,
    DonationKind,
    FunctionModel,
    Op,
    Result,
    SourceLoc,
    ValueId,
)
from jax_use_donated.analysis.plan import DonationPlan, PairChecker
from jax_use_donated.analysis.semantics import TENSOR_VIEW_OPS
from jax_use_donated.analysis.xla_fallback import XlaFallback
from jax_use_donated.diagnostics import Diagnostic, emit
from jax_use_donated.planning import FrontEnd, Planned, PlanOptions, plan_functions
from jax_use_donated.xdsl_plugin.options import KebabOptions, option
from jax_use_donated.xdsl_plugin.plan_donation import (
    REPORT_ALIASES,
    REPORT_DOC,
    ReportOption,
    fail,
    record_plan,
    reporting,
)

WRITABLE = "bufferization.writable"

ELEMENTWISE_LINALG_OPS: frozenset[str] = frozenset(
    f"linalg.{n}"
    for n in ("add", "sub", "mul", "div", "div_unsigned", "max", "min", "exp", "log", "sqrt",
              "rsqrt", "abs", "ceil", "floor", "negf", "reciprocal", "round", "square", "tanh",
              "erf", "powf", "select", "copy", "map", "elementwise")
)
"""Named linalg ops that read each input only at the element they write (no ``indexing_maps``
attribute given)."""


# ---------------------------------------------------------------------- facts from xDSL ops


def _segment_sizes(op: Operation) -> list[int] | None:
    attr = op.properties.get("operandSegmentSizes") or op.attributes.get("operandSegmentSizes")
    if isinstance(attr, DenseArrayBase):
        return [int(x) for x in attr.get_values()]  # pyright: ignore[reportArgumentType]
    return None


def _maps(op: Operation) -> list[AffineMapAttr] | None:
    attr = op.properties.get("indexing_maps") or op.attributes.get("indexing_maps")
    if isinstance(attr, ArrayAttr):
        maps = [m for m in attr.data if isinstance(m, AffineMapAttr)]  # pyright: ignore
        return maps if len(maps) == len(attr.data) else None
    return None


def _all_parallel(op: Operation) -> bool:
    attr = op.properties.get("iterator_types") or op.attributes.get("iterator_types")
    if not isinstance(attr, ArrayAttr):
        return False
    return all("parallel" in str(it) for it in attr.data)  # pyright: ignore


def _is_permutation(m: AffineMapAttr) -> bool:
    amap = m.data
    if amap.num_symbols != 0 or len(amap.results) != amap.num_dims:
        return False
    dims = [str(r) for r in amap.results]
    return len(set(dims)) == amap.num_dims and all(d.startswith("d") for d in dims)


def destination_facts(op: Operation) -> tuple[tuple[int, ...], frozenset[int]]:
    """``(dps_inits, same_index_operands)`` of an xDSL op (see :class:`Op`)."""
    name = op.name
    nres = len(op.results)
    if name in ("tensor.insert_slice", "tensor.insert",
                "bufferization.materialize_in_destination"):
        return (1,), frozenset()
    if name == "scf.for":
        return tuple(range(3, 3 + nres)), frozenset()
    if not name.startswith("linalg.") or nres == 0:
        return (), frozenset()
    sizes = _segment_sizes(op)
    if sizes is not None and len(sizes) == 2:
        n_in, n_out = sizes
    else:
        n_in, n_out = len(op.operands) - nres, nres
    if n_out != nres or n_in < 0:
        return (), frozenset()
    inits = tuple(range(n_in, n_in + n_out))
    result_types = [type_text(r.type) for r in op.results]
    same: set[int] = set()
    maps = _maps(op)
    if maps is not None:
        if len(maps) == n_in + n_out and _all_parallel(op):
            # Same index for every output: safe whichever output the input's buffer hosts.
            for i in range(n_in):
                if all(maps[i] == maps[n_in + r] and _is_permutation(maps[n_in + r])
                       and type_text(op.operands[i].type) == result_types[r]
                       for r in range(n_out)):
                    same.add(i)
    elif name in ELEMENTWISE_LINALG_OPS or (name != "linalg.generic" and elementwise_of(op)):
        for i in range(n_in):
            if all(type_text(op.operands[i].type) == t for t in result_types):
                same.add(i)
    return inits, frozenset(same)


def annotate(fn: FunctionModel) -> None:
    """Fill ``dps_inits``/``same_index_operands`` of ``fn``'s ops from their xDSL handles."""
    for op in fn.ops:
        if isinstance(op.handle, Operation):
            op.dps_inits, op.same_index_operands = destination_facts(op.handle)


# ------------------------------------------------------------------------- block models


def block_model(block: Block, name: str, loop: Operation) -> FunctionModel:
    """The model of an ``scf.for`` body: iteration argument ``i`` is a donor aliasing yielded
    value ``i`` (block argument 0, the induction variable, is not donated)."""
    ids: dict[SSAValue, ValueId] = {}
    args: list[Arg] = []
    for i, ba in enumerate(block.args):
        ids[ba] = i
        t = tensor_info(ba.type)
        donation = Donation(DonationKind.ALIASING_OUTPUT, i - 1) if i > 0 and t else Donation()
        args.append(Arg(i, i, t, type_text(ba.type), donation=donation,
                        loc=SourceLoc(name=f"iter_arg{i - 1}" if i else "iv"), handle=loop))
    ops: list[Op] = []
    terminator = block.last_op
    outside = 10**9
    for op in block.ops:
        if op is terminator:
            break
        operands: list[ValueId] = []
        for v in op.operands:
            if v not in ids:  # defined outside the loop: a fresh id, never a donor
                ids[v] = outside
                outside += 1
            operands.append(ids[v])
        results = []
        for r in op.results:
            ids[r] = len(ids)
            results.append(ids[r])
        region_uses = sorted({ids[v] for inner in op.walk() if inner is not op
                              for v in inner.operands if v in ids})
        inits, same = destination_facts(op)
        ops.append(Op(len(ops), op.name, operands, results,
                      [tensor_info(v.type) for v in op.operands],
                      [tensor_info(r.type) for r in op.results], region_uses,
                      elementwise_of(op), dps_inits=inits, same_index_operands=same,
                      loc=source_loc(op.location), handle=op))
    results_model: list[Result] = []
    if terminator is not None:
        for k, v in enumerate(terminator.operands):
            if v not in ids:
                ids[v] = outside
                outside += 1
            results_model.append(Result(k, ids[v], tensor_info(v.type), type_text(v.type)))
    # Values from outside the loop are modelled as extra, never-donated arguments.
    extra = sorted({v for v in ids.values() if v >= 10**9})
    for j, v in enumerate(extra):
        args.append(Arg(len(block.args) + j, v, None, "outside"))
    return FunctionModel(name, args, ops, results_model, source_loc(loop.location), loop,
                         terminator)


# ------------------------------------------------------------------------------ the pass


@dataclass(frozen=True)
class JaxReuseDonatedDestinations(KebabOptions, ModulePass):
    """Write ``tensor.empty`` destinations into donated buffers after their last read.

    See the module docstring for the rules and an example."""

    name = "jax-reuse-donated-destinations"

    strict: bool = option(False, "a pair that cannot be realised, or a donor used by an op "
                          "of unknown effects, is an error, not a warning")
    temporaries: bool = option(True, "donors also host temporaries before their final "
                               "result (false: result chains only)")
    report: ReportOption = option("none", REPORT_DOC, bare="text",
                                  aliases=REPORT_ALIASES)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        with reporting(self.report):
            plan_functions(_DestinationsFront(self, op))
        for loop in [o for o in op.walk() if o.name == "scf.for"]:
            self._rewrite_loop(loop, op)

    def _plan(self, fn: FunctionModel, pairs: dict[int, int]) -> DestinationPlan:
        plan = plan_destinations(fn, pairs)
        if not self.temporaries:
            plan.rewrites = [w for w in plan.rewrites if w.result is not None]
            plan.hosted_temporaries = {}
        return plan

    def _rewrite_loop(self, loop: Operation, module: ModuleOp) -> None:
        if len(loop.regions) != 1 or len(loop.regions[0].blocks) != 1:
            return
        block = loop.regions[0].blocks.first
        assert block is not None
        fn = block_model(block, "scf.for", loop)
        if not fn.donors:
            return
        for arg in fn.donors:
            if not _init_is_free(loop, loop.operands[3 + arg.index - 1]):
                arg.donation = Donation()
        if not fn.donors:
            return
        live = Liveness(fn)
        checker = PairChecker(fn, live, "program")
        pairs = {a.index: a.index - 1 for a in fn.donors
                 if a.index - 1 < len(fn.results)
                 and fn.results[a.index - 1].type_text == a.type_text
                 and checker.blocker(a.index, a.index - 1) is None}
        plan = self._plan(fn, pairs)
        self._report(fn, plan, module, remarks_only=True)
        self._rewrite(fn, plan)

    def _report(self, fn: FunctionModel, plan: DestinationPlan, module: ModuleOp,
                remarks_only: bool = False) -> None:
        for note in plan.notes:
            anchor = _anchor(fn, note)
            if self.strict and note.severity == "warning" and not remarks_only:
                raise fail(f"strict destination reuse in @{fn.name}: {note.message}", anchor,
                           module)
            severity = "remark" if remarks_only else note.severity
            emit(Diagnostic(severity, note.message, _note_loc(fn, note)))

    def _rewrite(self, fn: FunctionModel, plan: DestinationPlan) -> None:
        values = _value_map(fn)
        for w in plan.rewrites:
            target = fn.ops[w.op].handle
            assert isinstance(target, Operation)
            old = target.operands[w.operand]
            operands = list(target.operands)
            operands[w.operand] = values[w.source]
            target.operands = operands
            empty = old.owner
            if isinstance(empty, Operation) and not old.uses and empty.name == "tensor.empty":
                empty.detach()
                empty.erase()

    def _set_attributes(self, func: FuncOp, fn: FunctionModel, plan: DestinationPlan) -> None:
        n = len(func.function_type.inputs.data)
        given = func.arg_attrs.data if func.arg_attrs is not None else ()
        attrs: list[dict[str, Attribute]] = [
            dict(given[i].data) if i < len(given) else {} for i in range(n)]
        donors = {a.index for a in fn.donors}
        for i, d in enumerate(attrs):
            d[WRITABLE] = IntegerAttr.from_bool(i in donors)
            if i not in donors:
                continue
            d.pop(ALIASING_OUTPUT, None)
            d.pop(BUFFER_DONOR, None)
            k = plan.realised.get(i)
            if k is not None:
                d[ALIASING_OUTPUT] = IntegerAttr(k, i32)
            else:
                d[BUFFER_DONOR] = IntegerAttr.from_bool(True)
        func.arg_attrs = ArrayAttr([DictionaryAttr(d) for d in attrs])


class _DestinationsFront(FrontEnd[FuncOp]):
    """The steps of :func:`.planning.plan_functions` for this pass: the model annotated with
    destinations, the boundary pairing in program order, no fallback; then the destinations
    plan is the rewrite."""

    def __init__(self, pass_: JaxReuseDonatedDestinations, module: ModuleOp) -> None:
        super().__init__(PlanOptions("program", strict=pass_.strict))
        self.pass_ = pass_
        self.module = module

    def functions(self) -> list[FuncOp]:
        return list(functions_with_donors(self.module))

    def build(self, func: FuncOp) -> FunctionModel:
        fn = build_function_model(func)
        annotate(fn)
        return fn

    def failed(self, func: FuncOp, err: DonationError) -> None:
        anchor = err.anchor if isinstance(err.anchor, Operation) else func
        raise fail(err.message, anchor, self.module) from None

    def planned(self, item: Planned[FuncOp]) -> None:
        record_plan(item.fn, item.plan)

    def fallback(self, func: FuncOp, fn: FunctionModel, plan: DonationPlan) -> XlaFallback:
        return XlaFallback()

    def refuse(self, func: FuncOp, fn: FunctionModel, plan: DonationPlan) -> None:
        raise fail(f"strict destination reuse in @{fn.name}: {plan.unpaired[0].message}",
                   func, self.module)

    def warn(self, func: FuncOp, fn: FunctionModel, plan: DonationPlan,
             fallback: XlaFallback) -> None:
        for verdict in plan.unpaired:
            emit(Diagnostic("warning", verdict.message,
                            SourceLoc(text=verdict.arg.loc.text or fn.loc.text,
                                      name=verdict.arg.display_name)))

    def write(self, func: FuncOp, fn: FunctionModel, plan: DonationPlan,
              fallback: XlaFallback) -> None:
        pass_ = self.pass_
        destinations = pass_._plan(fn, plan.pairs)  # pyright: ignore[reportPrivateUsage]
        pass_._report(fn, destinations, self.module)  # pyright: ignore[reportPrivateUsage]
        pass_._rewrite(fn, destinations)  # pyright: ignore[reportPrivateUsage]
        pass_._set_attributes(func, fn, destinations)  # pyright: ignore[reportPrivateUsage]


def _init_is_free(loop: Operation, init: SSAValue) -> bool:
    """Whether the loop may overwrite ``init``'s buffer without a copy: it comes (through
    destination-passing ops and views) from a ``tensor.empty`` or a writable function argument,
    and none of those values is used after the loop."""
    block = loop.parent_block()
    members: list[SSAValue] = []
    cur = init
    while True:
        members.append(cur)
        owner = cur.owner
        if isinstance(owner, Block):
            func = owner.parent_op()
            if not isinstance(func, FuncOp) or owner is not func.body.blocks.first:
                return False
            index = next(i for i, a in enumerate(owner.args) if a is cur)
            attrs = func.arg_attrs.data if func.arg_attrs is not None else ()
            writable = attrs[index].data.get(WRITABLE) if index < len(attrs) else None
            if not (isinstance(writable, IntegerAttr) and writable.value.data):
                return False
            break
        if owner.name == "tensor.empty":
            break
        inits, _ = destination_facts(owner)
        r = next(i for i, res in enumerate(owner.results) if res is cur)
        if r < len(inits):
            cur = owner.operands[inits[r]]
        elif owner.name in TENSOR_VIEW_OPS:
            cur = owner.operands[0]
        else:
            return False
    for value in members:
        for use in value.uses:
            user = use.operation
            while user.parent_block() is not block:
                parent = user.parent_op()
                if parent is None:
                    return False
                user = parent
            if user is not loop and not user.is_before_in_block(loop):
                return False
    return True


def _value_map(fn: FunctionModel) -> dict[ValueId, SSAValue]:
    values: dict[ValueId, SSAValue] = {}
    handle = fn.handle
    if isinstance(handle, FuncOp):
        block = handle.body.blocks.first
    elif isinstance(handle, Operation):
        block = handle.regions[0].blocks.first
    else:
        block = None
    if block is not None:
        for arg in fn.args:
            if arg.index < len(block.args):
                values[arg.value] = block.args[arg.index]
    for op in fn.ops:
        if isinstance(op.handle, Operation):
            for v, r in zip(op.results, op.handle.results, strict=True):
                values[v] = r
    return values


def _anchor(fn: FunctionModel, note: DestinationNote) -> Operation:
    if note.op is not None and isinstance(fn.ops[note.op].handle, Operation):
        handle = fn.ops[note.op].handle
        assert isinstance(handle, Operation)
        return handle
    assert isinstance(fn.handle, Operation)
    return fn.handle


def _note_loc(fn: FunctionModel, note: DestinationNote) -> SourceLoc:
    text = fn.ops[note.op].loc.text if note.op is not None else None
    name = fn.args[note.arg].display_name if note.arg is not None else None
    return SourceLoc(text=text or fn.loc.text, name=name)


__all__ = ["JaxReuseDonatedDestinations", "PassFailedException", "annotate",
           "destination_facts"]
