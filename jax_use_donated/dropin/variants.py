"""One call of a jitted function, re-compiled with another set of donated leaves.

The advisor (:mod:`.advice`) and the picture (:mod:`.picture`) measure variants of a call the
user made: the same function and arguments with more leaves donated, as ``jax.jit`` compiles
it, with region analysis, or as ``jax_use_donated.jit`` plans it. ``jax.jit`` donates whole
arguments; a leaf is donated alone through a flattened wrapper (its arguments are the call's
flat dynamic leaves, in JAX's order, so leaf ``i`` is ``LeafDonation.leaf == i``), jitted with
the user's other options (static arguments, ``keep_unused``, ``compiler_options``, shardings)::

    site = call_site(step, params, opt, batch)           # a jax.jit or jud.jit and its call
    v = site.compile(site.donated | {site.leaf("batch")})  # planned, compiled, measured
    v.footprint.total, v.plan.donation("leaves[7]")
    outputs = site.run(v, site.inputs())                # on fresh copies of the arguments

Only this module (and :mod:`.jax_internals`) reads a jit object's private ``_jit_info``.
"""

from __future__ import annotations

import contextlib
import math
import threading
import warnings
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from jax_use_donated.analysis.picture import Footprint
from jax_use_donated.dropin import calls, jax_internals, records
from jax_use_donated.dropin.calls import _is_array, abstract
from jax_use_donated.dropin.jax_internals import MARKER
from jax_use_donated.dropin.options import PlannerOptions
from jax_use_donated.dropin.records import CallPlan, LoweringRecord

REGION_OPTION = "xla_cpu_copy_insertion_use_region_analysis"


@dataclass
class Variant:
    """One compile of the call: which leaves were donated, how it was planned and compiled,
    and what the executable measures."""

    donated: frozenset[int]
    planned: bool
    """Planned by ``jax_use_donated.jit`` (else ``jax.jit``'s own pairing)."""
    region: bool | None
    """``jax.jit`` variants: compiled with region analysis (``None``: planned variants follow
    the planner's option)."""
    compiled: Any
    footprint: Footprint
    plan: CallPlan | None
    """The measured plan (planned variants)."""
    record: LoweringRecord | None = field(default=None, repr=False)

    def reused(self) -> set[int]:
        """Leaves whose buffer hosts a result copy-free: as the executable measures it (a
        pair of the plan, or a buffer donor XLA matched by size), else as the plan says."""
        if self.plan is None:
            return set()
        return {x.leaf for x in self.plan.donations if x.leaf is not None and (
            x.measured == "copy-free" if x.measured is not None else x.status == "reused")}


def leaf_bytes(x: Any) -> int:
    """Bytes of one device's buffer of leaf ``x`` (a shard of a sharded array)."""
    import jax
    import jax.numpy as jnp

    shape = getattr(x, "shape", None)
    dtype = getattr(x, "dtype", None)
    if shape is None or dtype is None:
        return int(np.asarray(x).nbytes)
    sharding = getattr(x, "sharding", None)
    if sharding is not None:
        with contextlib.suppress(Exception):  # an abstract sharding: the whole array
            shape = sharding.shard_shape(tuple(shape))
    if jnp.issubdtype(dtype, jax.dtypes.prng_key):
        key_shape = getattr(getattr(dtype, "_impl", None), "key_shape", (2,))
        itemsize = 4 * int(math.prod(key_shape))
    else:
        itemsize = int(np.dtype(dtype).itemsize)
    return int(math.prod(shape)) * itemsize


class DeletedArgument(ValueError):
    """An argument leaf was deleted (donated by an earlier call): it cannot be copied."""


@dataclass
class CallSite:
    """A jitted function and one call's arguments, split into flat dynamic leaves."""

    name: str
    fun: Callable[..., Any]
    """The user's Python function (what the jit wraps)."""
    jitted: Any
    """The user's jit object."""
    options: PlannerOptions
    """How the planner plans it: a ``jax_use_donated.jit``'s options, else the switch's
    defaults (what :func:`jax_use_donated.plan` uses for a plain ``jax.jit``)."""
    jit_kwargs: dict[str, Any]
    """``jax.jit`` options for the flattened wrapper (static arguments and donation left
    out: the wrapper closes over the static values and donates leaves)."""
    treedef: Any
    """The tree of ``(dynamic args, dynamic kwargs)``, as JAX flattens a call."""
    statics: dict[int, Any]
    static_kwargs: dict[str, Any]
    n_args: int
    abstract: list[Any]
    """Per leaf: what lowering needs (:func:`abstract`)."""
    names: list[str]
    """Per leaf: JAX's name (``params['w']``), as ``LeafDonation.path`` spells it."""
    donated: frozenset[int]
    """The leaves the user's call donates."""
    nbytes: list[int]
    live: list[weakref.ref[Any] | None] = field(default_factory=list, repr=False)
    """Per array leaf: the user's array, held weakly (for copies while it lives)."""
    _variants: dict[tuple[frozenset[int], bool, bool | None], Variant] = field(
        default_factory=dict, repr=False)
    _flat: Callable[..., Any] | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def leaves(self) -> int:
        return len(self.abstract)

    def leaf(self, name: str) -> int:
        """The index of the leaf JAX names ``name`` (``KeyError`` if none)."""
        try:
            return self.names.index(name)
        except ValueError:
            raise KeyError(name) from None

    def flat_function(self) -> Callable[..., Any]:
        """The user's function of the call's flat dynamic leaves."""
        if self._flat is None:
            fun, treedef, statics = self.fun, self.treedef, dict(self.statics)
            static_kwargs, n_args = dict(self.static_kwargs), self.n_args

            def flat(*leaves: Any) -> Any:
                dyn_args, dyn_kwargs = treedef.unflatten(leaves)
                it = iter(dyn_args)
                args = [statics[i] if i in statics else next(it) for i in range(n_args)]
                return fun(*args, **dyn_kwargs, **static_kwargs)

            name = getattr(fun, "__name__", "fun")
            flat.__name__ = flat.__qualname__ = name if isinstance(name, str) else "fun"
            self._flat = flat
        return self._flat

    def compile(self, donated: Iterable[int], planned: bool = True,
                region: bool | None = None) -> Variant:
        """The call compiled with exactly the leaves ``donated`` donated: planned by
        ``jax_use_donated.jit`` with :attr:`options` (``planned``), or by ``jax.jit`` with its
        greedy pairing, with or without XLA:CPU's region analysis (``region``). Cached."""
        key = (frozenset(donated), planned, region if not planned else None)
        with self._lock:
            hit = self._variants.get(key)
        if hit is not None:
            return hit
        variant = (self._compile_planned(key[0]) if planned
                   else self._compile_jax(key[0], bool(region)))
        with self._lock:
            self._variants[key] = variant
        return variant

    @property
    def compiles(self) -> int:
        """How many distinct variants were compiled."""
        return len(self._variants)

    def _compile_planned(self, donated: frozenset[int]) -> Variant:
        from jax_use_donated.dropin import api

        o = self.options
        jitted = api.jit(self.flat_function(), donate_argnums=tuple(sorted(donated)),
                         strict=False, warn=False, keep_unpaired_donors=o.keep_unpaired_donors,
                         region_analysis=o.region_analysis, **self.jit_kwargs)
        lowered = jitted.lower(*self.abstract)
        compiled = lowered.compile()
        record = records.record_of(lowered.compiler_ir())
        plan = None
        if record is not None:
            api._truth(record, lowered)
            plan = record.call_plan()
        elif donated:
            raise RuntimeError(f"the planner did not plan the variant of {self.name}")
        return Variant(donated, True, None, compiled, Footprint.of(compiled), plan, record)

    def _compile_jax(self, donated: frozenset[int], region: bool) -> Variant:
        jax_jit = jax_internals.original_jit()
        kwargs = dict(self.jit_kwargs)
        options = dict(kwargs.pop("compiler_options", None) or {})
        if region:
            options.setdefault(REGION_OPTION, True)
        jitted = jax_jit(self.flat_function(), donate_argnums=tuple(sorted(donated)),
                         compiler_options=options or None, **kwargs)
        with jax_internals.planner_state()(""), warnings.catch_warnings():
            # JAX's own "Some donated buffers were not usable": this variant is JAX's
            # pairing on purpose, for comparison.
            warnings.filterwarnings("ignore", message=jax_internals.JAX_UNUSABLE_WARNING)
            compiled = jitted.lower(*self.abstract).compile()
        return Variant(donated, False, region, compiled, Footprint.of(compiled), None)

    # ------------------------------------------------------------------ running on copies

    def inputs(self, generated: bool = False) -> list[Any]:
        """Fresh copies of the call's leaves, to run a variant on (donation consumes them; the
        user's arrays are never passed). ``generated``, or when an array leaf is gone or
        deleted (:class:`DeletedArgument` is not raised then): deterministic generated
        values of the same shapes, dtypes and shardings instead."""
        if not generated:
            try:
                return self.copies()
            except DeletedArgument:
                pass
        return [generate(a, i) for i, a in enumerate(self.abstract)]

    def copies(self) -> list[Any]:
        """Fresh copies of the user's leaves (:class:`DeletedArgument` when one is gone)."""
        out: list[Any] = []
        for i in range(len(self.abstract)):
            x = self._value(i)
            if x is None:
                raise DeletedArgument(f"argument leaf {self.names[i]} was deleted (donated by "
                                      "an earlier call) or freed")
            out.append(x.copy() if _is_array(x) else x)
        return out

    def _value(self, i: int) -> Any:
        """Leaf ``i``'s live value: the user's array while it exists and is not deleted, a
        Python or NumPy value as given; ``None`` when only its abstract value is known."""
        import jax

        ref = self.live[i] if i < len(self.live) else None
        if ref is None:
            a = self.abstract[i]
            return None if isinstance(a, jax.ShapeDtypeStruct) else a
        x = ref()
        return None if x is None or x.is_deleted() else x

    def copies_available(self) -> bool:
        """Whether every array leaf of the call is alive (so :meth:`inputs` copies them)."""
        return all(self._value(i) is not None for i in range(len(self.abstract)))

    def run(self, variant: Variant, inputs: Sequence[Any]) -> list[np.ndarray]:
        """The variant's flat outputs on ``inputs`` (consumed), as NumPy arrays."""
        import jax
        import jax.numpy as jnp

        outs = variant.compiled(*inputs)
        return [np.asarray(jax.random.key_data(o) if jnp.issubdtype(
            o.dtype, jax.dtypes.prng_key) else o) for o in jax.tree.leaves(outs)]


def same_outputs(a: Sequence[np.ndarray], b: Sequence[np.ndarray]) -> bool:
    """Whether two runs' outputs are equal: bit for bit (NaNs equal), shapes and dtypes too."""
    return len(a) == len(b) and all(
        x.shape == y.shape and x.dtype == y.dtype
        and np.array_equal(x, y, equal_nan=x.dtype.kind in "fc")
        for x, y in zip(a, b, strict=True))


def generate(a: Any, seed: int) -> Any:
    """A deterministic value of ``a``'s shape and dtype (floats normal, integers in [0, 4),
    booleans random, PRNG keys split from ``seed``), placed on ``a``'s sharding."""
    import jax
    import jax.numpy as jnp

    if not isinstance(a, jax.ShapeDtypeStruct):
        return a
    key = jax.random.key(seed)
    dtype, shape = a.dtype, tuple(a.shape)
    if jnp.issubdtype(dtype, jax.dtypes.prng_key):
        impl = getattr(dtype, "_impl", None)
        base = jax.random.key(seed, impl=impl) if impl is not None else key
        x = jax.random.split(base, shape) if shape else base
    elif jnp.issubdtype(dtype, jnp.floating) or jnp.issubdtype(dtype, jnp.complexfloating):
        x = jax.random.normal(key, shape, dtype)
    elif jnp.issubdtype(dtype, jnp.bool_):
        x = jax.random.bernoulli(key, 0.5, shape)
    else:
        x = jax.random.randint(key, shape, 0, 4).astype(dtype)
    sharding = getattr(a, "sharding", None)
    return jax.device_put(x, sharding) if sharding is not None else x


def call_site(fun: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> CallSite:
    """Split a call of ``fun`` (a ``jax.jit`` or ``jax_use_donated.jit`` object, or a
    ``functools.wraps`` wrapper of one) into its flat dynamic leaves. ``TypeError`` for
    other jitted callables (``eqx.filter_jit``, ``nnx.jit``: their own split of the
    arguments is what JAX sees, advise the step written with ``jax.jit`` instead)."""
    import jax

    from jax_use_donated.dropin import api

    jitted = api._jitted(fun)
    info = getattr(jitted, "_jit_info", None)
    py_fun = getattr(jitted, "__wrapped__", None)
    if info is None or py_fun is None:
        raise TypeError(
            f"{getattr(jitted, '__name__', jitted)!r} is not a jax.jit or jax_use_donated.jit "
            "object: advice re-compiles the function with other leaves donated, which needs "
            "the function jit wraps and its jit options (for eqx.filter_jit or nnx.jit, advise "
            "the step written with jax.jit on the split state)")
    if any(x is not None for x in (*info.in_layouts_leaves, *info.out_layouts_leaves)):
        raise TypeError("advice does not support jit's in/out layouts yet")
    statics, dyn_args, dyn_kwargs, static_kwargs = _split(info, args, kwargs)
    leaves, treedef = jax.tree.flatten((dyn_args, dyn_kwargs))
    traced = jitted.trace(*args, **kwargs)
    if traced.in_tree != treedef:
        raise TypeError(f"cannot split the call of {py_fun!r} as JAX does ({traced.in_tree} "
                        f"!= {treedef})")
    donated = frozenset(i for i, a in enumerate(jax.tree.leaves(traced.args_info))
                        if getattr(a, "donated", False))
    debug = getattr(getattr(traced, "jaxpr", None), "debug_info", None)
    names: list[str] = [str(n) for n in getattr(debug, "arg_names", None) or ()]
    if len(names) != len(leaves):
        names = [jax.tree_util.keystr(p) for p, _ in
                 jax.tree_util.tree_flatten_with_path((dyn_args, dyn_kwargs))[0]]
    options = api.planner_options(jitted) or PlannerOptions()
    jit_kwargs: dict[str, Any] = {"keep_unused": info.keep_unused, "inline": info.inline}
    compiler_options = {k: v for k, v in info.compiler_options_kvs if k != MARKER}
    if compiler_options:
        jit_kwargs["compiler_options"] = compiler_options
    if info.device is not None:
        jit_kwargs["device"] = info.device
    if info.backend is not None:
        jit_kwargs["backend"] = info.backend
    out_shardings = info.out_shardings_treedef.unflatten(info.out_shardings_leaves)
    if not _unspecified(out_shardings):
        jit_kwargs["out_shardings"] = out_shardings
    if info.user_specified_in_shardings:
        from jax._src.tree_util import broadcast_prefix

        tree = info.in_shardings_treedef.unflatten(info.in_shardings_leaves)
        per_leaf = broadcast_prefix(tree, dyn_args, is_leaf=lambda x: x is None)
        jit_kwargs["in_shardings"] = tuple(per_leaf)
    name = f"jit({getattr(py_fun, '__name__', 'fun')})"
    return CallSite(
        name=name, fun=py_fun, jitted=jitted, options=options.with_token(""),
        jit_kwargs=jit_kwargs, treedef=treedef, statics=statics,
        static_kwargs=static_kwargs, n_args=len(args), abstract=[abstract(x) for x in leaves],
        names=names, donated=donated, nbytes=[leaf_bytes(x) for x in leaves],
        live=[weakref.ref(x) if _is_array(x) else None for x in leaves])


def _split(info: Any, args: Sequence[Any], kwargs: dict[str, Any]
           ) -> tuple[dict[int, Any], tuple[Any, ...], dict[str, Any], dict[str, Any]]:
    """A call's static positional arguments, dynamic ones, dynamic and static keywords."""
    statics_n = set(info.static_argnums)
    statics_k = set(info.static_argnames)
    statics = {i: a for i, a in enumerate(args) if i in statics_n}
    dyn_args = tuple(a for i, a in enumerate(args) if i not in statics_n)
    dyn_kwargs = {k: v for k, v in kwargs.items() if k not in statics_k}
    static_kwargs = {k: v for k, v in kwargs.items() if k in statics_k}
    return statics, dyn_args, dyn_kwargs, static_kwargs


def _unspecified(x: Any) -> bool:
    return type(x).__name__ == "UnspecifiedValue"


def site_of(plan: CallPlan) -> CallSite:
    """The call ``plan`` was returned for by :func:`jax_use_donated.plan`, split into leaves
    (:func:`.calls.recall`; ``LookupError`` for a plan from elsewhere)."""
    fun, args, kwargs = calls.recall(plan)
    return call_site(fun, args, kwargs)
