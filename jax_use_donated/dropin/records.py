"""What the planner decided per lowering, and where to find it again.

A :class:`LoweringRecord` is kept for every planned lowering. It is found by the lowered module
(:func:`record_of`, what ``jitted.plan(...)`` and ``explain`` use after ``.lower(...)``), by the
drop-in function it belongs to (:func:`records_for`, behind ``jitted.last_plan``) and in the
list of recent plans (:func:`recent_plans`, which also holds lowerings made under the global
switch). Records hold their module weakly: when JAX drops a module from its caches, its record
goes too. Users see a :class:`CallPlan`: one :class:`LeafDonation` per donated leaf.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
import weakref
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, cast

from jax_use_donated.analysis import report_schema
from jax_use_donated.analysis.errors import ALIASING_OUTPUT, BUFFER_DONOR
from jax_use_donated.analysis.model import FunctionModel
from jax_use_donated.analysis.orderings import Ordering
from jax_use_donated.analysis.plan import DonationPlan, PairChecker
from jax_use_donated.analysis.report_schema import problem_of
from jax_use_donated.analysis.xla_fallback import XlaFallback
from jax_use_donated.dropin import extensions

if TYPE_CHECKING:
    from jax_use_donated.dropin.names import LeafName
    from jax_use_donated.dropin.xla_truth import ExecutableTruth


@dataclass
class RemovedDonor:
    """A donated argument that JAX removed as unused (``keep_unused=False``)."""

    name: str
    type_text: str
    nbytes: int | None
    leaf: int | None = None
    """Its position among the call's flattened dynamic arguments."""


@dataclass
class Analysis:
    """The model, plan and XLA fallback of one lowered module."""

    function: FunctionModel
    plan: DonationPlan
    fallback: XlaFallback


@dataclass
class LoweringRecord:
    """What one planned lowering decided.

    The model and plan of a large program are hundreds of thousands of small objects: kept
    alive, every later garbage collection would walk them (measured on a 21k-op train step:
    about 0.3 s of collections per lowering, more than half the analysis itself). So the
    planner drops them (:meth:`release`) before re-enabling the collector, and
    :attr:`function`, :attr:`plan` and :attr:`fallback` rebuild them from the module on first
    use afterwards (the same module and inputs give the same answer). Everything else is small.
    """

    name: str
    """The lowered function, as JAX names the module: ``jit(step)``."""
    jax_attrs: dict[int, tuple[str, object]]
    """What JAX wrote on each argument: index -> (attribute, value)."""
    result_paths: list[str | None]
    expected: dict[int, int]
    """The alias pairs the executable must have: parameter -> output."""
    buffer_donors: list[int]
    """Arguments left as ``jax.buffer_donor`` (``keep_unpaired_donors``): XLA may alias them."""
    removed: list[RemovedDonor] = field(default_factory=list)
    seconds: float = 0.0
    """Time the planner spent on this lowering (model, plan, diagnostics, rewrite)."""
    arg_leaves: list[int | None] = field(default_factory=list)
    """Per ``@main`` argument: its flat argument leaf (``None`` for tokens and hoisted
    constants)."""
    result_leaves: list[int | None] = field(default_factory=list)
    """Per ``@main`` result: its flat output leaf (``None`` for tokens)."""
    timings: dict[str, float] = field(default_factory=dict)
    """Wall seconds per step: ``model``, ``plan``, ``diagnostics``, ``rewrite``, ``call plan``
    (building :attr:`leaf_plan`), ``release`` and, after compilation, ``check`` and
    ``measure`` (reading the executable's outcomes into :attr:`truth`)."""
    cpu_timings: dict[str, float] = field(default_factory=dict)
    """The same steps in CPU seconds of the planner's thread (insensitive to machine load)."""
    fallback_reason: str | None = None
    """Why this lowering keeps JAX's own pairing, or why its executable does not match the plan
    (``None``: the plan is in force)."""
    analysis: Analysis | None = field(default=None, repr=False)
    """The model and plan while held (see the class docstring)."""
    rebuild: Callable[[], Analysis] | None = field(default=None, repr=False, compare=False)
    """Recomputes :attr:`analysis` after :meth:`release` (``None``: it cannot be dropped)."""
    leaf_plan: CallPlan | None = field(default=None, repr=False)
    """The user-facing plan (built before the release; measured once compiled)."""
    truth: ExecutableTruth | None = field(default=None, repr=False)
    """What the compiled executable does with each donated parameter (read after the
    compilation, :func:`jax_use_donated.dropin.planner.on_compiled`)."""
    options_text: str = ""
    token: str = ""
    """The drop-in function this lowering belongs to (``""``: a jit under the global switch)."""
    leaf_names: dict[int, LeafName] = field(default_factory=dict)
    """Flat argument leaf -> the user's name for it (:mod:`.names`); JAX's path where absent."""
    library: str | None = None
    """The library that made this jit (``"flax.nnx"``, ``"equinox"``; ``None``: ``jax.jit``)."""
    pending: list[PendingWarning] = field(default_factory=list, repr=False)
    """The donor problems the plan predicts, warned about once the executable is measured
    (:func:`jax_use_donated.dropin.planner.warn_measured`)."""
    warned: bool = False
    """Whether :attr:`pending` was reported (once per lowering)."""
    region_added: bool = False
    """Whether the planner added region analysis to this lowering's compiler options."""
    drop_options: tuple[str, ...] = ()
    """Compiler options the planner added at the lowering but the plan does without (region
    analysis, where it predicts no copy saved): left out of the compile."""
    kept_jax: str | None = None
    """Set when the executable uses JAX's own pairing, not the plan's: it needed fewer bytes
    (the footprint guard, :func:`jax_use_donated.dropin.planner.on_compiled`); says why."""
    kept_jax_region: bool = False
    """Whether the JAX pairing the guard kept is compiled with region analysis (it needed
    fewer bytes so than with XLA's default options)."""
    footprints: dict[str, int] = field(default_factory=dict)
    """Bytes each compiled variant needs (``"ours"``, ``"jax"``, and ``"jax region"`` where
    the guard compiled JAX's pairing with region analysis too), where the guard compiled
    them."""
    _jax_rule: PairChecker | None = field(default=None, repr=False, compare=False)
    compiled_module: Any = field(default=None, repr=False, compare=False)
    """The module the chosen executable was compiled from when it is not the lowered one
    (JAX's pairing, on a copy): kept so that JAX's compilation cache keeps serving it."""

    def _analysis(self) -> Analysis:
        if self.analysis is None:
            if self.rebuild is None:
                raise RuntimeError("the lowering's analysis was released and cannot be rebuilt")
            self.analysis = self.rebuild()
        return self.analysis

    @property
    def function(self) -> FunctionModel:
        return self._analysis().function

    @property
    def plan(self) -> DonationPlan:
        return self._analysis().plan

    @property
    def fallback(self) -> XlaFallback:
        """What unpaired donors keep for XLA (JAX's copying pair, or the buffer-donor mark)."""
        return self._analysis().fallback

    @property
    def jax_ordering(self) -> Ordering:
        """The ordering ``jax.jit`` compiles this program with: the plan's, without the region
        analysis the planner added to its own compile (JAX's columns of ``explain`` and
        :attr:`LeafDonation.jax_copy_free` describe ``jax.jit`` as it compiles)."""
        ordering = self.plan.ordering
        if self.region_added:
            return WITHOUT_REGION.get(ordering, ordering)
        return ordering

    def jax_checker(self) -> PairChecker | None:
        """The pair rule under :attr:`jax_ordering` (``None``: the plan kept no rule); built
        once per analysis."""
        plan = self.plan
        if plan.checker is None or self.jax_ordering == plan.ordering:
            return plan.checker
        cached = self._jax_rule
        if cached is None or cached.fn is not self.function:
            cached = self._jax_rule = PairChecker(self.function, plan.checker.live,
                                                  self.jax_ordering)
        return cached

    def jax_pair_copy_free(self, d: int, jax_result: int | None) -> bool | None:
        """Whether JAX's pair of parameter ``d`` (with result ``jax_result``) is copy-free
        under :attr:`jax_ordering`."""
        return _jax_copy_free(self.jax_checker(), d, None, jax_result)

    def jax_view(self) -> _JaxView:
        """JAX's pairing as the executable runs it, where the footprint guard kept it."""
        return _jax_view_of(self)

    def release(self) -> None:
        """Drop the model and plan (rebuilt on demand)."""
        if self.rebuild is not None:
            self.analysis = None

    def call_plan(self) -> CallPlan:
        """This lowering's plan keyed for users (see :class:`CallPlan`)."""
        if self.leaf_plan is not None:
            return self.leaf_plan
        donations: list[LeafDonation] = []
        ordering = ""
        if self.analysis is not None or self.rebuild is not None:
            plan, fallback = self.plan, self.fallback
            ordering = plan.ordering
            jax_view = self.jax_view() if self.kept_jax is not None else None
            same_rule = self.jax_ordering == plan.ordering
            if jax_view is not None:
                ordering = jax_view.ordering
            for v in plan.verdicts:
                d = v.arg.index
                k = plan.pairs.get(d)
                kept = fallback.kept_pairs.get(d)
                note = fallback.notes.get(d) if k is None else None
                if jax_view is not None:  # the executable uses JAX's pairing
                    k, kept, note = jax_view.get(d), None, None
                    if k is not None and jax_view.outcome(d) == "copied":
                        k, kept = None, k
                host = k if k is not None else kept
                status: DonationStatus
                if k is not None:
                    status = "reused"
                elif kept is not None:
                    status = "copied"
                elif d in self.buffer_donors:
                    status = "buffer donor"
                else:
                    status = "not reused"
                if jax_view is not None:
                    note = f"kept JAX's own pairing: {self.kept_jax}"
                leaf = _at(self.arg_leaves, d)
                name = self.leaf_names.get(leaf) if leaf is not None else None
                jax_kind, jax_value = self.jax_attrs.get(d, (None, None))
                jax_result = jax_value if jax_kind == ALIASING_OUTPUT and isinstance(
                    jax_value, int) else None
                reader = next((b.reader for b in v.blockers if b.reader is not None), None)
                tensor = v.arg.tensor
                donations.append(LeafDonation(
                    path=name.path if name is not None else v.arg.display_name,
                    leaf=leaf,
                    parameter=d,
                    status=status,
                    result=_at(self.result_leaves, host) if host is not None else None,
                    result_path=_at(self.result_paths, host) if host is not None else None,
                    reason="paired" if k is not None else v.reason.value,
                    message=(note if jax_view is not None and note else
                             v.message + (f"; {note}" if note else "")),
                    jax_path=name.jax_path if name is not None else v.arg.display_name,
                    user_path=name.user if name is not None else True,
                    type_text=v.arg.type_text,
                    nbytes=tensor.nbytes if tensor is not None else None,
                    jax_pairing=("alias" if jax_result is not None
                                 else "buffer donor" if jax_kind == BUFFER_DONOR else "none"),
                    jax_result=_at(self.result_leaves, jax_result)
                    if jax_result is not None else None,
                    jax_result_path=_at(self.result_paths, jax_result)
                    if jax_result is not None else None,
                    jax_pair=(_jax_copy_free(plan.checker, d, k, jax_result) if same_rule
                              else functools.partial(self.jax_pair_copy_free, d, jax_result)),
                    location=reader.loc.text if reader is not None and k is None else None,
                    note=note or "",
                ))
        for r in self.removed:
            name = self.leaf_names.get(r.leaf) if r.leaf is not None else None
            path = name.path if name is not None else r.name
            text = name.text if name is not None else r.name
            donations.append(LeafDonation(
                path=path, leaf=r.leaf, parameter=None, status="removed", result=None,
                result_path=None, reason="unused",
                message=f"donated argument '{text}' ({r.type_text}) is unused, so jit removed "
                        "it and its buffer is not donated (keep_unused=True keeps it)",
                jax_path=name.jax_path if name is not None else r.name,
                user_path=name.user if name is not None else True,
                type_text=r.type_text, nbytes=r.nbytes, jax_pairing="removed"))
        donations.sort(key=lambda x: (x.leaf is None, x.leaf or 0))
        self.leaf_plan = CallPlan(self.name, tuple(donations), dict(self.expected),
                                  tuple(self.buffer_donors), self.fallback_reason,
                                  library=self.library, ordering=ordering)
        return self.leaf_plan


WITHOUT_REGION: dict[str, Ordering] = {"xla-cpu-region": "xla-cpu",
                                       "xla-gpu-region": "xla-gpu"}
"""An ordering with region analysis -> the same backend's default copy insertion."""


@dataclass
class _JaxView:
    """JAX's pairing as the executable runs it: donor -> result, and each pair's predicted
    outcome under the copy insertion it is compiled with (``ordering``)."""

    pairs: dict[int, int]
    outcomes: dict[int, str]
    ordering: Ordering = "xla-cpu"

    def get(self, d: int) -> int | None:
        return self.pairs.get(d)

    def outcome(self, d: int) -> str:
        return self.outcomes.get(d, "not donated")


def _jax_view_of(record: LoweringRecord) -> _JaxView:
    from jax_use_donated.analysis.plan import predict_pairing

    pairs = dict(record.expected)
    ordering: Ordering = "xla-cpu-region" if record.kept_jax_region else "xla-cpu"
    return _JaxView(pairs, predict_pairing(record.function, ordering, pairs), ordering)


def _jax_copy_free(rule: PairChecker | None, d: int, ours: int | None,
                   jax_result: int | None) -> bool | None:
    """Whether JAX's own pair of donor ``d`` is copy-free as ``jax.jit`` compiles it (``rule``:
    :meth:`LoweringRecord.jax_checker`; ``ours``: the plan's pair when the plan follows the
    same rule; ``None``: JAX gave it no pair, or the pair rule is gone)."""
    if jax_result is None:
        return None
    if ours == jax_result:
        return True
    if rule is None:
        return None
    return rule.blocker(d, jax_result) is None


@dataclass(frozen=True)
class PendingWarning:
    """A donor problem the plan predicts, kept until the executable is measured."""

    leaf: int | None
    """The donor's flat argument leaf (its :class:`LeafDonation`)."""
    parameter: int | None
    text: str
    """The message: what blocks it, where, and the user's frame that called library code."""
    loc_text: str | None = None
    """``file:line:col`` of the blocking read, for a diagnostics sink."""


DonationStatus = Literal["reused", "copied", "buffer donor", "not reused", "removed"]
"""What a call does with a donated leaf (see :attr:`LeafDonation.status`)."""

ProblemKind = Literal["wasted", "unusable"]
"""How a donor problem is reported (see :attr:`LeafDonation.problem`)."""


def _at(items: Sequence[Any], index: int) -> Any:
    return items[index] if 0 <= index < len(items) else None


@dataclass(frozen=True)
class LeafDonation:
    """What a call does with one donated argument leaf."""

    path: str
    """The leaf's pytree path as JAX names it (``params['w1']``, ``opt[0][1]``, ``x``), else
    ``%argN``."""
    leaf: int | None
    """Its position among the call's flattened dynamic arguments: the index in
    ``jax.tree.leaves((args, kwargs))`` with static arguments left out (JAX's order)."""
    parameter: int | None
    """Its position among ``@main``'s arguments, the executable's parameter number (``None``
    when jit removed it as unused)."""
    status: DonationStatus
    """``"reused"``: its buffer hosts output ``result`` with no copy; ``"copied"``: it keeps
    JAX's pairing with ``result``, for which XLA inserts a copy; ``"buffer donor"``: left to
    XLA's size matching; ``"not reused"``; ``"removed"``: unused, dropped by jit."""
    result: int | None
    """The flat output leaf (index in ``jax.tree.leaves(out)``) its buffer becomes."""
    result_path: str | None
    """That output's path, e.g. ``result[0]['w1']``."""
    reason: str
    """``paired``, or why not: ``read-after-write``, ``no-compatible-result``, ``returned``,
    ``outnumbered``, ``unused``."""
    message: str
    """The diagnostic text, naming the blocking read where there is one."""
    measured: str | None = None
    """What the compiled executable does with it (:class:`~jax_use_donated.dropin.xla_truth.Outcome`
    value: ``"copy-free"``, ``"copied"``, ``"not donated"``); ``None`` until the lowering is
    compiled (a call, ``.compile()``, :func:`jax_use_donated.plan`) and for removed leaves."""
    evidence: str = ""
    """The copies XLA made for it, when it made any (HLO instruction names)."""
    jax_path: str = ""
    """JAX's name of the lowered leaf: the same as :attr:`path` under ``jax.jit``; a library's
    internal split under ``nnx.jit`` (``model.states[0][1]``) or ``eqx.filter_jit``
    (``dynamic_donate['first'][0]``)."""
    user_path: bool = True
    """Whether :attr:`path` is the user's own name (``model.l1.kernel``); ``False``: the
    library does not show this leaf to the user and :attr:`path` is JAX's (texts mark it
    ``[library path]``)."""
    type_text: str = ""
    """Its type as lowered (``tensor<4x8xf32>``)."""
    nbytes: int | None = None
    """Its buffer's size (``None``: dynamic shape)."""
    jax_pairing: str = "none"
    """What JAX's own pairing did with it: ``"alias"`` (with :attr:`jax_result`),
    ``"buffer donor"`` (left to XLA's size matching), ``"none"`` (JAX warns "not usable") or
    ``"removed"``."""
    jax_result: int | None = None
    """The flat output leaf JAX's pairing gave it."""
    jax_result_path: str | None = None
    jax_pair: bool | Callable[[], bool | None] | None = field(default=None, repr=False,
                                                             compare=False)
    """:attr:`jax_copy_free`, or how to compute it (deferred past the compile: under region
    analysis JAX's pairs are judged by another rule, data dependence, which costs a search per
    donor that only ``explain``, ``to_dict`` and the picture need)."""

    location: str | None = None
    """``file:line:col`` of the read that blocks its reuse, where one does."""
    note: str = ""
    """What the plan leaves it for XLA when it is not reused (JAX's copying pair kept, or the
    buffer-donor mark): the end of :attr:`message`."""

    @property
    def text(self) -> str:
        """:attr:`path`, marked ``[library path]`` when it is not the user's."""
        return self.path if self.user_path else f"{self.path} [library path]"

    @functools.cached_property
    def jax_copy_free(self) -> bool | None:
        """Whether JAX's own pair is copy-free as ``jax.jit`` compiles it (``None``: no pair,
        or not evaluated; :func:`jax_use_donated.explain` evaluates every pair)."""
        return self.jax_pair() if callable(self.jax_pair) else self.jax_pair

    @property
    def predicted(self) -> str | None:
        """The outcome the plan predicts (``None``: XLA decides, for a buffer donor)."""
        return PREDICTED_OUTCOME.get(self.status)

    @property
    def outcome(self) -> str | None:
        """The measured outcome where the executable was read, else the predicted one."""
        return self.measured if self.measured is not None else self.predicted

    @property
    def problem(self) -> ProblemKind | None:
        """How the drop-in reports this leaf (``None``: nothing to report, its buffer hosts a
        result copy-free).

        ``"wasted"`` (:class:`~jax_use_donated.WastedDonationWarning`, actionable): XLA copies
        it, or a read late in the program blocks it from hosting a result of its own type
        that JAX's pairing gave it. ``"unusable"``
        (:class:`~jax_use_donated.UnusableDonationWarning`, expected, JAX's phrase): nothing
        can host it (no result of its type, every one hosts another donor, jit removed it), or
        JAX's own pairing gave it no result either (JAX itself warns "not usable" for it)."""
        kind = problem_of(self.status, self.outcome, self.reason, self.jax_pairing)
        return cast("ProblemKind | None", kind)

    @property
    def disagrees(self) -> bool:
        """The executable contradicts the plan's prediction for this leaf (a rule bug)."""
        return (self.measured is not None and self.predicted is not None
                and self.measured != self.predicted)


PREDICTED_OUTCOME: dict[str, str] = {"reused": "copy-free", "copied": "copied",
                                     "reused with a copy": "copied",
                                     "not reused": "not donated"}
"""A plan status (the plan's ``copied``, the explain table's ``reused with a copy``) -> the
outcome it predicts in the executable (:class:`jax_use_donated.dropin.xla_truth.Outcome` values);
buffer donors (XLA decides) have none."""


@dataclass(frozen=True)
class CallPlan:
    """The donation plan one lowering uses.

    ``jitted.plan(params, opt, batch).pairs_by_path`` ->
    ``{"params['w']": "result[0]['w']", ...}``; ``.pairs`` the same by flat leaf index;
    ``.parameter_pairs`` the ``input_output_alias`` the executable gets.
    """

    function: str
    donations: tuple[LeafDonation, ...]
    """One per donated leaf, in argument order."""
    parameter_pairs: dict[int, int]
    """Executable parameter -> output index of every alias the executable gets (the plan's
    copy-free pairs and the ``copied`` ones): its ``input_output_alias``."""
    buffer_donors: tuple[int, ...]
    """Parameters left as ``jax.buffer_donor``: XLA may alias them to any output of their
    byte size."""
    fallback_reason: str | None = None
    """Set when this lowering keeps JAX's pairing instead (the planner could not analyse it)."""
    measured: bool = False
    """Whether every donated leaf carries the executable's outcome (:attr:`LeafDonation.measured`)."""
    library: str | None = None
    """The library that made the jit (``"flax.nnx"``, ``"equinox"``), whose split of the
    arguments the leaf names were recovered from; ``None``: ``jax.jit`` itself."""
    ordering: str = ""
    """The copy-insertion model the plan follows (``xla-cpu-region``, ``xla-cpu``, ...)."""

    STR_LEAVES = 20
    """At most this many leaf lines in :meth:`__str__` (``jax_use_donated.explain`` has all)."""

    @property
    def summary(self) -> str:
        """One line: ``jit(step): 14 of 16 donated leaves reused copy-free, 1 copied by XLA, 1
        not donated (measured)``."""
        outcomes = [x.outcome for x in self.donations]
        state = "measured" if self.measured else "predicted"
        text = (f"{self.function}: {outcomes.count('copy-free')} of {len(outcomes)} donated "
                f"leaves reused copy-free, {outcomes.count('copied')} copied by XLA, "
                f"{outcomes.count('not donated')} not donated ({state})")
        if self.fallback_reason:
            text += f"; JAX's own pairing kept: {self.fallback_reason}"
        return text

    def __str__(self) -> str:
        """:attr:`summary`, then a line per donated leaf (its path, the result its buffer
        hosts, the outcome), at most :attr:`STR_LEAVES` of them::

            jit(step): 3 of 3 donated leaves reused copy-free, 0 copied by XLA, 0 not donated (measured)
              params['w'] -> result[0]['w']: copy-free
        """
        lines = [self.summary]
        for x in self.donations[:self.STR_LEAVES]:
            target = f" -> {x.result_path}" if x.result_path and x.status != "not reused" else ""
            why = f" ({x.reason})" if x.status != "reused" and x.reason != "paired" else ""
            lines.append(f"  {x.text}{target}: {x.outcome or x.status}{why}")
        if len(self.donations) > self.STR_LEAVES:
            lines.append(f"  ... {len(self.donations) - self.STR_LEAVES} more; "
                         "jax_use_donated.explain(...) gives the full report")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<CallPlan {self.summary}>"

    def with_truth(self, truth: ExecutableTruth) -> CallPlan:
        """This plan with each leaf's measured outcome from the compiled executable."""
        donations = []
        for x in self.donations:
            t = truth.donors.get(x.parameter) if x.parameter is not None else None
            if t is None:
                donations.append(x)
                continue
            donations.append(dataclasses.replace(x, measured=t.outcome.value,
                                                 evidence=t.evidence))
        return dataclasses.replace(self, donations=tuple(donations), measured=True)

    def without_truth(self) -> CallPlan:
        """The plan as predicted, before any measurement."""
        return dataclasses.replace(self, measured=False, donations=tuple(
            dataclasses.replace(x, measured=None, evidence="") for x in self.donations))

    @property
    def disagreements(self) -> list[LeafDonation]:
        """Leaves whose measured outcome contradicts the prediction (each a rule bug)."""
        return [x for x in self.donations if x.disagrees]

    @property
    def pairs(self) -> dict[int, int]:
        """Argument leaf -> output leaf for every leaf reused without a copy."""
        return {x.leaf: x.result for x in self.donations
                if x.status == "reused" and x.leaf is not None and x.result is not None}

    @property
    def pairs_by_path(self) -> dict[str, str]:
        """Argument path -> output path for every leaf reused without a copy."""
        return {x.path: x.result_path or f"result {x.result}" for x in self.donations
                if x.status == "reused"}

    @property
    def reused(self) -> list[LeafDonation]:
        return [x for x in self.donations if x.status == "reused"]

    @property
    def not_reused(self) -> list[LeafDonation]:
        """Every donated leaf whose buffer does not host an output copy-free."""
        return [x for x in self.donations if x.status != "reused"]

    def donation(self, path: str) -> LeafDonation:
        """The entry of the leaf named ``path``: the user's path, or JAX's (``KeyError`` if
        none)."""
        for x in self.donations:
            if path in (x.path, x.text):
                return x
        for x in self.donations:
            if x.jax_path == path:
                return x
        raise KeyError(path)

    @property
    def problems(self) -> list[LeafDonation]:
        """Every donated leaf the drop-in reports (:attr:`LeafDonation.problem`)."""
        return [x for x in self.donations if x.problem is not None]

    def to_dict(self) -> dict[str, Any]:
        """This plan as JSON-ready data (``json.dumps(plan.to_dict())``), in the schema of
        :mod:`jax_use_donated.analysis.report_schema` (version
        :data:`~jax_use_donated.analysis.report_schema.SCHEMA_VERSION`), the same one
        ``jax-donate-opt --donation-report=json`` writes per function::

            d = jud.plan(step, params, opt, batch).to_dict()
            d["leaves"][0]["path"], d["leaves"][0]["measured"]   # "params['w']", "copy-free"
        """
        leaves = [report_schema.leaf_record(
            path=x.path, user_path=x.user_path, jax_path=x.jax_path, leaf=x.leaf,
            parameter=x.parameter, type_text=x.type_text, nbytes=x.nbytes, status=x.status,
            result=x.result, result_path=x.result_path, jax_pairing=x.jax_pairing,
            jax_result=x.jax_result, jax_result_path=x.jax_result_path,
            jax_copy_free=x.jax_copy_free, predicted=x.predicted, measured=x.measured,
            evidence=x.evidence, reason=x.reason, message=x.message, location=x.location,
            problem=x.problem) for x in self.donations]
        return report_schema.function_record(
            function=self.function, front_end="jit", library=self.library,
            ordering=self.ordering, measured=self.measured,
            fallback_reason=self.fallback_reason, leaves=leaves,
            parameter_pairs=self.parameter_pairs, buffer_donors=list(self.buffer_donors))

    def plot(self, advice: Any = True) -> Any:
        """A matplotlib ``Figure``: footprint bars (``jax.jit``, with region analysis, this
        plan, with the verified advice) and each donated leaf's lifetime over program order
        (:mod:`jax_use_donated.dropin.picture`); for a plan from ``jud.plan(step, *args)``.
        ``advice``: an ``Advice`` of this call, ``True`` to compute it, ``False`` to skip its
        bar. ``jud.plan(step, params, batch).plot().savefig("step.png")``."""
        return extensions.plan_method("plot")(self, advice)

    def to_html(self, advice: Any = True) -> str:
        """:meth:`plot` as a self-contained HTML page (inline SVG, the leaf's name, the op
        and the source line of every mark on hover)."""
        return extensions.plan_method("to_html")(self, advice)


# --------------------------------------------------------------------------------------------
# Where records are kept

RECENT_LIMIT = 32
PER_FUNCTION_LIMIT = 8

_LOCK = threading.RLock()
"""Reentrant: weakref callbacks (modules, functions) can fire inside a locked section."""
_BY_MODULE: dict[int, tuple[weakref.ref[Any], LoweringRecord]] = {}
_BY_JIT: dict[str, deque[LoweringRecord]] = {}
"""A drop-in's options text (which names its jit, see ``PlannerOptions.token``) -> its
latest records."""
_OBJECTS: dict[str, weakref.WeakSet[Any]] = {}
"""The same key -> the drop-in objects of that jit, whose ``last_plan`` and
``fallback_reason`` attributes follow its records."""
_RECENT: deque[LoweringRecord] = deque(maxlen=RECENT_LIMIT)


def attach(key: str, jitted: Any) -> deque[LoweringRecord]:
    """Register a drop-in object of the jit named by ``key`` (its options text); returns the
    jit's record list (shared by every drop-in object of that jit, newest last)."""
    with _LOCK:
        _OBJECTS.setdefault(key, weakref.WeakSet()).add(jitted)
        return _BY_JIT.setdefault(key, deque(maxlen=PER_FUNCTION_LIMIT))


def publish(record: LoweringRecord) -> None:
    """Show ``record`` on its jit's drop-in objects (``last_plan``, ``fallback_reason``)."""
    if not record.token:
        return
    plan = record.call_plan()
    with _LOCK:
        objects = list(_OBJECTS.get(record.options_text, ()))
    for obj in objects:
        obj.last_plan = plan
        obj.fallback_reason = record.fallback_reason


def remember(module: Any, record: LoweringRecord) -> None:
    """Keep ``record`` for ``module`` (while the module lives), for its drop-in function (while
    that function lives) and among the recent plans."""
    key = id(module)

    def forget(ref: weakref.ref[Any]) -> None:
        with _LOCK:
            entry = _BY_MODULE.get(key)
            if entry is not None and entry[0] is ref:
                del _BY_MODULE[key]

    with _LOCK:
        _BY_MODULE[key] = (weakref.ref(module, forget), record)
        if record.token:
            _BY_JIT.setdefault(record.options_text,
                               deque(maxlen=PER_FUNCTION_LIMIT)).append(record)
        _RECENT.append(record)
    publish(record)


def record_of(module: Any) -> LoweringRecord | None:
    """The record of a lowered module (``lowered.compiler_ir()``), or ``None`` when the
    planner did not plan it (nothing donated, or planning was off)."""
    with _LOCK:
        entry = _BY_MODULE.get(id(module))
    if entry is None or entry[0]() is not module:
        return None
    return entry[1]


def records_for(key: str) -> list[LoweringRecord]:
    """The latest records (at most :data:`PER_FUNCTION_LIMIT`) of one drop-in jit (``key``:
    its options text)."""
    with _LOCK:
        return list(_BY_JIT.get(key, ()))


def forget_function(function_token: str) -> None:
    """Drop the records of every jit of one function (when the function itself is gone)."""
    prefix = f";fn={function_token}."
    with _LOCK:
        for table in (_BY_JIT, _OBJECTS):
            for key in [k for k in table if prefix in k]:
                del table[key]


def recent_plans() -> list[CallPlan]:
    """The plans of the latest planned lowerings (at most :data:`RECENT_LIMIT`), oldest first:
    drop-in functions and every ``jax.jit`` lowered under the global switch."""
    with _LOCK:
        records = list(_RECENT)
    return [r.call_plan() for r in records]


def clear_recent_plans() -> None:
    with _LOCK:
        _RECENT.clear()
