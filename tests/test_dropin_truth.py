"""The drop-in's plans carry what the compiled executable really does with each donor.

``plan()``/``explain()`` compile (JAX caches it) and read the executable's HLO
(:mod:`jax_use_donated.dropin.xla_truth`); ``verify_executable=True`` does the same after every
compile and warns when the executable contradicts a prediction.
"""

from __future__ import annotations

import warnings
from typing import Any

import jax
import jax.numpy as jnp
import pytest

import jax_use_donated as jud
from jax_use_donated.diagnostics import DonationWarning
from jax_use_donated.dropin import records, xla_truth


def swap(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
    return b * 2, a * 3


def fan_out(a: jax.Array) -> tuple[jax.Array, jax.Array]:
    return a + 1, a * 2


X = jnp.ones((64, 64))
Y = jnp.ones((64, 64))


def test_plan_carries_the_measured_outcome_of_every_donor() -> None:
    step = jud.jit(swap, donate_argnums=(0, 1))
    plan = step.plan(X, Y)
    assert plan.measured
    assert {(d.path, d.status, d.measured) for d in plan.donations} == {
        ("a", "reused", "copy-free"), ("b", "reused", "copy-free")}
    assert plan.disagreements == []
    # the same executable JAX runs: the call hits the compilation plan() made
    before = step._cache_size()
    step(jnp.ones((64, 64)), jnp.ones((64, 64)))
    assert step._cache_size() == before + 1


def test_measured_outcomes_of_jax_s_own_pairing_show_its_copies() -> None:
    """``jud.plan`` of a plain ``jax.jit`` plans it as the switch would; measuring a plain
    compile of JAX's pairing (outside the planner) shows the copies the planner avoids."""
    plain = jax.jit(swap, donate_argnums=(0, 1))
    truth = xla_truth.executable_truth(plain.lower(X, Y).compile(), [0, 1])
    assert {p: t.outcome for p, t in truth.donors.items()} == {
        0: xla_truth.Outcome.COPIED, 1: xla_truth.Outcome.COPIED}
    ours = jud.plan(plain, X, Y)
    assert [d.measured for d in ours.donations] == ["copy-free", "copy-free"]


def test_a_donor_keeping_jax_s_copying_pair_is_measured_as_copied() -> None:
    """Under XLA's default copy insertion ``a`` is read by ``a * 2`` after ``a + 1`` could
    overwrite it: no copy-free pair, so it keeps JAX's pair (the buffer is still donated) and
    XLA copies it, as predicted."""
    with pytest.warns(DonationWarning, match="keeps JAX's pairing with result 0"):
        plan = jud.jit(fan_out, donate_argnums=0, region_analysis=False).plan(X)
    (d,) = plan.donations
    assert (d.status, d.predicted, d.measured) == ("copied", "copied", "copied")
    assert "parameter copy" in d.evidence
    assert not d.disagrees


def test_by_default_the_fan_out_donor_is_reused_copy_free() -> None:
    """The drop-in's default compile (region analysis on XLA:CPU) orders ``a * 2`` before
    ``a + 1`` overwrites ``a``: no copy, as predicted, and the numbers are JAX's."""
    step = jud.jit(fan_out, donate_argnums=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DonationWarning)
        plan = step.plan(X)
        out = step(jnp.full((64, 64), 3.0))
    (d,) = plan.donations
    assert (d.status, d.predicted, d.measured) == ("reused", "copy-free", "copy-free")
    assert step.records[-1].plan.ordering == "xla-cpu-region"
    assert float(out[0][0, 0]) == 4.0 and float(out[1][0, 0]) == 6.0


def test_explain_has_a_measured_column() -> None:
    text = str(jud.jit(swap, donate_argnums=(0, 1)).explain(X, Y))
    assert "XLA (measured)" in text
    rows = text.splitlines()[3:4]
    assert rows and rows[0].rstrip().endswith("copy-free")


def test_verify_executable_measures_after_every_compile() -> None:
    step = jud.jit(swap, donate_argnums=(0, 1), verify_executable=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DonationWarning)
        step(jnp.ones((64, 64)), jnp.ones((64, 64)))
    assert step.last_plan is not None and step.last_plan.measured
    assert [d.measured for d in step.last_plan.donations] == ["copy-free", "copy-free"]
    assert "measure" in step.records[-1].timings


def test_a_contradicted_prediction_warns_as_a_rule_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    """The warning path, forced: the executable 'copies' a donor the plan says is free."""
    from jax_use_donated.dropin import planner

    real = planner.read_truth

    def lying(text: str, donated: list[int]) -> xla_truth.ExecutableTruth:
        truth = real(text, donated)
        first = min(truth.donors)
        t = truth.donors[first]
        truth.donors[first] = xla_truth.DonorTruth(first, xla_truth.Outcome.COPIED, t.output)
        return truth

    monkeypatch.setattr(planner, "read_truth", lying)
    monkeypatch.setattr(planner, "runs_copies", lambda module: None)  # read the text
    step = jud.jit(lambda a, b: swap(a, b), donate_argnums=(0, 1), verify_executable=True)
    with pytest.warns(DonationWarning, match="contradicts the plan for 1 donated leaves") as ws:
        step(jnp.ones((64, 64)), jnp.ones((64, 64)))
    assert any("a bug in the rules" in str(w.message) for w in ws)
    assert step.last_plan is not None and len(step.last_plan.disagreements) == 1


REGION = "xla_cpu_copy_insertion_use_region_analysis"


def _compile_options(lowered: Any) -> dict[str, object]:
    return dict(lowered._lowering._compiler_options_kvs)


def test_region_analysis_is_added_on_cpu_and_the_user_s_setting_wins() -> None:
    def f(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
        return b * 2, a * 3

    assert REGION not in _compile_options(
        jud.jit(f, donate_argnums=(0, 1), region_analysis=False).lower(X, Y))
    assert _compile_options(jud.jit(f, donate_argnums=(0, 1)).lower(X, Y))[REGION] is True
    on = jud.jit(f, donate_argnums=(0, 1), region_analysis=True)
    assert _compile_options(on.lower(X, Y))[REGION] is True
    user = jud.jit(f, donate_argnums=(0, 1), region_analysis=True,
                   compiler_options={REGION: False})
    assert _compile_options(user.lower(X, Y))[REGION] is False


def test_jits_whose_compiler_options_differ_get_their_own_plan() -> None:
    """JAX's lowering cache does not key on compiler options, but the plan depends on them:
    ``fan_out`` lowered by the default drop-in (region analysis added) and then with the
    user's ``{REGION: False}`` must not share one lowered module. Shared, the second was
    compiled without region analysis under the first's plan, which predicted ``copy-free``
    where XLA copies."""
    default = jud.jit(fan_out, donate_argnums=0)
    off = jud.jit(fan_out, donate_argnums=0, compiler_options={REGION: False})
    first = default.lower(X)
    second = off.lower(X)  # what XLA copies is said once compiled and measured (plan below)
    assert first.compiler_ir() is not second.compiler_ir()
    orderings = [records.record_of(lowered.compiler_ir()).plan.ordering  # type: ignore[union-attr]
                 for lowered in (first, second)]
    assert orderings == ["xla-cpu-region", "xla-cpu"]
    with pytest.warns(DonationWarning, match="keeps JAX's pairing.*measured: the executable "
                                             "copies it"):
        plan = off.plan(X)
    (d,) = plan.donations
    assert (d.predicted, d.measured) == ("copied", "copied")


def test_xla_flags_count_as_the_user_s_options(monkeypatch: pytest.MonkeyPatch) -> None:
    from jax_use_donated.dropin import jax_internals, planner

    monkeypatch.setenv("XLA_FLAGS", f"--xla_force_host_platform_device_count=2 --{REGION}=false"
                                    " --xla_dump_hlo_as_text")
    flags = jax_internals.xla_flags()
    assert flags == {"xla_force_host_platform_device_count": "2", REGION: False,
                     "xla_dump_hlo_as_text": True}
    text = jud.PlannerOptions(region_analysis=True).encode()
    assert planner.planner_compiler_options(text, ("cpu",), flags) == {}
    assert planner.planner_compiler_options(text, ("cpu",), {}) == {REGION: True}
    assert planner.planner_compiler_options(text, ("cuda",), {}) == {}
    assert planner.planner_compiler_options(text, ("cpu",), {}, devices=4) == {}
    assert planner.planner_compiler_options(jud.PlannerOptions().encode(), ("cpu",), {}) == {
        REGION: True}
    off = jud.PlannerOptions(region_analysis=False).encode()
    assert planner.planner_compiler_options(off, ("cpu",), {}) == {}


def test_device_count_reads_the_shardings_and_the_mesh() -> None:
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    from jax_use_donated.dropin.jax_internals import _device_count

    one = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    mesh = Mesh(jax.devices()[:1], ("x",))
    assert _device_count({}) == 1
    assert _device_count({"in_shardings": (one,), "out_shardings": (object(),)}) == 1
    assert _device_count({"in_shardings": (NamedSharding(mesh, PartitionSpec()),),
                          "context_mesh": mesh}) == 1

    class Wide:
        num_devices = 4

    assert _device_count({"in_shardings": (one, Wide()), "out_shardings": ()}) == 4


def _mlp_step(w1: jax.Array, w2: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
    """A hand-written backward pass: ``w2`` is read by ``gh = y @ w2.T`` (for ``w1``'s
    gradient), which its own update does not depend on."""
    h = jnp.tanh(x @ w1)
    y = h @ w2
    gw2 = h.T @ y
    gh = y @ w2.T
    gw1 = x.T @ gh
    return w1 - 0.1 * gw1, w2 - 0.1 * gw2


MLP_ARGS = (jnp.ones((32, 32)), jnp.ones((32, 32)), jnp.ones((8, 32)))


def test_the_plan_follows_the_backend_s_copy_insertion() -> None:
    """Default XLA:CPU copies ``w2`` (its update is not ordered after ``y @ w2.T``); with
    region analysis XLA orders that read first, and the plan reuses ``w2`` copy-free. Both
    predictions are what the executables do."""
    with pytest.warns(DonationWarning, match="w2"):
        default = jud.jit(_mlp_step, donate_argnums=(0, 1), region_analysis=False).plan(*MLP_ARGS)
    region_jit = jud.jit(_mlp_step, donate_argnums=(0, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("error", DonationWarning)
        region = region_jit.plan(*MLP_ARGS)
    assert [(d.path, d.status, d.measured) for d in default.donations] == [
        ("w1", "reused", "copy-free"), ("w2", "copied", "copied")]
    assert [(d.path, d.status, d.measured) for d in region.donations] == [
        ("w1", "reused", "copy-free"), ("w2", "reused", "copy-free")]
    assert region_jit.records[-1].plan.ordering == "xla-cpu-region"


def test_xla_flags_choose_the_ordering_too(monkeypatch: pytest.MonkeyPatch) -> None:
    from jax_use_donated.dropin import planner
    from jax_use_donated.dropin.jax_internals import Lowering

    def lowering(platforms: tuple[str, ...], options: dict[str, object]) -> Lowering:
        return Lowering("v1", None, "f", (), (), (), None, None, 1, 0, None,
                        platforms=platforms, compiler_options=options)

    assert planner.lowering_ordering(lowering(("cpu",), {})) == "xla-cpu"
    assert planner.lowering_ordering(lowering(("cpu",), {REGION: True})) == "xla-cpu-region"
    assert planner.lowering_ordering(lowering(("cuda",), {})) == "xla-gpu"
    assert planner.lowering_ordering(lowering(("cpu", "cuda"), {REGION: True})) == "xla-cpu"
    monkeypatch.setenv("XLA_FLAGS", f"--{REGION}=true")
    from jax_use_donated.dropin import jax_internals

    assert planner.lowering_ordering(lowering(("cpu",), jax_internals.xla_flags())) == (
        "xla-cpu-region")


def test_last_plan_and_recent_plans_are_measured_after_each_compile() -> None:
    """No ``verify_executable``: the after-compile hook measures every donor, so the plan a
    call leaves on the object is the one ``plan()`` returns."""
    def fresh(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
        return b * 2, a * 3

    step = jud.jit(fresh, donate_argnums=(0, 1))
    step(jnp.ones((64, 64)), jnp.ones((64, 64)))
    last = step.last_plan
    assert last is not None and last.measured
    assert [d.measured for d in last.donations] == ["copy-free", "copy-free"]
    assert jud.recent_plans()[-1] == last == step.plan(X, Y)
    record = step.records[-1]
    assert record.truth is not None and "measure" in record.timings


def test_a_contradiction_without_verify_executable_is_shown_not_warned(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from jax_use_donated.dropin import planner

    real = planner.read_truth

    def lying(text: str, donated: list[int]) -> xla_truth.ExecutableTruth:
        truth = real(text, donated)
        first = min(truth.donors)
        truth.donors[first] = xla_truth.DonorTruth(first, xla_truth.Outcome.COPIED,
                                                   truth.donors[first].output)
        return truth

    monkeypatch.setattr(planner, "read_truth", lying)
    monkeypatch.setattr(planner, "runs_copies", lambda module: None)  # read the text
    step = jud.jit(lambda a, b: swap(a, b), donate_argnums=(0, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("error", DonationWarning)
        step(jnp.ones((64, 64)), jnp.ones((64, 64)))
    assert step.last_plan is not None and len(step.last_plan.disagreements) == 1


def line_search(params: jax.Array, g: jax.Array) -> jax.Array:
    new = params - 0.1 * g
    ok = jnp.sum(new * new) < jnp.sum(params * params)
    return jax.lax.cond(ok, lambda: new, lambda: params)


@pytest.mark.parametrize("region", [False, True])
def test_a_copy_inside_a_branch_confirms_the_prediction(region: bool) -> None:
    """XLA writes the new parameters into the donated buffer with a copy inside the
    conditional's branch: measured ``copied``, as the rules predict (read from the entry
    computation alone it was ``copy-free``, a false disagreement)."""
    plain = jax.jit(line_search, donate_argnums=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DonationWarning)
        plan = jud.jit(line_search, donate_argnums=0, region_analysis=region).plan(X, Y)
        switched = jud.plan(plain, X, Y)
    for p in (plan, switched):
        (d,) = p.donations
        assert (d.predicted, d.measured) == ("copied", "copied")
        assert d.evidence.startswith("output copy %") and " in %region" in d.evidence
        assert p.disagreements == []


def _scan_sum(acc: jax.Array, xs: jax.Array) -> tuple[jax.Array, jax.Array]:
    def body(c: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        return c + x, c.sum()

    return jax.lax.scan(body, acc, xs)


# Whether a copy runs on buffers: none in straight-line code planned copy-free; XLA:CPU
# copies a loop's initial carry (the loop's own copy) and the line search's branch result.
RUNS_COPIES = {"swap": False, "fan_out": False, "scan": True, "line_search": True}


@pytest.mark.parametrize("case", list(RUNS_COPIES))
def test_the_measurement_without_the_text_is_the_text_s(
        case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where no copy runs on buffers the after-compile measurement reads jaxlib's objects,
    not the printed module (:func:`.xla_truth.runs_copies`), and says what reading the whole
    text says; where one does (the line search's branch copy) it reads the text."""
    from jax_use_donated.dropin import jax_internals, planner

    printed: list[int] = []
    real = jax_internals.executable_hlo_text

    def spy(executable: Any) -> str | None:
        printed.append(1)
        return real(executable)

    monkeypatch.setattr(jax_internals, "executable_hlo_text", spy)
    fun, args, donate = {
        "swap": (swap, (X, Y), (0, 1)),
        "fan_out": (fan_out, (X,), (0,)),
        "scan": (_scan_sum, (X, jnp.ones((5, 64, 64))), (0,)),
        "line_search": (line_search, (X, Y), (0,)),
    }[case]
    step = jud.jit(lambda *a: fun(*a), donate_argnums=donate)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DonationWarning)
        lowered = step.lower(*args)
        compiled = lowered.compile()
    record = records.record_of(lowered.compiler_ir())
    assert record is not None and record.truth is not None
    module = compiled.runtime_executable().hlo_modules()[0]
    copies = planner.runs_copies(module)
    assert copies is not None
    assert bool(printed) == copies == RUNS_COPIES[case]
    text_truth = xla_truth.read_truth(compiled.as_text(), list(donate))
    assert ({p: (t.outcome, t.output, t.evidence) for p, t in record.truth.donors.items()}
            == {p: (t.outcome, t.output, t.evidence) for p, t in text_truth.donors.items()})
    assert record.truth.aliases == text_truth.aliases
