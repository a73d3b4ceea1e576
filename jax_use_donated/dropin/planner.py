"""What happens when JAX lowers a planned jit: model, plan, diagnostics, rewrite, check.

:mod:`.jax_internals` calls :func:`on_lowered` with each freshly lowered module whose jit asked
for planning (a drop-in, or any jit under the global switch), before JAX caches or compiles it,
and :func:`on_compiled` after each compilation. The rewrite changes only ``@main``'s argument
attributes::

    // JAX: greedy by type, in argument order (XLA must copy both buffers)
    func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32} loc("a"),
                           %arg1: tensor<4xf32> {tf.aliasing_output = 1 : i32} loc("b"))
    // planned, for (a, b) -> (b * 2, a * 3): each buffer is reused after its last read
    func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 1 : i32} loc("a"),
                           %arg1: tensor<4xf32> {tf.aliasing_output = 0 : i32} loc("b"))

XLA honours any alias pair (it copies where one is unsafe), so a wrong prediction costs at most
a copy, never a wrong number. After compilation the module handed to XLA is checked to carry
exactly the planned attributes (XLA turns each ``tf.aliasing_output`` into that
``input_output_alias`` entry) and every donor's outcome is read from the executable's HLO
(``last_plan.donations[i].measured``); with ``verify_executable`` the executable's own
``input_output_alias`` is read and compared too, and a measured outcome that contradicts the
prediction gets a warning. A lowering the planner cannot analyse keeps
JAX's attributes, with one warning.
"""

from __future__ import annotations

import contextvars
import dataclasses
import logging
import os
import sys
import threading
import time
import warnings
import weakref
from collections.abc import Sequence
from typing import Any

from jax_use_donated import diagnostics
from jax_use_donated.adapters.jaxlib_ir import (
    ModuleAdapter,
    arg_donations,
    module_function,
    result_names,
    set_arg_donations,
    symbol_name,
)
from jax_use_donated.analysis.errors import ALIASING_OUTPUT, BUFFER_DONOR, DonationError
from jax_use_donated.analysis.model import FunctionModel, Placement, SourceLoc
from jax_use_donated.analysis.orderings import Ordering, ordering_for
from jax_use_donated.analysis.plan import DonationPlan, PairChecker
from jax_use_donated.analysis.semantics import FORWARDING_OPS, SHARDING_CUSTOM_CALL_TARGETS
from jax_use_donated.analysis.xla_fallback import XlaFallback, xla_fallback
from jax_use_donated.diagnostics import (
    Diagnostic,
    DonationWarning,
    UnusableDonationWarning,
    WastedDonationWarning,
    logger,
)
from jax_use_donated.dropin import jax_internals, names, records
from jax_use_donated.dropin.hlo_alias import executable_aliases
from jax_use_donated.dropin.jax_internals import JAX_UNUSABLE_WARNING, Compile, Lowering
from jax_use_donated.dropin.options import OptionsError, PlannerOptions
from jax_use_donated.dropin.records import (
    Analysis,
    LeafDonation,
    LoweringRecord,
    PendingWarning,
    RemovedDonor,
)
from jax_use_donated.dropin.xla_truth import (
    ExecutableTruth,
    copy_free_truth,
    read_truth,
    runs_copies,
)
from jax_use_donated.planning import FrontEnd, PlanOptions, gc_paused, plan_functions

MAX_WARNINGS_PER_LOWERING = 16
"""Past this many unusable donors in one lowering, the rest are summarised in one warning."""

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_LIBRARY_MARKERS = (f"{os.sep}site-packages{os.sep}", f"{os.sep}dist-packages{os.sep}",
                    f"{os.sep}lib{os.sep}python")


class StepClock:
    """Wall and thread-CPU seconds of consecutive planner steps."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        self._start = self._wall = time.perf_counter()
        self._cpu = time.thread_time()

    def lap(self, step: str) -> None:
        wall, cpu = time.perf_counter(), time.thread_time()
        self.wall[step] = self.wall.get(step, 0.0) + wall - self._wall
        self.cpu[step] = self.cpu.get(step, 0.0) + cpu - self._cpu
        self._wall, self._cpu = wall, cpu

    @property
    def total(self) -> float:
        return self._wall - self._start


# --------------------------------------------------------------------------------------------
# The callbacks


def ensure_installed() -> str | None:
    """Install the planner into JAX's lowering (once); the reason when it cannot be."""
    try:
        jax_internals.install(on_lowered, on_compiled, on_computation, planner_compiler_options)
    except jax_internals.InternalsUnavailable as e:
        return str(e)
    jax_internals.hide_package_frames()
    return None


REGION_ANALYSIS_CPU = "xla_cpu_copy_insertion_use_region_analysis"


def planner_compiler_options(options_text: str, platforms: tuple[str, ...],
                             given: dict[str, Any], devices: int = 1) -> dict[str, Any]:
    """XLA options the planner adds to a planned lowering: region analysis on XLA:CPU when
    asked for (``region_analysis``), the program runs on one device, and neither the user's
    options nor ``XLA_FLAGS`` set it.

    One device only: on SPMD-partitioned programs (several host devices) region analysis was
    measured to keep copies the ordering model calls removable and to cost a copy or
    temporary bytes over ``jax.jit`` (``tests/test_jit_sharded.py``, the sharded fuzz), so
    those compile, and plan, with XLA's default copy insertion."""
    try:
        options = PlannerOptions.decode(options_text)
    except OptionsError:
        return {}
    if (options.region_analysis and options.forced_pairs is None and devices == 1
            and tuple(platforms) == ("cpu",) and REGION_ANALYSIS_CPU not in given):
        return {REGION_ANALYSIS_CPU: True}
    return {}


def on_lowered(lowering: Lowering) -> None:
    """Plan one freshly lowered module and rewrite its ``@main`` in place."""
    try:
        options = PlannerOptions.decode(lowering.options_text)
    except OptionsError as e:
        _warn_once(f"ignoring unreadable planner options ({e})")
        return
    main = module_function(lowering.module, "main")
    if options.forced_pairs is not None:
        if main is not None:
            set_arg_donations(main, dict(options.forced_pairs))
        return
    clock = StepClock()
    user = names.recover(lowering)  # reads the call stack: only while the lowering runs
    as_jax_names = lowering
    lowering = _with_user_names(lowering, user)
    # The analysis allocates hundreds of thousands of small objects: with the collector
    # paused they are never walked, and the release below frees them by reference count.
    with gc_paused():
        try:
            record = analyse(lowering, options, clock)
        except DonationError:
            raise
        except Exception as e:  # an unexpected module shape: keep JAX's own attributes
            reason = f"unexpected lowered module ({type(e).__name__}: {e})"
            _warn_once(reason)
            records.remember(lowering.module, _fallback_record(lowering, reason, options.token))
            return
        if record is None:
            return
        _name_record(record, as_jax_names, user)
        clock.lap("names")
        try:
            report(record, options)
            clock.lap("diagnostics")
            if main is not None:
                set_arg_donations(main, record.expected, record.buffer_donors)
            clock.lap("rewrite")
            record.call_plan()
            clock.lap("call plan")
        finally:
            record.release()
            clock.lap("release")
    record.seconds = clock.total
    record.timings, record.cpu_timings = clock.wall, clock.cpu
    record.token = options.token
    records.remember(lowering.module, record)


def on_computation(options_text: str, module: Any) -> None:
    """After a planned top-level lowering: its module must have a record (a fresh lowering
    made one, a cached one was made by an earlier lowering). None means the planner never saw
    the module (JAX's lowering path changed): say so, and record that it keeps JAX's pairing."""
    if module is None or records.record_of(module) is not None:
        return
    try:
        options = PlannerOptions.decode(options_text)
    except OptionsError:
        return
    if options.forced_pairs is not None:
        return
    reason = "the lowering hook did not run (JAX internals changed?)"
    _warn_once(reason)
    main = module_function(module, "main")
    name = symbol_name(main) if main is not None else "main"
    lowering = Lowering(options_text, module, name, (), (), (), None, None, 1, 0, None)
    records.remember(module, _fallback_record(lowering, reason, options.token))


def on_compiled(module: Any, compile: Compile) -> Any:
    """Compile a planned module (``compile``: JAX's compilation, see
    :data:`.jax_internals.Compile`) and return the executable JAX uses.

    The plan's compile leaves out the options the plan does without
    (:attr:`.LoweringRecord.drop_options`). With ``footprint_guard`` (the default), where the
    plan compiles differently from ``jax.jit`` (other alias pairs, or region analysis), JAX's
    own pairing is compiled too (a copy of the module with JAX's attributes, XLA's default
    options, and also with the plan's region analysis where it keeps it), on another thread
    while the plan's compiles (XLA releases the GIL: the wall time stays about one compile's
    where a second core is free), and the executable that needs the fewest bytes is used,
    once per lowering: the
    record then says so (:attr:`.LoweringRecord.kept_jax`) and its plan describes JAX's
    pairing. The module given to XLA is checked against the plan, and every donor's outcome
    is measured in the executable (``last_plan``, :func:`~.records.recent_plans` and
    ``plan()`` show it)."""
    record = records.record_of(module)
    if record is None:
        return compile()
    if record.fallback_reason is not None:
        return compile(module=record.compiled_module)
    options = PlannerOptions.decode(record.options_text) if record.options_text else None
    if record.kept_jax is not None and record.compiled_module is not None:
        return compile(_kept_drops(record), module=record.compiled_module)
    guard = (_start_guard(record, module, compile)
             if options is not None and options.footprint_guard and not record.footprints
             else None)
    try:
        executable = compile(record.drop_options)
    finally:
        if guard is not None:
            guard.thread.join()
    if guard is not None:
        executable = _finish_guard(record, executable, guard)
    compiled = record.compiled_module if record.kept_jax is not None else module
    wall, cpu = time.perf_counter(), time.thread_time()
    try:
        problem = compiled_mismatch(record, compiled, executable)
    finally:
        record.timings["check"] = time.perf_counter() - wall
        record.cpu_timings["check"] = time.thread_time() - cpu
    if problem is not None:
        record.fallback_reason = problem
        if record.leaf_plan is not None:
            record.leaf_plan = dataclasses.replace(record.leaf_plan, fallback_reason=problem)
        records.publish(record)
        _warn_once(problem)
        return executable
    measure(record, executable, options)
    if options is not None:
        warn_measured(record, options)
    return executable


def _added(record: LoweringRecord) -> tuple[str, ...]:
    """The planner's own compiler options (what JAX's pairing compiles without)."""
    return (REGION_ANALYSIS_CPU,)


def _kept_drops(record: LoweringRecord) -> tuple[str, ...]:
    """The options to leave out of the compile of JAX's pairing the guard kept: the planner's
    own, unless the guard kept it compiled with them (:attr:`.LoweringRecord.kept_jax_region`)."""
    return record.drop_options if record.kept_jax_region else record.drop_options + _added(record)


@dataclasses.dataclass
class _GuardJob:
    """JAX's own pairing of a planned module, compiling on a thread of its own."""

    copy: Any
    jax_pairs: dict[int, int]
    jax_donors: list[int]
    thread: threading.Thread
    setup_wall: float
    setup_cpu: float
    executable: Any = None
    error: BaseException | None = None
    cpu: float = 0.0
    region_executable: Any = None
    """JAX's pairing compiled with the plan's region analysis, where the plan keeps it (it
    saves copies, or the program has loops or conditionals): it can need fewer bytes than
    both (measured: an ``optax.MultiSteps`` step, 2,512 B against our 2,704 B and
    ``jax.jit``'s 3,088 B)."""


def _start_guard(record: LoweringRecord, module: Any, compile: Compile) -> _GuardJob | None:
    """The footprint guard of :func:`on_compiled`, started: a copy of ``module`` with JAX's
    pairing (in a context of its own, :func:`.jax_internals.clone_module_apart`) compiling on
    another thread; ``None`` where the plan compiles as ``jax.jit`` compiles it."""
    jax_pairs = {d: k for d, (attr, k) in record.jax_attrs.items()
                 if attr == ALIASING_OUTPUT and isinstance(k, int)}
    jax_donors = sorted(d for d, (attr, _) in record.jax_attrs.items() if attr == BUFFER_DONOR)
    region = REGION_ANALYSIS_CPU not in record.drop_options and _planner_region(record)
    if (record.expected == jax_pairs and sorted(record.buffer_donors) == jax_donors
            and not region):
        return None  # compiled as jax.jit compiles it
    wall, cpu = time.perf_counter(), time.thread_time()
    try:
        copy = jax_internals.clone_module_apart(module)
        main = module_function(copy, "main")
        if main is None:
            return None
        set_arg_donations(main, jax_pairs, jax_donors)
    except Exception:  # no copy to compile: keep ours
        return None
    job = _GuardJob(copy, jax_pairs, jax_donors, threading.Thread(), 0.0, 0.0)

    def run() -> None:
        start = time.thread_time()
        try:
            job.executable = compile(record.drop_options + _added(record), module=copy)
            if region:
                job.region_executable = compile(record.drop_options, module=copy)
        except BaseException as err:  # JAX's pairing does not compile here: keep ours
            job.error = err
        finally:
            job.cpu = time.thread_time() - start

    context = contextvars.copy_context()
    job.thread = threading.Thread(target=context.run, args=(run,), daemon=True,
                                  name="jax_use_donated footprint guard")
    job.setup_wall, job.setup_cpu = time.perf_counter() - wall, time.thread_time() - cpu
    job.thread.start()
    return job


def _finish_guard(record: LoweringRecord, ours: Any, job: _GuardJob) -> Any:
    """The footprint guard of :func:`on_compiled`, finished (its thread joined): ``ours``, or
    the executable of JAX's own pairing when that needs fewer bytes."""
    record.timings["guard"] = job.setup_wall
    record.cpu_timings["guard"] = job.setup_cpu + job.cpu
    mine = jax_internals.footprint(ours)
    if job.error is not None or job.executable is None or mine is None:
        return ours
    theirs_executable = job.executable
    theirs = jax_internals.footprint(theirs_executable)
    if theirs is None:
        return ours
    record.footprints = {"ours": mine, "jax": theirs}
    with_region = (jax_internals.footprint(job.region_executable)
                   if job.region_executable is not None else None)
    region_smaller = with_region is not None and with_region < theirs
    if with_region is not None:
        record.footprints["jax region"] = with_region
        if region_smaller:
            theirs_executable, theirs = job.region_executable, with_region
    if theirs >= mine:
        return ours
    record.kept_jax_region = region_smaller
    how = " with region analysis" if region_smaller else ""
    record.kept_jax = (f"it needs {mine - theirs:,} fewer bytes in XLA's compile{how} than ours "
                       f"({theirs:,} B against {mine:,} B)")
    record.compiled_module = job.copy
    record.expected, record.buffer_donors = job.jax_pairs, job.jax_donors
    record.leaf_plan = None
    record.call_plan()
    records.publish(record)
    return theirs_executable


def _planner_region(record: LoweringRecord) -> bool:
    """Whether the planner added region analysis to this lowering's compile."""
    return record.region_added


def measure(record: LoweringRecord, executable: Any, options: PlannerOptions | None) -> None:
    """Read every donor's outcome from the executable's HLO (:mod:`jax_use_donated.dropin.xla_truth`)
    into ``record.truth`` and its plan: from jaxlib's objects where no copy runs on buffers
    (:func:`_copy_free_truth`, 0.005 s on a 128-layer train step), else from the printed text
    (0.11 s there, about 2% of its compile). With ``verify_executable`` a prediction the executable
    contradicts gets a warning (a bug in the rules); without, the plan only shows it
    (``CallPlan.disagreements``): a warning a user cannot act on would be noise."""
    if record.truth is not None:
        return  # this module's executable was read already
    wall, cpu = time.perf_counter(), time.thread_time()
    try:
        plan = record.call_plan()
        donated = [x.parameter for x in plan.donations if x.parameter is not None]
        truth = _copy_free_truth(record, executable, donated)
        if truth is None:
            text = jax_internals.executable_hlo_text(executable)
            if text is None:
                return  # not an XLA executable with HLO modules: nothing to measure
            try:
                with gc_paused():  # its objects are freed by reference count
                    truth = read_truth(text, donated)
            except Exception:  # an HLO spelling the reader does not know: leave it unmeasured
                return
        record.truth = truth
        record.leaf_plan = plan.with_truth(truth)
        records.publish(record)
        wrong = record.leaf_plan.disagreements
        if wrong and options is not None and options.verify_executable and options.warn:
            detail = "; ".join(f"{x.path}: predicted {x.predicted}, executable {x.measured}"
                               + (f" ({x.evidence})" if x.evidence else "") for x in wrong)
            warnings.warn(f"jax_use_donated: {record.name}: the executable contradicts the "
                          f"plan for {len(wrong)} donated leaves ({detail}); a bug in the "
                          "rules, please report it", DonationWarning,
                          stacklevel=_user_stacklevel())
    finally:
        record.timings["measure"] = time.perf_counter() - wall
        record.cpu_timings["measure"] = time.thread_time() - cpu


def _copy_free_truth(record: LoweringRecord, executable: Any,
                     donated: list[int]) -> ExecutableTruth | None:
    """The executable's truth without printing or reading its text, where no copy runs on its
    buffers (:func:`.xla_truth.runs_copies`) and no argument is left a buffer donor: then
    every donor the module pairs is copy-free and the others are not donated. The pairs are
    the module's (``record.expected``, checked against the module given to XLA by
    :func:`compiled_mismatch`): XLA adds aliases only for buffer donors and removes none
    (``verify_executable`` reads the executable's own; ``tests/test_dropin_truth.py`` checks
    this answer against :func:`.xla_truth.read_truth` of the text). ``None``: read the text."""
    if record.buffer_donors:
        return None
    try:
        module = executable.hlo_modules()[0]
    except Exception:
        return None
    if runs_copies(module) is not False:
        return None
    return copy_free_truth(donated, record.expected)


def compiled_mismatch(record: LoweringRecord, module: Any, executable: Any) -> str | None:
    """Why the compiled result does not carry the plan, or ``None``."""
    options = PlannerOptions.decode(record.options_text) if record.options_text else None
    main = module_function(module, "main")
    if main is not None:
        planned = {p: (ALIASING_OUTPUT, k) for p, k in record.expected.items()}
        planned.update({p: (BUFFER_DONOR, True) for p in record.buffer_donors})
        given = arg_donations(main)
        if given != planned:
            return (f"the module given to the compiler carries the donation attributes "
                    f"{dict(sorted(given.items()))}, not the plan's "
                    f"{dict(sorted(planned.items()))}")
    if options is None or not options.verify_executable:
        return None
    try:
        actual = executable_aliases(executable)
    except Exception as e:
        return f"cannot read the executable's aliasing ({e})"
    fixed = {p: k for p, k in actual.items() if p not in record.buffer_donors}
    ok = fixed == record.expected and all(
        actual.get(p) is None or p in record.buffer_donors for p in actual
        if p not in record.expected)
    if not ok:
        return (f"the compiled aliasing {dict(sorted(actual.items()))} differs from the plan "
                f"{dict(sorted(record.expected.items()))}")
    return None


def _leaf_of(lowering: Lowering, j: int) -> int | None:
    """The flat argument leaf of the lowered module's ``j``-th input aval (``None`` for a
    hoisted constant, or when jit's pruning is unknown)."""
    k = j - lowering.num_const_args
    kept = lowering.kept_leaves
    return kept[k] if kept is not None and 0 <= k < len(kept) else None


def _with_user_names(lowering: Lowering, user: names.UserNames) -> Lowering:
    """``lowering`` with the user's names for its arguments (what the model's arguments, and
    so every message, are named after), removed donors included."""
    if user is names.PLAIN or lowering.arg_names is None:
        return lowering
    renamed = [user.arg(_leaf_of(lowering, j), n).text
               for j, n in enumerate(lowering.arg_names)]
    removed = [dataclasses.replace(r, name=user.arg(r.leaf, r.name).text)
               for r in lowering.removed]
    return dataclasses.replace(lowering, arg_names=renamed, removed=removed)


def _name_record(record: LoweringRecord, lowering: Lowering, user: names.UserNames) -> None:
    """Keep each donated leaf's user name and JAX's (``lowering`` as JAX named it; ``CallPlan``
    shows both) and name the results after the user's output."""
    record.library = user.library
    jax_names = list(lowering.arg_names or ())
    for j in range(len(lowering.in_avals)):
        leaf = _leaf_of(lowering, j)
        if leaf is not None:
            record.leaf_names[leaf] = user.arg(leaf, jax_names[j] if j < len(jax_names)
                                               else None)
    for r in lowering.removed:
        record.leaf_names.setdefault(r.leaf, user.arg(r.leaf, r.name))
    if user is not names.PLAIN:
        record.result_paths = [user.result_name(p) for p in record.result_paths]


# --------------------------------------------------------------------------------------------
# The analysis of one lowering


def analyse(lowering: Lowering, options: PlannerOptions,
            clock: StepClock | None = None) -> LoweringRecord | None:
    """Plan the donations of a just-lowered module; ``None`` when nothing is donated and jit
    removed no donor."""
    clock = clock or StepClock()
    donated_args = lowering.donated_args
    removed = [RemovedDonor(r.name, r.type_text, r.nbytes, r.leaf) for r in lowering.removed]
    if not any(donated_args) and not removed:
        return None
    module = lowering.module
    main = module_function(module, "main")
    if main is None:
        raise ValueError("the lowered module has no @main")
    nargs = len(main.regions[0].blocks[0].arguments)
    offset = nargs - len(lowering.in_avals)
    if offset < 0 or len(donated_args) != len(lowering.in_avals):
        raise ValueError(f"@main has {nargs} arguments for {len(lowering.in_avals)} avals")
    arg_leaves, result_leaves = _leaf_maps(main, lowering, offset)
    name = lowering.function_name or symbol_name(main)
    if not any(donated_args):  # every donor was removed as unused
        analysis = Analysis(FunctionModel(name, [], [], []),
                            DonationPlan(name, {}, [], {}, "dataflow"), XlaFallback())
        return LoweringRecord(name, {}, result_names(main), {}, [], removed,
                              arg_leaves=arg_leaves, result_leaves=result_leaves,
                              analysis=analysis, options_text=lowering.options_text)
    donors = [i + offset for i, d in enumerate(donated_args) if d]
    fixed = {i + offset: k for i, k in enumerate(lowering.input_output_aliases) if k is not None}
    jax_attrs = arg_donations(main)
    names = lowering.arg_names
    partitions = lowering.num_partitions
    module_ref = weakref.ref(module)
    ordering: Ordering = lowering_ordering(lowering)
    drop: tuple[str, ...] = ()

    def plan_module(module: Any, clock: StepClock) -> Analysis:
        main = module_function(module, "main")
        assert main is not None
        front = _LoweringFront(ordering, bool(fixed), ModuleAdapter(module.operation), main,
                               donors, fixed, partitions, names, offset, jax_attrs,
                               options.keep_unpaired_donors, clock)
        (item,) = plan_functions(front)
        clock.lap("plan")
        return Analysis(item.fn, item.plan, item.fallback)

    def rebuild() -> Analysis:
        module = module_ref()
        if module is None:
            raise RuntimeError("the lowered module is gone; its plan cannot be rebuilt")
        with gc_paused():
            return plan_module(module, StepClock())

    analysis = plan_module(module, clock)
    if (REGION_ANALYSIS_CPU in lowering.added_options and _region_saves_nothing(analysis)
            and not (options.footprint_guard and _has_control_flow(analysis.function))):
        # The data-dependence plan hosts every pair the region plan does, copy-free: compile
        # as jax.jit does. Region analysis then only moves XLA's own copies, which it can
        # add, a decode loop's cache, or save, a scan's carries: around loops and
        # conditionals the footprint guard compiles both and keeps the smaller
        # (:func:`on_compiled`).
        ordering, drop = "xla-cpu", (REGION_ANALYSIS_CPU,)
        analysis = plan_module(module, clock)
    record = LoweringRecord(name, jax_attrs, result_names(main),
                            analysis.fallback.all_pairs(analysis.plan),
                            analysis.fallback.buffer_donors, removed, arg_leaves=arg_leaves,
                            result_leaves=result_leaves, analysis=analysis, rebuild=rebuild,
                            options_text=lowering.options_text)
    record.drop_options = drop
    record.region_added = REGION_ANALYSIS_CPU in lowering.added_options
    clock.lap("plan")
    return record


def _has_control_flow(fn: FunctionModel) -> bool:
    """Whether ``fn`` has a loop or a conditional (where XLA's copies of loop-carried and
    branch values differ between the copy-insertion modes)."""
    return any(op.name in ("stablehlo.while", "stablehlo.case") for op in fn.ops)


def _region_saves_nothing(analysis: Analysis) -> bool:
    """Whether every pair of a region-analysis plan is also copy-free by data dependence,
    XLA's default copy insertion (then the default compile needs no copy the region plan
    avoids)."""
    plan = analysis.plan
    if plan.checker is None:
        return False
    flow = PairChecker(analysis.function, plan.checker.live, "xla-cpu")
    return all(flow.is_safe(d, k) for d, k in plan.pairs.items())


class _LoweringFront(FrontEnd[Any]):
    """The drop-in's steps of :func:`.planning.plan_functions` for one lowered ``@main``: the
    model with the lowering's donors and fixed aliases (``donate_argnums``, JAX's own
    ``input_output_aliases``), argument names from the trace, result shardings as XLA
    propagates them; unpaired donors keep JAX's own attributes (:mod:`.xla_fallback`).
    Warnings, a strict refusal and the rewrite come after the record is made
    (:func:`report`, :func:`on_lowered`), so that a rebuilt plan says nothing twice."""

    def __init__(self, ordering: Ordering, keep_existing_aliases: bool, adapter: ModuleAdapter,
                 main: Any, donors: list[int], fixed: dict[int, int], partitions: int,
                 names: Sequence[str | None] | None, offset: int,
                 jax_attrs: dict[int, tuple[str, object]], keep_unpaired: bool,
                 clock: StepClock) -> None:
        super().__init__(PlanOptions(ordering, keep_existing_aliases,
                                     keep_unpaired_donors=keep_unpaired))
        self.adapter, self.main = adapter, main
        self.donors, self.fixed, self.partitions = donors, fixed, partitions
        self.names, self.offset, self.jax_attrs = names, offset, jax_attrs
        self.clock = clock

    def functions(self) -> list[Any]:
        return [self.main]

    def build(self, func: Any) -> FunctionModel:
        fn = self.adapter.build(func, self.donors, self.fixed)
        if self.partitions > 1:
            _unspecified_result_shardings(fn)
        if self.names is not None:
            for i, arg in enumerate(fn.args):
                j = i - self.offset
                # the lowering's names win over the module's loc("...") (JAX's): under a
                # library they are the user's (names.recover)
                if 0 <= j < len(self.names) and self.names[j]:
                    arg.loc = SourceLoc(arg.loc.text, self.names[j])
        self.clock.lap("model")
        return fn

    def fallback(self, func: Any, fn: FunctionModel, plan: DonationPlan) -> XlaFallback:
        attrs = self.jax_attrs
        return xla_fallback(
            plan,
            {d: k for d, (attr, k) in attrs.items()
             if attr == ALIASING_OUTPUT and isinstance(k, int)},
            {d for d, (attr, _) in attrs.items() if attr == BUFFER_DONOR},
            keep_unpaired=self.options.keep_unpaired_donors,
        )

    def warn(self, func: Any, fn: FunctionModel, plan: DonationPlan,
             fallback: XlaFallback) -> None:
        """Nothing here: :func:`report` warns once per lowering."""


def lowering_ordering(lowering: Lowering) -> Ordering:
    """The copy-insertion model of the backend that compiles ``lowering``: its platform and
    compiler options (``XLA_FLAGS`` included); a module lowered for several platforms gets
    the strictest, XLA:CPU's default data-dependence order."""
    platforms = tuple(p.lower() for p in lowering.platforms) or (jax_internals.default_platform(),)
    if len(set(platforms)) > 1:
        return "xla-cpu"
    return ordering_for(platforms[0], lowering.compiler_options)


def _fallback_record(lowering: Lowering, reason: str, token: str) -> LoweringRecord:
    """The record of a lowering that keeps JAX's attributes."""
    main = module_function(lowering.module, "main")
    attrs = arg_donations(main) if main is not None else {}
    expected = {d: k for d, (a, k) in attrs.items() if a == ALIASING_OUTPUT and isinstance(k, int)}
    donors = [d for d, (a, _) in attrs.items() if a == BUFFER_DONOR]
    return LoweringRecord(lowering.function_name, attrs,
                          result_names(main) if main is not None else [], expected, donors,
                          fallback_reason=reason, options_text=lowering.options_text,
                          token=token)


def _leaf_maps(main: Any, lowering: Lowering,
               offset: int) -> tuple[list[int | None], list[int | None]]:
    """Flat argument leaf of each ``@main`` argument and flat output leaf of each result.

    ``@main``'s arguments are ``offset`` effect tokens, then the hoisted constants
    (``num_const_args``), then the leaves dead-code elimination kept (in order); its results
    are effect tokens, then one per output leaf (``result_names``)."""
    nargs = len(main.regions[0].blocks[0].arguments)
    consts = lowering.num_const_args
    kept = lowering.kept_leaves
    arg_leaves: list[int | None] = []
    for i in range(nargs):
        j = i - offset - consts
        arg_leaves.append(kept[j] if kept is not None and 0 <= j < len(kept) else None)
    paths = lowering.result_names
    nresults = len(result_names(main))
    tokens = nresults - len(paths) if paths is not None else 0
    result_leaves: list[int | None] = [k - tokens if k >= tokens else None
                                       for k in range(nresults)]
    return arg_leaves, result_leaves


def _unspecified_result_shardings(fn: FunctionModel) -> None:
    """In a multi-device module a result without a sharding attribute gets the sharding XLA
    propagates; an alias makes XLA give it the donor's sharding. So such a result may host a
    donor of its type: compare it as if it had the sharding the donors of its type share
    (when they share one; donors of one type with several shardings leave it unspecified).

    Not a result whose value a sharding constraint places (``with_sharding_constraint``,
    through forwarding ops): XLA propagates the constraint's sharding to it, whatever the
    alias, and refuses to compile an alias between buffers of different per-device sizes
    (measured: a donor sharded over ``x`` aliased to a replicated constraint's result)."""
    by_type: dict[str, set[str | None]] = {}
    for a in fn.donors:
        if a.tensor is not None:
            by_type.setdefault(a.type_text, set()).add(a.placement.sharding)
    defining = {v: op for op in fn.ops for v in op.results}
    for res in fn.results:
        shardings = by_type.get(res.type_text)
        if res.placement.sharding is None and res.tensor is not None and shardings and len(
                shardings) == 1 and not _constrained(res.value, defining):
            (sharding,) = shardings
            res.placement = Placement(sharding, res.placement.memory_kind, res.placement.layout)


SHARDING_CONSTRAINTS = frozenset({"sdy.sharding_constraint", "mhlo.sharding_constraint",
                                  "sdy.reshard"})
"""Ops that place their result on a sharding of their own."""


def _constrained(value: int, defining: dict[int, Any]) -> bool:
    """Whether ``value`` comes from a sharding constraint, through forwarding ops."""
    seen = 0
    while value in defining and seen < 64:
        op = defining[value]
        if op.name in SHARDING_CONSTRAINTS or (op.name == "stablehlo.custom_call"
                                               and op.target in SHARDING_CUSTOM_CALL_TARGETS):
            return True
        if op.name not in FORWARDING_OPS or not op.operands:
            return False
        value, seen = op.operands[0], seen + 1
    return False


# --------------------------------------------------------------------------------------------
# Diagnostics


def report(record: LoweringRecord, options: PlannerOptions) -> None:
    """At the lowering: raise (``strict``) when a donation cannot be honoured, as the plan
    predicts it; otherwise keep each predicted donor problem on the record, to be warned
    about once the executable says what really happened (:func:`warn_measured`)."""
    pending: list[PendingWarning] = []
    for r in record.removed:
        pending.append(PendingWarning(
            r.leaf, None,
            f"donated argument '{r.name}' ({r.type_text}) is unused, so jit removed it "
            "and its buffer is not donated (pass keep_unused=True to donate it anyway)"))
    plan = record.plan
    for v in plan.unpaired:
        if plan.pairs.get(v.arg.index) is not None:
            continue
        reader = next((b.reader for b in v.blockers if b.reader is not None), None)
        loc = reader.loc if reader is not None else SourceLoc()
        note = record.fallback.notes.get(v.arg.index)
        message = v.message + (f"; {note}" if note else "")
        user = user_frame(loc)
        if user is not None:
            message += f" (called from {user})"
        pending.append(PendingWarning(_at(record.arg_leaves, v.arg.index), v.arg.index,
                                      message, loc.text))
    record.pending = pending
    if pending and options.strict:
        problems = [Diagnostic("warning", p.text, SourceLoc(p.loc_text)) for p in pending]
        raise DonationError(
            f"{record.name}: {len(problems)} donation(s) cannot be honoured:\n"
            + "\n".join("  " + p.format(record.name) for p in problems))


def _at(items: Sequence[Any], index: int) -> Any:
    return items[index] if 0 <= index < len(items) else None


def warn_measured(record: LoweringRecord, options: PlannerOptions) -> None:
    """After the compile: report every donor problem once, from the executable's measured
    outcome where there is one (a donor predicted copied that XLA reuses copy-free gets no
    warning, one XLA copies says so with the copy as evidence), else from the prediction.

    Actionable problems (:attr:`~.records.LeafDonation.problem` ``"wasted"``) are
    :class:`~jax_use_donated.WastedDonationWarning` s starting "Donated buffer copied by XLA"
    or "Donated buffer not reused"; expected ones (``"unusable"``)
    :class:`~jax_use_donated.UnusableDonationWarning` s starting with JAX's phrase "Some
    donated buffers were not usable". Both are logged to ``jax_use_donated`` (``INFO`` and
    ``DEBUG``) whatever the filters; ``warn=False`` only silences the warnings."""
    if record.warned or record.fallback_reason is not None:
        return
    record.warned = True
    plan = record.call_plan()
    by_parameter = {p.parameter: p for p in record.pending if p.parameter is not None}
    by_leaf = {p.leaf: p for p in record.pending if p.parameter is None}
    wasted: list[tuple[str, Diagnostic]] = []
    unusable: list[tuple[str, Diagnostic]] = []
    for x in plan.donations:
        kind = x.problem
        if kind is None or (x.status == "reused" and x.disagrees):
            continue  # a rule bug, not the user's: plan().disagreements shows it, and
            # verify_executable=True warns about it (measure)
        pending = (by_parameter.get(x.parameter) if x.parameter is not None
                   else by_leaf.get(x.leaf))
        text, loc = _measured_text(x, pending)
        diagnostic = Diagnostic("warning", text, SourceLoc(loc))
        if kind == "wasted":
            head = ("Donated buffer copied by XLA" if x.outcome == "copied"
                    else "Donated buffer not reused")
            wasted.append((head, diagnostic))
        else:
            unusable.append((JAX_UNUSABLE_WARNING, diagnostic))
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug("%s", plan.summary)
    for head, d in wasted:
        logger.info("%s: %s: %s", head, record.name, d.message)
    for head, d in unusable:
        logger.debug("%s: %s: %s", head, record.name, d.message)
    if not options.warn:
        return
    for items, category in ((wasted, WastedDonationWarning),
                            (unusable, UnusableDonationWarning)):
        for head, d in items[:MAX_WARNINGS_PER_LOWERING]:
            _emit(d, record.name, head, category)
        if len(items) > MAX_WARNINGS_PER_LOWERING:
            head = items[0][0]
            _emit(Diagnostic(
                "warning",
                f"{len(items) - MAX_WARNINGS_PER_LOWERING} more donated argument(s) like these; "
                "call jax_use_donated.explain(...) on the jitted function for the full "
                "report"), record.name, head, category)


def _measured_text(x: LeafDonation, pending: PendingWarning | None) -> tuple[str, str | None]:
    """The message of a problem leaf, made true to the measured outcome."""
    text = pending.text if pending is not None else x.message
    loc = pending.loc_text if pending is not None else x.location
    evidence = f" ({x.evidence})" if x.evidence else ""
    if x.measured == "copied":
        text += f"; measured: the executable copies it{evidence}"
    elif x.measured == "not donated" and x.status == "buffer donor" and x.note:
        text = text.replace(f"; {x.note}", "") + "; measured: XLA gave it no output"
    return text, loc


def warning_text(diagnostic: Diagnostic, where: str, head: str = JAX_UNUSABLE_WARNING) -> str:
    """``head`` (JAX's phrase for expected problems, so existing ``filterwarnings`` on it keep
    matching them; ``Donated buffer ...`` for actionable ones), then ours:
    ``Some donated buffers were not usable: jit(f): donated argument 'b' ... at f.py:3:7``."""
    return f"{head}: {where}: {diagnostic.message}"


def user_frame(loc: SourceLoc) -> str | None:
    """For a read inside library code: the innermost frame of its call stack that is user
    code (``file:line:col``), else ``None`` (no call stack, or the read is user code)."""
    frames: Sequence[str] = getattr(loc, "frames", ())
    if len(frames) < 2 or not _is_library(frames[0]):
        return None
    return next((f for f in frames[1:] if not _is_library(f)), None)


def _is_library(frame: str) -> bool:
    path = frame.rsplit(":", 2)[0]
    return any(m in path for m in _LIBRARY_MARKERS) or path.startswith(_PACKAGE_DIR)


def _emit(diagnostic: Diagnostic, where: str, head: str = JAX_UNUSABLE_WARNING,
          category: type[DonationWarning] = UnusableDonationWarning) -> None:
    if diagnostics._SINK.get() is not None:
        diagnostics.emit(diagnostic)
        return
    warnings.warn(warning_text(diagnostic, where, head), category,
                  stacklevel=_user_stacklevel())


_WARNED: set[str] = set()


def _warn_once(reason: str) -> None:
    """One warning per distinct reason the planner keeps JAX's own pairing."""
    if reason in _WARNED:
        return
    _WARNED.add(reason)
    warnings.warn(f"jax_use_donated keeps JAX's own donation pairing: {reason}",
                  DonationWarning, stacklevel=_user_stacklevel())


def _user_stacklevel() -> int:
    """``stacklevel`` that points ``warnings.warn`` at the user's call of the jitted function:
    the first frame outside JAX, this package and installed libraries (``nnx.jit``,
    ``eqx.filter_jit`` call JAX on the user's behalf), else the first outside JAX and this
    package."""
    import jax

    jax_dir = os.path.dirname(os.path.abspath(jax.__file__))
    frame = sys._getframe(1)
    level = 1
    fallback = None
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if not (path.startswith(_PACKAGE_DIR) or path.startswith(jax_dir)
                or "importlib" in path or path.startswith("<")):
            if not any(m in path for m in _LIBRARY_MARKERS[:2]):
                return level
            fallback = fallback or level
        frame = frame.f_back
        level += 1
    return fallback or 1
