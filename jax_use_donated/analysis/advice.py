"""What a change to a function's donations could save, predicted from the model alone.

No executable here: the drop-in's advisor (:mod:`jax_use_donated.dropin.advice`) compiles and
measures what these rules predict; ``jax-donate-opt`` can print them for a module file, where
there is nothing to compile (:func:`predict_advice`, :func:`format_predicted`).

Per argument worth mentioning, one :class:`PredictedAdvice`:

* ``donate``: an argument not donated whose type and placement some result has, and which
  would host one of them copy-free (its last read comes before that result's write, in the
  ordering's sense) without taking it from a donor that already has it;
* ``restructure``: a donated argument every result of its type is written before its last
  read, where that read uses the new value (data dependence): no ordering can help, a change
  to the function can (read the old value before the update, return a value once);
* ``reorder``: a donated argument whose blocking read does not depend on the write, but the
  backend's ordering puts it after (XLA's default copy insertion orders by data dependence
  only), or whose pair closes a cycle with other pairs' orders;
* ``none``: nothing can help: no result of its size, dtype, layout or sharding; every result
  of its type is hosted by another donor; the result is produced by an op that cannot write
  in place, a constant, or the argument itself returned.

Example::

    fn = function_model(...)             # an adapter's model of @main
    for a in predict_advice(fn, "xla-cpu-region"):
        print(a.name, a.action, a.bytes_saved, a.reason)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from jax_use_donated.analysis.liveness import Liveness
from jax_use_donated.analysis.model import Arg, Donation, DonationKind, FunctionModel, Op
from jax_use_donated.analysis.orderings import Ordering, ordering_model
from jax_use_donated.analysis.plan import (
    Blocker,
    DonationPlan,
    DonorVerdict,
    Reason,
    _blocker_text,
    compat_key,
    plan_donation,
)

Action = Literal["donate", "reorder", "restructure", "none"]
"""What an advice entry asks of the user (see the module docstring)."""

ACTIONS: tuple[Action, ...] = ("donate", "reorder", "restructure", "none")


@dataclass(frozen=True)
class PredictedAdvice:
    """One argument's advice as the rules predict it (no executable measured it)."""

    arg: int
    """The argument's index in the function."""
    name: str
    """Its name (``loc("params['w']")``), else ``%argN``."""
    action: Action
    donated: bool
    """Whether the argument is donated already."""
    nbytes: int
    bytes_saved: int
    """Predicted: the output bytes no longer allocated once the advice is followed (0 for
    ``none``)."""
    result: int | None
    """The result it would host (``donate``), or the one it is blocked from."""
    reason: str
    """Why, in words, naming the blocking read and the write where there are."""
    reader: Op | None = None
    writer: Op | None = None


def compatible_results(fn: FunctionModel, arg: Arg) -> list[int]:
    """The results ``arg`` could host: identical type and placement."""
    key = compat_key(arg)
    if key is None:
        return []
    return [r.index for r in fn.results if compat_key(r) == key]


def mismatch_reason(fn: FunctionModel, arg: Arg) -> str:
    """Why no result of ``fn`` fits ``arg``: its size, its dtype or shape, its layout, memory
    kind or sharding (for an argument with no :func:`compatible_results`)."""
    if arg.tensor is None:
        return f"it is not a ranked tensor ({arg.type_text}): nothing can reuse it"
    nbytes = arg.tensor.nbytes
    typed = [r for r in fn.results if r.tensor is not None and r.tensor.text == arg.tensor.text]
    if typed:
        p = arg.placement
        for field_name, what in (("sharding", "sharding"), ("memory_kind", "memory kind"),
                                 ("layout", "layout")):
            mine = getattr(p, field_name)
            theirs = {getattr(r.placement, field_name) for r in typed}
            if mine not in theirs:
                shown = ", ".join(sorted(str(t) for t in theirs))
                return (f"its {what} ({mine}) differs from every {arg.type_text} result's "
                        f"({shown})")
        return f"its placement differs from every {arg.type_text} result's"
    same_size = [r for r in fn.results if r.tensor is not None and r.tensor.nbytes == nbytes]
    if same_size:
        kinds = sorted({r.tensor.text for r in same_size if r.tensor is not None})
        same_shape = [t for t in same_size if t.tensor is not None
                      and t.tensor.shape == arg.tensor.shape]
        what = "dtype" if same_shape else "shape"
        return (f"no result has type {arg.type_text}; the results of its size ({nbytes} B) have "
                f"another {what}: {', '.join(kinds)}")
    return f"no result has its size ({nbytes} B, {arg.type_text})"


def with_donors(fn: FunctionModel, extra: Iterable[int]) -> FunctionModel:
    """``fn`` with the arguments ``extra`` donated too (as ``jax.buffer_donor``: the planner
    chooses their results)."""
    extra = set(extra)
    args = [dataclasses.replace(a, donation=Donation(DonationKind.BUFFER_DONOR))
            if a.index in extra and not a.donation.donated else a for a in fn.args]
    return FunctionModel(fn.name, args, fn.ops, fn.results, fn.loc, fn.handle, fn.return_handle)


def donation_candidates(fn: FunctionModel) -> list[int]:
    """The arguments not donated that some result's type and placement fit: the only ones a
    ``donate`` advice can name (another dtype, size, layout or sharding never qualifies)."""
    return [a.index for a in fn.args if not a.donation.donated and compatible_results(fn, a)]


def _liveness(fn: FunctionModel, plan: DonationPlan) -> Liveness:
    if plan.checker is not None and plan.checker.fn is fn:
        return plan.checker.live
    return Liveness(fn, fusion_duplication=ordering_model(plan.ordering).xla)


def donor_advice(fn: FunctionModel, plan: DonationPlan, verdict: DonorVerdict,
                 live: Liveness | None = None) -> PredictedAdvice | None:
    """The advice for one donated argument the plan leaves without a copy-free result
    (``None`` when it has one)."""
    arg = verdict.arg
    if verdict.result is not None:
        return None
    live = live if live is not None else _liveness(fn, plan)

    def entry(action: Action, saved: int, result: int | None, reason: str,
              reader: Op | None = None, writer: Op | None = None) -> PredictedAdvice:
        return PredictedAdvice(arg.index, arg.display_name, action, True, arg.nbytes, saved,
                               result, reason, reader, writer)

    if verdict.reason is Reason.NO_COMPATIBLE_RESULT:
        return entry("none", 0, None, mismatch_reason(fn, arg)
                     + ("; it is never read" if verdict.unused else ""))
    if verdict.reason is Reason.OUTNUMBERED:
        held = ", ".join(f"{fn.args[d].display_name} hosts result {k}"
                         for d, k in verdict.rivals)
        return entry("none", 0, None, "every result of its type is hosted by another donor"
                     + (f" ({held})" if held else ""))
    blocker = verdict.blockers[0] if verdict.blockers else None
    if blocker is None:
        return entry("none", 0, None, verdict.message)
    action, why = blocker_action(fn, live, plan.ordering, blocker)
    saved = arg.nbytes if action != "none" else 0
    return entry(action, saved, blocker.result, why, blocker.reader, blocker.writer)


def blocker_action(fn: FunctionModel, live: Liveness, ordering: Ordering,
                   b: Blocker) -> tuple[Action, str]:
    """The change that would remove blocker ``b`` (a donor's pair with ``b.result``), and why,
    in words: ``restructure`` (a read that uses the new value; a value returned twice),
    ``reorder`` (an independent read the ordering puts last; a cycle of orders) or ``none``."""
    text = _blocker_text(b)
    if b.cycle:
        return ("reorder", f"{text}: compute this update after the reads the other pairs "
                           "need first, or let it host another result")
    if (b.in_place_of is not None or b.constant or b.fused or b.free_for is not None
            or b.returned_in is not None):
        return "none", text
    if b.reader is not None and b.reader is b.writer:
        return "none", text
    if b.writer is None:
        return ("restructure", f"{text}: return the value once (XLA fills a second return of "
                               "one value with a copy)")
    if b.reader is None:
        return "none", text
    reader, writer = b.reader, b.writer
    if live.depends(writer.index, reader.index):
        return ("restructure",
                f"{text}, and that read uses the new value: compute it from the old value "
                f"before the update ({writer.describe()}), or return what it needs")
    if ordering_model(ordering).kind == "dataflow":
        return ("reorder",
                f"{text}; the read does not feed the update, and this backend's copy "
                "insertion orders by data dependence only: make the update depend on the "
                "read, or compile with region analysis (jax_use_donated.jit's default on one "
                "CPU device)")
    return ("reorder", f"{text}: move the read before the update")


def predict_advice(fn: FunctionModel, ordering: Ordering,
                   plan: DonationPlan | None = None, alone_limit: int = 64
                   ) -> list[PredictedAdvice]:
    """Every argument worth mentioning, predicted (see the module docstring): for each
    :func:`donation_candidates` argument the model is planned with it donated too (alone,
    for up to ``alone_limit`` candidates; beyond, all of them at once), and it is advised
    when that plan pairs it and saves bytes; every donated argument without a copy-free
    result gets :func:`donor_advice`."""
    plan = plan if plan is not None else plan_donation(fn, ordering)
    live = _liveness(fn, plan)
    out: list[PredictedAdvice] = []
    base_bytes = plan.aliased_bytes(fn)
    candidates = donation_candidates(fn)
    joint: DonationPlan | None = None
    if len(candidates) > alone_limit:
        joint_fn = with_donors(fn, candidates)
        joint = plan_donation(joint_fn, ordering)
    for c in candidates:
        if joint is not None:
            trial_fn, trial = fn, joint
            saved = fn.args[c].nbytes if c in joint.pairs else 0
        else:
            trial_fn = with_donors(fn, [c])
            trial = plan_donation(trial_fn, ordering)
            saved = trial.aliased_bytes(trial_fn) - base_bytes
        if c in trial.pairs and saved > 0:
            out.append(PredictedAdvice(c, fn.args[c].display_name, "donate", False,
                                       fn.args[c].nbytes, saved, trial.pairs[c],
                                       f"it would host result {trial.pairs[c]} without a copy"))
    for v in plan.verdicts:
        a = donor_advice(fn, plan, v, live)
        if a is not None:
            out.append(a)
    out.sort(key=lambda a: a.arg)
    return out


def format_predicted(advice: Sequence[PredictedAdvice], function: str) -> str:
    """A table of predicted advice (what ``jax-donate-opt`` can print for a module file):
    predicted only, there is no executable to measure."""
    lines = [f"advice for @{function} (predicted from the module: nothing compiled or measured)"]
    if not advice:
        lines.append("  nothing to advise: every donated argument is reused and no other "
                     "argument could host a result")
    for a in advice:
        saved = f"{a.bytes_saved} B" if a.bytes_saved else "-"
        extra = " (if the caller does not use it after the call)" if a.action == "donate" else ""
        lines.append(f"  {a.name}: {a.action}, saves {saved}: {a.reason}{extra}")
    return "\n".join(lines)
