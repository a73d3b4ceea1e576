"""``advise``: which donations would make a call use less memory, each suggestion compiled and
measured before it is called verified.

``jax_use_donated.advise(step, params, opt, batch)`` (or ``step.advise(...)`` on a
``jax_use_donated.jit``) returns an :class:`Advice`: per leaf worth mentioning one
:class:`Suggestion`::

    advice = jud.advise(step, params, opt_state, batch)
    print(advice)                       # a short table, and the total
    [s.path for s in advice.verified]   # ["opt_state[0].mu['w']", ...]
    advice.footprint, advice.footprint_advised   # bytes as called, and with the advice applied

``donate`` suggestions name a leaf the call does not donate that could host a result
copy-free: the advisor compiles the function with that leaf donated too (planned by
``jax_use_donated.jit`` on a flattened wrapper, :mod:`.variants`), reads XLA's
``memory_analysis()``, runs it and the call as made on fresh copies of the arguments (the
caller's arrays are never donated), and marks it ``verified`` only when the leaf hosts its
result copy-free in the executable, the footprint drops (``bytes_saved`` is that measured
drop; the plan's prediction is ``predicted_bytes``, and the reason says where XLA's
temporaries make them differ) and every output is equal bit for bit. Savings of
several suggestions are not additive (two leaves may compete for one result), so the total
applies every verified suggestion together and is measured too. ``restructure`` and
``reorder`` name a change to the function that would let a donated leaf be used (read the old
value before the update, return a value once, ...): predicted from the plan's model, never
verified (the advisor cannot rewrite the function). ``none`` says why nothing can help (no
result of its size, dtype, layout or sharding; every result of its type already hosted).

The advice is about the function: it cannot know whether the caller uses an array after the
call, so each ``donate`` says "if you do not use it after this call".
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jax_use_donated.analysis.advice import Action, donor_advice
from jax_use_donated.analysis.model import Arg, Placement, Result
from jax_use_donated.analysis.picture import group_paths
from jax_use_donated.analysis.plan import single_device_placement
from jax_use_donated.analysis.report_schema import format_bytes
from jax_use_donated.dropin import extensions
from jax_use_donated.dropin.records import CallPlan, LoweringRecord
from jax_use_donated.dropin.variants import (
    CallSite,
    DeletedArgument,
    Footprint,
    Variant,
    call_site,
    same_outputs,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

TOLERANCE = 0.01
"""A group of suggestions is verified in one compile when its measured saving is within this
fraction of the sum of its members' predicted bytes (each member's saving is then its
prediction); a measured saving further from the prediction than this is explained."""


@dataclass(frozen=True)
class Suggestion:
    """One leaf worth mentioning, and what to do about it."""

    path: str
    """The leaf as ``LeafDonation.path`` names it (``opt_state[0].mu['w']``)."""
    action: Action
    """``donate``, ``reorder``, ``restructure`` or ``none``."""
    bytes_saved: int
    """What applying this suggestion alone to the call as made saves (measured for verified
    suggestions, predicted otherwise; 0 for ``none``)."""
    verified: bool
    """Compiled and measured: the leaf hosts its result copy-free in the executable, XLA's
    footprint drops by :attr:`bytes_saved` (> 0), and the outputs are unchanged."""
    reason: str
    """Why, in words (the result it hosts; the blocking read and its source line)."""
    leaf: int | None = None
    """Its index among the call's flat dynamic leaves (``LeafDonation.leaf``)."""
    donated: bool = False
    """Whether the call donates it already."""
    nbytes: int = 0
    predicted_bytes: int = 0
    """What the plan predicts the suggestion saves: the bytes of the results it newly hosts
    copy-free. XLA's measured saving can differ: a loop's carry copies go too, or its
    buffer assignment packs the temporaries differently once an output is aliased (the
    reason says by how much); :attr:`bytes_saved` is the measurement."""
    result_path: str | None = None
    """The result it would host (``donate``) or is blocked from."""
    measured_alone: bool = False
    """``bytes_saved`` was measured by compiling this suggestion alone (else together with
    other suggestions whose stated savings the compile confirmed, see :func:`advise_call`)."""
    results_equal: bool | None = None
    """The compiled suggestion's outputs equal the call's (``None``: not run)."""
    on_top_of: tuple[str, ...] = ()
    """The suggestions it was measured on top of (empty: against the call as made): a saving
    that appears only once those are applied."""
    note: str = ""

    @property
    def caveat(self) -> str:
        """What the advice cannot know about the caller."""
        if self.action != "donate":
            return ""
        return f"if you do not use {self.path} after this call"


@dataclass
class Advice:
    """The advice for one call (see the module docstring); ``str()`` is a short table."""

    function: str
    plan: CallPlan
    """The call's plan as made, measured (what :func:`jax_use_donated.plan` returns)."""
    suggestions: list[Suggestion]
    footprint: int
    """Bytes as called (``memory_analysis()``: arguments + outputs - aliased + temporaries)."""
    footprint_advised: int
    """Bytes with every applied verified suggestion donated too, measured (= :attr:`footprint`
    when there is none)."""
    applied: tuple[str, ...] = ()
    """The verified suggestions the total applies (one of two that compete for a result)."""
    results_equal: bool = True
    """The advised compile's outputs equal the call's."""
    inputs: str = "copies of the arguments"
    """What the compiles ran on: copies of the caller's arrays, or generated values."""
    donate_hint: str = ""
    """How to write the applied suggestions as ``jit`` options, e.g. ``donate_argnums=(0, 1)``."""
    hint_footprint: int | None = None
    """The footprint of the user's own function jitted with :attr:`donate_hint`, measured."""
    donate_argnums: tuple[int, ...] = ()
    """:attr:`donate_hint`'s positional arguments (with those the call donates already)."""
    donate_argnames: tuple[str, ...] = ()
    compiles: int = 0
    seconds: float = 0.0
    breakdown: dict[str, Footprint] = field(default_factory=dict)
    """``"as called"`` and ``"advised"`` footprints in parts."""
    notes: list[str] = field(default_factory=list)
    site: CallSite | None = field(default=None, repr=False)

    @property
    def verified(self) -> list[Suggestion]:
        return [s for s in self.suggestions if s.verified]

    @property
    def bytes_saved(self) -> int:
        """Measured: :attr:`footprint` - :attr:`footprint_advised`."""
        return self.footprint - self.footprint_advised

    def suggestion(self, path: str) -> Suggestion:
        """The suggestion for the leaf named ``path`` (``KeyError`` if none)."""
        for s in self.suggestions:
            if s.path == path:
                return s
        raise KeyError(path)

    def plot(self) -> Figure:
        """:meth:`CallPlan.plot` of this call, with this advice's bar."""
        return extensions.plan_method("plot")(self.plan, self)

    def to_html(self) -> str:
        """:meth:`CallPlan.to_html` of this call, with this advice's bar and table."""
        return extensions.plan_method("to_html")(self.plan, self)

    def summary(self) -> list[str]:
        """The total (measured), how to apply it, notes and the caveat: ``str()``'s last
        lines."""
        lines: list[str] = []
        applied = len(self.applied)
        lines.append(
            f"footprint as called {format_bytes(self.footprint)}; with the {applied} verified "
            f"suggestion{'s' if applied != 1 else ''} applied {format_bytes(self.footprint_advised)}"
            f" (saves {format_bytes(self.bytes_saved)}, measured"
            + ("; outputs equal" if self.results_equal else "; OUTPUTS DIFFER") + ")")
        if self.donate_hint:
            hint = f"to apply them: {self.donate_hint}"
            if self.hint_footprint is not None:
                hint += f" (measured {format_bytes(self.hint_footprint)})"
            lines.append(hint)
        lines.extend(self.notes)
        if any(s.action == "donate" for s in self.suggestions):
            lines.append("The advice is about the function: it cannot know whether you use "
                         "an array after the call.")
        return lines

    def __str__(self) -> str:
        head = (f"advice for {self.function} ({self.compiles} compiles on {self.inputs}, "
                f"{self.seconds:.1f} s)")
        rows = [("leaf", "action", "saves", "verified", "why")]
        shown = self.suggestions if len(self.suggestions) <= ROWS else _grouped(self)
        for s in shown:
            saved = format_bytes(s.bytes_saved) if s.bytes_saved else "-"
            why = s.reason + (f"; {s.caveat}" if s.caveat else "") + (
                f" ({s.note})" if s.note else "")
            rows.append((s.path, s.action, saved,
                         "yes" if s.verified else "no" if s.action != "none" else "-", why))
        lines = [head]
        if len(rows) > 1:
            widths = [max(len(r[i]) for r in rows) for i in range(4)]
            for n, r in enumerate(rows):
                lines.append("  " + "  ".join(c.ljust(w) for c, w in zip(r[:4], widths,
                                                                         strict=True))
                             + "  " + r[4])
                if n == 0:
                    lines.append("  " + "  ".join("-" * w for w in widths) + "  ---")
        else:
            lines.append("  nothing to advise: every donated leaf hosts a result, and no "
                         "other leaf could")
        lines.extend(self.summary())
        return "\n".join(lines)

    __repr__ = __str__


ROWS = 24
"""Above this many suggestions ``str()`` groups them by path prefix and action."""


def _grouped(advice: Advice) -> list[Suggestion]:
    groups = group_paths([s.path for s in advice.suggestions], ROWS)
    buckets: dict[tuple[str, str, bool], list[Suggestion]] = {}
    for s in advice.suggestions:
        buckets.setdefault((groups[s.path], s.action, s.verified), []).append(s)
    out = []
    for (prefix, action, verified), members in buckets.items():
        first = members[0]
        out.append(Suggestion(
            f"{prefix} ({len(members)} leaves)" if len(members) > 1 else first.path, first.action,
            sum(m.bytes_saved for m in members), verified,
            first.reason if len(members) == 1 else _common_reason(members, action)))
    out.sort(key=lambda s: (-s.bytes_saved, s.path))
    return out


def _common_reason(members: Sequence[Suggestion], action: str) -> str:
    if action == "donate":
        return "each hosts a result without a copy"
    return members[0].reason


def advise(fun: Any, *args: Any, **kwargs: Any) -> Advice:
    """The verified donation advice for calling the jitted ``fun`` with these arguments (see
    the module docstring); ``fun`` is a ``jax_use_donated.jit`` or ``jax.jit`` object (a plain
    ``jax.jit`` is advised as ``jax_use_donated.jit`` would compile it). The arguments are
    copied, never donated::

        advice = jud.advise(step, params, opt_state, batch)
        print(advice)
    """
    return advise_call(fun, args, kwargs)


def advise_call(fun: Any, args: Sequence[Any], kwargs: dict[str, Any] | None = None, *,
                max_alone: int = 8, max_compiles: int = 32,
                generated_inputs: bool = False) -> Advice:
    """:func:`advise` with its knobs: ``max_alone`` candidates (largest first) are compiled
    alone; the others are verified in groups: one compile in which every member hosts its
    result copy-free, the footprint drops and the outputs are equal verifies each member,
    with its share (by size) of the measured saving as ``bytes_saved`` (``measured_alone``
    false; the note gives the group's measurement and the plan's prediction); members that
    compete with others of the group are verified without them, and a group that saves
    nothing is split in halves. At most ``max_compiles`` compiles in all (a compile of a real
    train step takes seconds). ``generated_inputs`` runs the compiles on generated values
    instead of copies of the arguments (also when an argument was deleted or is abstract).

        advice = advise_call(step, (params, opt, batch), max_alone=4, max_compiles=16)
    """
    from jax_use_donated.dropin import api

    t0 = time.perf_counter()
    kwargs = dict(kwargs or {})
    site = call_site(fun, args, kwargs)
    record, name, lowered = api._lowered_record(fun, tuple(args), kwargs)
    as_called = Footprint.of(lowered.compile())
    if record is not None:
        api._truth(record, lowered)
        plan0 = record.call_plan()
    else:
        plan0 = CallPlan(name, (), {}, ())
    advisor = _Advisor(site, max_alone, max_compiles, generated_inputs)
    advice = advisor.run(plan0, record, as_called)
    advice.seconds = time.perf_counter() - t0
    return advice


class _Advisor:
    def __init__(self, site: CallSite, max_alone: int, max_compiles: int,
                 generated: bool) -> None:
        self.site = site
        self.max_alone = max_alone
        self.max_compiles = max_compiles
        self.generated = generated or not site.copies_available()
        self.reference: list[Any] | None = None
        self.notes: list[str] = []
        self.candidates: list[int] = []

    # ----------------------------------------------------------------------------- helpers

    def inputs(self) -> list[Any]:
        try:
            return self.site.inputs(generated=self.generated)
        except DeletedArgument:
            self.generated = True
            return self.site.inputs(generated=True)

    def outputs_equal(self, v: Variant) -> bool:
        assert self.reference is not None
        return same_outputs(self.site.run(v, self.inputs()), self.reference)

    def reused_bytes(self, v: Variant) -> int:
        return sum(self.site.nbytes[i] for i in v.reused())

    def budget_left(self) -> bool:
        return self.site.compiles < self.max_compiles

    # -------------------------------------------------------------------------------- run

    def run(self, plan0: CallPlan, record: LoweringRecord | None,
            as_called: Footprint) -> Advice:
        site = self.site
        base = site.compile(site.donated)
        self.reference = site.run(base, self.inputs())
        if base.footprint.total != as_called.total:
            self.notes.append(
                f"note: the flattened call measures {format_bytes(base.footprint.total)}, the call as "
                f"made {format_bytes(as_called.total)}; savings are measured against the former")
        self.base = base
        suggestions = self._donor_suggestions(plan0, record)
        donate, total_set = self._donate_suggestions()
        suggestions = donate + suggestions
        total = site.compile(site.donated | total_set) if total_set else base
        applied = total_set & total.reused()
        if applied != total_set:
            total = site.compile(site.donated | applied)
            for i, s in enumerate(suggestions):
                if s.leaf in total_set - applied:
                    suggestions[i] = _replace(s, note="competes with another suggestion for "
                                              "the same result: with every suggestion applied "
                                              "it hosts nothing")
        total, applied = self._on_top(total, applied, suggestions)
        for i, s in enumerate(suggestions):  # name the result each hosts in the total
            x = _donation(total.plan, s.leaf) if s.leaf in applied else None
            if x is not None and x.result_path and s.result_path != x.result_path \
                    and not s.on_top_of:
                suggestions[i] = _replace(
                    s, result_path=x.result_path,
                    reason=s.reason.replace(f"host {s.result_path or 'a result'} ",
                                            f"host {x.result_path} ", 1))
        equal = self.outputs_equal(total) if applied else True
        advice = Advice(
            function=site.name, plan=plan0, suggestions=suggestions,
            footprint=as_called.total,
            footprint_advised=as_called.total - (base.footprint.total - total.footprint.total),
            applied=tuple(site.names[i] for i in sorted(applied)), results_equal=equal,
            inputs="generated inputs (an argument was deleted or abstract)" if self.generated
            else "copies of the arguments",
            breakdown={"as called": as_called, "advised": total.footprint},
            notes=self.notes, site=site)
        if applied:
            (advice.donate_hint, advice.hint_footprint, advice.donate_argnums,
             advice.donate_argnames) = self._hint(applied)
        advice.compiles = site.compiles
        return advice

    def _on_top(self, total: Variant, applied: set[int], suggestions: list[Suggestion]
                ) -> tuple[Variant, set[int]]:
        """Savings that appear only once other suggestions are applied (a leaf that hosts
        nothing alone, or only what another already hosts): the remaining candidates are
        compiled together on top of the applied ones; if that saves more, those copy-free
        there are compiled on top together and verified as one group (each with its share
        of the measured saving)."""
        site = self.site
        remaining = [c for c in self.candidates if c not in applied]
        if not remaining or not self.budget_left():
            return total, applied
        everything = site.compile(site.donated | applied | set(remaining))
        if everything.footprint.total >= total.footprint.total:
            return total, applied
        gained = sorted(everything.reused() & set(remaining))
        if not gained or not self.budget_left():
            return total, applied
        v = site.compile(site.donated | applied | set(gained))
        predicted = self.reused_bytes(v) - self.reused_bytes(total)
        measured = total.footprint.total - v.footprint.total
        if (not set(gained) <= v.reused() or predicted <= 0 or measured <= 0
                or not self.outputs_equal(v)):
            return total, applied
        on_top = tuple(site.names[i] for i in sorted(applied))
        shown = ", ".join(on_top[:3]) + (f" and {len(on_top) - 3} more" if len(on_top) > 3
                                          else "")
        for c, share in zip(gained, _shares(measured, [site.nbytes[c] for c in gained]),
                            strict=True):
            x = _donation(v.plan, c)
            result_path = x.result_path if x is not None else None
            new = Suggestion(
                site.names[c], "donate", share, True,
                f"it would host {result_path or 'a result'} without a copy, once {shown} "
                f"{'is' if len(on_top) == 1 else 'are'} donated too",
                leaf=c, nbytes=site.nbytes[c], predicted_bytes=site.nbytes[c],
                result_path=result_path, measured_alone=len(gained) == 1,
                results_equal=True, on_top_of=on_top,
                note="measured on top of the other suggestions"
                     + (f", with {len(gained) - 1} others (its share by size of {measured} B)"
                        if len(gained) > 1 else ""))
            index = next((i for i, s in enumerate(suggestions) if s.leaf == c), None)
            if index is None:
                suggestions.insert(0, new)
            else:
                suggestions[index] = new
        return v, applied | set(gained)

    def _donor_suggestions(self, plan0: CallPlan, record: LoweringRecord | None
                           ) -> list[Suggestion]:
        """``restructure`` / ``reorder`` / ``none`` for each donated leaf with no copy-free
        result in the call as made."""
        out: list[Suggestion] = []
        if record is None:
            return out
        fn, plan = record.function, record.plan
        verdicts = {v.arg.index: v for v in plan.verdicts}
        for x in plan0.donations:
            if x.status == "reused":
                continue
            nbytes = self.site.nbytes[x.leaf] if x.leaf is not None else 0
            if x.status == "removed" or x.parameter is None:
                out.append(Suggestion(
                    x.path, "none", 0, False,
                    "it is unused, so jit removes it and donating it saves nothing in this "
                    "step", leaf=x.leaf, donated=True, nbytes=nbytes))
                continue
            v = verdicts.get(x.parameter)
            a = donor_advice(fn, plan, v) if v is not None else None
            if a is None:
                continue
            result_path = (record.result_paths[a.result]
                           if a.result is not None and a.result < len(record.result_paths)
                           else None)
            out.append(Suggestion(
                x.path, a.action, a.bytes_saved, False,
                a.reason if a.action == "none" else f"predicted, not compiled: {a.reason}",
                leaf=x.leaf, donated=True, nbytes=nbytes, predicted_bytes=a.bytes_saved,
                result_path=result_path))
        return out

    def _candidates(self) -> tuple[list[int], dict[int, str], Variant | None]:
        """Leaves not donated that some result's type and placement fit, the reason other
        leaves of that kind are left out, and the variant with all of them donated."""
        site = self.site
        arrays = [i for i, a in enumerate(site.abstract)
                  if hasattr(a, "shape") and hasattr(a, "dtype")]
        every = site.compile(site.donated | set(arrays))
        if every.record is None:
            return [], {}, None
        fn = every.record.function
        leaf_of = {p: leaf for p, leaf in enumerate(every.record.arg_leaves)
                   if leaf is not None}
        fits = {_size_key(r) for r in fn.results}
        excluded: dict[int, str] = {}
        same_buffer = self._same_buffers()
        out = []
        for p, leaf in leaf_of.items():
            if leaf in site.donated or p >= len(fn.args):
                continue
            if _size_key(fn.args[p]) not in fits:
                continue  # another size, dtype or placement: never suggested
            if leaf in same_buffer:
                excluded[leaf] = (f"the same array is passed as {same_buffer[leaf]} too: "
                                  "donating one buffer twice is an error")
                continue
            out.append(leaf)
        return out, excluded, every

    def _same_buffers(self) -> dict[int, str]:
        """Leaves whose array object is also another leaf of the call."""
        seen: dict[int, int] = {}
        out: dict[int, str] = {}
        for i, ref in enumerate(self.site.live):
            x = ref() if ref is not None else None
            if x is None:
                continue
            j = seen.setdefault(id(x), i)
            if j != i:
                out[i] = self.site.names[j]
                out.setdefault(j, self.site.names[i])
        return out

    def _donate_suggestions(self) -> tuple[list[Suggestion], set[int]]:
        site = self.site
        candidates, excluded, every = self._candidates()
        self.candidates = candidates
        out: list[Suggestion] = []
        for leaf, why in excluded.items():
            out.append(Suggestion(site.names[leaf], "none", 0, False, why, leaf=leaf,
                                  nbytes=site.nbytes[leaf]))
        if not candidates or every is None:
            return out, set()
        joint = every.reused()
        order = sorted(candidates, key=lambda c: (c not in joint, -site.nbytes[c], c))
        verdicts: dict[int, Suggestion] = {}
        alone = order[:self.max_alone]
        for c in alone:
            if not self.budget_left():
                break
            verdicts[c] = self._alone(c)
        rest = [c for c in order[self.max_alone:] if c in joint]
        self._groups(rest, verdicts)
        for c in order:
            if c in verdicts:
                continue
            x = _donation(every.plan, c)
            reason = ("with every candidate donated, " + self._user_message(x, every)
                      if x is not None and c not in joint
                      else "not compiled alone (max_compiles reached)")
            verdicts[c] = Suggestion(site.names[c], "donate" if c in joint else "none",
                                     site.nbytes[c] if c in joint else 0, False, reason,
                                     leaf=c, nbytes=site.nbytes[c],
                                     predicted_bytes=site.nbytes[c] if c in joint else 0)
        out = [verdicts[c] for c in order] + out
        out.sort(key=lambda s: (s.action != "donate", not s.verified, -s.bytes_saved,
                                s.leaf if s.leaf is not None else 0))
        total = {s.leaf for s in out if s.verified and s.action == "donate"
                 and s.leaf is not None}
        return out, total

    def _user_message(self, x: Any, v: Variant) -> str:
        """A variant's verdict for one leaf in the user's names: the flattened wrapper's
        ``%argN`` and ``leaves[i]`` become leaf paths, ``result k`` the result's path."""
        site = self.site
        text = x.message.split(" is not reused: ", 1)[-1]
        record = v.record
        if record is None:
            return text

        def arg(m: re.Match[str]) -> str:
            p = int(m.group(1))
            leaf = record.arg_leaves[p] if p < len(record.arg_leaves) else None
            return site.names[leaf] if leaf is not None else m.group(0)

        def result(m: re.Match[str]) -> str:
            k = int(m.group(1))
            path = record.result_paths[k] if k < len(record.result_paths) else None
            return path or m.group(0)

        text = re.sub(r"%arg(\d+)", arg, text)
        text = re.sub(r"\bleaves\[(\d+)\]", lambda m: site.names[int(m.group(1))], text)
        return re.sub(r"\bresult (\d+)\b", result, text)

    def _alone(self, c: int) -> Suggestion:
        """Compile the call with leaf ``c`` donated too, and check what it saves."""
        site, base = self.site, self.base
        v = site.compile(site.donated | {c})
        stated = self.reused_bytes(v) - self.reused_bytes(base)
        measured = base.footprint.total - v.footprint.total
        x = _donation(v.plan, c)
        if c not in v.reused() or stated <= 0:
            why = (self._user_message(x, v) if x is not None and x.status != "reused" else
                   "donating it changes which donor hosts which result, but saves nothing")
            return Suggestion(site.names[c], "none", 0, False, why, leaf=c,
                              nbytes=site.nbytes[c], measured_alone=True)
        equal = self.outputs_equal(v)
        ok = equal and measured > 0
        result_path = x.result_path if x is not None else None
        reason = f"it would host {result_path or 'a result'} without a copy"
        if abs(measured - stated) > TOLERANCE * stated:
            reason += (f" (the plan predicts {stated} B; XLA's temporaries change by "
                       f"{stated - measured:+d} B)")
        if not ok:
            reason += ("; the outputs differ" if not equal
                       else "; XLA saves nothing in all: its temporaries grow by as much")
        return Suggestion(site.names[c], "donate", measured, ok, reason, leaf=c,
                          nbytes=site.nbytes[c], predicted_bytes=stated, result_path=result_path,
                          measured_alone=True, results_equal=equal)

    def _groups(self, group: list[int], verdicts: dict[int, Suggestion]) -> None:
        """Verify ``group`` in one compile (see :func:`advise_call`), or its copy-free part,
        or its halves."""
        site, base = self.site, self.base
        if not group or not self.budget_left():
            return
        if len(group) == 1:
            verdicts[group[0]] = self._alone(group[0])
            return
        v = site.compile(site.donated | set(group))
        free = [c for c in group if c in v.reused()]
        if len(free) != len(group):  # some compete with others of the group: keep the rest
            self._groups(free, verdicts)
            return
        predicted = self.reused_bytes(v) - self.reused_bytes(base)
        measured = base.footprint.total - v.footprint.total
        if measured > 0 and predicted > 0 and self.outputs_equal(v):
            shares = _shares(measured, [site.nbytes[c] for c in group])
            for c, share in zip(group, shares, strict=True):
                x = _donation(v.plan, c)
                result_path = x.result_path if x is not None else None
                verdicts[c] = Suggestion(
                    site.names[c], "donate", share, True,
                    f"it would host {result_path or 'a result'} without a copy",
                    leaf=c, nbytes=site.nbytes[c], predicted_bytes=site.nbytes[c],
                    result_path=result_path, measured_alone=False, results_equal=True,
                    note=f"verified with {len(group) - 1} others in one compile: together "
                         f"they save {measured} B (the plan predicts {predicted} B); this is "
                         "its share by size")
            return
        half = len(group) // 2
        self._groups(group[:half], verdicts)
        self._groups(group[half:], verdicts)

    def _hint(self, applied: set[int]
              ) -> tuple[str, int | None, tuple[int, ...], tuple[str, ...]]:
        """``donate_argnums=(...)`` / ``donate_argnames=(...)`` donating the user's own
        arguments that hold the applied leaves (with those already donated), and its
        footprint, compiled as the user would write it."""
        site = self.site
        import jax

        dyn_args, dyn_kwargs = site.treedef.unflatten(range(site.leaves))
        positions = [i for i in range(site.n_args) if i not in site.statics]
        wanted = applied | set(site.donated)
        argnums = sorted(positions[n] for n, sub in enumerate(dyn_args)
                         if set(jax.tree.leaves(sub)) & wanted)
        argnames = sorted(k for k, sub in dyn_kwargs.items()
                          if set(jax.tree.leaves(sub)) & wanted)
        parts = []
        if argnums:
            parts.append(f"donate_argnums={tuple(argnums)}")
        if argnames:
            parts.append(f"donate_argnames={tuple(argnames)}")
        hint = ", ".join(parts)
        held: set[int] = set()
        for n, sub in enumerate(dyn_args):
            if positions[n] in argnums:
                held |= set(jax.tree.leaves(sub))
        for k in argnames:
            held |= set(jax.tree.leaves(dyn_kwargs[k]))
        extra = sorted(held - wanted)
        if extra:
            names = ", ".join(site.names[i] for i in extra[:4])
            more = f" and {len(extra) - 4} more" if len(extra) > 4 else ""
            hint += f" (also donates {names}{more}, which host nothing)"
        try:
            footprint = _user_jit_footprint(site, argnums, argnames)
        except Exception as e:
            self.notes.append(f"note: could not compile the hint as written: {e}")
            footprint = None
        return hint, footprint, tuple(argnums), tuple(argnames)


def _user_jit_footprint(site: CallSite, argnums: Iterable[int], argnames: Iterable[str]
                        ) -> int:
    """The user's function jitted by ``jax_use_donated.jit`` with these donations, compiled
    for the call's abstract arguments."""
    from jax_use_donated.dropin import api

    info = site.jitted._jit_info
    o = site.options
    jitted = api.jit(site.fun, donate_argnums=tuple(argnums), donate_argnames=tuple(argnames),
                     static_argnums=info.static_argnums, static_argnames=info.static_argnames,
                     strict=False, warn=False, keep_unpaired_donors=o.keep_unpaired_donors,
                     region_analysis=o.region_analysis, **site.jit_kwargs)
    d_args, d_kwargs = site.treedef.unflatten(site.abstract)
    it = iter(d_args)
    args = [site.statics[i] if i in site.statics else next(it) for i in range(site.n_args)]
    compiled = jitted.lower(*args, **d_kwargs, **site.static_kwargs).compile()
    return Footprint.of(compiled).total


def _size_key(t: Arg | Result) -> tuple[str, int | None, Placement] | None:
    """What a result must share with a leaf for the leaf to host it: element type, bytes and
    placement (a result of another shape but this size is hosted through XLA's size matching
    of a ``jax.buffer_donor``, which the plan keeps where it is safe)."""
    if t.tensor is None:
        return None
    return (t.tensor.element_type, t.tensor.nbytes, single_device_placement(t.placement))


def _shares(total: int, weights: Sequence[int]) -> list[int]:
    """``total`` split in proportion to ``weights``, in integers that sum to ``total``."""
    whole = sum(weights) or 1
    shares = [total * w // whole for w in weights]
    if shares:
        largest = max(range(len(weights)), key=lambda i: weights[i])
        shares[largest] += total - sum(shares)
    return shares


def _donation(plan: CallPlan | None, leaf: int) -> Any:
    if plan is None:
        return None
    return next((x for x in plan.donations if x.leaf == leaf), None)


def _replace(s: Suggestion, **changes: Any) -> Suggestion:
    import dataclasses

    return dataclasses.replace(s, **changes)


def _advise_method(jitted: Any, *args: Any, **kwargs: Any) -> Advice:
    return advise(jitted, *args, **kwargs)


extensions.register_jit_method("advise", _advise_method)
