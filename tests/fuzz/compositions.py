"""Random compositions of JAX transforms and nested jits, drop-in and plain, for differential
fuzzing against ``jax.jit`` everywhere.

A :class:`Composition` is a base function ``(a, b) -> (x, y)`` (shapes preserved) wrapped in
layers, innermost first: ``dropin`` / ``jit`` (with a random donation at that level), ``grad``,
``jacfwd`` / ``jacrev`` (``has_aux``), ``vmap``, ``checkpoint``, ``custom_vjp``,
``custom_jvp``, ``scan``, ``cond``, ``while``. Every layer maps ``(a, b) -> (x, y)`` with
``x.shape == a.shape``, so any stack composes. The outermost layer is a jit (drop-in or plain)
or, with ``eager_top``, the stack is called as is.

:func:`check_composition` runs the stack as built and again with every drop-in replaced by
``jax.jit`` (same options) and asserts:

1. equal numbers (to float tolerance: transcendental ops, different fusion);
2. the inputs invalidated are exactly those the compiled top-level program aliases, all of them
   donated at the top (a plain top jit: exactly JAX's);
3. a drop-in at the top: the executable's ``input_output_alias`` equals its plan
   (``last_plan``), which did not fall back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import strategies as st

import jax_use_donated
from tests.fuzz.xla_facts import compiled_facts

Fn = Callable[[jax.Array, jax.Array], tuple[jax.Array, jax.Array]]

BASES: dict[str, Fn] = {
    "swap": lambda a, b: (b * 2.0, a * 3.0),
    "mix": lambda a, b: (a + b, a * b),
    "trig": lambda a, b: (jnp.sin(a) * b, jnp.cos(b) + a),
    "reduce": lambda a, b: (a - jnp.mean(b), b * jnp.sum(a)),
    "same": lambda a, b: (a * 2.0, a + 1.0),
}
TRANSFORMS = ("grad", "jacfwd", "jacrev", "vmap", "checkpoint", "custom_vjp", "custom_jvp",
              "scan", "cond", "while")
JITS = ("dropin", "jit")


@dataclass(frozen=True)
class Layer:
    kind: str
    donate: tuple[int, ...] = ()

    def describe(self) -> str:
        return f"{self.kind}(donate={self.donate})" if self.kind in JITS else self.kind


@dataclass(frozen=True)
class Composition:
    base: str
    layers: tuple[Layer, ...]
    """Innermost first."""
    shape: tuple[int, ...]
    eager_top: bool = False

    def describe(self) -> str:
        stack = self.base
        for layer in self.layers:
            stack = f"{layer.describe()}[{stack}]"
        return f"Composition: {stack} on f32{list(self.shape)}{' (eager)' if self.eager_top else ''}"

    @property
    def top(self) -> Layer | None:
        return None if self.eager_top or not self.layers else self.layers[-1]

    def make_args(self) -> tuple[jax.Array, jax.Array]:
        n = int(np.prod(self.shape))
        a = (jnp.arange(n, dtype=jnp.float32).reshape(self.shape) / n) + 0.5
        b = jnp.cos(jnp.arange(n, dtype=jnp.float32).reshape(self.shape)) + 1.5
        return a, b

    def build(self, dropin: Callable[..., Any]) -> Callable[..., Any]:
        """The stack, with ``dropin`` standing for every drop-in layer (``jax.jit`` for the
        reference)."""
        fn = BASES[self.base]
        fn = _fresh(fn)
        for layer in self.layers:
            fn = _wrap(layer, fn, dropin)
        return fn


def _fresh(fn: Fn) -> Fn:
    """A new function object per build (JAX's caches are keyed on it)."""
    def base(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
        return fn(a, b)

    return base


def _total(out: tuple[jax.Array, jax.Array]) -> jax.Array:
    return jnp.sum(out[0]) + 0.5 * jnp.sum(out[1])


def _wrap(layer: Layer, g: Callable[..., Any], dropin: Callable[..., Any]) -> Callable[..., Any]:
    kind = layer.kind
    if kind == "dropin":
        return dropin(g, donate_argnums=layer.donate)
    if kind == "jit":
        return jax.jit(g, donate_argnums=layer.donate)
    if kind == "grad":
        return lambda a, b: tuple(jax.grad(lambda a, b: _total(g(a, b)), argnums=(0, 1))(a, b))
    if kind in ("jacfwd", "jacrev"):
        jac = getattr(jax, kind)

        def jacobian(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
            j, aux = jac(lambda a: (g(a, b)[0], g(a, b)[1]), has_aux=True)(a)
            return jnp.sum(j, axis=tuple(range(a.ndim))), aux

        return jacobian
    if kind == "vmap":
        return jax.vmap(g)
    if kind == "checkpoint":
        return jax.checkpoint(g)
    if kind == "custom_vjp":
        f = jax.custom_vjp(lambda a, b: g(a, b))
        f.defvjp(lambda a, b: jax.vjp(g, a, b), lambda vjp, ct: vjp(ct))
        return f
    if kind == "custom_jvp":
        h = jax.custom_jvp(lambda a, b: g(a, b))
        h.defjvp(lambda primals, tangents: jax.jvp(g, primals, tangents))
        return h
    if kind == "scan":
        def scanned(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
            carry, _ = jax.lax.scan(lambda c, _: (g(*c), None), (a, b), None, length=2)
            return carry

        return scanned
    if kind == "cond":
        return lambda a, b: jax.lax.cond(jnp.sum(a) > jnp.sum(b), g,
                                         lambda a, b: tuple(reversed(g(b, a))), a, b)
    if kind == "while":
        return lambda a, b: jax.lax.fori_loop(0, 2, lambda i, c: g(*c), (a, b))
    raise ValueError(kind)


@st.composite
def compositions(draw: st.DrawFn, max_layers: int = 4) -> Composition:
    """A random stack; at most one ``vmap`` (it drops a dimension), at most two derivative
    layers (their cost grows with each), no ``jacfwd`` above a ``custom_vjp`` (JAX has no
    forward mode through it)."""
    base = draw(st.sampled_from(sorted(BASES)))
    shape = draw(st.sampled_from([(4,), (3, 4), (2, 3)]))
    n = draw(st.integers(1, max_layers))
    layers: list[Layer] = []
    vmaps = derivatives = 0
    for i in range(n):
        top = i == n - 1
        pool = list(JITS) if top else [*JITS, *TRANSFORMS]
        kind = draw(st.sampled_from(pool))
        if kind == "vmap" and (vmaps or len(shape) < 2):
            kind = "checkpoint"
        if kind in ("grad", "jacfwd", "jacrev") and derivatives >= 2:
            kind = "cond"
        if kind == "jacfwd" and any(x.kind == "custom_vjp" for x in layers):
            kind = "jacrev"  # JAX has no forward mode through custom_vjp
        vmaps += kind == "vmap"
        derivatives += kind in ("grad", "jacfwd", "jacrev")
        donate: tuple[int, ...] = ()
        if kind in JITS:
            donate = tuple(draw(st.sets(st.sampled_from([0, 1]))))
            donate = tuple(sorted(donate))
        layers.append(Layer(kind, donate))
    eager = draw(st.booleans()) if n > 1 else False
    if eager:  # drop the top jit: a transform (or a jit below it) is called eagerly
        layers = layers[:-1]
        # Under an eagerly run transform a donated input may be a residual the transform still
        # needs (JAX itself then fails with "Array has been deleted"): donate only above the
        # last transform.
        last = max((i for i, x in enumerate(layers) if x.kind not in JITS), default=-1)
        layers = [Layer(x.kind, () if i < last else x.donate) for i, x in enumerate(layers)]
    return Composition(base, tuple(layers), shape, eager)


def check_composition(comp: Composition) -> None:
    """Run the checks of the module docstring; ``AssertionError`` names the composition."""
    where = "\n" + comp.describe()
    ref = comp.build(jax.jit)
    ours: Any = comp.build(jax_use_donated.jit)
    ref_args = comp.make_args()
    ref_out = ref(*ref_args)
    args = comp.make_args()
    out = ours(*args)
    ref_leaves, ref_def = jax.tree.flatten(ref_out)
    out_leaves, out_def = jax.tree.flatten(out)
    assert ref_def == out_def, f"output structure {out_def} != {ref_def}{where}"
    for i, (x, y) in enumerate(zip(out_leaves, ref_leaves, strict=True)):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=2e-5, atol=2e-5,
                                   err_msg=f"output leaf {i}{where}")
    deleted = {i for i, x in enumerate(args) if x.is_deleted()}
    ref_deleted = {i for i, x in enumerate(ref_args) if x.is_deleted()}
    top = comp.top
    if top is None:  # eager top: inputs may be donated by the jits the transforms run
        donated_anywhere = {d for layer in comp.layers if layer.kind in JITS
                            for d in layer.donate}
        assert deleted <= donated_anywhere, f"invalidated {sorted(deleted)}{where}"
        return
    assert deleted <= set(top.donate), (
        f"invalidated {sorted(deleted)}, donated at the top {top.donate}{where}")
    if top.kind == "jit":
        assert deleted == ref_deleted, f"invalidated {deleted} != jax's {ref_deleted}{where}"
        return
    facts = compiled_facts(ours.lower(*comp.make_args()).compile(), 2)
    assert deleted == set(facts.leaf_alias), (
        f"invalidated {sorted(deleted)} != aliased {facts.leaf_alias}{where}")
    plan = ours.last_plan
    assert ours.fallback_reason is None, f"fell back: {ours.fallback_reason}{where}"
    expected = dict(plan.parameter_pairs) if plan is not None else {}
    buffer_donors = set(plan.buffer_donors) if plan is not None else set()
    fixed = {p: k for p, k in facts.alias.items() if p not in buffer_donors}
    assert fixed == expected, f"compiled aliases {facts.alias} != plan {expected}{where}"
