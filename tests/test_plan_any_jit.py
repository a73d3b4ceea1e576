"""``jud.plan`` and ``jud.explain`` on every jitted callable a JAX user has (``jax.jit``,
``jud.jit``, ``eqx.filter_jit`` in each donation mode, ``nnx.jit``, a ``functools.wraps``
wrapper), each measured in the compiled executable; a callable that is not jitted is a
``TypeError``."""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import pytest

import jax_use_donated as jud
from jax_use_donated.dropin import api

eqx = pytest.importorskip("equinox", reason="equinox is an optional dependency (the bench extra)")
nnx = pytest.importorskip("flax.nnx", reason="flax is an optional dependency (the bench extra)")


def sgd(params: dict[str, jax.Array], grads: dict[str, jax.Array]) -> dict[str, jax.Array]:
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)


def _tree() -> dict[str, jax.Array]:
    return {"w": jnp.ones((8, 8)), "b": jnp.ones((8,))}


def _outcomes(plan: jud.CallPlan) -> list[tuple[str, str | None]]:
    return [(x.status, x.measured) for x in plan.donations]


@pytest.mark.parametrize("donate, expected", [
    # params and grads donated: the params' buffers host the update, the grads' find none
    ("all", [("reused", "copy-free")] * 2 + [("not reused", "not donated")] * 2),
    ("warn", [("reused", "copy-free")] * 2 + [("not reused", "not donated")] * 2),
    # only the grads donated: they host the update
    ("all-except-first", [("reused", "copy-free")] * 2),
    ("none", []),
])
def test_equinox_filter_jit(donate: str, expected: list[tuple[str, str]]) -> None:
    step = eqx.filter_jit(sgd, donate=donate)  # type: ignore[arg-type]
    plan = jud.plan(step, _tree(), _tree())
    assert _outcomes(plan) == expected
    assert plan.disagreements == []
    report = jud.explain(step, _tree(), _tree())
    assert [r.measured for r in report.rows] == [m for _, m in expected]
    if expected:
        assert "XLA (measured)" in str(report)


def test_equinox_model_step() -> None:
    """An Equinox model as the donated argument, as its users write a step."""
    model = eqx.nn.Linear(8, 8, key=jax.random.key(0))

    @eqx.filter_jit(donate="all-except-first")
    def step(x: jax.Array, model: Any) -> Any:
        return eqx.apply_updates(model, jax.tree.map(lambda p: -0.1 * p * x.mean(), model))

    plan = jud.plan(step, jnp.ones(8), model)
    assert _outcomes(plan) == [("reused", "copy-free")] * 2


class Linear(nnx.Module):
    def __init__(self) -> None:
        self.w = nnx.Param(jnp.ones((8, 8)))
        self.b = nnx.Param(jnp.ones((8,)))


def test_flax_nnx_jit() -> None:
    @nnx.jit(donate_argnums=0)
    def step(model: Linear, g: jax.Array) -> jax.Array:
        model.w[...] = model.w[...] - 0.1 * g
        return jnp.sum(model.b[...])

    model = Linear()
    plan = jud.plan(step, model, jnp.ones((8, 8)))
    assert _outcomes(plan) == [("reused", "copy-free")] * 2
    assert [r.measured for r in jud.explain(step, model, jnp.ones((8, 8))).rows] == [
        "copy-free"] * 2
    assert not model.w[...].is_deleted(), "plan() lowers and compiles; it must not run"


@pytest.mark.parametrize("make", [
    lambda f: jax.jit(f, donate_argnums=0),
    lambda f: jud.jit(f, donate_argnums=0),
], ids=["jax.jit", "jud.jit"])
def test_functools_wraps_wrapper_of_a_jit(make: Any) -> None:
    jitted = make(sgd)

    @functools.wraps(jitted)
    def wrapper(*args: Any) -> Any:
        return jitted(*args)

    plan = jud.plan(wrapper, _tree(), _tree())
    assert [(x.path, x.status, x.measured) for x in plan.donations] == [
        ("params['b']", "reused", "copy-free"), ("params['w']", "reused", "copy-free")]
    assert jud.explain(wrapper, _tree(), _tree()).rows[0].measured == "copy-free"


def test_a_callable_that_is_not_jitted_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="is not a jitted function"):
        jud.plan(sgd, _tree(), _tree())
    with pytest.raises(TypeError, match="is not a jitted function"):
        jud.explain(functools.wraps(sgd)(lambda *a: sgd(*a)), _tree(),  # type: ignore[call-arg]
                    _tree())
    with pytest.raises(TypeError, match="is not a jitted function"):
        jud.plan("not a function")  # str has a .lower method


def test_a_lower_without_a_jax_stage_is_a_type_error() -> None:
    class Fake:
        def lower(self, *args: Any) -> object:
            return object()

    with pytest.raises(TypeError, match=r"holds no jax\.stages\.Lowered"):
        jud.plan(Fake())


def test_a_library_stage_is_read_through_the_jax_stage_it_holds() -> None:
    """Equinox's ``Lowered`` is an ``eqx.Module`` holding JAX's; Flax's a slotted dataclass;
    the unwrapping reads attributes, whatever the wrapper's name."""
    lowered = jax.jit(sgd).lower(_tree(), _tree())

    class Slotted:
        __slots__ = ("inner",)

        def __init__(self, inner: Any) -> None:
            self.inner = inner

    class Plain:
        def __init__(self, inner: Any) -> None:
            self.stage = Slotted(inner)

    assert api._jax_lowered(Plain(lowered)) is lowered
    eqx_stage = eqx.filter_jit(sgd).lower(_tree(), _tree())  # type: ignore[attr-defined]
    assert isinstance(api._jax_lowered(eqx_stage), jax.stages.Lowered)
