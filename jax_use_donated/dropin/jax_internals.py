"""Every JAX internal the drop-in relies on, in one module, adapted per JAX version.

Nothing else in the package imports ``jax._src``. The mechanism (tested on jax 0.10.2 through
0.12.x):

* A drop-in is a genuine ``jax.jit`` whose ``compiler_options`` carry one extra entry,
  :data:`MARKER` ``= "<planner options text>"``. JAX keys all its caches on compiler options
  (the C++ dispatch cache, tracing, lowering and compilation caches), so a planned lowering is
  never served to a plain ``jax.jit`` of the same function, nor the other way round, and
  re-creating a drop-in for the same function hits JAX's caches as ``jax.jit`` does.
* The global switch is a JAX config state (:func:`planner_state`) that JAX includes in its jit
  and trace keys: inside ``enabled()`` every ``jax.jit`` misses the caches it filled outside.
* ``pxla.lower_sharding_computation`` (every top-level lowering of ``jax.jit``, ``pjit``, AOT
  ``.lower()``, ``jax.export``) is wrapped: when the marker or the switch asks for planning it
  removes the marker from the compiler options (XLA never sees it) and lowers with
  :class:`PlannedParameters`, a ``LoweringParameters`` carrying the options text and the
  compiler options (the plan depends on them). JAX's lowering cache keys on those
  parameters, and ``mlir.lower_jaxpr_to_module`` (also wrapped) hands the freshly lowered
  module to the planner before JAX caches or compiles it.
* A nested drop-in is staged into its caller like any nested ``jax.jit``; JAX rejects compiler
  options on nested jits, so the staging rule of ``jit_p`` drops the marker first: the
  outermost jit's options apply, as in JAX.
* ``pxla._cached_compilation`` is wrapped to check the compiled result against the plan (and to
  strip a marker that reached it because the lowering wrapper did not run).

If any of this is missing or changed, :func:`install` raises :class:`InternalsUnavailable` and
the drop-in behaves as plain ``jax.jit`` after one warning.
"""

from __future__ import annotations

import contextvars
import dataclasses
import inspect
import os
import threading
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import jax

from jax_use_donated.analysis.orderings import parse_xla_flags

MARKER = "jax_use_donated_plan"
"""The compiler option that carries a drop-in's planner options (never reaches XLA)."""

STATE_NAME = "jax_use_donated_planner"
"""The JAX config option of the global switch (``""``: off; else planner options text). Also
read from the environment variable ``JAX_USE_DONATED_PLANNER``."""

JAX_UNUSABLE_WARNING = "Some donated buffers were not usable"
"""The start of JAX's own warning for donations it cannot use (users filter on it)."""

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def jax_version() -> tuple[int, ...]:
    """``jax.__version__`` as integers: ``0.12.0.1`` -> ``(0, 12, 0, 1)``."""
    out: list[int] = []
    for part in jax.__version__.split("."):
        digits = "".join(c for c in part if c.isdigit())
        if not digits:
            break
        out.append(int(digits))
    return tuple(out)


class InternalsUnavailable(RuntimeError):
    """The JAX internals the drop-in patches are missing or changed."""


# --------------------------------------------------------------------------------------------
# What the planner is handed


@dataclass(frozen=True)
class RemovedArg:
    """A donated argument that JAX's dead-code elimination removed (``keep_unused=False``)."""

    leaf: int
    """Its position among the flattened dynamic arguments."""
    name: str
    type_text: str
    nbytes: int | None


@dataclass
class Lowering:
    """One freshly lowered top-level module that the planner should plan."""

    options_text: str
    module: Any
    """The ``ir.Module``; rewriting its ``@main`` in place is what JAX caches and compiles."""
    function_name: str
    donated_args: Sequence[bool]
    in_avals: Sequence[Any]
    input_output_aliases: Sequence[int | None]
    arg_names: Sequence[str] | None
    result_names: Sequence[str] | None
    num_partitions: int
    num_const_args: int
    kept_leaves: list[int] | None
    """The flat argument leaves dead-code elimination kept, in order (``None``: unknown)."""
    removed: list[RemovedArg] = field(default_factory=list)
    platforms: tuple[str, ...] = ()
    compiler_options: dict[str, Any] = field(default_factory=dict)
    """The compiler options XLA compiles this module with (the user's, the planner's own, and
    those set by ``XLA_FLAGS``), without :data:`MARKER`."""
    added_options: dict[str, Any] = field(default_factory=dict)
    """The planner's own among them (``OptionsCallback``): a compile may leave them out
    (:data:`Compile`)."""


LoweredCallback = Callable[[Lowering], None]
Compile = Callable[..., Any]
"""``compile(drop=(), module=None)``: JAX's compilation of the module being compiled (or of
``module``, another module for the same computation), without the compiler options named in
``drop``; JAX's own compilation cache applies."""
CompiledCallback = Callable[[Any, Compile], Any]
"""``(module given to XLA, compile) -> executable``: runs each compilation of a planned module
(it may compile it several ways and pick one, :func:`.planner.on_compiled`)."""
ComputationCallback = Callable[[str, Any], None]
"""``(planner options text, lowered module)`` after each planned top-level lowering, cached
or not (to notice a lowering the planner did not see)."""
OptionsCallback = Callable[[str, tuple[str, ...], dict[str, Any], int], dict[str, Any]]
"""``(planner options text, platforms, compiler options, devices) -> options to add`` before a
planned top-level lowering (the planner's own XLA options; they enter JAX's cache keys with the
rest). ``devices``: how many devices the program's shardings span (1 without any)."""


@dataclass(frozen=True)
class _Pending:
    """What the sharding-computation wrapper learnt for the lowering it started."""

    kept: list[int] | None
    removed: list[RemovedArg]
    compiler_options: dict[str, Any] = field(default_factory=dict)
    added_options: dict[str, Any] = field(default_factory=dict)


_PENDING: contextvars.ContextVar[_Pending | None] = contextvars.ContextVar(
    "jax_use_donated_pending", default=None)
_PLANNING: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "jax_use_donated_planning", default=False)


# --------------------------------------------------------------------------------------------
# Installation


_LOCK = threading.Lock()
_STATE: dict[str, Any] = {"installed": False, "error": None, "callbacks": None}
_ORIGINAL_JIT: Callable[..., Any] | None = None


def original_jit() -> Callable[..., Any]:
    """JAX's own ``jit`` (``jax._src.api.jit``), whatever ``jax.jit`` is bound to now (users
    may set ``jax.jit = jax_use_donated.jit``)."""
    global _ORIGINAL_JIT
    if _ORIGINAL_JIT is None:
        from jax._src import api

        _ORIGINAL_JIT = api.jit
    return _ORIGINAL_JIT


def api_boundary(fun: Callable[..., Any]) -> Callable[..., Any]:
    """JAX's ``traceback_util.api_boundary`` (JAX filters its own and this package's frames
    from tracebacks that cross it), or ``fun`` itself when JAX has none."""
    try:
        from jax._src import traceback_util
    except ImportError:
        return fun
    return traceback_util.api_boundary(fun)


def hide_package_frames() -> None:
    """Register this package's files with JAX's traceback filtering, as JAX's own, and the
    drop-in's wrappers with JAX's source locations (so that a lowering's stack, which JAX
    records for a nested jit with no user frame, never names them)."""
    try:
        from jax._src import source_info_util, traceback_util

        traceback_util.register_exclusion(_PACKAGE_DIR)
        dropin_dir = os.path.dirname(os.path.abspath(__file__)) + os.sep
        if dropin_dir not in getattr(source_info_util, "_exclude_paths", ()):
            source_info_util.register_exclusion(dropin_dir)
    except (ImportError, AttributeError):
        pass


_PLANNER_STATE: Any = None


def planner_state() -> Any:
    """The config state of the global switch (a ``jax._src.config.State``; ``.value`` is the
    planner options text or ``""``)."""
    global _PLANNER_STATE
    if _PLANNER_STATE is None:
        from jax._src import config

        existing = getattr(config, "config_states", {}).get(STATE_NAME)
        if existing is not None:
            _PLANNER_STATE = existing
        else:
            _PLANNER_STATE = config.string_or_object_state(
                STATE_NAME, "",
                "Planner options of jax_use_donated's liveness donation planner for every "
                "jit lowering ('' = off). Set with jax_use_donated.install() / enabled().",
                include_in_jit_key=True, include_in_trace_context=True)
    return _PLANNER_STATE


def _device_count(arguments: dict[str, Any]) -> int:
    """The most devices any input or output sharding of a ``lower_sharding_computation`` call
    spans, or its concrete context mesh (1 when nothing says more)."""
    count = 1
    for s in (*tuple(arguments.get("in_shardings") or ()),
              *tuple(arguments.get("out_shardings") or ())):
        n = getattr(s, "num_devices", None)
        if isinstance(n, int):
            count = max(count, n)
    devices = getattr(arguments.get("context_mesh"), "devices", None)
    size = getattr(devices, "size", None)
    if isinstance(size, int):
        count = max(count, size)
    return count


def install(on_lowered: LoweredCallback, on_compiled: CompiledCallback,
            on_computation: ComputationCallback,
            add_options: OptionsCallback | None = None) -> None:
    """Wrap the patch points once (later calls only check that the first succeeded).

    Raises :class:`InternalsUnavailable` when JAX's internals are not the expected ones; the
    failure is remembered, so every later call raises the same error at once.
    """
    with _LOCK:
        if _STATE["installed"]:
            return
        if _STATE["error"] is not None:
            raise InternalsUnavailable(_STATE["error"])
        try:
            _install(on_lowered, on_compiled, on_computation, add_options)
        except InternalsUnavailable as e:
            _STATE["error"] = str(e)
            raise
        except (ImportError, AttributeError, KeyError, TypeError, ValueError) as e:
            _STATE["error"] = f"JAX internals changed ({type(e).__name__}: {e})"
            raise InternalsUnavailable(_STATE["error"]) from e
        _STATE["installed"] = True


def unavailable_reason() -> str | None:
    """Why :func:`install` failed, or ``None``."""
    return _STATE["error"]


def _require(fn: Any, what: str, params: Sequence[str]) -> inspect.Signature | None:
    if not callable(fn):
        raise InternalsUnavailable(f"jax internal {what} is missing")
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None  # a C++ cache object: checked by calling it
    missing = [p for p in params if p not in sig.parameters]
    if missing:
        raise InternalsUnavailable(
            f"jax internal {what} no longer takes {', '.join(missing)} (jax {jax.__version__})")
    return sig


def _install(on_lowered: LoweredCallback, on_compiled: CompiledCallback,
             on_computation: ComputationCallback, add_options: OptionsCallback | None) -> None:
    from jax._src import pjit
    from jax._src.interpreters import mlir, pxla
    from jax._src.interpreters import partial_eval as pe

    orig_lsc = pxla.lower_sharding_computation
    lsc_sig = _require(orig_lsc, "pxla.lower_sharding_computation",
                       ("donated_invars", "keep_unused", "compiler_options_kvs",
                        "lowering_parameters"))
    orig_lower = mlir.lower_jaxpr_to_module
    _require(orig_lower, "mlir.lower_jaxpr_to_module",
             ("donated_args", "in_avals", "lowering_parameters", "input_output_aliases"))
    orig_compile: Any = getattr(pxla, "_cached_compilation", None)
    for name in ("_cached_compilation", "_dce_jaxpr"):
        if not callable(getattr(pxla, name, None)):
            raise InternalsUnavailable(f"jax internal pxla.{name} is missing")
    jit_p: Any = getattr(pjit, "jit_p", None) or getattr(pjit, "pjit_p", None)
    orig_stage = pe.custom_staging_rules.get(jit_p) if jit_p is not None else None
    if jit_p is None or orig_stage is None:
        raise InternalsUnavailable("jax internal staging rule of jit_p is missing")
    params_cls = mlir.LoweringParameters
    if not dataclasses.is_dataclass(params_cls):
        raise InternalsUnavailable("jax internal mlir.LoweringParameters is not a dataclass")
    if lsc_sig is None:
        raise InternalsUnavailable("cannot read lower_sharding_computation's signature")
    planned_cls = _planned_parameters_class(params_cls)
    state = planner_state()
    compile_sig_cache: dict[str, int] = {}

    def lower_sharding_computation(*args: Any, **kwargs: Any) -> Any:
        bound = lsc_sig.bind(*args, **kwargs)
        a = bound.arguments
        kvs = cast("tuple[tuple[str, Any], ...]", tuple(a["compiler_options_kvs"] or ()))
        text = next((v for k, v in kvs if k == MARKER), None)
        if text is None:
            text = state.value or None
        else:
            a["compiler_options_kvs"] = tuple((k, v) for k, v in kvs if k != MARKER)
        if not text or not any(a["donated_invars"]):
            if text:  # nothing donated: nothing to plan, but keep the marker out of XLA
                return orig_lsc(*bound.args, **bound.kwargs)
            return orig_lsc(*args, **kwargs)
        user = {**xla_flags(), **dict(a["compiler_options_kvs"] or ())}
        platforms = tuple(a.get("lowering_platforms") or (jax.default_backend(),))
        extra = (add_options(str(text), platforms, user, _device_count(a))
                 if add_options is not None else {})
        params = a["lowering_parameters"]
        a["lowering_parameters"] = planned_cls(
            **{f.name: getattr(params, f.name) for f in dataclasses.fields(params_cls)},
            donation=str(text), compile_options=options_key({**user, **extra}))
        if extra:
            a["compiler_options_kvs"] = (*tuple(a["compiler_options_kvs"] or ()),
                                         *extra.items())
        pending = dataclasses.replace(
            _pruning(pxla, a["closed_jaxpr"], a["keep_unused"], a["donated_invars"]),
            compiler_options={**user, **extra}, added_options=dict(extra))
        token = _PENDING.set(pending)
        try:
            computation = orig_lsc(*bound.args, **bound.kwargs)
        finally:
            _PENDING.reset(token)
        on_computation(str(text), getattr(computation, "_hlo", None))
        return computation

    def lower_jaxpr_to_module(*args: Any, **kwargs: Any) -> Any:
        params = kwargs.get("lowering_parameters")
        if not isinstance(params, planned_cls):
            return orig_lower(*args, **kwargs)
        planning = _PLANNING.set(True)
        try:
            result = orig_lower(*args, **kwargs)
        finally:
            _PLANNING.reset(planning)
        pending = _PENDING.get()
        module_name = args[0] if args else kwargs.get("module_name", "")
        on_lowered(Lowering(
            options_text=params.donation,  # type: ignore[attr-defined]
            module=result.module,
            function_name=str(module_name),
            donated_args=kwargs["donated_args"],
            in_avals=kwargs["in_avals"],
            input_output_aliases=kwargs.get("input_output_aliases") or (),
            arg_names=kwargs.get("arg_names"),
            result_names=kwargs.get("result_names"),
            num_partitions=int(kwargs.get("num_partitions", 1) or 1),
            num_const_args=int(kwargs.get("num_const_args") or 0),
            kept_leaves=pending.kept if pending is not None else None,
            removed=list(pending.removed) if pending is not None else [],
            platforms=tuple(kwargs.get("platforms") or ()),
            compiler_options=dict(pending.compiler_options) if pending is not None else {},
            added_options=dict(pending.added_options) if pending is not None else {},
        ))
        return result

    def cached_compilation(computation: Any, *args: Any, **kwargs: Any) -> Any:
        args, kwargs = _strip_stray_marker(args, kwargs, compile_sig_cache)

        def compile(drop: Sequence[str] = (), module: Any = None) -> Any:
            a, k = _without_options(args, kwargs, drop, compile_sig_cache)
            return orig_compile(computation if module is None else module, *a, **k)

        return on_compiled(computation, compile)

    def staging_rule(trace: Any, source_info: Any, *args: Any, **params: Any) -> Any:
        kvs = params.get("compiler_options_kvs") or ()
        if any(k == MARKER for k, _ in kvs):
            params = dict(params, compiler_options_kvs=tuple(
                (k, v) for k, v in kvs if k != MARKER))
        return orig_stage(trace, source_info, *args, **params)

    for wrapper, orig in ((lower_sharding_computation, orig_lsc),
                          (lower_jaxpr_to_module, orig_lower)):
        wrapper.__wrapped__ = orig  # type: ignore[attr-defined]
        wrapper.__name__ = getattr(orig, "__name__", wrapper.__name__)
    mlir.warnings = _WarningsFilter(mlir.warnings)  # type: ignore[attr-defined]
    pxla.lower_sharding_computation = lower_sharding_computation
    mlir.lower_jaxpr_to_module = lower_jaxpr_to_module
    pxla._cached_compilation = cached_compilation
    pe.custom_staging_rules[jit_p] = staging_rule
    _STATE["callbacks"] = (on_lowered, on_compiled, on_computation)


def executable_hlo_text(executable: Any) -> str | None:
    """The compiled module's HLO text as :func:`~jax_use_donated.dropin.xla_truth.read_truth` reads it:
    printed without metadata, backend configs and operand shapes, which it does not need
    (on a 128-layer train step 3.4 MB instead of ``as_text()``'s 5.0 MB, printed in 0.04 s
    instead of 0.06 s); ``None`` when the executable has no HLO module (not an XLA
    executable)."""
    try:
        module = executable.hlo_modules()[0]
    except Exception:
        return None
    options = _slim_print_options(module)
    text = module.to_string(options) if options is not None else module.to_string()
    return text if isinstance(text, str) else None


_PRINT_OPTIONS: dict[type, Any] = {}


def _slim_print_options(module: Any) -> Any:
    """jaxlib's ``HloPrintOptions`` (from the module's own extension) without metadata,
    backend configs and operand shapes; ``None`` where this jaxlib has none."""
    kind = type(module)
    if kind not in _PRINT_OPTIONS:
        options = None
        try:
            import sys

            cls = getattr(sys.modules.get(kind.__module__), "HloPrintOptions", None)
            if cls is not None:
                options = cls()
                options.print_metadata = False
                options.print_backend_config = False
                options.print_operand_shape = False
        except Exception:
            options = None
        _PRINT_OPTIONS[kind] = options
    return _PRINT_OPTIONS[kind]


@dataclass(frozen=True)
class JitCall:
    """The top-level jit call being lowered, as JAX's own frames hold it."""

    leaves: list[Any]
    """Its flat dynamic arguments in JAX's order (static arguments left out): the objects the
    caller passed, leaf ``i`` is lowered as the jaxpr's input ``i``."""
    caller: Any
    """The frame that called the jitted function (or its ``lower``/``trace``)."""


_JIT_ENTRIES = frozenset({"cache_miss", "jit_lower", "jit_trace", "jit_eval_shape"})
"""``jax._src.pjit``'s functions that run on a top-level call of a jitted function
(``cache_miss`` when the C++ dispatch misses, the AOT ``lower``/``trace``/``eval_shape``); each
holds the call's ``args`` and ``kwargs`` and the jit's ``PjitInfo``."""


def jit_call(frame: Any) -> JitCall | None:
    """The innermost top-level jit call on the stack from ``frame`` outward, with its flat
    dynamic arguments split as JAX splits them (``jax_jit.parse_arguments``, the function
    ``_infer_params`` calls); ``None`` when there is none (a lowering of ``Traced.lower``
    called later, or JAX's frames changed)."""
    try:
        from jax._src import pjit, tree_util
        from jax._src.lib import jax_jit
    except ImportError:
        return None
    pjit_file = os.path.abspath(pjit.__file__)
    while frame is not None:
        code = frame.f_code
        if code.co_name in _JIT_ENTRIES and os.path.abspath(code.co_filename) == pjit_file:
            names = frame.f_locals
            info = names.get("jit_info")
            if info is None:
                info = getattr(names.get("jit_func"), "_jit_info", None)
            args, kwargs = names.get("args"), names.get("kwargs")
            if info is None or not isinstance(args, tuple) or not isinstance(kwargs, dict):
                return None
            try:
                _, leaves = jax_jit.parse_arguments(
                    args, tuple(kwargs.values()), tuple(kwargs.keys()), info.static_argnums,
                    info.static_argnames, tree_util.tracing_registry)
            except Exception:
                return None
            return JitCall(list(leaves), frame.f_back)
        frame = frame.f_back
    return None


def default_platform() -> str:
    """``jax.default_backend()``: the platform a lowering without explicit platforms targets."""
    return jax.default_backend()


def xla_flags() -> dict[str, Any]:
    """The options ``XLA_FLAGS`` sets (``--name=value`` -> ``{name: value}``; ``true``/``false``
    read as booleans, a bare ``--name`` as ``True``), which XLA applies to every compile."""
    return parse_xla_flags(os.environ.get("XLA_FLAGS", ""))


def _planned_parameters_class(base: type) -> type:
    @dataclasses.dataclass(frozen=True)
    class PlannedParameters(base):  # type: ignore[misc, valid-type]
        """JAX's lowering parameters plus the planner options text: JAX's lowering cache keys
        on these parameters, so a planned lowering never meets an unplanned one."""

        donation: str = ""
        compile_options: str = ""
        """The compiler options the module is planned for (:func:`options_key`): the plan
        follows the backend's copy insertion, so jits whose options differ get their own
        lowering and plan (JAX's lowering cache does not key on compiler options)."""

    return PlannedParameters


def options_key(options: dict[str, Any]) -> str:
    """A hashable spelling of compiler options, independent of their order."""
    return repr(sorted((str(k), repr(v)) for k, v in options.items()))


def _strip_stray_marker(args: tuple[Any, ...], kwargs: dict[str, Any],
                        cache: dict[str, int]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Remove :data:`MARKER` from the compiler options of a compilation (it only gets there if
    the lowering wrapper did not run, e.g. another library replaced it)."""
    kvs = kwargs.get("compiler_options_kvs")
    index = None
    if kvs is None:
        index = cache.get("index")
        if index is None:
            index = _find_kvs_index(args)
            if index is None:
                return args, kwargs
            cache["index"] = index
        if index >= len(args):
            return args, kwargs
        kvs = args[index]
    if not isinstance(kvs, tuple) or not any(
            isinstance(kv, tuple) and len(kv) == 2 and kv[0] == MARKER for kv in kvs):
        return args, kwargs
    stripped = tuple(kv for kv in kvs if kv[0] != MARKER)
    warnings.warn(
        "jax_use_donated: a planned jit reached XLA without passing the planner (another "
        "library replaced JAX's lowering?); it is compiled with JAX's own donation pairing",
        stacklevel=2)
    if index is None:
        return args, dict(kwargs, compiler_options_kvs=stripped)
    return (*args[:index], stripped, *args[index + 1:]), kwargs


def _without_options(args: tuple[Any, ...], kwargs: dict[str, Any], drop: Sequence[str],
                     cache: dict[str, int]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """A compilation's arguments without the compiler options named in ``drop``."""
    if not drop:
        return args, kwargs
    if "compiler_options_kvs" in kwargs:
        kvs = kwargs["compiler_options_kvs"] or ()
        return args, dict(kwargs, compiler_options_kvs=tuple(
            kv for kv in kvs if kv[0] not in drop))
    index = cache.get("index")
    if index is None:
        index = _find_kvs_index(args)
        if index is None:
            return args, kwargs
        cache["index"] = index
    if index >= len(args) or not isinstance(args[index], tuple):
        return args, kwargs
    kept = tuple(kv for kv in args[index] if kv[0] not in drop)
    return (*args[:index], kept, *args[index + 1:]), kwargs


def clone_module_apart(module: Any) -> Any:
    """A copy of jaxlib ``ir.Module`` ``module`` in a context of its own (JAX's
    ``make_ir_context``, through bytecode): it can be compiled on another thread while
    ``module`` is (JAX's contexts run without MLIR's multithreading locks, so two threads must
    never share one)."""
    import io

    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir  # pyright: ignore[reportPrivateImportUsage]

    buffer = io.BytesIO()
    module.operation.write_bytecode(buffer)
    context = mlir.make_ir_context()
    with context:
        return ir.Module.parse(buffer.getvalue())


def footprint(executable: Any) -> int | None:
    """Bytes an executable holds while it runs: arguments, outputs not aliased to an argument,
    and temporaries (``get_compiled_memory_stats``; ``None`` where the backend does not say)."""
    try:
        m = executable.get_compiled_memory_stats()
    except Exception:
        return None
    return int(m.argument_size_in_bytes + m.output_size_in_bytes - m.alias_size_in_bytes
               + m.temp_size_in_bytes)


def _find_kvs_index(args: tuple[Any, ...]) -> int | None:
    """Position of ``compiler_options_kvs`` among ``_cached_compilation``'s arguments after
    the computation (a tuple of ``(str, value)`` pairs, the only such argument)."""
    for i, a in enumerate(args):
        if isinstance(a, tuple) and a and all(
                isinstance(kv, tuple) and len(kv) == 2 and isinstance(kv[0], str) for kv in a):
            return i
    return None


def _pruning(pxla: Any, jaxpr: Any, keep_unused: bool,
             donated_invars: Sequence[bool]) -> _Pending:
    """Which arguments JAX's dead-code elimination keeps (its cached result: the lowering calls
    it again with the same arguments) and the donated ones it removes."""
    try:
        out = pxla._dce_jaxpr(jaxpr, keep_unused, tuple(donated_invars))
        kept = sorted(out[2])
    except Exception:
        return _Pending(None, [])
    removed: list[RemovedArg] = []
    if any(d and i not in out[2] for i, d in enumerate(donated_invars)):
        inner = getattr(jaxpr, "jaxpr", jaxpr)
        avals = list(getattr(jaxpr, "in_avals", None) or [])
        try:
            names = list(inner.debug_info.safe_arg_names(len(donated_invars)))
        except Exception:
            names = [""] * len(donated_invars)
        for i, donated in enumerate(donated_invars):
            if donated and i not in out[2] and i < len(avals):
                aval = avals[i]
                size = getattr(aval, "size", None)
                itemsize = getattr(getattr(aval, "dtype", None), "itemsize", None)
                removed.append(RemovedArg(
                    i, names[i] or f"argument {i}", aval.str_short(),
                    size * itemsize if size is not None and itemsize else None))
    return _Pending(kept, removed)


class _WarningsFilter:
    """Stands in for the ``warnings`` module inside ``jax._src.interpreters.mlir``: while the
    planner lowers a module (a context variable, so per thread and task) JAX's own "Some donated
    buffers were not usable" warning is dropped, since the planner reports every unusable donor
    itself with that phrase first; everything else goes to the real module unchanged.
    (``warnings.catch_warnings`` would do the same but is not thread-safe.)"""

    def __init__(self, real: Any) -> None:
        self._real = getattr(real, "_real", real)

    def warn(self, message: Any, category: Any = None, stacklevel: int = 1,
             *args: Any, **kwargs: Any) -> None:
        if _PLANNING.get() and str(message).startswith(JAX_UNUSABLE_WARNING):
            return
        self._real.warn(message, category, stacklevel + 1, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


# The switch's config option exists from import on (JAX's test utilities compare the set of
# config values before and after each test; defining it lazily would look like a change).
try:
    planner_state()
except Exception as _e:  # a JAX without the config machinery: install() reports it
    _STATE["error"] = f"JAX config states changed ({type(_e).__name__}: {_e})"
