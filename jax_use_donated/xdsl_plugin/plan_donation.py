"""The ``jax-plan-donation`` pass and its checking companion ``jax-verify-donation``.

Both build the IR-neutral model of every ``func.func`` with donated arguments
(:mod:`jax_use_donated.adapters.xdsl_ir`) and ask the shared core
(:func:`jax_use_donated.analysis.plan_donation`) which donor hosts which result; this module
only rewrites the IR and turns the core's verdicts into diagnostics.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Literal, get_args

from xdsl.context import Context
from xdsl.dialects.bufferization import MaterializeInDestinationOp
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    SymbolRefAttr,
    TensorType,
    i32,
)
from xdsl.dialects.func import CallOp, FuncOp
from xdsl.ir import Attribute, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.diagnostic import Diagnostic as XDiagnostic
from xdsl.utils.exceptions import PassFailedException

from jax_use_donated.adapters.xdsl_ir import (
    build_function_model,
    functions_with_donors,
    op_name,
)
from jax_use_donated.analysis.errors import (
    ALIASING_OUTPUT,
    BUFFER_DONOR,
    DonationError,
    validate_function,
)
from jax_use_donated.analysis.liveness import Liveness, ProducedBy
from jax_use_donated.analysis.model import Donation, DonationKind, FunctionModel
from jax_use_donated.analysis.orderings import ORDERING_NAMES, Ordering, ordering_model
from jax_use_donated.analysis.plan import DonationPlan, Reason, compat_key
from jax_use_donated.analysis.report import ReportedPlan, ReportStyle, render
from jax_use_donated.analysis.xla_fallback import XlaFallback
from jax_use_donated.diagnostics import input_name
from jax_use_donated.planning import (
    FrontEnd,
    Planned,
    PlanOptions,
    StrictDonationError,
    plan_functions,
)
from jax_use_donated.xdsl_plugin.options import KebabOptions, option

WRITABLE = "bufferization.writable"
Mode = Literal["alias", "materialize"]
MODES: tuple[Mode, ...] = get_args(Mode)
OrderingOption = Literal["auto", "xla-cpu", "xla-cpu-region", "xla-gpu", "xla-gpu-region", "tpu",
                         "program", "dataflow"]
"""``ordering=`` of the passes: a model of :mod:`jax_use_donated.analysis.orderings`, or
``auto`` (the mode's: ``dataflow`` for alias, ``program`` for materialize)."""
assert set(get_args(OrderingOption)) == {"auto", *ORDERING_NAMES}

_PLAN_SINK: ContextVar[list[ReportedPlan] | None] = ContextVar(
    "jax_use_donated_plans", default=None
)


@contextmanager
def record_plans() -> Iterator[list[ReportedPlan]]:
    """Collect ``(model, plan, warned)`` of every function the passes plan inside the block
    (the driver's ``--donation-report`` reads them)."""
    plans: list[ReportedPlan] = []
    token = _PLAN_SINK.set(plans)
    try:
        yield plans
    finally:
        _PLAN_SINK.reset(token)


def record_plan(fn: FunctionModel, plan: DonationPlan, warned: bool = True) -> None:
    """Hand ``(fn, plan, warned)`` to the innermost :func:`record_plans` block, if any."""
    plans = _PLAN_SINK.get()
    if plans is not None:
        plans.append(ReportedPlan(fn, plan, warned))


ReportOption = Literal["none", "text", "verbose", "json"]
"""The passes' ``report=`` option: ``none``, the text report (``text``, also a bare
``report`` or ``report=true``), the text with explanations (``verbose``), ``json``."""

REPORT_DOC = ("print the donation report to stderr (xdsl-opt): text (a bare 'report' or "
              "report=true), verbose (with explanations), json; in jax-donate-opt the same as "
              "--donation-report")
REPORT_ALIASES: dict[object, object] = {True: "text", False: "none"}


@contextmanager
def reporting(report: ReportOption) -> Iterator[None]:
    """Run a pass's planning inside: its plans go to the driver's :func:`record_plans`
    block; without one (``xdsl-opt``) and with ``report`` set, the pass prints the report
    to stderr after it (the one ``jax-donate-opt --donation-report`` prints)."""
    outer = _PLAN_SINK.get()
    mine: list[ReportedPlan] = []
    token = _PLAN_SINK.set(mine)
    done = False
    try:
        yield
        done = True
    finally:
        _PLAN_SINK.reset(token)
        if outer is not None:
            outer.extend(mine)
        elif report != "none" and (mine or done):
            style = ReportStyle("json" if report == "json" else "text", report == "verbose",
                                input_name())
            sys.stdout.flush()
            sys.stderr.write(render(mine, style))
            sys.stderr.flush()


def fail(message: str, anchor: Operation, module: Operation) -> PassFailedException:
    """A :class:`PassFailedException` whose notes print ``module`` with ``message`` under
    ``anchor`` (what ``xdsl-opt --verify-diagnostics`` shows)."""
    diag = XDiagnostic()
    diag.add_message(anchor, message)
    error = PassFailedException(message)
    error.anchor = anchor  # pyright: ignore[reportAttributeAccessIssue]
    try:
        diag.raise_exception(module, error)
    except PassFailedException as raised:
        return raised
    return error


def _from_donation_error(err: DonationError, func: Operation, module: Operation
                         ) -> PassFailedException:
    anchor = err.anchor if isinstance(err.anchor, Operation) else func
    return fail(err.message, anchor, module)


def _set_arg_attrs(func: FuncOp, attrs: list[dict[str, Attribute]]) -> None:
    func.arg_attrs = ArrayAttr([DictionaryAttr(d) for d in attrs])


def _arg_attr_dicts(func: FuncOp) -> list[dict[str, Attribute]]:
    n = len(func.function_type.inputs.data)
    given = func.arg_attrs.data if func.arg_attrs is not None else ()
    return [dict(given[i].data) if i < len(given) else {} for i in range(n)]


@dataclass(frozen=True)
class JaxPlanDonation(KebabOptions, ModulePass):
    """Reuse donated argument buffers for results, only after their last read.

    Options (``-p 'jax-plan-donation{mode=materialize remove-matched-outputs}'``; a bare
    boolean option means ``true``):

    * ``mode=alias`` (default, for XLA; pairs are safe under XLA's data-dependence ordering):
      write ``tf.aliasing_output = k : i32`` on the chosen donors and remove stale
      ``tf.aliasing_output`` / ``jax.buffer_donor`` from the others::

        func.func @main(%a: tensor<4xf32> {tf.aliasing_output = 0 : i32},
                        %b: tensor<4xf32> {tf.aliasing_output = 1 : i32}) -> (...) {
          %0 = "stablehlo.multiply"(%b, %b) ...   // result 0 reads b
          %1 = "stablehlo.add"(%a, %a) ...        // result 1 reads a
          func.return %0, %1 ...
        // after: a -> 1, b -> 0 (JAX's pairing a -> 0 overwrote a before its read)
        func.func @main(%a: tensor<4xf32> {tf.aliasing_output = 1 : i32},
                        %b: tensor<4xf32> {tf.aliasing_output = 0 : i32}) -> (...)

    * ``mode=materialize`` (for bufferization pipelines; block order is execution order):
      insert ``bufferization.materialize_in_destination`` before the return, as xDSL's upstream
      pass does, mark ``bufferization.writable = true`` the tensor arguments something writes
      (the chosen donors, and the input's own destinations) and ``false`` every other tensor
      argument, and drop the donation attributes (``tf.aliasing_output`` only marks a donor
      here, as in xDSL's pass). A result the input already materializes into an argument keeps
      that one destination, and that argument hosts nothing else; a value returned several
      times is materialized once (later positions read that destination); a donor that an op
      overwrites in place for another result is not paired. The output goes through upstream
      ``eliminate-empty-tensors`` and ``one-shot-bufferize`` (tested)::

          %2 = bufferization.materialize_in_destination %0 in %b
                 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
          func.return %2, ...

    * ``keep-unpaired-donors=true``: unpaired donors keep ``jax.buffer_donor = true`` (alias) or
      stay writable (materialize);
    * ``keep-existing-aliases=true``: the input's ``tf.aliasing_output`` pairs are kept and only
      checked (an unsafe or mistyped one is an error);
    * ``strict=true``: a donor that cannot be reused is an error instead of a warning;
    * ``remove-matched-outputs=true`` (materialize only): drop the materialized results from the
      function's signature, ``res_attrs`` and every ``func.call`` of it in the module (refused
      when a call uses a dropped result);
    * ``xla-fallback=true`` (alias only, output for XLA alone): an unpaired donor keeps JAX's
      own ``tf.aliasing_output`` when that result is free (XLA inserts a copy, as with JAX's
      default) and its ``jax.buffer_donor`` when no result has its type, exactly as the jit
      hook does (:mod:`jax_use_donated.analysis.xla_fallback`);
    * ``fusion-safe=true`` (alias only): pair only where a backend that takes aliases as forced
      in-place results and fuses producers into that kernel (IREE) stays correct
      (:mod:`jax_use_donated.analysis.fusion`);
    * ``ordering=xla-cpu-region`` (alias only): the backend's copy-insertion model
      (:mod:`jax_use_donated.analysis.orderings`: ``xla-cpu`` = ``dataflow``, the default;
      ``xla-cpu-region`` for ``xla_cpu_copy_insertion_use_region_analysis``; ``xla-gpu``,
      ``xla-gpu-region``, ``tpu`` unverified); ``program`` with mode=materialize;
    * ``report`` (``report=text``, ``verbose``, ``json``): print the donation report
      (:mod:`jax_use_donated.analysis.report`) to stderr after the pass in ``xdsl-opt``, e.g.
      ``xdsl-opt -f jax -t jax step.mlir -p 'jax-plan-donation{report}'``; in
      ``jax-donate-opt`` the same as ``--donation-report``.
    """

    name = "jax-plan-donation"

    mode: Mode = option("alias", "alias: tf.aliasing_output for XLA (data-dependence order); "
                        "materialize: bufferization.materialize_in_destination (block order)")
    keep_unpaired_donors: bool = option(
        False, "donors left unpaired keep jax.buffer_donor (alias) or stay writable "
        "(materialize)")
    keep_existing_aliases: bool = option(
        False, "keep the input's tf.aliasing_output pairs and only check them")
    strict: bool = option(False, "a donor that cannot be reused is an error, not a warning")
    remove_matched_outputs: bool = option(
        False, "materialize only: drop materialized results from the signature and its calls")
    xla_fallback: bool = option(
        False, "alias only: unpaired donors keep JAX's own (copying) pair, as the jit hook does")
    fusion_safe: bool = option(
        False, "alias only: pair only where a fusing backend that forces aliases in place "
        "(IREE) stays correct")
    ordering: OrderingOption = option(
        "auto", "copy-insertion model: xla-cpu (= dataflow), xla-cpu-region, xla-gpu, "
        "xla-gpu-region, tpu (alias); program (materialize); auto: the mode's")
    report: ReportOption = option("none", REPORT_DOC, bare="text", aliases=REPORT_ALIASES)

    @property
    def rewrites_signatures_only(self) -> bool:
        """Whether :meth:`apply` changes nothing but ``func.func`` argument attributes (alias
        mode), so a driver may verify just the functions afterwards (``jax-donate-opt``
        does: verifying every op again was about an eighth of its xDSL path)."""
        return self.mode == "alias"

    @property
    def effective_ordering(self) -> Ordering:
        """The ordering model the plan uses (``auto``: ``dataflow`` or ``program``)."""
        if self.ordering == "auto":
            return "program" if self.mode == "materialize" else "dataflow"
        return self.ordering

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.mode not in MODES:
            raise PassFailedException(
                f"{self.name}: unknown mode '{self.mode}'; expected one of {', '.join(MODES)}")
        if self.remove_matched_outputs and self.mode != "materialize":
            raise PassFailedException(
                f"{self.name}: remove-matched-outputs=true needs mode=materialize (in alias "
                "mode the results stay in the signature and XLA aliases them)")
        if self.mode != "alias" and (self.xla_fallback or self.fusion_safe):
            raise PassFailedException(
                f"{self.name}: xla-fallback and fusion-safe apply to mode=alias only")
        if self.ordering != "auto" and self.ordering not in ORDERING_NAMES:
            raise PassFailedException(
                f"{self.name}: unknown ordering '{self.ordering}'; expected one of auto, "
                f"{', '.join(ORDERING_NAMES)}")
        if self.mode == "materialize" and self.ordering not in ("auto", "program"):
            raise PassFailedException(
                f"{self.name}: mode=materialize runs in block order; ordering="
                f"{self.ordering} applies to mode=alias")
        if self.xla_fallback and self.fusion_safe:
            raise PassFailedException(
                f"{self.name}: xla-fallback keeps JAX's unsafe pairs, which a fusing backend "
                "(fusion-safe=true) would compute wrongly; choose one")
        front = (_AliasFront(self, op) if self.mode == "alias"
                 else _MaterializeFront(self, op))
        with reporting(self.report):
            plan_functions(front)

    @property
    def plan_options(self) -> PlanOptions:
        """The options the plan, the fallback and the warnings read."""
        return PlanOptions(self.effective_ordering, self.keep_existing_aliases,
                           self.fusion_safe, self.strict, self.xla_fallback,
                           self.keep_unpaired_donors)

    @staticmethod
    def _rewrite_alias(func: FuncOp, fn: FunctionModel, plan: DonationPlan,
                       fallback: XlaFallback) -> None:
        attrs = _arg_attr_dicts(func)
        pairs = fallback.all_pairs(plan)
        for arg in fn.donors:
            d = attrs[arg.index]
            d.pop(ALIASING_OUTPUT, None)
            d.pop(BUFFER_DONOR, None)
            k = pairs.get(arg.index)
            if k is not None:
                d[ALIASING_OUTPUT] = IntegerAttr(k, i32)
            elif arg.index in fallback.buffer_donors:
                d[BUFFER_DONOR] = IntegerAttr.from_bool(True)
        _set_arg_attrs(func, attrs)

    def _rewrite_materialize(self, func: FuncOp, fn: FunctionModel, plan: DonationPlan,
                             existing: ExistingDestinations, module: ModuleOp) -> None:
        """One ``materialize_in_destination`` per pair, before the return, in result order;
        ``bufferization.writable`` true exactly on the tensor arguments something writes (the
        chosen donors, the input's own destinations, donors kept by ``keep-unpaired-donors``),
        false on the others::

            // before: %a, %b donated; the input already writes result 1 into %c
            %m = bufferization.materialize_in_destination %y in %c ...
            func.return %x, %m
            // after: %a hosts result 0; %b is left alone (result 1 already has a
            // destination), %c stays writable
            func.func @f(%a {bufferization.writable = true},
                         %b {bufferization.writable = false},
                         %c {bufferization.writable = true})
            %m = bufferization.materialize_in_destination %y in %c ...
            %0 = bufferization.materialize_in_destination %x in %a ...
            func.return %0, %m
        """
        ret = fn.return_handle
        assert isinstance(ret, Operation)
        block = func.body.blocks.first
        assert block is not None
        removed = sorted(plan.pairs.values()) if self.remove_matched_outputs else []
        if removed:
            _check_callers(func, removed, module)

        new_outputs: list[SSAValue] = list(ret.operands)
        # value -> its first materialization: upstream's eliminate-empty-tensors computes the
        # value into that destination, after which any later use of the value itself (a
        # second materialization, the return) is a read-after-write conflict one-shot
        # bufferization cannot avoid; later uses read the materialized value instead.
        first: dict[SSAValue, SSAValue] = {}
        self_hosted: list[BlockArgument] = []
        for d, k in sorted(plan.pairs.items(), key=lambda p: p[1]):
            assert k not in existing.hosted and d not in existing.written
            value, dest = ret.operands[k], block.args[d]
            if value is dest:  # the donor is returned unchanged: it already is in place
                self_hosted.append(dest)
                continue
            source = first.get(value, value)
            mat = MaterializeInDestinationOp(operands=[source, dest], result_types=[value.type])
            block.insert_op_before(mat, ret)
            first.setdefault(value, mat.results[0])
            new_outputs[k] = mat.results[0]
        paired = set(plan.pairs.values())
        for j, v in enumerate(ret.operands):
            if j not in paired and isinstance(v, OpResult) and v in first:
                new_outputs[j] = first[v]  # the same value, returned from its destination

        attrs = _arg_attr_dicts(func)
        for i, d in enumerate(attrs):
            donated = ALIASING_OUTPUT in d or BUFFER_DONOR in d
            written = i in plan.pairs or i in existing.written
            kept = donated and not written and self.keep_unpaired_donors
            d.pop(ALIASING_OUTPUT, None)
            if not kept:
                d.pop(BUFFER_DONOR, None)
            if isinstance(block.args[i].type, TensorType):
                d[WRITABLE] = IntegerAttr.from_bool(written or kept)
        _set_arg_attrs(func, attrs)

        if removed:
            gone = set(removed)
            new_outputs = [v for k, v in enumerate(new_outputs) if k not in gone]
            for dest in self_hosted:
                if dest not in new_outputs:
                    # No return keeps the donor's value alive any more: say it must stay in
                    # place (else bufferization may write a dead op into it). Only then: a
                    # use of the donor after this op would be a conflict upstream refuses.
                    keep = MaterializeInDestinationOp(operands=[dest, dest],
                                                      result_types=[dest.type])
                    block.insert_op_before(keep, ret)
            outputs = [t for k, t in enumerate(func.function_type.outputs.data) if k not in gone]
            func.function_type = FunctionType.from_lists(func.function_type.inputs.data, outputs)
            if func.res_attrs is not None:
                func.res_attrs = ArrayAttr(
                    [a for k, a in enumerate(func.res_attrs.data) if k not in gone])
            _update_callers(func, gone, module)
        ret.operands = new_outputs


VIEW_OPS = frozenset({
    "tensor.extract_slice", "tensor.expand_shape", "tensor.collapse_shape", "tensor.cast",
    "tensor.reshape", "stablehlo.reshape",
})
"""Ops whose result is (after bufferization) a view of operand 0's buffer: writing into the
result writes into the operand."""


@dataclass
class ExistingDestinations:
    """What the input itself materializes into its arguments:
    ``bufferization.materialize_in_destination`` ops (anywhere in the function) whose
    destination is an entry-block argument, a view of one (:data:`VIEW_OPS`) or another such
    op's result."""

    written: dict[int, Operation] = field(default_factory=dict)
    """argument index -> the first op that writes into its buffer."""
    hosted: dict[int, int] = field(default_factory=dict)
    """result index -> the argument whose buffer the returned value was materialized into."""


def argument_root(value: SSAValue, func: FuncOp) -> int | None:
    """The entry-block argument whose buffer ``value`` is, through materializations and
    views, or ``None``."""
    block = func.body.blocks.first
    while True:
        if isinstance(value, BlockArgument):
            return value.index if value.block is block else None
        assert isinstance(value, OpResult)
        owner = value.op
        if isinstance(owner, MaterializeInDestinationOp):
            value = owner.dest
        elif op_name(owner) in VIEW_OPS and owner.operands:
            value = owner.operands[0]
        else:
            return None


def existing_destinations(func: FuncOp) -> ExistingDestinations:
    """See :class:`ExistingDestinations`."""
    found = ExistingDestinations()
    block = func.body.blocks.first
    if block is None or block.last_op is None:
        return found
    for op in func.walk():
        if isinstance(op, MaterializeInDestinationOp):
            root = argument_root(op.dest, func)
            if root is not None:
                found.written.setdefault(root, op)
    for k, v in enumerate(block.last_op.operands):
        if isinstance(v, OpResult) and isinstance(v.op, MaterializeInDestinationOp):
            root = argument_root(v, func)
            if root is not None:
                found.hosted[k] = root
    return found


def _aliases_as_marks(fn: FunctionModel) -> None:
    """In materialize mode ``tf.aliasing_output`` only marks a donor (as in xDSL's
    ``jax-use-donated-arguments``, whose own tests give several arguments ``= 0``): an index
    that repeats an earlier donor's or names no result is a hint to drop, not an error (with
    ``keep-existing-aliases`` it still is one)."""
    seen: set[int] = set()
    for arg in fn.donors:
        k = arg.donation.alias_index
        if k is None:
            continue
        if k in seen or not 0 <= k < len(fn.results):
            arg.donation = Donation(DonationKind.BUFFER_DONOR)
        seen.add(k)


def _drop_overwritten_pairs(fn: FunctionModel, plan: DonationPlan, kept: bool,
                            module: ModuleOp) -> None:
    """Unpair a donor that an op always overwrites in place (``dynamic_update_slice``,
    ``scatter``: ``tensor.insert_slice`` after legalization) when that op's result is another
    result than the one the donor hosts: one-shot bufferization writes the op into the donor
    and then cannot also materialize the other result there ("cannot avoid RaW conflict")::

        %u = stablehlo.dynamic_update_slice %b, %s, %i ...   // written into %b's buffer
        %m = bufferization.materialize_in_destination %x in %b ...   // refused upstream
        func.return %m, %u

    With ``keep-existing-aliases`` (``kept``) such a pair is the input's own: an error.
    """
    live = Liveness(fn)
    for res in fn.results:
        writer = live.writers[res.index]
        if not isinstance(writer, ProducedBy) or not live.semantics[writer.op].overwrites:
            continue
        op = fn.ops[writer.op]
        for pos in sorted(live.semantics[writer.op].in_place.get(writer.result, ())):
            if pos >= len(op.operands):
                continue
            for d in sorted(live.roots_of(op.operands[pos])):
                k = plan.pairs.get(d)
                if k is None or fn.results[k].value == res.value:
                    continue
                why = (f"result {res.index} is produced by {op.describe()}, which overwrites "
                       f"it in place, so bufferization cannot also materialize result {k} "
                       "into it")
                if kept and fn.args[d].donation.alias_index == k:
                    anchor = op.handle if isinstance(op.handle, Operation) else fn.handle
                    assert isinstance(anchor, Operation)
                    raise fail(f"keep-existing-aliases: argument {fn.args[d].display_name} "
                               f"of @{fn.name} aliases result {k}, but {why}", anchor, module)
                del plan.pairs[d]
                verdict = next(v for v in plan.verdicts if v.arg.index == d)
                verdict.result, verdict.reason = None, Reason.READ_AFTER_WRITE
                verdict.message = verdict.message.split(" hosts result")[0] + (
                    f" is not reused: {why}")
    _drop_shared_donors(fn, plan, live, kept, module)


def _drop_shared_donors(fn: FunctionModel, plan: DonationPlan, live: Liveness, kept: bool,
                        module: ModuleOp) -> None:
    """Unpair a donor whose buffer another result may also return (through a call that
    returns its argument, a view, a fold XLA would do): materializing into the donor and then
    returning that alias is a read-after-write conflict one-shot bufferization refuses::

        %r:2 = func.call @inner(%x, %d) ...   // @inner returns its second argument: %r#1 is %d
        %m = bufferization.materialize_in_destination %y in %d ...
        func.return %m, %r#1                   // refused upstream ("cannot avoid RaW conflict")
    """
    for d, k in sorted(plan.pairs.items()):
        hosted = fn.results[k].value
        other = next((r.index for r in fn.results if r.index != k and r.value != hosted
                      and d in live.roots_of(r.value)), None)
        if other is None:
            continue
        why = (f"result {other} may return its buffer too, so bufferization cannot also "
               f"materialize result {k} into it")
        if kept and fn.args[d].donation.alias_index == k:
            raise fail(f"keep-existing-aliases: argument {fn.args[d].display_name} of "
                       f"@{fn.name} aliases result {k}, but {why}", _anchor(fn), module)
        del plan.pairs[d]
        verdict = next(v for v in plan.verdicts if v.arg.index == d)
        verdict.result, verdict.reason = None, Reason.RETURNED
        verdict.message = verdict.message.split(" hosts result")[0] + f" is not reused: {why}"


def _anchor(fn: FunctionModel) -> Operation:
    anchor = fn.handle
    assert isinstance(anchor, Operation)
    return anchor


class _XdslFront(FrontEnd[FuncOp]):
    """The steps of :func:`.planning.plan_functions` on an xDSL module: errors become
    :class:`PassFailedException`s anchored where the core says, and each plan is handed to
    :func:`record_plans`."""

    def __init__(self, options: PlanOptions, module: ModuleOp) -> None:
        super().__init__(options)
        self.module = module

    def functions(self) -> list[FuncOp]:
        return list(functions_with_donors(self.module))

    def build(self, func: FuncOp) -> FunctionModel:
        # For XLA's orderings calls are inlined first, as XLA inlines them before copy
        # insertion.
        return build_function_model(func, inline=ordering_model(self.options.ordering).xla)

    def failed(self, func: FuncOp, err: DonationError) -> None:
        raise _from_donation_error(err, func, self.module) from None

    def planned(self, item: Planned[FuncOp]) -> None:
        record_plan(item.fn, item.plan, warned=not self.options.verify)

    def refuse(self, func: FuncOp, fn: FunctionModel, plan: DonationPlan) -> None:
        raise fail(StrictDonationError(fn, plan).message, func, self.module)


class _AliasFront(_XdslFront):
    """``mode=alias``: ``tf.aliasing_output`` / ``jax.buffer_donor`` on the arguments."""

    def __init__(self, pass_: JaxPlanDonation, module: ModuleOp) -> None:
        super().__init__(pass_.plan_options, module)

    def write(self, func: FuncOp, fn: FunctionModel, plan: DonationPlan,
              fallback: XlaFallback) -> None:
        JaxPlanDonation._rewrite_alias(func, fn, plan, fallback)  # pyright: ignore[reportPrivateUsage]


class _MaterializeFront(_XdslFront):
    """``mode=materialize``: planned in program order, except that a result the input
    already materialized into an argument is hosted (no donor may take it: one destination
    per result) and an argument the input already writes into is not a donor (one result per
    buffer). ``keep-existing-aliases`` pairs that contradict the input's own destinations are
    errors."""

    def __init__(self, pass_: JaxPlanDonation, module: ModuleOp) -> None:
        super().__init__(pass_.plan_options, module)
        self.pass_ = pass_
        self.existing: dict[FuncOp, ExistingDestinations] = {}
        self.taken: dict[FuncOp, dict[object, list[str]]] = {}

    def build(self, func: FuncOp) -> FunctionModel:
        keep = self.options.keep_existing_aliases
        existing = self.existing[func] = existing_destinations(func)
        fn = build_function_model(func)
        if not keep:
            _aliases_as_marks(fn)
        validate_function(fn)
        for arg in fn.donors:
            k = arg.donation.alias_index
            if keep and k is not None and (
                    arg.index in existing.written or k in existing.hosted) \
                    and existing.hosted.get(k) != arg.index:
                where = existing.written.get(arg.index, func)
                raise fail(
                    f"keep-existing-aliases: argument {arg.display_name} of @{fn.name} "
                    f"aliases result {k}, but the input already materializes "
                    + (f"result {k} into %arg{existing.hosted[k]}" if k in existing.hosted
                       else f"another value into {arg.display_name}"), where, self.module)
            if arg.index in existing.written:
                arg.donation = Donation()
        taken = self.taken[func] = {}
        for k, d in existing.hosted.items():
            res = fn.results[k]
            taken.setdefault(compat_key(res), []).append(f"result {k} into %arg{d}")
            res.tensor = None  # no compatible donor: it already has its destination
        return fn

    def plan(self, func: FuncOp, fn: FunctionModel) -> DonationPlan:
        keep = self.options.keep_existing_aliases
        plan = super().plan(func, fn)  # program order: mode=materialize's ordering
        _drop_overwritten_pairs(fn, plan, keep, self.module)
        for verdict in plan.unpaired:
            held = self.taken[func].get(compat_key(verdict.arg))
            if verdict.reason is Reason.NO_COMPATIBLE_RESULT and held:
                verdict.message = verdict.message.split(" is not reused:")[0] + (
                    " is not reused: every result of its type already has a destination in "
                    f"the input ({', '.join(held)})")
        return plan

    def write(self, func: FuncOp, fn: FunctionModel, plan: DonationPlan,
              fallback: XlaFallback) -> None:
        self.pass_._rewrite_materialize(  # pyright: ignore[reportPrivateUsage]
            func, fn, plan, self.existing[func], self.module)


def _callers(func: FuncOp, module: ModuleOp) -> list[Operation]:
    name = func.sym_name.data
    found: list[Operation] = []
    for op in module.walk():
        if op_name(op) == "func.call":
            callee = op.properties.get("callee") or op.attributes.get("callee")
            if isinstance(callee, SymbolRefAttr) and callee.string_value() == name:
                found.append(op)
    return found


def _check_callers(func: FuncOp, removed: list[int], module: ModuleOp) -> None:
    for call in _callers(func, module):
        for k in removed:
            if k < len(call.results) and call.results[k].uses:
                raise fail(
                    f"remove-matched-outputs: cannot remove result {k} of "
                    f"@{func.sym_name.data}: this call uses it; run without "
                    "remove-matched-outputs or stop using the result", call, module)


def _update_callers(func: FuncOp, gone: set[int], module: ModuleOp) -> None:
    for call in _callers(func, module):
        kept = [r for k, r in enumerate(call.results) if k not in gone]
        new = CallOp(func.sym_name.data, list(call.operands), [r.type for r in kept])
        for key, value in call.attributes.items():
            new.attributes[key] = value
        new.location = call.location
        parent = call.parent_block()
        assert parent is not None
        parent.insert_op_before(new, call)
        for old, fresh in zip(kept, new.results, strict=True):
            old.replace_all_uses_with(fresh)
        call.detach()
        call.erase()


@dataclass(frozen=True)
class JaxVerifyDonation(KebabOptions, ModulePass):
    """Check that the module's ``tf.aliasing_output`` pairs are safe; change nothing.

    Fails (anchored on the reading op) when a pair overwrites a buffer that is still read, when
    the types or placements differ, or when the attributes are malformed. For instance::

        func.func @main(%a: tensor<4xf32> {tf.aliasing_output = 0 : i32}) -> (...) {
          %0 = "stablehlo.negate"(%a) ...
          %1 = "stablehlo.abs"(%a) ...     // error: result 0 is produced ... while this reads it
          func.return %0, %1 ...

    ``ordering=program`` checks against block order (after bufferization) instead of XLA's
    data-dependence order; ``ordering=xla-cpu-region`` (and the other models of
    :mod:`jax_use_donated.analysis.orderings`) against that backend's.
    """

    name = "jax-verify-donation"

    ordering: Literal["dataflow", "program", "xla-cpu", "xla-cpu-region", "xla-gpu",
                      "xla-gpu-region", "tpu"] = option(
        "dataflow", "dataflow (= xla-cpu): XLA's data-dependence order; program: block order "
        "(after bufferization); xla-cpu-region, xla-gpu, xla-gpu-region, tpu")
    report: ReportOption = option("none", REPORT_DOC, bare="text", aliases=REPORT_ALIASES)

    rewrites_signatures_only = True
    """It changes nothing (see :attr:`JaxPlanDonation.rewrites_signatures_only`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.ordering not in ORDERING_NAMES:
            raise PassFailedException(
                f"{self.name}: unknown ordering '{self.ordering}'; expected one of "
                f"{', '.join(ORDERING_NAMES)}")
        ordering: Ordering = self.ordering
        with reporting(self.report):
            plan_functions(_XdslFront(PlanOptions(ordering, keep_existing_aliases=True,
                                                  verify=True), op))


def donated_block_args(func: FuncOp) -> list[BlockArgument]:
    """Entry-block arguments carrying a donation attribute (for tools and tests)."""
    attrs = _arg_attr_dicts(func)
    block = func.body.blocks.first
    if block is None:
        return []
    return [a for a, d in zip(block.args, attrs, strict=False)
            if ALIASING_OUTPUT in d or BUFFER_DONOR in d]


__all__ = [
    "JaxPlanDonation",
    "JaxVerifyDonation",
    "existing_destinations",
    "record_plan",
    "record_plans",
    "reporting",
]
