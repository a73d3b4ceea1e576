"""The one planning loop every front end runs, free of any IR library.

For each function with donors: build the model, plan, decide what unpaired donors keep
(the fallback), refuse a strict plan, warn, write the rewrite::

    for func in front.functions():
        fn = front.build(func)                       # the adapter's model
        plan = front.plan(func, fn)                  # analysis.plan_donation by default
        fallback = front.fallback(func, fn, plan)    # xla-fallback, keep-unpaired-donors
        if options.strict and plan.unpaired: front.refuse(func, fn, plan)
        front.warn(func, fn, plan, fallback)         # one warning per unpaired donor
        front.write(func, fn, plan, fallback)        # the front end's rewrite

:class:`FrontEnd` holds what differs (which functions, how the model is built, how a rewrite
is written, how a refusal is reported); :func:`plan_functions` is the loop. Its callers are
thin: the xDSL passes (:mod:`.xdsl_plugin.plan_donation`, ``jax-verify-donation``,
:mod:`.xdsl_plugin.reuse_donated_destinations`), both routes of ``jax-donate-opt``'s jaxlib
path (:mod:`.opt.jaxlib_path`, :mod:`.opt.text_route`) and the drop-in's planner
(:mod:`.dropin.planner`). A refused plan is one error family: :class:`.DonationError` (a
malformed attribute, an unsafe kept alias) and its :class:`StrictDonationError` (a strict
plan with donors that cannot be reused); each front end turns it into its own report (an
anchored xDSL diagnostic, the jaxlib path handing over to the xDSL path, a Python exception).

Also here: :class:`PlanOptions` (the pass options these steps read), :func:`unpaired_fallback`
and :func:`warn_unpaired` (the default fallback and warnings, located at the argument, else
its blocking reader, else the function) and :func:`gc_paused`::

    /tmp/step.mlir:3:7: warning: donated argument 'w' (%arg0: tensor<4xf32>) is not reused: ...
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from jax_use_donated.analysis.errors import DonationError
from jax_use_donated.analysis.model import DonationKind, FunctionModel, SourceLoc
from jax_use_donated.analysis.orderings import Ordering
from jax_use_donated.analysis.plan import DonationPlan, DonorVerdict, Reason, plan_donation
from jax_use_donated.analysis.xla_fallback import XlaFallback, xla_fallback
from jax_use_donated.diagnostics import Diagnostic, emit


@dataclass(frozen=True)
class PlanOptions:
    """The options of ``jax-plan-donation`` (or ``jax-verify-donation``: ``verify``) that
    the plan, the fallback and the warnings depend on."""

    ordering: Ordering
    keep_existing_aliases: bool = False
    fusion_safe: bool = False
    strict: bool = False
    xla_fallback: bool = False
    keep_unpaired_donors: bool = False
    verify: bool = False
    """Plan only (check the kept aliases): no fallback, warning or rewrite."""


class StrictDonationError(DonationError):
    """A strict plan refused: donors of ``fn`` that cannot be reused (``plan.unpaired``).

    The message lists them: ``strict donation: 1 donated argument(s) of @f cannot be
    reused:\\n  donated argument 'w' (%arg0: ...) is not reused: ...``."""

    def __init__(self, fn: FunctionModel, plan: DonationPlan) -> None:
        unpaired = plan.unpaired
        lines = "\n".join(f"  {v.message}" for v in unpaired)
        super().__init__(f"strict donation: {len(unpaired)} donated argument(s) of @{fn.name} "
                         f"cannot be reused:\n{lines}", fn.handle)
        self.fn = fn
        self.plan = plan


F = TypeVar("F")
"""A front end's handle of one function (an xDSL ``FuncOp``, a jaxlib operation, ...)."""


@dataclass
class Planned(Generic[F]):
    """One function the loop planned."""

    func: F
    fn: FunctionModel
    plan: DonationPlan
    fallback: XlaFallback = field(default_factory=XlaFallback)


class FrontEnd(Generic[F]):
    """What one front end does at each step of :func:`plan_functions`; the defaults are the
    ``jax-plan-donation`` rules (:class:`PlanOptions`)."""

    def __init__(self, options: PlanOptions) -> None:
        self.options = options

    def functions(self) -> Iterable[F]:
        """The functions to plan, in order."""
        raise NotImplementedError

    def build(self, func: F) -> FunctionModel:
        """The model of ``func`` (may raise :class:`DonationError`)."""
        raise NotImplementedError

    def plan(self, func: F, fn: FunctionModel) -> DonationPlan:
        o = self.options
        return plan_donation(fn, o.ordering, o.keep_existing_aliases, o.fusion_safe)

    def planned(self, item: Planned[F]) -> None:
        """Called once per function right after its plan (before the refusal check)."""

    def failed(self, func: F, err: DonationError) -> None:
        """``build`` or ``plan`` raised ``err``: raise the front end's own report of it (the
        loop re-raises ``err`` itself otherwise)."""

    def fallback(self, func: F, fn: FunctionModel, plan: DonationPlan) -> XlaFallback:
        return unpaired_fallback(self.options, fn, plan)

    def refuse(self, func: F, fn: FunctionModel, plan: DonationPlan) -> None:
        """A strict plan has unpaired donors: raise."""
        raise StrictDonationError(fn, plan)

    def warn(self, func: F, fn: FunctionModel, plan: DonationPlan,
             fallback: XlaFallback) -> None:
        warn_unpaired(self.options, plan, fallback, fn)

    def write(self, func: F, fn: FunctionModel, plan: DonationPlan,
              fallback: XlaFallback) -> None:
        """Write the plan back into ``func``."""


STEPS = ("model", "plan", "rewrite")
"""The steps :func:`plan_functions` times: model (build), plan, rewrite (fallback, warnings
and the front end's rewrite)."""


def plan_functions(front: FrontEnd[F], seconds: dict[str, float] | None = None
                   ) -> list[Planned[F]]:
    """Run the loop of the module docstring over ``front``'s functions; the functions
    planned. ``seconds`` accumulates wall time per step (:data:`STEPS`). The cyclic garbage
    collector is paused throughout (:func:`gc_paused`)."""
    options = front.options
    done: list[Planned[F]] = []
    clock = seconds if seconds is not None else {}
    for step in STEPS:
        clock.setdefault(step, 0.0)
    with gc_paused():
        for func in front.functions():
            t0 = time.perf_counter()
            try:
                fn = front.build(func)
                t1 = time.perf_counter()
                plan = front.plan(func, fn)
            except DonationError as err:
                front.failed(func, err)
                raise
            t2 = time.perf_counter()
            item = Planned(func, fn, plan)
            done.append(item)
            front.planned(item)
            if not options.verify:
                item.fallback = front.fallback(func, fn, plan)
                if options.strict and plan.unpaired:
                    front.refuse(func, fn, plan)
                front.warn(func, fn, plan, item.fallback)
                front.write(func, fn, plan, item.fallback)
            clock["model"] += t1 - t0
            clock["plan"] += t2 - t1
            clock["rewrite"] += time.perf_counter() - t2
    return done


def unpaired_fallback(options: PlanOptions, fn: FunctionModel, plan: DonationPlan
                      ) -> XlaFallback:
    """What unpaired donors keep: for XLA (``xla-fallback``) JAX's choice, else nothing but
    the ``keep-unpaired-donors`` mark."""
    if not options.xla_fallback:
        return xla_fallback(plan, {}, (), keep_unpaired=options.keep_unpaired_donors)
    jax_aliases = {a.index: a.donation.alias_index for a in fn.donors
                   if a.donation.kind is DonationKind.ALIASING_OUTPUT
                   and a.donation.alias_index is not None}
    jax_donors = {a.index for a in fn.donors if a.donation.kind is DonationKind.BUFFER_DONOR}
    return xla_fallback(plan, jax_aliases, jax_donors, keep_unpaired=options.keep_unpaired_donors)


def verdict_loc(fn: FunctionModel, verdict: DonorVerdict) -> SourceLoc:
    """The argument's location, else the blocking reader's, else the function's."""
    text = verdict.arg.loc.text
    if text is None and verdict.reason is Reason.READ_AFTER_WRITE:
        reader = next((b.reader for b in verdict.blockers if b.reader is not None), None)
        text = reader.loc.text if reader is not None else None
    return SourceLoc(text=text or fn.loc.text, name=verdict.arg.display_name)


def warn_unpaired(options: PlanOptions, plan: DonationPlan, fallback: XlaFallback,
                  fn: FunctionModel) -> None:
    """One warning per unpaired donor (with the fallback's note under ``xla-fallback``)."""
    for verdict in plan.unpaired:
        note = fallback.notes.get(verdict.arg.index) if options.xla_fallback else None
        message = verdict.message + (f"; {note}" if note else "")
        emit(Diagnostic("warning", message, verdict_loc(fn, verdict)))


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector inside the block.

    Building a model and planning allocate many small objects while a large module is alive,
    and every full collection would rescan that module (measured: it made the pass superlinear
    in module size, and cost the jit hook 0.1-0.3 s per lowering of a 21k-op step). What the
    block creates is acyclic, so reference counting frees it.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
