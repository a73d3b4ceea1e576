"""``jax_use_donated.testing.assert_copy_free``: passes on a step whose donated buffers all
host outputs copy-free, fails with the explain table on one XLA copies, never consumes the
caller's arrays, and works on ``jud.jit``, ``jax.jit``, ``nnx.jit`` and ``eqx.filter_jit``."""

from __future__ import annotations

import warnings
from typing import Any

import jax
import jax.numpy as jnp
import optax
import pytest

import jax_use_donated as jud
from jax_use_donated.testing import assert_copy_free

eqx = pytest.importorskip("equinox", reason="equinox is an optional dependency (the bench extra)")
pytest.importorskip("flax.nnx", reason="flax is an optional dependency (the bench extra)")
from flax import nnx  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::jax_use_donated.DonationWarning")


def swap(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
    return b * 2.0, a * 3.0  # JAX's in-order pairing makes XLA copy both; ours is copy-free


def transposed(a: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
    return a.T, x.sum()  # XLA copies a; nothing can host x


def _sq() -> tuple[jax.Array, jax.Array]:
    return jnp.arange(16.0).reshape(4, 4), jnp.ones((4, 4))


@pytest.mark.parametrize("make", [
    lambda f: jud.jit(f, donate_argnums=(0, 1)),
    lambda f: jax.jit(f, donate_argnums=(0, 1)),
    lambda f: eqx.filter_jit(f, donate="all"),
])
def test_passes_on_a_copy_free_step_and_consumes_nothing(make: Any) -> None:
    a, b = _sq()
    plan = assert_copy_free(make(swap), a, b)
    assert [d.measured for d in plan.donations] == ["copy-free", "copy-free"]
    assert not a.is_deleted() and not b.is_deleted()


def test_fails_with_the_explain_table_when_xla_copies() -> None:
    step = jax.jit(transposed, donate_argnums=(0, 1))
    a, x = jnp.arange(16.0).reshape(4, 4), jnp.ones(3)
    with pytest.raises(AssertionError) as err:
        assert_copy_free(step, a, x)
    text = str(err.value)
    assert text.startswith("jit(transposed): 2 donated leaves not reused copy-free: "
                           "a (copied), x (not donated)")
    assert "donations of jit(transposed)" in text and "XLA (measured)" in text
    assert "a: " in text and "stablehlo.transpose" in text  # the table's notes
    assert not a.is_deleted() and not x.is_deleted()
    # only_no_copies: x, which nothing can host, passes; a, which XLA copies, does not
    with pytest.raises(AssertionError, match=r"1 donated leaves copied by XLA: a \(copied\)"):
        assert_copy_free(step, a, x, only_no_copies=True)
    assert_copy_free(step, a, x, allow=["a"], only_no_copies=True)
    assert_copy_free(step, a, x, allow=("a", "x"))


def test_allow_must_name_a_donated_leaf() -> None:
    with pytest.raises(ValueError, match="allow names no donated leaf of jit\\(swap\\): c"):
        assert_copy_free(jax.jit(swap, donate_argnums=(0, 1)), *_sq(), allow=("c",))


def test_on_an_nnx_train_step_by_the_user_s_names() -> None:
    class MLP(nnx.Module):
        def __init__(self, rngs: nnx.Rngs) -> None:
            self.l1 = nnx.Linear(4, 8, rngs=rngs)

    @nnx.jit(donate_argnums=(0, 1))
    def train(model: MLP, optimizer: nnx.Optimizer, x: jax.Array) -> jax.Array:
        loss, grads = nnx.value_and_grad(lambda m: (m.l1(x) ** 2).mean())(model)
        optimizer.update(model, grads)
        return loss

    model = MLP(nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adamw(1e-3), wrt=nnx.Param)
    kernel = model.l1.kernel[...]
    plan = assert_copy_free(train, model, optimizer, jnp.ones((2, 4)))
    assert "optimizer.opt_state[0].nu['l1']['kernel']" in [d.path for d in plan.donations]
    assert not kernel.is_deleted()
    with warnings.catch_warnings():
        warnings.simplefilter("error", jud.DonationWarning)
        train(model, optimizer, jnp.ones((2, 4)))  # the step still runs, on JAX's cached compile
