"""``jax_use_donated.jit``: ``jax.jit`` with donations paired by liveness.

Mechanism (see ``NOTES.md``, "Hooking the jit pipeline"): each wrapper jits a fresh function
object, so its traces, lowerings and executables are its own; while the wrapper runs, a
context variable names it, and a hook on ``jax._src.interpreters.mlir.lower_jaxpr_to_module``
rewrites the freshly lowered ``@main``'s argument attributes before JAX caches or compiles the
module::

    // JAX: greedy by type, in argument order (XLA must copy both buffers)
    func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32} loc("a"),
                           %arg1: tensor<4xf32> {tf.aliasing_output = 1 : i32} loc("b"))
    // this wrapper, for (a, b) -> (b * 2, a * 3): each buffer is reused after its last read
    func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 1 : i32} loc("a"),
                           %arg1: tensor<4xf32> {tf.aliasing_output = 0 : i32} loc("b"))

Before compilation the module handed to the compiler is checked to carry exactly the planned
alias attributes (XLA turns each ``tf.aliasing_output`` into exactly that ``input_output_alias``
entry); with ``verify_executable=True`` the compiled executable's ``input_output_alias`` is read
and compared too (exact, but it serializes the whole compiled module: about 2% of compile time).
If JAX's internals are not what the hook expects (another JAX version, a hook that never runs, a
mismatch), the wrapper warns once and behaves as plain ``jax.jit``: never a wrong result.

The plan a call uses is public: ``wrapped.plan(*args)`` (or ``wrapped.last_plan`` for the latest
lowering) is a :class:`CallPlan`, one :class:`LeafDonation` per donated leaf, with the pairs keyed
by pytree path, by flat argument leaf and by the executable's parameter number.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading
import time
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import jax

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
from jax_use_donated.analysis.model import FunctionModel, SourceLoc
from jax_use_donated.analysis.plan import DonationPlan, plan_donation
from jax_use_donated.analysis.xla_fallback import XlaFallback, xla_fallback
from jax_use_donated.diagnostics import Diagnostic, DonationWarning
from jax_use_donated.gc_pause import gc_paused
from jax_use_donated.hlo_alias import executable_aliases

JAX_UNUSABLE_WARNING = "Some donated buffers were not usable"
MAX_WARNINGS_PER_LOWERING = 16
"""Past this many unusable donors in one lowering, the rest are summarised in one warning."""

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_JAX_DIR = os.path.dirname(os.path.abspath(jax.__file__))


# --------------------------------------------------------------------------------------------
# What one lowering produced


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
    """What one lowering of a wrapper decided, kept for :meth:`DonatingJit.plan`, ``explain``
    and the compile check.

    The model and plan of a large program are hundreds of thousands of small objects: kept
    alive, every later garbage collection would walk them (measured on a 21k-op train step:
    about 0.3 s of collections per lowering, more than half the analysis itself). So the hook
    drops them (:meth:`release`) before re-enabling the collector, and :attr:`function`,
    :attr:`plan` and :attr:`fallback` rebuild them from the module on first use afterwards (the
    same module and inputs give the same answer). Everything else is small and kept.
    """

    jax_attrs: dict[int, tuple[str, object]]
    """What JAX wrote on each argument: index -> (attribute, value)."""
    result_paths: list[str | None]
    expected: dict[int, int]
    """The alias pairs the executable must have: parameter -> output."""
    buffer_donors: list[int]
    """Arguments left as ``jax.buffer_donor`` (``keep_unpaired_donors``): XLA may alias them."""
    removed: list[RemovedDonor] = field(default_factory=list)
    seconds: float = 0.0
    """Time the hook spent on this lowering (model, plan, diagnostics, rewrite)."""
    arg_leaves: list[int | None] = field(default_factory=list)
    """Per ``@main`` argument: its flat argument leaf (``None`` for tokens and hoisted
    constants)."""
    result_leaves: list[int | None] = field(default_factory=list)
    """Per ``@main`` result: its flat output leaf (``None`` for tokens)."""
    timings: dict[str, float] = field(default_factory=dict)
    """Wall seconds per hook step: ``model``, ``plan``, ``diagnostics``, ``rewrite``, ``call
    plan`` (building :attr:`leaf_plan`), ``release`` and, after compilation, ``check``."""
    cpu_timings: dict[str, float] = field(default_factory=dict)
    """The same steps in CPU seconds of the hook's thread (insensitive to machine load)."""
    analysis: Analysis | None = field(default=None, repr=False)
    """The model and plan while held (see the class docstring)."""
    rebuild: Callable[[], Analysis] | None = field(default=None, repr=False, compare=False)
    """Recomputes :attr:`analysis` after :meth:`release` (``None``: it cannot be dropped)."""
    leaf_plan: CallPlan | None = field(default=None, repr=False)
    """The user-facing plan (built by the hook before the release)."""

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

    def release(self) -> None:
        """Drop the model and plan (rebuilt on demand)."""
        if self.rebuild is not None:
            self.analysis = None

    def call_plan(self, function: str) -> CallPlan:
        """This lowering's plan keyed for users (see :class:`CallPlan`)."""
        if self.leaf_plan is not None and self.leaf_plan.function == function:
            return self.leaf_plan
        donations: list[LeafDonation] = []
        plan, fallback = self.plan, self.fallback
        for v in plan.verdicts:
            d = v.arg.index
            k = plan.pairs.get(d)
            kept = fallback.kept_pairs.get(d)
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
            note = fallback.notes.get(d)
            donations.append(LeafDonation(
                path=v.arg.display_name,
                leaf=_at(self.arg_leaves, d),
                parameter=d,
                status=status,
                result=_at(self.result_leaves, host) if host is not None else None,
                result_path=_at(self.result_paths, host) if host is not None else None,
                reason="paired" if k is not None else v.reason.value,
                message=v.message + (f"; {note}" if note and k is None else ""),
            ))
        for r in self.removed:
            donations.append(LeafDonation(
                path=r.name, leaf=r.leaf, parameter=None, status="removed", result=None,
                result_path=None, reason="unused",
                message=f"donated argument '{r.name}' ({r.type_text}) is unused, so jit removed "
                        "it and its buffer is not donated (keep_unused=True keeps it)"))
        donations.sort(key=lambda x: (x.leaf is None, x.leaf or 0))
        return CallPlan(function, tuple(donations), dict(self.expected),
                        tuple(self.buffer_donors))


DonationStatus = Literal["reused", "copied", "buffer donor", "not reused", "removed"]
"""What a call does with a donated leaf (see :attr:`LeafDonation.status`)."""


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


@dataclass(frozen=True)
class CallPlan:
    """The donation plan one lowering of a :func:`jit`-wrapped function uses.

    ``wrapped.plan(params, opt, batch).pairs_by_path`` ->
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
        """The entry of the leaf named ``path`` (``KeyError`` if none)."""
        for x in self.donations:
            if x.path == path:
                return x
        raise KeyError(path)


class _Scope:
    """The wrapper active in the current context and what its lowerings recorded."""

    def __init__(self, owner: DonatingJit) -> None:
        self.owner = owner
        self.pending_removed: list[RemovedDonor] = []
        self.pending_kept: list[int] | None = None
        """The flat argument leaves dead-code elimination kept, in order."""


_ACTIVE: ContextVar[_Scope | None] = ContextVar("jax_use_donated_jit", default=None)

# Module id -> (module, record, owner) for the compile-time check and lowering_record. The
# owner is held weakly and its entries go when it does (a finalizer), so a wrapper the user
# drops frees its records and modules; at most _RECORDS_LIMIT entries are kept.
_RECORDS: OrderedDict[int, tuple[object, LoweringRecord, weakref.ref[DonatingJit]]] = (
    OrderedDict())
_RECORDS_LIMIT = 512
_RECORDS_LOCK = threading.Lock()


def _remember(module: object, record: LoweringRecord, owner: DonatingJit) -> None:
    with _RECORDS_LOCK:
        _RECORDS[id(module)] = (module, record, weakref.ref(owner))
        while len(_RECORDS) > _RECORDS_LIMIT:
            _RECORDS.popitem(last=False)


def _forget_dropped_owners() -> None:
    """Drop the records of wrappers that no longer exist (their finalizer calls this)."""
    with _RECORDS_LOCK:
        for key in [k for k, entry in _RECORDS.items() if entry[2]() is None]:
            del _RECORDS[key]


# --------------------------------------------------------------------------------------------
# The hooks


class HookUnavailable(RuntimeError):
    """The JAX internals the hook patches are missing or changed."""


_HOOK_STATE: dict[str, Any] = {"installed": False, "error": None, "warned": False}
_HOOK_LOCK = threading.Lock()


def _install_hooks() -> None:
    """Patch ``mlir.lower_jaxpr_to_module``, ``pxla._dce_jaxpr`` and
    ``pxla._cached_compilation`` once; every patch is inert outside a wrapper's scope."""
    with _HOOK_LOCK:
        if _HOOK_STATE["installed"]:
            return
        if _HOOK_STATE["error"] is not None:
            raise HookUnavailable(_HOOK_STATE["error"])
        try:
            from jax._src.interpreters import mlir, pxla

            orig_lower = mlir.lower_jaxpr_to_module
            orig_dce = pxla._dce_jaxpr
            orig_compile = pxla._cached_compilation
            for fn, name in ((orig_lower, "lower_jaxpr_to_module"), (orig_dce, "_dce_jaxpr"),
                             (orig_compile, "_cached_compilation")):
                if not callable(fn):
                    raise HookUnavailable(f"jax internal {name} is not callable")
        except (ImportError, AttributeError, HookUnavailable) as e:
            _HOOK_STATE["error"] = f"JAX internals changed: {e}"
            raise HookUnavailable(_HOOK_STATE["error"]) from e

        @functools.wraps(orig_lower)
        def lower_jaxpr_to_module(*args: Any, **kwargs: Any) -> Any:
            scope = _ACTIVE.get()
            if scope is None:
                return orig_lower(*args, **kwargs)
            token = _ACTIVE.set(None)
            try:
                with warnings.catch_warnings():
                    warnings.filterwarnings("ignore", message=JAX_UNUSABLE_WARNING)
                    result = orig_lower(*args, **kwargs)
            finally:
                _ACTIVE.reset(token)
            scope.owner._after_lowering(scope, result, kwargs)
            return result

        @functools.wraps(orig_dce)
        def _dce_jaxpr(closed_jaxpr: Any, keep_unused: Any, donated_invars: Any) -> Any:
            out = orig_dce(closed_jaxpr, keep_unused, donated_invars)
            scope = _ACTIVE.get()
            if scope is not None:
                _note_removed(scope, closed_jaxpr, donated_invars, out)
            return out

        @functools.wraps(orig_compile)
        def _cached_compilation(computation: Any, *args: Any, **kwargs: Any) -> Any:
            executable = orig_compile(computation, *args, **kwargs)
            with _RECORDS_LOCK:
                entry = _RECORDS.get(id(computation))
            owner = entry[2]() if entry is not None and entry[0] is computation else None
            if entry is not None and owner is not None:
                owner._check_executable(entry[1], executable, computation)
            return executable

        mlir.lower_jaxpr_to_module = lower_jaxpr_to_module
        pxla._dce_jaxpr = _dce_jaxpr
        pxla._cached_compilation = _cached_compilation
        _HOOK_STATE["installed"] = True


def _note_removed(scope: _Scope, closed_jaxpr: Any, donated_invars: Any, out: Any) -> None:
    """Remember donated arguments that dead-code elimination dropped."""
    try:
        kept = out[2]
        scope.pending_kept = sorted(kept)
        names = closed_jaxpr.jaxpr.debug_info.safe_arg_names(len(donated_invars))
        avals = closed_jaxpr.in_avals
    except (AttributeError, IndexError, TypeError):
        return
    for i, donated in enumerate(donated_invars):
        if donated and i not in kept:
            aval = avals[i]
            nbytes = getattr(aval, "size", None)
            itemsize = getattr(getattr(aval, "dtype", None), "itemsize", None)
            scope.pending_removed.append(
                RemovedDonor(names[i] or f"argument {i}", aval.str_short(),
                             nbytes * itemsize if nbytes is not None and itemsize else None, i)
            )


def _warn_fallback(reason: str) -> None:
    if not _HOOK_STATE["warned"]:
        _HOOK_STATE["warned"] = True
        warnings.warn(
            f"jax_use_donated.jit falls back to plain jax.jit: {reason}. Donations are paired "
            "by JAX's default rule.", DonationWarning, stacklevel=_user_stacklevel())


def _user_stacklevel() -> int:
    """``stacklevel`` that points ``warnings.warn`` at the first frame outside JAX and this
    package (the user's call)."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if not (path.startswith(_PACKAGE_DIR) or path.startswith(_JAX_DIR)
                or "importlib" in path or path.startswith("<")):
            return level
        frame = frame.f_back
        level += 1
    return 1


def _emit_warning(diagnostic: Diagnostic, fallback_location: str) -> None:
    if diagnostics._SINK.get() is not None:
        diagnostics.emit(diagnostic)
        return
    warnings.warn(diagnostic.format(fallback_location), DonationWarning,
                  stacklevel=_user_stacklevel())


# --------------------------------------------------------------------------------------------
# The wrapper


class DonatingJit:
    """What :func:`jit` returns: a ``jax.jit`` object whose donations are paired by liveness."""

    def __init__(self, fun: Callable[..., Any], *, strict: bool = False,
                 keep_unpaired_donors: bool = False, verify_executable: bool = False,
                 **jit_kwargs: Any) -> None:
        self._fun = fun
        self.strict = strict
        self.keep_unpaired_donors = keep_unpaired_donors
        self.verify_executable = verify_executable
        self._jit_kwargs = jit_kwargs

        @functools.wraps(fun)
        def fresh(*args: Any, **kwargs: Any) -> Any:
            return fun(*args, **kwargs)

        self._fresh = fresh
        self._jitted = jax.jit(fresh, **jit_kwargs)
        self._plain: Any = None
        self._fallback_reason: str | None = None
        self._hook_fired = False
        self._forced_pairs: dict[int, int] | None = None
        """Benchmarks only: write exactly these ``@main`` alias pairs, skip the analysis."""
        self.records: list[LoweringRecord] = []
        """The analyses of this wrapper's latest lowerings (at most 8), oldest first; the
        public view is :meth:`plan` / :attr:`last_plan`."""
        functools.update_wrapper(self, fun)  # type: ignore[arg-type]
        weakref.finalize(self, _forget_dropped_owners)
        try:
            _install_hooks()
        except HookUnavailable as e:
            self._fall_back(str(e))

    # -- jax.jit's interface ------------------------------------------------------------------

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._fallback_reason is not None:
            return self._plain_jit()(*args, **kwargs)
        size = self._cache_size()
        with self._scope():
            out = self._jitted(*args, **kwargs)
        if not self._hook_fired and size is not None and (self._cache_size() or 0) > size:
            self._fall_back("the lowering hook did not run (JAX internals changed?)")
        return out

    def lower(self, *args: Any, **kwargs: Any) -> Any:
        if self._fallback_reason is not None:
            return self._plain_jit().lower(*args, **kwargs)
        with self._scope():
            return self._jitted.lower(*args, **kwargs)

    def trace(self, *args: Any, **kwargs: Any) -> Any:
        if self._fallback_reason is not None:
            return self._plain_jit().trace(*args, **kwargs)
        with self._scope():
            traced = self._jitted.trace(*args, **kwargs)
        return _bind_traced(traced, self)

    def eval_shape(self, *args: Any, **kwargs: Any) -> Any:
        return self._jitted.eval_shape(*args, **kwargs)

    def explain(self, *args: Any, **kwargs: Any) -> Any:
        """The :class:`~jax_use_donated.report.DonationReport` for these arguments."""
        from jax_use_donated.report import report_for

        return report_for(self, args, kwargs)

    def plan(self, *args: Any, **kwargs: Any) -> CallPlan:
        """The donation plan a call with these arguments uses, as a :class:`CallPlan`.

        Lowers like :meth:`lower` (JAX caches lowerings, so calling this before or after the
        call itself costs no second analysis) and returns the plan that lowering carries::

            step = jax_use_donated.jit(train_step, donate_argnums=(0, 1))
            step.plan(params, opt, batch).pairs_by_path["params['w']"]  # "result[0]['w']"

        Raises ``RuntimeError`` when the wrapper fell back to plain ``jax.jit``.
        """
        lowered = self.lower(*args, **kwargs)
        if self._fallback_reason is not None:
            raise RuntimeError(f"no donation plan: {self._fallback_reason}")
        record = lowering_record(lowered.compiler_ir())
        if record is None:  # nothing donated
            return CallPlan(self._display_name(), (), {}, ())
        return record.call_plan(self._display_name())

    @property
    def last_plan(self) -> CallPlan | None:
        """The :class:`CallPlan` of this wrapper's most recent lowering (by a call, ``lower``,
        ``trace(...).lower()``, ``plan`` or ``explain``) that donated anything; ``None``
        before that."""
        if not self.records:
            return None
        return self.records[-1].call_plan(self._display_name())

    def _display_name(self) -> str:
        return f"jit({getattr(self._fun, '__name__', 'fun')})"

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return functools.partial(self, obj)

    def __getattr__(self, name: str) -> Any:
        # Everything else (clear_cache, _cache_size, ...) is jax.jit's.
        if name.startswith("__") or name in ("_jitted", "_plain"):
            raise AttributeError(name)
        return getattr(self._jitted, name)

    def __repr__(self) -> str:
        return f"jax_use_donated.jit({getattr(self._fun, '__name__', self._fun)!r})"

    # -- internals ----------------------------------------------------------------------------

    @property
    def fallback_reason(self) -> str | None:
        """Why this wrapper behaves as plain ``jax.jit`` (``None`` when it does not)."""
        return self._fallback_reason

    @contextlib.contextmanager
    def _scope(self) -> Iterator[_Scope]:
        scope = _Scope(self)
        token = _ACTIVE.set(scope)
        try:
            yield scope
        finally:
            _ACTIVE.reset(token)

    def _cache_size(self) -> int | None:
        size = getattr(self._jitted, "_cache_size", None)
        try:
            return int(cast(int, size())) if callable(size) else None
        except Exception:
            return None

    def _plain_jit(self) -> Any:
        if self._plain is None:
            self._plain = jax.jit(self._fun, **self._jit_kwargs)
        return self._plain

    def _fall_back(self, reason: str) -> None:
        if self._fallback_reason is None:
            self._fallback_reason = reason
            _warn_fallback(reason)

    def _after_lowering(self, scope: _Scope, result: Any, kwargs: dict[str, Any]) -> None:
        """Analyse and rewrite the module JAX just lowered (called by the hook)."""
        self._hook_fired = True
        removed, scope.pending_removed = scope.pending_removed, []
        kept, scope.pending_kept = scope.pending_kept, None
        if self._forced_pairs is not None:
            main = module_function(result.module, "main")
            if main is not None:
                set_arg_donations(main, self._forced_pairs)
            return
        clock = _StepClock()
        # The analysis allocates hundreds of thousands of small objects: with the collector
        # paused they are never walked, and the release below frees them by reference count.
        with gc_paused():
            try:
                record = _analyse(result.module, kwargs, self.keep_unpaired_donors, removed,
                                  kept, clock)
            except DonationError:
                raise
            except Exception as e:  # an unexpected module shape: keep JAX's own attributes
                self._fall_back(f"unexpected lowered module ({type(e).__name__}: {e})")
                return
            if record is None:
                return
            try:
                self._report(record, removed, record.function.name)
                clock.lap("diagnostics")
                if record.function.handle is not None:
                    set_arg_donations(record.function.handle,  # type: ignore[arg-type]
                                      record.expected, record.buffer_donors)
                clock.lap("rewrite")
                record.leaf_plan = record.call_plan(self._display_name())
                clock.lap("call plan")
            finally:
                record.release()
                clock.lap("release")
        record.seconds = clock.total
        record.timings, record.cpu_timings = clock.wall, clock.cpu
        self.records.append(record)
        del self.records[:-8]
        _remember(result.module, record, self)

    def _report(self, record: LoweringRecord | None, removed: list[RemovedDonor],
                where: str) -> None:
        """Warn (or raise, when strict) about every donation that cannot be honoured."""
        problems: list[Diagnostic] = []
        for r in removed:
            problems.append(Diagnostic(
                "warning",
                f"donated argument '{r.name}' ({r.type_text}) is unused, so jit removed it "
                "and its buffer is not donated (pass keep_unused=True to donate it anyway)"))
        if record is not None:
            for v in record.plan.unpaired:
                if record.plan.pairs.get(v.arg.index) is not None:
                    continue
                reader = next((b.reader for b in v.blockers if b.reader is not None), None)
                loc = reader.loc if reader is not None else SourceLoc()
                note = record.fallback.notes.get(v.arg.index)
                problems.append(Diagnostic("warning", v.message + (f"; {note}" if note else ""),
                                           loc))
        if not problems:
            return
        fallback = f"jit({self._fun.__name__})" if hasattr(self._fun, "__name__") else where
        if self.strict:
            raise DonationError(
                f"{fallback}: {len(problems)} donation(s) cannot be honoured:\n"
                + "\n".join("  " + p.format(fallback) for p in problems))
        for p in problems[:MAX_WARNINGS_PER_LOWERING]:
            _emit_warning(p, fallback)
        if len(problems) > MAX_WARNINGS_PER_LOWERING:
            _emit_warning(Diagnostic(
                "warning",
                f"{len(problems) - MAX_WARNINGS_PER_LOWERING} more donated argument(s) are not "
                "reused; call .explain(...) on the jitted function for the full report"),
                fallback)

    def _check_executable(self, record: LoweringRecord, executable: Any,
                          computation: Any = None) -> None:
        """Check that the module given to the compiler carries exactly the planned alias
        attributes and, with ``verify_executable``, that the compiled ``input_output_alias``
        equals the plan; fall back to plain ``jax.jit`` on a mismatch."""
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            self._check_compiled(record, executable, computation)
        finally:
            record.timings["check"] = time.perf_counter() - wall
            record.cpu_timings["check"] = time.thread_time() - cpu

    def _check_compiled(self, record: LoweringRecord, executable: Any,
                        computation: Any) -> None:
        main = module_function(computation, "main") if computation is not None else None
        if main is not None:
            planned = {p: (ALIASING_OUTPUT, k) for p, k in record.expected.items()}
            planned.update({p: (BUFFER_DONOR, True) for p in record.buffer_donors})
            given = arg_donations(main)
            if given != planned:
                self._fall_back(
                    f"the module given to the compiler carries the donation attributes "
                    f"{dict(sorted(given.items()))}, not the plan's {dict(sorted(planned.items()))}")
                return
        if not self.verify_executable:
            return
        try:
            actual = executable_aliases(executable)
        except Exception as e:
            self._fall_back(f"cannot read the executable's aliasing ({e})")
            return
        fixed = {p: k for p, k in actual.items() if p not in record.buffer_donors}
        expected_ok = fixed == record.expected and all(
            actual.get(p) is None or p in record.buffer_donors for p in actual
            if p not in record.expected)
        if not expected_ok:
            self._fall_back(
                f"the compiled aliasing {dict(sorted(actual.items()))} differs from the plan "
                f"{dict(sorted(record.expected.items()))}")


class _StepClock:
    """Wall and thread-CPU seconds of consecutive hook steps."""

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


def lowering_record(module: Any) -> LoweringRecord | None:
    """The hook's record of a lowered module (``lowered.compiler_ir()``), or ``None`` when the
    hook did not analyse it (nothing donated, or another wrapper's module)."""
    with _RECORDS_LOCK:
        entry = _RECORDS.get(id(module))
    if entry is None or entry[0] is not module:
        return None
    return entry[1]


def _bind_traced(traced: Any, owner: DonatingJit) -> Any:
    """Make ``traced.lower()`` run in ``owner``'s scope (``Traced`` keeps its class)."""
    cls = type(traced)
    sub = _TRACED_SUBCLASSES.get(cls)
    if sub is None:
        def lower(self: Any, *args: Any, **kwargs: Any) -> Any:
            wrapper = _TRACED_OWNERS.get(id(self))
            if wrapper is None or wrapper[0]() is not self:
                return cls.lower(self, *args, **kwargs)
            with wrapper[1]._scope():
                return cls.lower(self, *args, **kwargs)

        sub = type(cls.__name__, (cls,), {"__slots__": (), "lower": lower,
                                          "__module__": cls.__module__})
        _TRACED_SUBCLASSES[cls] = sub
    try:
        traced.__class__ = sub
    except TypeError:
        return traced
    key = id(traced)

    def forget(ref: weakref.ref[Any]) -> None:
        entry = _TRACED_OWNERS.get(key)
        if entry is not None and entry[0] is ref:
            del _TRACED_OWNERS[key]

    _TRACED_OWNERS[key] = (weakref.ref(traced, forget), owner)
    while len(_TRACED_OWNERS) > _RECORDS_LIMIT:
        _TRACED_OWNERS.popitem(last=False)
    return traced


_TRACED_SUBCLASSES: dict[type, type] = {}
_TRACED_OWNERS: OrderedDict[int, tuple[weakref.ref[Any], DonatingJit]] = OrderedDict()
"""``Traced`` id -> (weak reference to it, its wrapper); an entry goes with its ``Traced``."""


# --------------------------------------------------------------------------------------------
# The analysis of one lowering


def _analyse(module: Any, kwargs: dict[str, Any], keep_unpaired: bool,
             removed: list[RemovedDonor], kept: list[int] | None = None,
             clock: _StepClock | None = None) -> LoweringRecord | None:
    """Plan the donations of a just-lowered module; ``None`` when nothing is donated and jit
    removed no donor. ``kept`` lists the flat argument leaves left after dead-code elimination
    (``None``: unknown)."""
    clock = clock or _StepClock()
    donated_args: Sequence[bool] = kwargs["donated_args"]
    if not any(donated_args) and not removed:
        return None
    in_avals = kwargs["in_avals"]
    main = module_function(module, "main")
    if main is None:
        raise HookUnavailable("the lowered module has no @main")
    nargs = len(main.regions[0].blocks[0].arguments)
    offset = nargs - len(in_avals)
    if offset < 0 or len(donated_args) != len(in_avals):
        raise HookUnavailable(f"@main has {nargs} arguments for {len(in_avals)} avals")
    arg_leaves, result_leaves = _leaf_maps(main, kwargs, offset, kept)
    if not any(donated_args):  # every donor was removed as unused
        name = symbol_name(main)
        analysis = Analysis(FunctionModel(name, [], [], []),
                            DonationPlan(name, {}, [], {}, "dataflow"), XlaFallback())
        return LoweringRecord({}, result_names(main), {}, [], removed, arg_leaves=arg_leaves,
                              result_leaves=result_leaves, analysis=analysis)
    donors = [i + offset for i, d in enumerate(donated_args) if d]
    aliases = kwargs.get("input_output_aliases") or ()
    fixed: dict[int, int] = {i + offset: k for i, k in enumerate(aliases) if k is not None}
    jax_attrs = arg_donations(main)
    names = kwargs.get("arg_names")
    partitions = kwargs.get("num_partitions", 1)

    def plan_module(clock: _StepClock) -> Analysis:
        adapter = ModuleAdapter(module.operation)
        fn = adapter.build(main, donors, fixed)
        if partitions > 1:
            _unspecified_result_shardings(fn)
        if names is not None:
            for i, arg in enumerate(fn.args):
                j = i - offset
                if 0 <= j < len(names) and names[j] and arg.loc.name is None:
                    arg.loc = SourceLoc(arg.loc.text, names[j])
        clock.lap("model")
        plan = plan_donation(fn, "dataflow", keep_existing_aliases=bool(fixed))
        fallback = xla_fallback(
            plan,
            {d: k for d, (attr, k) in jax_attrs.items()
             if attr == ALIASING_OUTPUT and isinstance(k, int)},
            {d for d, (attr, _) in jax_attrs.items() if attr == BUFFER_DONOR},
            keep_unpaired=keep_unpaired,
        )
        clock.lap("plan")
        return Analysis(fn, plan, fallback)

    def rebuild() -> Analysis:
        with gc_paused():
            return plan_module(_StepClock())

    analysis = plan_module(clock)
    record = LoweringRecord(jax_attrs, result_names(main),
                            analysis.fallback.all_pairs(analysis.plan),
                            analysis.fallback.buffer_donors, removed, arg_leaves=arg_leaves,
                            result_leaves=result_leaves, analysis=analysis, rebuild=rebuild)
    clock.lap("plan")
    return record


def _leaf_maps(main: Any, kwargs: dict[str, Any], offset: int,
               kept: list[int] | None) -> tuple[list[int | None], list[int | None]]:
    """Flat argument leaf of each ``@main`` argument and flat output leaf of each result.

    ``@main``'s arguments are ``offset`` effect tokens, then the hoisted constants
    (``num_const_args``), then the leaves dead-code elimination ``kept`` (in order); its results
    are effect tokens, then one per output leaf (``result_names``)."""
    nargs = len(main.regions[0].blocks[0].arguments)
    consts = int(kwargs.get("num_const_args") or 0)
    arg_leaves: list[int | None] = []
    for i in range(nargs):
        j = i - offset - consts
        arg_leaves.append(kept[j] if kept is not None and 0 <= j < len(kept) else None)
    paths = kwargs.get("result_names")
    nresults = len(result_names(main))
    tokens = nresults - len(paths) if paths is not None else 0
    result_leaves: list[int | None] = [k - tokens if k >= tokens else None
                                       for k in range(nresults)]
    return arg_leaves, result_leaves


def _unspecified_result_shardings(fn: FunctionModel) -> None:
    """In a multi-device module a result without a sharding attribute gets the sharding XLA
    propagates; an alias makes XLA give it the donor's sharding. So such a result may host any
    donor of its type: compare it as if it had that donor's placement."""
    from jax_use_donated.analysis.model import Placement

    shardings = {a.placement.sharding for a in fn.donors if a.tensor is not None}
    if len(shardings) != 1:
        return
    (sharding,) = shardings
    for res in fn.results:
        if res.placement.sharding is None and res.tensor is not None:
            res.placement = Placement(sharding, res.placement.memory_kind, res.placement.layout)


# --------------------------------------------------------------------------------------------


def jit(fun: Callable[..., Any] | None = None, *, strict: bool = False,
        keep_unpaired_donors: bool = False, verify_executable: bool = False,
        **jit_kwargs: Any) -> Any:
    """``jax.jit(fun, **jit_kwargs)``, except that donated inputs are paired with outputs by
    liveness: a donor hosts a result only where XLA needs no copy, and JAX's default pairing is
    kept wherever it is already copy-free.

    ``strict=True`` raises :class:`~jax_use_donated.analysis.DonationError` when a donation
    cannot be honoured; otherwise each one gets a :class:`DonationWarning` naming the blocking
    read. ``keep_unpaired_donors=True`` leaves ``jax.buffer_donor`` on unpaired donors so XLA
    may still reuse them by size. ``verify_executable=True`` also reads each compiled
    executable's ``input_output_alias`` and compares it with the plan (exact, but it serializes
    the compiled module: about 0.25 s, 2% of compile time, on a 21k-op train step); by default
    only the module given to the compiler is checked. ``.plan(*args)`` / ``.last_plan`` give the
    plan a call uses (:class:`CallPlan`). Usable as a decorator, with or without arguments.
    """
    if fun is None:
        return functools.partial(jit, strict=strict, keep_unpaired_donors=keep_unpaired_donors,
                                 verify_executable=verify_executable, **jit_kwargs)
    return DonatingJit(fun, strict=strict, keep_unpaired_donors=keep_unpaired_donors,
                       verify_executable=verify_executable, **jit_kwargs)
