"""Warnings, ``strict``, ``keep_unpaired_donors``, ``explain`` and the safe fallback."""

from __future__ import annotations

import importlib
import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jax_use_donated as jud
from jax_use_donated.analysis import DonationError
from jax_use_donated.diagnostics import collect_diagnostics

planner = importlib.import_module("jax_use_donated.dropin.planner")


def caught_warnings(fn: Any, *args: Any) -> tuple[Any, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(*args)
    return out, caught


def transposed(a: jax.Array) -> jax.Array:
    return a.T  # the blocking read


TRANSPOSE_LINE = transposed.__code__.co_firstlineno + 1


@pytest.mark.usefixtures("fresh_jax_caches")
def test_unusable_donor_gets_a_precise_warning_and_no_vague_one() -> None:
    f = jud.jit(transposed, donate_argnums=0)
    out, caught = caught_warnings(f, jnp.arange(16.0).reshape(4, 4))
    np.testing.assert_allclose(out, np.arange(16.0).reshape(4, 4).T)
    ours = [w for w in caught if issubclass(w.category, jud.DonationWarning)]
    assert len(ours) == 1
    text = str(ours[0].message)
    assert f"test_jit_diagnostics.py:{TRANSPOSE_LINE}:" in text
    assert "donated argument 'a'" in text and "stablehlo.transpose" in text
    assert ours[0].filename == __file__  # points at the user's call
    # XLA copies it (measured): an actionable warning, which does not start with JAX's phrase
    # (Equinox's filter on it must let it through), and JAX's own vague warning is gone.
    assert ours[0].category is jud.WastedDonationWarning
    assert text.startswith("Donated buffer copied by XLA: jit(transposed): ")
    assert "measured: the executable copies it (" in text and " copy %copy" in text
    assert not [w for w in caught if "Some donated buffers were not usable" in str(w.message)]


@pytest.mark.usefixtures("fresh_jax_caches")
def test_no_compatible_result_warning() -> None:
    f = jud.jit(lambda a: a.sum(axis=0), donate_argnums=0)
    _, caught = caught_warnings(f, jnp.ones((4, 4)))
    ours = [w for w in caught if issubclass(w.category, jud.DonationWarning)]
    assert len(ours) == 1 and "no result has type tensor<4x4xf32>" in str(ours[0].message)
    # nothing can host it: the expected kind, with JAX's phrase first (filters on it match)
    assert ours[0].category is jud.UnusableDonationWarning
    assert str(ours[0].message).startswith("Some donated buffers were not usable: ")


@pytest.mark.usefixtures("fresh_jax_caches")
def test_removed_unused_donation_is_reported() -> None:
    def g(a: jax.Array, b: jax.Array) -> jax.Array:
        return b * 2.0

    f = jud.jit(g, donate_argnums=(0, 1))
    a, b = jnp.ones((4, 4)), jnp.ones((4, 4))
    _, caught = caught_warnings(f, a, b)
    messages = [str(w.message) for w in caught if issubclass(w.category, jud.DonationWarning)]
    assert any("'a' (float32[4,4]) is unused, so jit removed it" in m for m in messages)
    assert not a.is_deleted() and b.is_deleted()
    row = f.explain(jnp.ones((4, 4)), jnp.ones((4, 4))).row("a")
    assert row.status == "removed"


@pytest.mark.usefixtures("fresh_jax_caches")
def test_warnings_go_to_an_active_sink() -> None:
    with collect_diagnostics() as sink:
        jud.jit(transposed, donate_argnums=0)(jnp.ones((4, 4)))
    assert len(sink.warnings()) == 1
    where = sink.warnings()[0].loc.text
    assert where is not None
    assert where.endswith(f"test_jit_diagnostics.py:{TRANSPOSE_LINE}:11")


@pytest.mark.usefixtures("fresh_jax_caches")
def test_strict_raises_and_passes() -> None:
    with pytest.raises(DonationError, match="cannot be honoured"):
        jud.jit(transposed, donate_argnums=0, strict=True)(jnp.ones((4, 4)))

    def swap(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
        return b * 2.0, a * 3.0

    _, caught = caught_warnings(jud.jit(swap, donate_argnums=(0, 1), strict=True),
                                jnp.ones((4, 4)), jnp.ones((4, 4)))
    assert not [w for w in caught if issubclass(w.category, jud.DonationWarning)]


def test_keep_unpaired_donors() -> None:
    def add(a: jax.Array, b: jax.Array) -> jax.Array:
        return a + b

    args = (jnp.ones((4, 4)), jnp.ones((4, 4)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kept = jud.jit(add, donate_argnums=(0, 1), keep_unpaired_donors=True).lower(*args)
        dropped = jud.jit(add, donate_argnums=(0, 1)).lower(*args)
    main_kept = next(ln for ln in kept.as_text().splitlines() if "@main" in ln)
    main_dropped = next(ln for ln in dropped.as_text().splitlines() if "@main" in ln)
    assert "%arg1: tensor<4x4xf32> {jax.buffer_donor = true}" in main_kept
    assert "jax.buffer_donor" not in main_dropped
    assert "%arg0: tensor<4x4xf32> {tf.aliasing_output = 0 : i32}" in main_dropped


def test_explain_report() -> None:
    def step(params: dict[str, jax.Array], opt: dict[str, jax.Array],
             g: dict[str, jax.Array]) -> tuple[dict[str, jax.Array], dict[str, jax.Array]]:
        m = {k: 0.9 * opt[k] + g[k] for k in opt}
        p = {k: params[k] - 0.1 * m[k] for k in params}
        return m, p  # state first: JAX's in-order pairing makes XLA copy

    tree = {"w1": jnp.ones((8, 8)), "w2": jnp.ones((8, 8)), "b": jnp.ones((8,))}
    report = jud.explain(jud.jit(step, donate_argnums=(0, 1)), tree, tree, tree)
    assert isinstance(report, jud.DonationReport)
    w1 = report.row("params['w1']")
    assert w1.status == "reused" and w1.result_path == "result[1]['w1']"
    assert w1.type_text == "tensor<8x8xf32>" and w1.nbytes == 256
    assert w1.jax_result == 1 and not w1.jax_copy_free  # result[0]['w1']: the state
    assert "XLA copies" in w1.jax_note
    assert report.row("opt['b']").result_path == "result[0]['b']"
    assert len(report.reused) == 6
    text = str(report)
    assert "params['w1']" in text and "result[1]['w1']" in text and "JAX default" in text
    assert "6 of 6 donated leaves reused" in text


def test_explain_names_the_blocking_read() -> None:
    report = jud.jit(transposed, donate_argnums=0).explain(jnp.ones((4, 4)))
    row = report.row("a")
    assert row.status == "reused with a copy"  # JAX's own pair kept: never above its footprint
    assert row.blocking_read is not None
    assert row.blocking_read.endswith(f"test_jit_diagnostics.py:{TRANSPOSE_LINE}:11")
    assert "stablehlo.transpose" in str(report)


@pytest.mark.usefixtures("fresh_jax_caches")
def test_fallback_when_the_analysis_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("simulated internal change")

    monkeypatch.setattr(planner, "analyse", broken)
    monkeypatch.setattr(planner, "_WARNED", set())
    f = jud.jit(transposed, donate_argnums=0)
    out, caught = caught_warnings(f, jnp.arange(4.0).reshape(2, 2))
    np.testing.assert_allclose(out, np.arange(4.0).reshape(2, 2).T)
    assert f.fallback_reason is not None and "simulated" in f.fallback_reason
    assert any("keeps JAX's own donation pairing" in str(w.message) for w in caught)
    assert "tf.aliasing_output = 0" in f.lower(jnp.ones((2, 2))).as_text()  # JAX's attribute
    np.testing.assert_allclose(f(jnp.ones((2, 2))), 1.0)


@pytest.mark.usefixtures("fresh_jax_caches")
def test_fallback_when_the_compiled_aliasing_differs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(planner, "executable_aliases", lambda executable: {})
    monkeypatch.setattr(planner, "_WARNED", set())

    def swap(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
        return b * 2.0, a * 3.0

    f = jud.jit(swap, donate_argnums=(0, 1), verify_executable=True)
    out, caught = caught_warnings(f, jnp.ones((4, 4)), jnp.ones((4, 4)))
    np.testing.assert_allclose(out[0], 2.0)
    assert f.fallback_reason is not None and "differs from the plan" in f.fallback_reason
    assert f.last_plan is not None and f.last_plan.fallback_reason == f.fallback_reason
    assert any("keeps JAX's own donation pairing" in str(w.message) for w in caught)


@pytest.mark.usefixtures("fresh_jax_caches")
def test_executable_is_read_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """By default the compiled module is not serialized to read its aliasing (2% of compile
    time on large programs); the module handed to the compiler is checked instead."""
    calls: list[object] = []
    real = planner.executable_aliases
    monkeypatch.setattr(planner, "executable_aliases",
                        lambda executable: calls.append(executable) or real(executable))

    def swap(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
        return b * 2.0, a * 3.0

    plain = jud.jit(swap, donate_argnums=(0, 1))
    plain(jnp.ones((4, 4)), jnp.ones((4, 4)))
    assert calls == [] and plain.fallback_reason is None
    assert plain.records[-1].timings["check"] >= 0.0
    verified = jud.jit(swap, donate_argnums=(0, 1), verify_executable=True)
    verified(jnp.ones((4, 4)), jnp.ones((4, 4)))
    assert len(calls) == 1 and verified.fallback_reason is None


@pytest.mark.usefixtures("fresh_jax_caches")
def test_fallback_when_the_compiler_gets_other_attributes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The rewrite never reaches the module JAX compiles (simulated: it writes nothing), so
    the compiler sees JAX's own pairing: the check before compilation notices."""
    monkeypatch.setattr(planner, "set_arg_donations", lambda *args, **kwargs: None)
    monkeypatch.setattr(planner, "_WARNED", set())

    def swap(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
        return b * 2.0, a * 3.0

    f = jud.jit(swap, donate_argnums=(0, 1))
    out, caught = caught_warnings(f, jnp.ones((4, 4)), jnp.ones((4, 4)))
    np.testing.assert_allclose(out[0], 2.0)
    assert f.fallback_reason is not None
    assert "given to the compiler" in f.fallback_reason and "tf.aliasing_output" in f.fallback_reason
    assert any("keeps JAX's own donation pairing" in str(w.message) for w in caught)


@pytest.mark.usefixtures("fresh_jax_caches")
def test_fallback_when_the_hook_does_not_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from jax._src.interpreters import mlir

    monkeypatch.setattr(mlir, "lower_jaxpr_to_module", vars(mlir.lower_jaxpr_to_module)["__wrapped__"])
    monkeypatch.setattr(planner, "_WARNED", set())
    f = jud.jit(lambda a: a + 1.0, donate_argnums=0)
    out, _caught = caught_warnings(f, jnp.ones((4, 4)))
    np.testing.assert_allclose(out, 2.0)
    assert f.fallback_reason is not None and "did not run" in f.fallback_reason
