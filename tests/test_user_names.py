"""The user's names for donated leaves under the libraries that call ``jax.jit`` for them:
Flax NNX (``nnx.jit`` with ``nnx.Optimizer``, ``nnx.scan`` over ``nnx.vmap``-stacked layers),
Equinox (``eqx.filter_jit`` with ``donate="all"`` and ``"all-except-first"``), Flax linen's
``TrainState`` with optax ``adamw`` and ``MultiSteps`` under ``jax.jit``: in ``plan``,
``explain``, ``recent_plans``, warnings and strict errors, never the library's split
(``states[``, ``dynamic_donate``)."""

from __future__ import annotations

import warnings
from typing import Any

import jax
import jax.numpy as jnp
import optax
import pytest

import jax_use_donated as jud
from jax_use_donated.dropin import names

eqx = pytest.importorskip("equinox", reason="equinox is an optional dependency (the bench extra)")
pytest.importorskip("flax.nnx", reason="flax is an optional dependency (the bench extra)")
from flax import nnx  # noqa: E402

linen = pytest.importorskip("flax.linen")
train_state = pytest.importorskip("flax.training.train_state")

INTERNAL = ("states[", "dynamic_donate", "dynamic_nodonate", names.LIBRARY_MARK)


def _all_names(plan: jud.CallPlan) -> list[str]:
    """Every name a plan shows for a leaf: donors and the results they host."""
    out = [x.path for x in plan.donations] + [x.text for x in plan.donations]
    out += [x.result_path for x in plan.donations if x.result_path is not None]
    out += [x.message for x in plan.donations]
    return out


def _assert_user_names(plan: jud.CallPlan) -> None:
    assert plan.donations
    for name in _all_names(plan):
        assert not any(s in name for s in INTERNAL), name
    assert all(x.user_path for x in plan.donations)


# --------------------------------------------------------------------------------------------
# Flax NNX


class MLP(nnx.Module):
    def __init__(self, rngs: nnx.Rngs) -> None:
        self.l1 = nnx.Linear(4, 8, rngs=rngs)
        self.l2 = nnx.Linear(8, 2, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.l2(jax.nn.relu(self.l1(x)))


@nnx.jit(donate_argnums=(0, 1))
def nnx_step(model: MLP, optimizer: nnx.Optimizer, x: jax.Array, y: jax.Array) -> jax.Array:
    def loss_fn(m: MLP) -> jax.Array:
        return ((m(x) - y) ** 2).mean()

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


def _nnx_state() -> tuple[MLP, nnx.Optimizer, jax.Array, jax.Array]:
    model = MLP(nnx.Rngs(0))
    return model, nnx.Optimizer(model, optax.adamw(1e-3), wrt=nnx.Param), jnp.ones(
        (3, 4)), jnp.ones((3, 2))


def test_nnx_jit_with_an_optimizer_names_leaves_by_graph_path() -> None:
    model, opt, x, y = _nnx_state()
    with jud.enabled(), warnings.catch_warnings():
        warnings.simplefilter("error", jud.DonationWarning)
        nnx_step(model, opt, x, y)
    plan = jud.recent_plans()[-1]
    assert plan.library == "flax.nnx"
    _assert_user_names(plan)
    paths = [x.path for x in plan.donations]
    assert paths[:4] == ["model.l1.bias", "model.l1.kernel", "model.l2.bias", "model.l2.kernel"]
    # the optimizer's state as nnx.state(optimizer) shows it: tuple index, named-tuple field,
    # State and dict keys
    assert "optimizer.opt_state[0].mu['l1']['kernel']" in paths
    assert "optimizer.opt_state[0].nu['l2']['bias']" in paths
    assert "optimizer.opt_state[0].count" in paths and "optimizer.step" in paths
    step = plan.donation("optimizer.step")
    assert step.type_text == "tensor<ui32>" and step.jax_path.startswith("optimizer.states[")
    # each buffer hosts the updated state of the same variable
    kernel = plan.donation("model.l1.kernel")
    assert (kernel.status, kernel.result_path, kernel.measured) == (
        "reused", "model.l1.kernel", "copy-free")
    assert kernel.jax_path == "model.states[0][1]"
    # plan() and explain() on the nnx.jit object name them the same way
    model, opt, x, y = _nnx_state()
    again = jud.plan(nnx_step, model, opt, x, y)
    assert [d.path for d in again.donations] == paths
    report = jud.explain(nnx_step, model, opt, x, y)
    assert [r.path for r in report.rows] == paths
    assert "model.l1.kernel" in str(report) and "states[" not in str(report)


class Block(nnx.Module):
    def __init__(self, rngs: nnx.Rngs) -> None:
        self.linear = nnx.Linear(8, 8, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return jax.nn.relu(self.linear(x))


class Stack(nnx.Module):
    """Three blocks stacked by ``nnx.vmap`` and run by ``nnx.scan``."""

    def __init__(self, rngs: nnx.Rngs) -> None:
        @nnx.split_rngs(splits=3)
        @nnx.vmap(in_axes=(0,), out_axes=0)
        def make(rngs: nnx.Rngs) -> Block:
            return Block(rngs)

        self.blocks = make(rngs)
        self.head = nnx.Linear(8, 1, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        @nnx.scan(in_axes=(nnx.Carry, 0), out_axes=nnx.Carry)
        def body(x: jax.Array, block: Block) -> jax.Array:
            return block(x)

        return self.head(body(x, self.blocks))


def test_nnx_scan_over_stacked_layers() -> None:
    model = Stack(nnx.Rngs(0))
    opt = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)

    @nnx.jit(donate_argnames=("model", "optimizer"))
    def step(model: Stack, optimizer: nnx.Optimizer, x: jax.Array) -> jax.Array:
        loss, grads = nnx.value_and_grad(lambda m: (m(x) ** 2).mean())(model)
        optimizer.update(model, grads)
        return loss

    plan = jud.plan(step, model, opt, jnp.ones((2, 8)))
    _assert_user_names(plan)
    kernel = plan.donation("model.blocks.linear.kernel")
    assert kernel.type_text == "tensor<3x8x8xf32>"  # stacked by nnx.vmap
    assert {x.path for x in plan.donations} >= {"model.head.kernel", "optimizer.step"}


def test_strict_error_and_warning_name_the_user_s_leaf() -> None:
    class Square(nnx.Module):
        def __init__(self) -> None:
            self.w = nnx.Param(jnp.arange(16.0).reshape(4, 4))

    @nnx.jit(donate_argnums=0)
    def transpose(model: Square) -> None:
        model.w[...] = model.w[...].T  # the transpose reads w: XLA copies it

    with jud.enabled(strict=True), pytest.raises(jud.DonationError) as err:
        transpose(Square())
    assert "'model.w'" in str(err.value) and "states[" not in str(err.value)
    with jud.enabled(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        transpose(Square())
    ours = [w for w in caught if issubclass(w.category, jud.DonationWarning)]
    assert [w.category for w in ours] == [jud.WastedDonationWarning]
    assert "donated argument 'model.w'" in str(ours[0].message)
    assert ours[0].filename == __file__


# --------------------------------------------------------------------------------------------
# Equinox


def _eqx_state() -> tuple[Any, Any, Any]:
    model = eqx.nn.MLP(4, 2, 8, depth=2, key=jax.random.key(0))
    tx = optax.adamw(1e-2)
    return model, tx, tx.init(eqx.filter(model, eqx.is_array))


@pytest.mark.parametrize("donate", ["all", "all-except-first"])
def test_equinox_filter_jit_names_leaves_by_the_user_s_key_paths(donate: str) -> None:
    model, tx, opt_state = _eqx_state()

    @eqx.filter_jit(donate=donate)  # type: ignore[arg-type]
    def step(x: jax.Array, model: Any, opt_state: Any) -> tuple[Any, Any, jax.Array]:
        loss, grads = eqx.filter_value_and_grad(
            lambda m: jnp.mean(jax.vmap(m)(x) ** 2))(model)
        updates, opt_state = tx.update(grads, opt_state, eqx.filter(model, eqx.is_array))
        return eqx.apply_updates(model, updates), opt_state, loss

    x = jnp.ones((3, 4))
    with jud.enabled():
        step(x, model, opt_state)
    plan = jud.recent_plans()[-1]
    assert plan.library == "equinox"
    _assert_user_names(plan)
    paths = [d.path for d in plan.donations]
    assert ("x" in paths) == (donate == "all")
    assert "model.layers[0].weight" in paths and "model.layers[2].bias" in paths
    assert "opt_state[0].mu.layers[1].weight" in paths and "opt_state[0].count" in paths
    weight = plan.donation("model.layers[0].weight")
    assert weight.jax_path.startswith("dynamic_donate['rest']")
    # the output is named as the user's function returns it
    assert weight.result_path == "result[0].layers[0].weight"
    assert plan.donation("opt_state[0].count").result_path == "result[1][0].count"
    assert plan.disagreements == []


def test_a_leaf_a_library_hides_keeps_jax_s_path_marked() -> None:
    user = names.UserNames("equinox", ["model.w", None])
    assert user.arg(0, "dynamic_donate['rest'][0]") == names.LeafName(
        "model.w", "dynamic_donate['rest'][0]")
    hidden = user.arg(1, "dynamic_donate['fun'][0]")
    assert (hidden.path, hidden.user) == ("dynamic_donate['fun'][0]", False)
    assert hidden.text == "dynamic_donate['fun'][0] [library path]"
    assert names.PLAIN.arg(0, "params['w']").text == "params['w']"  # jax.jit: the user's


# --------------------------------------------------------------------------------------------
# Flax linen TrainState and optax states under jax.jit (JAX's own names are the user's)


class Dense2(linen.Module):
    @linen.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        return linen.Dense(2)(linen.relu(linen.Dense(8)(x)))


@pytest.mark.parametrize("tx", ["adamw", "multisteps"])
def test_linen_train_state_and_optax_states(tx: str) -> None:
    x = jnp.ones((3, 4))
    module = Dense2()
    inner = optax.adamw(1e-3)
    state = train_state.TrainState.create(
        apply_fn=module.apply, params=module.init(jax.random.key(0), x),
        tx=inner if tx == "adamw" else optax.MultiSteps(inner, 2))

    def step(state: Any, x: jax.Array) -> Any:
        grads = jax.grad(lambda p: jnp.mean(state.apply_fn(p, x) ** 2))(state.params)
        return state.apply_gradients(grads=grads)

    plan = jud.plan(jax.jit(step, donate_argnums=0), state, x)
    assert plan.library is None
    _assert_user_names(plan)
    paths = {d.path for d in plan.donations}
    assert "state.step" in paths
    assert "state.params['params']['Dense_0']['kernel']" in paths
    mu = ("state.opt_state[0].mu['params']['Dense_1']['bias']" if tx == "adamw" else
          "state.opt_state.inner_opt_state[0].mu['params']['Dense_1']['bias']")
    assert mu in paths
    if tx == "multisteps":
        assert {"state.opt_state.mini_step",
                "state.opt_state.acc_grads['params']['Dense_0']['kernel']"} <= paths
    assert all(d.jax_path == d.path for d in plan.donations)


def test_an_unknown_library_s_split_is_marked_as_such(tmp_path: Any,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A library the drop-in has no adapter for calls ``jax.jit`` on its own split of the
    user's arguments: JAX's names are the library's, so they are shown marked, and the plan
    says which library made them."""
    package = tmp_path / "site-packages" / "splitlib"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        "import jax\n\n"
        "def _inner(flat):\n"
        "    return [leaf * 2.0 for leaf in flat]\n\n"
        "def run(tree):\n"
        "    flat = jax.tree.leaves(tree)\n"
        "    return jax.jit(_inner, donate_argnums=0)(flat)\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site-packages"))
    import importlib

    splitlib = importlib.import_module("splitlib")
    with jud.enabled():
        splitlib.run({"w": jnp.ones(4), "b": jnp.ones(2)})
    plan = jud.recent_plans()[-1]
    assert plan.library == "splitlib"
    assert [(d.path, d.user_path, d.text) for d in plan.donations] == [
        ("flat[0]", False, "flat[0] [library path]"),
        ("flat[1]", False, "flat[1] [library path]")]
