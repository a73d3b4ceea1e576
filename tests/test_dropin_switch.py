"""The global switch: ``install()`` / ``uninstall()`` / ``enabled()`` plan every jit lowering,
including library jits (Flax NNX, Equinox), and stay out of JAX's caches outside it."""

from __future__ import annotations

import importlib.util
import threading
import warnings
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jax_use_donated as jud
from jax_use_donated.analysis import DonationError
from jax_use_donated.dropin.hlo_alias import aliases_from_hlo_text

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def pair() -> tuple[jax.Array, jax.Array]:
    return jnp.full((4, 4), 1.0), jnp.full((4, 4), 2.0)


def copies(compiled: Any) -> int:
    return sum(" copy(" in line for line in compiled.as_text().splitlines())


def fresh_swap() -> Any:
    def swap(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
        return b * 2.0, a * 3.0

    return swap


def test_enabled_plans_plain_jax_jit_and_only_inside() -> None:
    f = jax.jit(fresh_swap(), donate_argnums=(0, 1))
    outside = aliases_from_hlo_text(f.lower(*pair()).compile().as_text())
    with jud.enabled():
        inside = aliases_from_hlo_text(f.lower(*pair()).compile().as_text())
        a, b = pair()
        out = f(a, b)
        assert a.is_deleted() and b.is_deleted()
    after = aliases_from_hlo_text(f.lower(*pair()).compile().as_text())
    assert outside == after == {0: 0, 1: 1}, "JAX's greedy pairing outside the switch"
    assert inside == {0: 1, 1: 0}
    np.testing.assert_array_equal(out[0], 4.0)
    assert jud.recent_plans()[-1].parameter_pairs == {0: 1, 1: 0}


def test_calls_compiled_outside_are_not_reused_inside() -> None:
    f: Any = jax.jit(fresh_swap(), donate_argnums=(0, 1))
    f(*pair())
    assert f._cache_size() == 1
    with jud.enabled():
        f(*pair())
    assert f._cache_size() == 2, "the switch is part of JAX's jit cache key"


def test_install_uninstall_and_installed() -> None:
    assert jud.installed() is None
    jud.install(keep_unpaired_donors=True)
    try:
        options = jud.installed()
        assert options is not None and options.keep_unpaired_donors
        text = jax.jit(fresh_swap(), donate_argnums=(0, 1)).lower(*pair()).as_text()
        assert "%arg0: tensor<4x4xf32> {tf.aliasing_output = 1 : i32}" in text
    finally:
        jud.uninstall()
    assert jud.installed() is None


def test_enabled_is_thread_local() -> None:
    seen: list[object] = []
    with jud.enabled():
        t = threading.Thread(target=lambda: seen.append(jud.installed()))
        t.start()
        t.join()
        assert jud.installed() is not None
    assert seen == [None]


def test_switch_strictness_and_drop_in_options() -> None:
    def transposed(a: jax.Array) -> jax.Array:
        return a.T

    with jud.enabled(strict=True), pytest.raises(DonationError, match="cannot be honoured"):
        jax.jit(transposed, donate_argnums=0)(jnp.ones((4, 4)))
    # A drop-in keeps its own options inside the switch.
    with jud.enabled(strict=True), warnings.catch_warnings():
        warnings.simplefilter("ignore", jud.DonationWarning)
        out = jud.jit(transposed, donate_argnums=0)(jnp.arange(16.0).reshape(4, 4))
    np.testing.assert_array_equal(out, np.arange(16.0).reshape(4, 4).T)


def test_explain_and_plan_work_on_any_jitted_callable() -> None:
    f = jax.jit(fresh_swap(), donate_argnums=(0, 1))
    report = jud.explain(f, *pair())
    assert len(report.reused) == 2 and "JAX default" in str(report)
    assert jud.plan(f, *pair()).parameter_pairs == {0: 1, 1: 0}
    with pytest.raises(TypeError, match="not a jitted function"):
        jud.plan(fresh_swap(), *pair())


# -- library jits ---------------------------------------------------------------------------


def _example(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_flax_nnx_example_under_the_switch() -> None:
    pytest.importorskip("flax", reason="flax is an optional dependency (the bench extra)")
    pytest.importorskip("optax", reason="optax is an optional dependency (the bench extra)")
    from flax import nnx

    example = _example("nnx_switch")
    losses, plan = example.run(width=64, steps=2)
    # The same training without the switch: same numbers.
    graphdef, params = nnx.split(example.MLP(64, nnx.Rngs(0)), nnx.Param)
    import optax

    tx = optax.adam(1e-2)
    opt_state = tx.init(params)
    step = example.make_step(tx)
    x = jax.random.normal(jax.random.key(1), (64, 64))
    y = jnp.arange(64) % 10
    want = []
    for _ in range(2):
        opt_state, params, loss = step(params, opt_state, graphdef, x, y)
        want.append(float(loss))
    np.testing.assert_allclose(losses, want, rtol=1e-6)
    assert plan.function == "jit(step)" and len(plan.donations) > 0
    # The executable XLA builds under the switch never copies more than JAX's own.
    args = (params, opt_state, graphdef, x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = copies(step.lower(*args).compile())
        with jud.enabled():
            ours = copies(step.lower(*args).compile())
    assert ours <= plain


def test_equinox_example_under_the_switch() -> None:
    pytest.importorskip("equinox", reason="equinox is an optional dependency (the bench extra)")
    pytest.importorskip("optax", reason="optax is an optional dependency (the bench extra)")
    example = _example("equinox_switch")
    losses, plan = example.run(width=32, steps=2)
    assert jud.installed() is None, "run() uninstalls the switch"
    assert plan.function == "jit(step)" and len(plan.reused) > 0
    assert all(np.isfinite(losses))
