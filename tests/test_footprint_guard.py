"""The footprint guard and the region-analysis decision (``jud.jit(footprint_guard=True)``, the
default; :func:`jax_use_donated.dropin.planner.on_compiled`): the drop-in never needs more
bytes than ``jax.jit``, and what it says stays true when it keeps JAX's pairing."""

from __future__ import annotations

import warnings
from typing import Any

import jax
import jax.numpy as jnp
import optax
import pytest

import jax_use_donated as jud
from jax_use_donated.dropin import records
from jax_use_donated.dropin.xla_truth import executable_truth
from tests.jax_versions import JAXLIB

_TX = optax.MultiSteps(optax.adam(1e-2), every_k_schedule=2)


def _step(params: Any, opt_state: Any, s0: jax.Array, s1: jax.Array) -> Any:
    """Found by the control-flow campaign: with only ``params`` donated, our copy-free pairing
    (each weight hosts its own update) needs 256 more temporary bytes in XLA's compile than
    JAX's (the weight hosts ``s0``, returned unchanged, which XLA copies anyway)."""
    def loss(p: Any) -> jax.Array:
        return jnp.mean((jnp.tanh(s0) @ p["w"] + p["b"]) ** 2)

    grads = jax.grad(loss)(params)
    updates, opt_state = _TX.update(grads, opt_state, params)
    return s0, s1, optax.apply_updates(params, updates), opt_state


def _args() -> tuple[Any, ...]:
    params = {"w": jnp.ones((8, 8)), "b": jnp.zeros((8,))}
    return params, _TX.init(params), jnp.ones((8, 8)), jnp.ones((8, 8))


def _footprint(step: Any) -> int:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled = step.lower(*_args()).compile()
    m = compiled.memory_analysis()
    return int(m.argument_size_in_bytes + m.output_size_in_bytes - m.alias_size_in_bytes
               + m.temp_size_in_bytes)


def test_the_guard_keeps_jax_pairing_where_it_needs_fewer_bytes() -> None:
    """The drop-in needs the fewer bytes of our pairing and JAX's; where JAX's is smaller (the
    case the guard exists for: XLA 0.10.2 and 0.12.0; XLA 0.12.1 compiles both pairings of
    this step into the same bytes), the plan describes JAX's pairing, measured as predicted."""
    plain = _footprint(jax.jit(_step, donate_argnums=(0,)))
    unguarded = _footprint(jud.jit(_step, donate_argnums=(0,), footprint_guard=False))
    step = jud.jit(_step, donate_argnums=(0,))
    guarded = _footprint(step)
    assert guarded == min(plain, unguarded)
    assert (unguarded > plain) == (JAXLIB < (0, 12, 1))  # measured on 0.10.2, 0.12.0.1, 0.12.1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lowered = step.lower(*_args())
        plan = step.plan(*_args())
    record = records.record_of(lowered.compiler_ir())
    assert record is not None
    assert plan.measured and not plan.disagreements, plan.disagreements
    if unguarded <= plain:  # ours is kept
        assert record.kept_jax is None
        return
    assert record.kept_jax is not None
    assert record.footprints["jax"] < record.footprints["ours"]
    # the plan describes what runs: JAX's pairing, measured as predicted
    assert all("kept JAX's own pairing" in x.message for x in plan.donations
               if x.parameter is not None)


def test_no_second_compile_where_the_plan_is_jax_pairing() -> None:
    def scale(a: jax.Array) -> jax.Array:
        return a * 2.0

    step = jud.jit(scale, donate_argnums=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lowered = step.lower(jnp.ones(8))
        lowered.compile()
    record = records.record_of(lowered.compiler_ir())
    assert record is not None
    # one pair, JAX's own, and no copy region analysis would save: compiled as jax.jit does
    assert record.drop_options == ("xla_cpu_copy_insertion_use_region_analysis",)
    assert record.footprints == {} and record.kept_jax is None


def _adam_with_a_loop(params: jax.Array, m: jax.Array, v: jax.Array, g: jax.Array) -> Any:
    """The README's Adam step (state first, params last) with a loop over the gradient: the
    loop keeps region analysis in the plan's compile (the guard compares both compiles)."""
    g = jax.lax.fori_loop(0, 2, lambda i, x: x * 0.5, g)
    m = 0.9 * m + 0.1 * g
    v = 0.999 * v + 0.001 * g * g
    return m, v, params - 1e-3 * m / (jnp.sqrt(v) + 1e-8)


def test_a_loop_keeps_region_analysis_and_scan_carries_stay_copy_free() -> None:
    x = jnp.ones((64, 64))
    step = jud.jit(_adam_with_a_loop, donate_argnums=(0, 1, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lowered = step.lower(x, x, x, x)
        lowered.compile()
    record = records.record_of(lowered.compiler_ir())
    assert record is not None
    assert record.drop_options == () and record.plan.ordering == "xla-cpu-region"
    # the guard compiled JAX's pairing too, with XLA's default options and with region analysis
    assert set(record.footprints) == {"ours", "jax", "jax region"}


def test_jax_default_column_describes_jax_jit_as_it_compiles() -> None:
    """Under region analysis JAX's pair ``m -> result[1]`` would be copy-free; ``jax.jit``
    compiles without it and copies ``m``: the JAX column and ``jax_copy_free`` say so, checked
    against ``jax.jit``'s own executable."""
    from jax_use_donated.dropin.xla_truth import read_truth

    x = jnp.ones((64, 64))
    step = jud.jit(_adam_with_a_loop, donate_argnums=(0, 1, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = step.explain(x, x, x, x)
        plan = step.plan(x, x, x, x)
        compiled = jax.jit(_adam_with_a_loop, donate_argnums=(0, 1, 2)).lower(
            x, x, x, x).compile()
    text = compiled.as_text()
    assert text is not None
    truth = read_truth(text, [0, 1, 2])
    rows = {r.path: r for r in report.rows}
    for name, d in (("params", 0), ("m", 1), ("v", 2)):
        measured = truth.donors[d].outcome.value
        assert rows[name].jax_copy_free == (measured == "copy-free"), (name, measured)
        assert plan.donation(name).jax_copy_free == (measured == "copy-free"), (name, measured)
    assert truth.donors[1].outcome.value == "copied"
    assert "-> result[1], XLA copies" in str(report)


@pytest.mark.parametrize("depth", [1, 2])
def test_explain_shows_the_pairing_the_executable_runs(depth: int) -> None:
    """An Equinox step under ``vmap`` (found on a user's-eye check): with one hidden layer the
    guard keeps JAX's pairing (it needs 112 fewer bytes than ours on jaxlib 0.10.2 and
    0.12.1), and ``explain`` says so and shows that pairing in its "ours" column, measured as
    predicted; before, it showed our plan beside the measurement of JAX's and called three
    leaves "copied (not as planned)". The "JAX default" column is true too, row by row
    against ``eqx.filter_jit``'s own executable: the hidden biases, read by transposes that
    XLA folds into the gradient dots, are copy-free (with two hidden layers the second one's
    transpose feeds two dots; that column said "XLA copies")."""
    eqx = pytest.importorskip("equinox", reason="equinox (the bench extra)")
    model = eqx.nn.MLP(8, 4, 16, depth, key=jax.random.PRNGKey(0))
    opt = optax.adam(1e-3)
    state = opt.init(eqx.filter(model, eqx.is_array))

    def step(m: Any, st: Any, x: jax.Array, y: jax.Array) -> Any:
        def loss(m: Any) -> jax.Array:
            return jnp.mean((jax.vmap(m)(x) - y) ** 2)
        g = eqx.filter_grad(loss)(m)
        u, st = opt.update(g, st, eqx.filter(m, eqx.is_array))
        return eqx.apply_updates(m, u), st

    fun = eqx.filter_jit(step, donate="all")
    args = (model, state, jnp.ones((5, 8)), jnp.ones((5, 4)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = jud.explain(fun, *args)
        plan = jud.plan(fun, *args)
    assert report.rows and all(r.measured is not None for r in report.rows)
    assert not report.disagreements, [r.path for r in report.disagreements]
    assert not plan.disagreements
    ours = {r.path: (r.result_path, r.predicted) for r in report.rows}
    assert ours == {x.path: (x.result_path, x.predicted) for x in plan.donations}
    bias = report.row("m.layers[0].bias")
    assert bias.jax_copy_free and bias.measured == "copy-free"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = executable_truth(fun.lower(*args).lowered.compile(),
                                 [r.arg_index for r in report.rows if r.arg_index is not None])
    jax_rows = [r for r in report.rows if r.jax_result is not None]
    assert len(jax_rows) >= 6 * depth
    assert {r.path: r.jax_copy_free for r in jax_rows} == {
        r.path: plain.donors[r.arg_index].outcome.value == "copy-free" for r in jax_rows
        if r.arg_index is not None}
    if report.kept_jax is not None:
        assert "kept JAX's own pairing" in str(report)
        assert all(r.result == r.jax_result for r in report.rows if r.jax_result is not None)
