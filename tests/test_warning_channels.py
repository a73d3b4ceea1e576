"""Which donor problems reach the user, through which channel, and that each is true.

Actionable problems (XLA copies a donor; a late read blocks a donor JAX's pairing gave a
result) are ``jud.WastedDonationWarning`` s whose text does not start with JAX's phrase, so
they pass the filter ``eqx.filter_jit(donate=...)`` puts on it; expected ones (nothing can host
the donor) keep JAX's phrase as ``jud.UnusableDonationWarning`` s, silenced by Equinox's filter
and by a user's filter on the phrase, as JAX's own warning is. Everything is logged to the
``jax_use_donated`` logger whatever the filters. Copy claims come from the measured executable.
"""

from __future__ import annotations

import logging
import warnings
from typing import Any

import jax
import jax.numpy as jnp
import optax
import pytest

import jax_use_donated as jud
from jax_use_donated.dropin import planner, xla_truth

eqx = pytest.importorskip("equinox", reason="equinox is an optional dependency (the bench extra)")
linen = pytest.importorskip("flax.linen")
train_state = pytest.importorskip("flax.training.train_state")

JAX_PHRASE = "Some donated buffers were not usable"


def transpose_and_sum(a: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
    # ``a``: JAX pairs it with a.T, which reads it and cannot write in place, so XLA copies it
    # (actionable); ``x``: no result has its type (expected).
    return a.T, x.sum()


def _call(fn: Any, *args: Any, ignore: tuple[dict[str, Any], ...] = ()
          ) -> list[warnings.WarningMessage]:
    """Call ``fn``, recording every warning but those the user's ``ignore`` filters (keyword
    arguments of ``warnings.filterwarnings``) silence."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for f in ignore:
            warnings.filterwarnings("ignore", **f)
        fn(*args)
    return [w for w in caught if issubclass(w.category, UserWarning)]


def _args() -> tuple[jax.Array, jax.Array]:
    return jnp.arange(16.0).reshape(4, 4), jnp.ones((3,))


@pytest.mark.usefixtures("fresh_jax_caches")
def test_under_equinox_actionable_problems_reach_the_user_and_expected_ones_stay_quiet(
        caplog: pytest.LogCaptureFixture) -> None:
    step = eqx.filter_jit(transpose_and_sum, donate="all")
    caplog.set_level(logging.DEBUG, logger="jax_use_donated")
    with jud.enabled():
        caught = _call(step, *_args())
    assert [w.category for w in caught] == [jud.WastedDonationWarning]
    text = str(caught[0].message)
    assert text.startswith("Donated buffer copied by XLA: jit(transpose_and_sum): ")
    assert "donated argument 'a'" in text and "measured: the executable copies it" in text
    assert caught[0].filename == __file__
    # the expected one was silenced by Equinox's own filter, and the logger has it
    logged = [r for r in caplog.records if r.name == "jax_use_donated"]
    expected = [r for r in logged if r.getMessage().startswith(JAX_PHRASE)]
    assert len(expected) == 1 and "'x'" in expected[0].getMessage()
    assert expected[0].levelno == logging.DEBUG
    assert any(r.levelno == logging.INFO and "'a'" in r.getMessage() for r in logged)
    plan = jud.recent_plans()[-1]
    assert [(d.path, d.problem) for d in plan.donations] == [("a", "wasted"), ("x", "unusable")]


@pytest.mark.usefixtures("fresh_jax_caches")
def test_a_user_s_filter_on_jax_s_phrase_silences_what_jax_warns_about_and_no_more() -> None:
    """Plain ``jax.jit`` with the filter a JAX user writes: JAX's own warning (for ``x``, which
    nothing can host) is silenced, under the switch too; what the switch adds is only the copy
    JAX left unsaid (``a``), as its own category."""
    step = jax.jit(transpose_and_sum, donate_argnums=(0, 1))
    users = ({"message": JAX_PHRASE},)
    # JAX alone warns about x (not usable), and the filter silences it
    (jax_own,) = _call(step, *_args())
    assert str(jax_own.message).startswith(f"{JAX_PHRASE}: float32[3]")
    jax.clear_caches()
    assert _call(step, *_args(), ignore=users) == []
    with jud.enabled():
        planned = _call(step, *_args(), ignore=users)
    assert [w.category for w in planned] == [jud.WastedDonationWarning]
    assert not str(planned[0].message).startswith(JAX_PHRASE)
    assert "donated argument 'a'" in str(planned[0].message)
    # without the filter we warn about x as JAX does: its phrase first, the expected category
    with jud.enabled():
        jax.clear_caches()
        unfiltered = _call(step, *_args())
    expected = [w for w in unfiltered if w.category is jud.UnusableDonationWarning]
    assert len(expected) == 1 and str(expected[0].message).startswith(JAX_PHRASE)
    assert "donated argument 'x'" in str(expected[0].message)
    # and the category silences the actionable kind for a user who wants that
    jax.clear_caches()
    with jud.enabled():
        assert _call(step, *_args(), ignore=(
            *users, {"category": jud.WastedDonationWarning})) == []


def test_a_donor_predicted_copied_but_measured_copy_free_gets_no_copy_warning(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The executable reuses ``a`` copy-free (the measurement forced so) where the plan kept
    JAX's copying pair: the warning would be false, and none is given."""
    real = planner.read_truth

    def copy_free(text: str, donated: list[int]) -> xla_truth.ExecutableTruth:
        truth = real(text, donated)
        for p, t in list(truth.donors.items()):
            truth.donors[p] = xla_truth.DonorTruth(p, xla_truth.Outcome.COPY_FREE, t.output)
        return truth

    monkeypatch.setattr(planner, "read_truth", copy_free)
    step = jud.jit(lambda a: a.T, donate_argnums=0)
    caught = _call(step, jnp.ones((4, 4)))
    assert caught == []
    (d,) = step.last_plan.donations  # type: ignore[union-attr]
    assert (d.status, d.predicted, d.measured, d.problem) == (
        "copied", "copied", "copy-free", None)


def test_every_copy_warning_is_measured_true_on_optax_multisteps() -> None:
    """A real step where the prediction and the executable differ (optax.MultiSteps' state
    written by a ``stablehlo.case``): every warning that says XLA copies a donor names one the
    executable copies, and no donor the executable reuses copy-free is warned about."""
    x = jnp.ones((3, 4))

    class Dense2(linen.Module):
        @linen.compact
        def __call__(self, x: jax.Array) -> jax.Array:
            return linen.Dense(2)(linen.relu(linen.Dense(8)(x)))

    module = Dense2()
    state = train_state.TrainState.create(
        apply_fn=module.apply, params=module.init(jax.random.key(0), x),
        tx=optax.MultiSteps(optax.adamw(1e-3), 2))

    def step(state: Any, x: jax.Array) -> Any:
        grads = jax.grad(lambda p: jnp.mean(state.apply_fn(p, x) ** 2))(state.params)
        return state.apply_gradients(grads=grads)

    with jud.enabled():
        jax.clear_caches()
        caught = _call(jax.jit(step, donate_argnums=0), state, x)
    plan = jud.recent_plans()[-1]
    assert plan.measured
    by_path = {d.path: d for d in plan.donations}
    for w in caught:
        text = str(w.message)
        (named,) = [p for p in by_path if f"'{p}'" in text]
        if "copies" in text or "inserts a copy" in text:
            assert by_path[named].measured == "copied", text
        assert by_path[named].measured != "copy-free", text
    assert all(d.problem is None for d in plan.donations if d.measured == "copy-free")


@pytest.mark.usefixtures("fresh_jax_caches")
def test_warn_false_silences_warnings_but_not_the_logger(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="jax_use_donated")
    step = jud.jit(transpose_and_sum, donate_argnums=(0, 1), warn=False)
    assert _call(step, *_args()) == []
    infos = [r for r in caplog.records if r.name == "jax_use_donated"]
    assert [r.levelno for r in infos] == [logging.INFO]  # the copy; x's record is DEBUG
    assert infos[0].getMessage().startswith("Donated buffer copied by XLA")
