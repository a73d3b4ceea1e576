"""What ``jax-plan-donation`` keeps of unpaired donors and how it warns of them: one
implementation for the xDSL pass (:mod:`.transforms.plan_donation`) and both routes of
``jax-donate-opt``'s jaxlib path (:mod:`.jaxlib_path`, :mod:`.text_route`), free of any IR library.

:class:`PlanOptions` are the pass options these rules read; :func:`unpaired_fallback` decides
what an unpaired donor keeps (``xla-fallback``: JAX's own pair; ``keep-unpaired-donors``: the
``jax.buffer_donor`` mark) and :func:`warn_unpaired` emits one warning per unpaired donor,
located at the argument, else its blocking reader, else the function::

    /tmp/step.mlir:3:7: warning: donated argument 'w' (%arg0: tensor<4xf32>) is not reused: ...
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from dataclasses import dataclass

from jax_use_donated.analysis.model import DonationKind, FunctionModel, SourceLoc
from jax_use_donated.analysis.orderings import Ordering
from jax_use_donated.analysis.plan import DonationPlan, DonorVerdict, Reason
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
    """One warning per unpaired donor (with the fallback's note under ``xla-fallback``); a
    ``strict`` plan with unpaired donors is the caller's error, raised before this."""
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
