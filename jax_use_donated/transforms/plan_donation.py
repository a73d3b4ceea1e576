"""The ``jax-plan-donation`` pass and its checking companion ``jax-verify-donation``.

Both build the IR-neutral model of every ``func.func`` with donated arguments
(:mod:`jax_use_donated.adapters.xdsl_ir`) and ask the shared core
(:func:`jax_use_donated.analysis.plan_donation`) which donor hosts which result; this module
only rewrites the IR and turns the core's verdicts into diagnostics.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
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
    i32,
)
from xdsl.dialects.func import CallOp, FuncOp
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.diagnostic import Diagnostic as XDiagnostic
from xdsl.utils.exceptions import PassFailedException

from jax_use_donated.adapters.xdsl_ir import (
    build_function_model,
    functions_with_donors,
    op_name,
)
from jax_use_donated.analysis.errors import ALIASING_OUTPUT, BUFFER_DONOR, DonationError
from jax_use_donated.analysis.model import DonationKind, FunctionModel, SourceLoc
from jax_use_donated.analysis.orderings import ORDERING_NAMES, Ordering, ordering_model
from jax_use_donated.analysis.plan import DonationPlan, DonorVerdict, Reason
from jax_use_donated.analysis.plan import plan_donation as core_plan_donation
from jax_use_donated.analysis.xla_fallback import XlaFallback, xla_fallback
from jax_use_donated.diagnostics import Diagnostic, emit
from jax_use_donated.gc_pause import gc_paused
from jax_use_donated.transforms.options import KebabOptions, option

WRITABLE = "bufferization.writable"
Mode = Literal["alias", "materialize"]
MODES: tuple[Mode, ...] = get_args(Mode)
OrderingOption = Literal["auto", "xla-cpu", "xla-cpu-region", "xla-gpu", "xla-gpu-region", "tpu",
                         "program", "dataflow"]
"""``ordering=`` of the passes: a model of :mod:`jax_use_donated.analysis.orderings`, or
``auto`` (the mode's: ``dataflow`` for alias, ``program`` for materialize)."""
assert set(get_args(OrderingOption)) == {"auto", *ORDERING_NAMES}

_PLAN_SINK: ContextVar[list[tuple[FunctionModel, DonationPlan]] | None] = ContextVar(
    "jax_use_donated_plans", default=None
)


@contextmanager
def record_plans() -> Iterator[list[tuple[FunctionModel, DonationPlan]]]:
    """Collect ``(model, plan)`` of every function the passes plan inside the block (the
    driver's ``--donation-report`` reads them)."""
    plans: list[tuple[FunctionModel, DonationPlan]] = []
    token = _PLAN_SINK.set(plans)
    try:
        yield plans
    finally:
        _PLAN_SINK.reset(token)


def record_plan(fn: FunctionModel, plan: DonationPlan) -> None:
    """Hand ``(fn, plan)`` to the innermost :func:`record_plans` block, if any."""
    plans = _PLAN_SINK.get()
    if plans is not None:
        plans.append((fn, plan))


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


def _verdict_loc(fn: FunctionModel, verdict: DonorVerdict) -> SourceLoc:
    """The argument's location, else the blocking reader's, else the function's."""
    text = verdict.arg.loc.text
    if text is None and verdict.reason is Reason.READ_AFTER_WRITE:
        reader = next((b.reader for b in verdict.blockers if b.reader is not None), None)
        text = reader.loc.text if reader is not None else None
    return SourceLoc(text=text or fn.loc.text, name=verdict.arg.display_name)


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
      pass does, mark the chosen donors ``bufferization.writable = true`` and every other
      argument ``false``, and drop their donation attributes::

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
      ``xla-gpu-region``, ``tpu`` unverified); ``program`` with mode=materialize.
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
        with gc_paused():
            for func in list(functions_with_donors(op)):
                fn, plan = plan_function(func, op, self.effective_ordering,
                                         self.keep_existing_aliases,
                                         self.fusion_safe)
                fallback = self._fallback(fn, plan)
                self._report(fn, plan, func, op, fallback)
                if self.mode == "alias":
                    self._rewrite_alias(func, fn, plan, fallback)
                else:
                    self._rewrite_materialize(func, fn, plan, op)

    def _fallback(self, fn: FunctionModel, plan: DonationPlan) -> XlaFallback:
        """What unpaired donors keep: for XLA (``xla-fallback``) JAX's choice, else nothing
        but the ``keep-unpaired-donors`` mark."""
        if not self.xla_fallback:
            return xla_fallback(plan, {}, (), keep_unpaired=self.keep_unpaired_donors)
        jax_aliases = {a.index: a.donation.alias_index for a in fn.donors
                       if a.donation.kind is DonationKind.ALIASING_OUTPUT
                       and a.donation.alias_index is not None}
        jax_donors = {a.index for a in fn.donors if a.donation.kind is DonationKind.BUFFER_DONOR}
        return xla_fallback(plan, jax_aliases, jax_donors, keep_unpaired=self.keep_unpaired_donors)

    def _report(self, fn: FunctionModel, plan: DonationPlan, func: FuncOp, module: ModuleOp,
                fallback: XlaFallback) -> None:
        unpaired = plan.unpaired
        if self.strict and unpaired:
            lines = "\n".join(f"  {v.message}" for v in unpaired)
            raise fail(f"strict donation: {len(unpaired)} donated argument(s) of @{fn.name} "
                       f"cannot be reused:\n{lines}", func, module)
        for verdict in unpaired:
            note = fallback.notes.get(verdict.arg.index) if self.xla_fallback else None
            message = verdict.message + (f"; {note}" if note else "")
            emit(Diagnostic("warning", message, _verdict_loc(fn, verdict)))

    def _rewrite_alias(self, func: FuncOp, fn: FunctionModel, plan: DonationPlan,
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
                             module: ModuleOp) -> None:
        ret = fn.return_handle
        assert isinstance(ret, Operation)
        block = func.body.blocks.first
        assert block is not None
        removed = sorted(plan.pairs.values()) if self.remove_matched_outputs else []
        if removed:
            _check_callers(func, removed, module)

        new_outputs: list[SSAValue] = list(ret.operands)
        for d, k in sorted(plan.pairs.items(), key=lambda p: p[1]):
            value, dest = ret.operands[k], block.args[d]
            if value is dest:
                continue  # the donor is returned unchanged: it already is in place
            mat = MaterializeInDestinationOp(operands=[value, dest], result_types=[value.type])
            block.insert_op_before(mat, ret)
            new_outputs[k] = mat.results[0]

        attrs = _arg_attr_dicts(func)
        donor_ids = {a.index for a in fn.donors}
        for i, d in enumerate(attrs):
            if i in donor_ids:
                d.pop(ALIASING_OUTPUT, None)
                keep = i not in plan.pairs and self.keep_unpaired_donors
                if not keep:
                    d.pop(BUFFER_DONOR, None)
                d[WRITABLE] = IntegerAttr.from_bool(i in plan.pairs or keep)
            else:
                d[WRITABLE] = IntegerAttr.from_bool(False)
        _set_arg_attrs(func, attrs)

        if removed:
            gone = set(removed)
            new_outputs = [v for k, v in enumerate(new_outputs) if k not in gone]
            outputs = [t for k, t in enumerate(func.function_type.outputs.data) if k not in gone]
            func.function_type = FunctionType.from_lists(func.function_type.inputs.data, outputs)
            if func.res_attrs is not None:
                func.res_attrs = ArrayAttr(
                    [a for k, a in enumerate(func.res_attrs.data) if k not in gone])
            _update_callers(func, gone, module)
        ret.operands = new_outputs


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


def plan_function(func: FuncOp, module: ModuleOp, ordering: Ordering,
                  keep_existing_aliases: bool, fusion_safe: bool = False
                  ) -> tuple[FunctionModel, DonationPlan]:
    """Build the model of ``func`` and plan it; errors become anchored
    :class:`PassFailedException`s. For XLA's orderings calls are inlined first, as XLA
    inlines them before copy insertion."""
    try:
        fn = build_function_model(func, inline=ordering_model(ordering).xla)
        plan = core_plan_donation(fn, ordering, keep_existing_aliases, fusion_safe)
    except DonationError as err:
        raise _from_donation_error(err, func, module) from None
    record_plan(fn, plan)
    return fn, plan


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

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.ordering not in ORDERING_NAMES:
            raise PassFailedException(
                f"{self.name}: unknown ordering '{self.ordering}'; expected one of "
                f"{', '.join(ORDERING_NAMES)}")
        ordering: Ordering = self.ordering
        with gc_paused():
            for func in list(functions_with_donors(op)):
                plan_function(func, op, ordering, keep_existing_aliases=True)


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
    "plan_function",
    "record_plan",
    "record_plans",
]
