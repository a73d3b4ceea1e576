"""``jax_use_donated.jit``: ``jax.jit`` with donations paired by liveness.

``jit(f, **jax_jit_options)`` returns a genuine ``jax.jit`` object (same type, ``repr``, C++
dispatch fast path, caches, AOT stages, errors), whose compiler options carry the planner's
options (see :mod:`.jax_internals`; they never reach XLA). The planner runs only when JAX
lowers. What it decided is on the object::

    step = jax_use_donated.jit(train_step, donate_argnums=(0, 1))
    step(params, opt, batch)
    step.last_plan.pairs_by_path        # {"params['w']": "result[0]['w']", ...}
    print(step.explain(params, opt, batch))

``step.plan(...)``, ``step.explain(...)``, ``step.last_plan``, ``step.records``,
``step.fallback_reason`` and ``step.planner_options`` are plain attributes of that object.
Copies of it made by ``functools.wraps`` or by an outer plain ``jax.jit`` carry them too and
still describe this drop-in; :func:`plan` and :func:`explain` work on any jitted callable.
"""

from __future__ import annotations

import functools
import threading
import warnings
import weakref
import zlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from jax_use_donated.diagnostics import DonationWarning
from jax_use_donated.dropin import calls, extensions, jax_internals, planner, records
from jax_use_donated.dropin.explain import DonationReport, report_of
from jax_use_donated.dropin.jax_internals import MARKER
from jax_use_donated.dropin.options import OptionsError, PlannerOptions
from jax_use_donated.dropin.records import CallPlan, LoweringRecord
from jax_use_donated.dropin.xla_truth import ExecutableTruth, read_truth

if TYPE_CHECKING:
    from jax_use_donated.dropin.advice import Advice


class DonatingJit(Protocol):
    """What :func:`jit` returns: a ``jax.jit`` object with the planner's attributes (for type
    checkers; at run time it is JAX's own jit type, and :func:`is_planned` tells it apart)."""

    planner_options: PlannerOptions
    last_plan: CallPlan | None
    fallback_reason: str | None
    records: Any

    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...
    def lower(self, *args: Any, **kwargs: Any) -> Any: ...
    def trace(self, *args: Any, **kwargs: Any) -> Any: ...
    def plan(self, *args: Any, **kwargs: Any) -> CallPlan: ...
    def explain(self, *args: Any, **kwargs: Any) -> DonationReport: ...
    def advise(self, *args: Any, **kwargs: Any) -> Advice: ...


class _Unset:
    def __repr__(self) -> str:
        return "<unset>"


_UNSET: Any = _Unset()

_TOKENS: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
_NEXT_TOKEN = [0]
_TOKEN_LOCK = threading.Lock()


def _token_for(fun: Any, jit_kwargs: dict[str, Any]) -> str:
    """A name for this jit of ``fun`` that is stable while ``fun`` lives, so re-creating a
    drop-in for it gives the same compiler options and JAX's caches hit: a number per function
    and a digest of the ``jax.jit`` options (records are kept per jit, as JAX's caches are).
    ``""`` when ``fun`` cannot be weakly referenced or hashed (``last_plan`` is not tracked)."""
    options = zlib.crc32(repr(sorted(jit_kwargs.items())).encode())
    return f"{_function_token(fun)}.{options:08x}"


def _function_token(fun: Any) -> str:
    with _TOKEN_LOCK:
        try:
            token = _TOKENS.get(fun)
            if token is None:
                _NEXT_TOKEN[0] += 1
                token = str(_NEXT_TOKEN[0])
                _TOKENS[fun] = token
                weakref.finalize(fun, records.forget_function, token)
            return token
        except TypeError:
            return "0"


def _jit(fun: Any, options: PlannerOptions, jit_kwargs: dict[str, Any]) -> Any:
    jax_jit = jax_internals.original_jit()
    reason = planner.ensure_installed()
    rebuild = functools.partial(_jit, fun, options, dict(jit_kwargs))
    if reason is not None:
        jitted = jax_jit(fun, **jit_kwargs)
        _warn_unavailable(reason)
        _attach(jitted, options, "", reason, rebuild)
        return jitted
    compiler_options = jit_kwargs.pop("compiler_options", None)
    if compiler_options is not None and MARKER in compiler_options:
        raise TypeError(f"compiler option {MARKER!r} is reserved by jax_use_donated")
    token = _token_for(fun, jit_kwargs)
    if token.startswith("0."):
        token = ""
    options = options.with_token(token)
    jitted = jax_jit(fun, compiler_options={**(compiler_options or {}),
                                            MARKER: options.encode()}, **jit_kwargs)
    _attach(jitted, options, token, None, rebuild)
    return jitted


def _attach(jitted: Any, options: PlannerOptions, token: str, reason: str | None,
            rebuild: Callable[[], Any]) -> None:
    # The methods hold the object weakly (a strong reference would be a cycle, and JAX's
    # users expect a jit object, and what its function closes over, to be freed as soon as
    # the last reference goes), and how to re-create it: ``jit(f).plan(x)`` drops the
    # temporary jit object before the call, and an equal re-created one shares its caches.
    ref = weakref.ref(jitted)

    def target() -> Any:
        obj = ref()
        return obj if obj is not None else rebuild()

    def plan_method(*args: Any, **kwargs: Any) -> CallPlan:
        return plan(target(), *args, **kwargs)

    def explain_method(*args: Any, **kwargs: Any) -> DonationReport:
        return explain(target(), *args, **kwargs)

    functools.update_wrapper(plan_method, plan, assigned=("__doc__",), updated=())
    functools.update_wrapper(explain_method, explain, assigned=("__doc__",), updated=())
    jitted.plan = plan_method
    jitted.explain = explain_method
    for name, method in extensions.jit_methods().items():  # advise (.advice)
        setattr(jitted, name, _bound(method, target))
    jitted.planner_options = options
    jitted.fallback_reason = reason
    jitted.last_plan = None
    key = options.encode()
    jitted.records = records.attach(key, jitted) if token else []
    if token:
        latest = records.records_for(key)
        if latest:
            jitted.last_plan = latest[-1].call_plan()


def _bound(method: Callable[..., Any], target: Callable[[], Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def bound(*args: Any, **kwargs: Any) -> Any:
        return method(target(), *args, **kwargs)

    return bound


_WARNED: set[str] = set()


def _warn_unavailable(reason: str) -> None:
    if reason in _WARNED:
        return
    _WARNED.add(reason)
    warnings.warn(f"jax_use_donated.jit falls back to plain jax.jit: {reason}. Donations are "
                  "paired by JAX's default rule.", DonationWarning, stacklevel=4)


def jit(fun: Callable[..., Any] = _UNSET, /, *, strict: bool = False,
        keep_unpaired_donors: bool = False, verify_executable: bool = False,
        warn: bool = True, region_analysis: bool = PlannerOptions.region_analysis,
        footprint_guard: bool = PlannerOptions.footprint_guard, **jit_kwargs: Any) -> Any:
    """``jax.jit(fun, **jit_kwargs)``, except that donated inputs are paired with outputs by
    liveness: a donor hosts a result only where XLA needs no copy, and JAX's default pairing is
    kept wherever it is already copy-free.

    Takes every ``jax.jit`` option and returns JAX's own jit object (so nesting, transforms,
    AOT ``lower``/``compile``, ``eval_shape``, caches and dispatch speed are JAX's); with no
    ``fun`` it returns a decorator, as ``jax.jit`` does. Only the outermost jit of a nest is
    planned, with its own options. ``strict=True`` raises
    :class:`~jax_use_donated.analysis.DonationError` when a donation cannot be honoured;
    otherwise each one gets a :class:`~jax_use_donated.DonationWarning` ("Some donated buffers
    were not usable: ...") naming the blocking read (``warn=False``: none).
    ``keep_unpaired_donors=True`` leaves ``jax.buffer_donor`` on unpaired donors so XLA may
    still reuse them by size. Every donor's outcome measured in each compiled
    executable goes into ``last_plan``; ``verify_executable=True`` also checks the
    executable's ``input_output_alias`` against the plan and warns where a measured outcome
    contradicts a prediction.
    ``region_analysis`` (XLA:CPU, on by default): compile with XLA's region-analysis copy
    insertion, which orders independent reads before an in-place write instead of copying,
    and plan for it, where the plan predicts it saves a copy; ``region_analysis=False``, or
    the option set in the user's ``compiler_options`` or ``XLA_FLAGS``, keeps XLA's setting.
    ``footprint_guard`` (on by default): where the plan compiles differently from
    ``jax.jit``, JAX's own pairing is compiled too, once per lowering, and the executable that
    needs fewer bytes runs (``last_plan`` then describes JAX's pairing and says why), so the
    drop-in never needs more memory than ``jax.jit``; ``False``: one compile.
    """
    options = PlannerOptions(strict=strict, keep_unpaired_donors=keep_unpaired_donors,
                             verify_executable=verify_executable, warn=warn,
                             region_analysis=region_analysis, footprint_guard=footprint_guard)
    if fun is _UNSET:
        return lambda f: _jit(f, options, dict(jit_kwargs))
    return _jit(fun, options, dict(jit_kwargs))


jit = jax_internals.api_boundary(jit)


def jit_with_forced_pairs(fun: Callable[..., Any], pairs: dict[int, int],
                          **jit_kwargs: Any) -> Any:
    """Benchmarks only: a jit whose ``@main`` gets exactly these alias pairs (parameter ->
    output), without analysis (used to compile every pairing of a program)."""
    return _jit(fun, PlannerOptions(forced_pairs=tuple(sorted(pairs.items()))),
                dict(jit_kwargs))


def is_planned(fun: Any) -> bool:
    """Whether ``fun`` is a jit object created by :func:`jit` (not merely carrying its
    attributes, as wrappers that copy ``__dict__`` do)."""
    return planner_options(fun) is not None


def planner_options(fun: Any) -> PlannerOptions | None:
    """The planner options a :func:`jit` object lowers with, else ``None``."""
    info = getattr(fun, "_jit_info", None)
    for key, value in getattr(info, "compiler_options_kvs", None) or ():
        if key == MARKER:
            try:
                return PlannerOptions.decode(value)
            except OptionsError:
                return None
    return None


def _jitted(fun: Any) -> Any:
    """``fun``, or the jitted callable it wraps (``functools.wraps`` sets ``__wrapped__``):
    the first with a ``lower`` method."""
    obj, seen = fun, 0
    while obj is not None and seen < 64 and not isinstance(obj, (str, bytes)):
        if callable(getattr(obj, "lower", None)):
            return obj
        obj, seen = getattr(obj, "__wrapped__", None), seen + 1
    raise TypeError(f"{fun!r} is not a jitted function: neither it nor what it wraps has a "
                    ".lower method; jit it first (jax.jit, jax_use_donated.jit, "
                    "eqx.filter_jit, nnx.jit)")


def _jax_lowered(staged: Any) -> Any:
    """JAX's own ``Lowered`` stage in what a jitted callable's ``.lower(...)`` returned: itself,
    or the one a library's stage holds (Equinox's and Flax's ``Lowered`` wrap JAX's), found
    among its attributes."""
    import jax

    frontier = [staged]
    for _ in range(3):
        found = next((x for x in frontier if isinstance(x, jax.stages.Lowered)), None)
        if found is not None:
            return found
        frontier = [v for x in frontier for v in _attribute_values(x)]
    raise TypeError(f".lower(...) returned {type(staged).__name__}, which holds no "
                    "jax.stages.Lowered: cannot read its lowered module")


def _attribute_values(obj: Any) -> list[Any]:
    """The values of ``obj``'s instance attributes (``__dict__``, dataclass fields, slots)."""
    import dataclasses

    values = list(getattr(obj, "__dict__", {}).values()) if hasattr(obj, "__dict__") else []
    names: list[str] = []
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        names += [f.name for f in dataclasses.fields(obj)]
    for cls in type(obj).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        names += [slots] if isinstance(slots, str) else list(slots)
    for name in names:
        try:
            values.append(getattr(obj, name))
        except AttributeError:
            continue
    return values


def _lowered_record(fun: Any, args: tuple[Any, ...],
                    kwargs: dict[str, Any]) -> tuple[LoweringRecord | None, str, Any]:
    """Lower ``fun`` for these arguments under the planner and return the lowering's record
    (``None``: nothing donated), a name, and JAX's ``Lowered`` stage."""
    jitted = _jitted(fun)
    reason = planner.ensure_installed()
    if reason is not None:
        raise RuntimeError(f"no donation plan: {reason}")
    if is_planned(jitted) or jax_internals.planner_state().value:
        staged = jitted.lower(*args, **kwargs)
    else:  # lower it as the global switch would, without warnings (the report says it all)
        from jax_use_donated.dropin.switch import enabled

        with enabled(warn=False):
            staged = jitted.lower(*args, **kwargs)
    lowered = _jax_lowered(staged)
    name = f"jit({getattr(jitted, '__name__', None) or getattr(fun, '__name__', 'fun')})"
    return records.record_of(lowered.compiler_ir()), name, lowered


def _truth(record: LoweringRecord, lowered: Any) -> ExecutableTruth | None:
    """What the executable of ``lowered`` does with each donated parameter (``None`` for a
    fallback). The compilation is JAX's cached one; the planner measured it after compiling
    (:func:`.planner.on_compiled`), so this compiles and reads only when no call did yet."""
    if record.fallback_reason is None and record.truth is None:
        compiled = lowered.compile()
        if record.truth is None and record.fallback_reason is None:  # the hook could not
            donated = [x.parameter for x in record.call_plan().donations
                       if x.parameter is not None]
            record.truth = read_truth(compiled.as_text(), donated)
            record.leaf_plan = record.call_plan().with_truth(record.truth)
            records.publish(record)
    return record.truth if record.fallback_reason is None else None


def plan(fun: Any, *args: Any, **kwargs: Any) -> CallPlan:
    """The donation plan a call of the jitted ``fun`` with these arguments uses, as a
    :class:`CallPlan`, with each leaf's outcome measured in the compiled executable
    (``LeafDonation.measured``; ``CallPlan.disagreements`` lists predictions it contradicts).

    ``fun`` is a :func:`jit` object, or any jitted callable: ``jax.jit``, ``pjit``,
    ``eqx.filter_jit``, ``nnx.jit``, a ``functools.wraps`` wrapper of one (lowered under the
    planner, as the global switch would; a library's own ``Lowered`` stage is read through
    the JAX ``Lowered`` it holds). Lowering and compilation are cached by JAX, and the
    executable is measured once, after its compilation, so calling this before or after the
    call costs no second analysis, compile or measurement::

        step = jax_use_donated.jit(train_step, donate_argnums=(0, 1))
        step.plan(params, opt, batch).pairs_by_path["params['w']"]  # "result[0]['w']"
        step.plan(params, opt, batch).donation("params['w']").measured  # "copy-free"

    Raises ``TypeError`` when ``fun`` is not jitted, ``RuntimeError`` when the planner is
    unavailable (JAX internals changed).
    """
    record, name, lowered = _lowered_record(fun, args, kwargs)
    if record is None:  # nothing donated
        result = CallPlan(name, (), {}, ())
    else:
        _truth(record, lowered)
        result = record.call_plan()
    calls.remember(result, fun, args, kwargs)  # for result.plot() / .to_html()
    return result


def explain(fun: Any, *args: Any, **kwargs: Any) -> DonationReport:
    """What happens to every donated leaf of a call of the jitted ``fun`` with these
    arguments, as measured in the compiled executable, and what JAX's default pairing would
    do, as a :class:`DonationReport` (printable table). ``fun`` as for :func:`plan`."""
    record, name, lowered = _lowered_record(fun, args, kwargs)
    truth = _truth(record, lowered) if record is not None else None
    return report_of(record, name, truth)
