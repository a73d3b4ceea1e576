"""The public plan accessor of ``jax_use_donated.jit``: ``wrapped.plan(*args)`` and
``wrapped.last_plan`` (a :class:`CallPlan` keyed by pytree path, flat leaf and parameter)."""

from __future__ import annotations

import warnings
from typing import Any, cast

import jax
import jax.numpy as jnp
import pytest

import jax_use_donated as jud
from jax_use_donated.dropin import planner
from jax_use_donated.dropin.hlo_alias import aliases_from_hlo_text


def swap(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
    return b * 2.0, a * 3.0


def mats(count: int = 2) -> list[jax.Array]:
    return [jnp.full((8, 8), float(i + 1)) for i in range(count)]


def quiet(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def test_plan_of_a_swap_by_path_leaf_and_parameter() -> None:
    f = jud.jit(swap, donate_argnums=(0, 1))
    a, b = mats()
    plan = f.plan(a, b)
    assert isinstance(plan, jud.CallPlan)
    assert plan.function == "jit(swap)"
    assert plan.pairs == {0: 1, 1: 0}
    assert plan.pairs_by_path == {"a": "result[1]", "b": "result[0]"}
    assert plan.parameter_pairs == {0: 1, 1: 0} and plan.buffer_donors == ()
    assert [(x.path, x.leaf, x.parameter, x.status, x.reason) for x in plan.donations] == [
        ("a", 0, 0, "reused", "paired"), ("b", 1, 1, "reused", "paired")]
    assert not a.is_deleted(), "plan() lowers; it must not run the function"


def test_last_plan_follows_calls_and_matches_plan_and_records() -> None:
    def fresh_swap(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
        return b * 2.0, a * 3.0

    f = jud.jit(fresh_swap, donate_argnums=(0, 1))
    assert f.last_plan is None
    quiet(f, *mats())
    last = cast("jud.CallPlan | None", f.last_plan)  # set by the call
    assert last is not None
    # measured after the call's compile, as plan() measures it
    assert last.measured and [x.measured for x in last.donations] == ["copy-free"] * 2
    assert f.plan(*mats()) == last
    assert jud.recent_plans()[-1] == last
    assert last.parameter_pairs == f.records[-1].expected  # the private view agrees
    # A drop-in re-created for the same function shares JAX's caches and the records.
    again = jud.jit(fresh_swap, donate_argnums=(0, 1))
    assert again.last_plan == last and again.records is f.records
    quiet(again, *mats())
    assert len(f.records) == 1, "re-creating the drop-in must not lower again"
    # Other planner options are another jit: lowered and planned on their own.
    strict = jud.jit(fresh_swap, donate_argnums=(0, 1), strict=True)
    assert strict.last_plan is None


def test_pytree_kwargs_and_static_arguments_map_to_flat_leaves() -> None:
    def step(scale: float, state: dict[str, jax.Array], *, g: jax.Array) -> Any:
        m = 0.9 * state["momentum"] + g
        return {"params": state["params"] - scale * m, "velocity": m}

    f = jud.jit(step, static_argnums=0, donate_argnums=1)
    state = {"momentum": jnp.ones((8, 8)), "params": jnp.ones((8, 8))}
    plan = f.plan(0.1, state, g=jnp.ones((8, 8)))
    # jax.tree.leaves(((state,), {"g": g})): momentum, params, g
    assert plan.pairs == {0: 1, 1: 0}
    assert plan.pairs_by_path == {"state['momentum']": "result['velocity']",
                                  "state['params']": "result['params']"}
    assert plan.donation("state['params']").result_path == "result['params']"
    with pytest.raises(KeyError):
        plan.donation("g")


def test_removed_donor_shifts_parameters_but_not_leaves() -> None:
    def g(unused: jax.Array, x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
        return y + 1.0, x * 2.0

    f = jud.jit(g, donate_argnums=(0, 1, 2))
    plan = quiet(f.plan, *mats(3))
    removed = plan.donation("unused")
    assert (removed.status, removed.leaf, removed.parameter, removed.reason) == (
        "removed", 0, None, "unused")
    assert "keep_unused=True" in removed.message
    assert [(x.path, x.leaf, x.parameter) for x in plan.donations] == [
        ("unused", 0, None), ("x", 1, 0), ("y", 2, 1)]
    assert plan.pairs == {1: 1, 2: 0}
    assert plan.parameter_pairs == {0: 1, 1: 0}


def test_every_donor_removed_still_reports_them() -> None:
    f = jud.jit(lambda a, b: jnp.ones(3), donate_argnums=(0, 1))
    plan = quiet(f.plan, jnp.ones(3), jnp.ones(3))
    assert [(x.path, x.status) for x in plan.donations] == [("a", "removed"), ("b", "removed")]
    assert plan.pairs == {} and plan.parameter_pairs == {}
    report = quiet(f.explain, jnp.ones(3), jnp.ones(3))
    assert [r.status for r in report.rows] == ["removed", "removed"]


def test_copied_and_not_reused_leaves() -> None:
    def transposed(a: jax.Array) -> jax.Array:
        return a.T

    plan = quiet(jud.jit(transposed, donate_argnums=0).plan, jnp.ones((4, 4)))
    (entry,) = plan.donations
    assert (entry.status, entry.reason, entry.result) == ("copied", "read-after-write", 0)
    assert "transpose" in entry.message and "XLA inserts a copy" in entry.message
    assert plan.pairs == {} and plan.parameter_pairs == {0: 0}
    assert [x.path for x in plan.not_reused] == ["a"] and plan.reused == []

    def halve(a: jax.Array) -> jax.Array:
        return a[:2]

    plan = quiet(jud.jit(halve, donate_argnums=0).plan, jnp.ones((4,)))
    assert [(x.status, x.reason, x.result) for x in plan.donations] == [
        ("not reused", "no-compatible-result", None)]


def test_parameter_pairs_are_the_executables_aliasing() -> None:
    def adam_like(p: jax.Array, m: jax.Array, g: jax.Array) -> tuple[jax.Array, jax.Array]:
        m = 0.9 * m + g
        return m, p - 0.1 * m

    f = jud.jit(adam_like, donate_argnums=(0, 1))
    args = mats(3)
    plan = f.plan(*args)
    compiled = f.lower(*args).compile()
    assert aliases_from_hlo_text(compiled.as_text()) == plan.parameter_pairs
    assert plan.pairs_by_path == {"p": "result[1]", "m": "result[0]"}


def test_effect_tokens_do_not_shift_leaves() -> None:
    def logged(a: jax.Array) -> jax.Array:
        jax.debug.print("step", ordered=True)
        return a * 2.0

    f = jud.jit(logged, donate_argnums=0)
    plan = f.plan(jnp.ones(4))
    record = f.records[-1]
    assert len(record.function.args) == 2, "expected an effect token before the argument"
    assert len(record.function.results) == 2, "expected an effect token before the result"
    assert [(x.path, x.leaf, x.parameter, x.status, x.result) for x in plan.donations] == [
        ("a", 0, 1, "reused", 0)]
    assert plan.pairs == {0: 0} and plan.parameter_pairs == {1: 1}


def test_nothing_donated_gives_an_empty_plan() -> None:
    f = jud.jit(swap)
    plan = f.plan(*mats())
    assert plan.donations == () and plan.pairs == {} and plan.parameter_pairs == {}
    assert f.last_plan is None


@pytest.mark.usefixtures("fresh_jax_caches")
def test_plan_names_a_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("simulated internal change")

    monkeypatch.setattr(planner, "analyse", broken)
    monkeypatch.setattr(planner, "_WARNED", set())
    f = jud.jit(swap, donate_argnums=(0, 1))
    plan = quiet(f.plan, *mats())
    assert plan.fallback_reason is not None and "simulated" in plan.fallback_reason
    assert plan.parameter_pairs == {0: 0, 1: 1}  # JAX's own pairing is kept


def test_printed_plan_is_a_short_summary_with_a_line_per_leaf() -> None:
    f = jud.jit(lambda p, x: ({"w": p["w"] * 2.0}, x.sum()), donate_argnums=(0, 1))
    plan = quiet(f.plan, {"w": jnp.ones((4, 4))}, jnp.ones(3))
    lines = str(plan).splitlines()
    assert lines[0] == ("jit(<lambda>): 1 of 2 donated leaves reused copy-free, 0 copied by "
                        "XLA, 1 not donated (measured)")
    assert lines[1:] == ["  p['w'] -> result[0]['w']: copy-free",
                         "  x: not donated (no-compatible-result)"]
    assert repr(plan) == f"<CallPlan {lines[0]}>"


def test_printed_plan_of_many_leaves_is_capped() -> None:
    n = jud.CallPlan.STR_LEAVES + 5
    f = jud.jit(lambda xs: [x + 1.0 for x in xs], donate_argnums=0)
    plan = quiet(f.plan, [jnp.ones(2) * i for i in range(n)])
    lines = str(plan).splitlines()
    assert len(lines) == 1 + jud.CallPlan.STR_LEAVES + 1
    assert lines[-1] == ("  ... 5 more; jax_use_donated.explain(...) gives the full report")
    assert all(line.endswith(": copy-free") for line in lines[1:-1])
