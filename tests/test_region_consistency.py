"""Region orderings against the brute-force oracle of ``tests/oracle_small.py``: on the
catalogue, real Flax/Equinox/optax steps (``benchmarks/real_models.py``) and fuzzed JAX
programs, every ``xla-cpu-region`` plan is safe pair by pair, its control edges and data
dependence form no cycle (a naive search), no safe pair can be added, and it is as large as
the best plan (every assignment of a few donors; for many donors, the maximum matching of the
pairs safe alone, which the real models reach); the ``xla-cpu`` plans of the same programs
have no augmenting path. The rounds of re-matching stay few, and a plan completed after
``EXACT_ROUNDS`` is as large as the rounds' own when left to run; on models built for
conflicts, completed plans have no consistent augmenting path.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import jax
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from jax_use_donated.adapters.jaxlib_ir import function_model, module_function
from jax_use_donated.analysis.model import FunctionModel
from jax_use_donated.analysis.plan import EXACT_ROUNDS, DonationPlan, plan_donation
from tests.fuzz.jax_programs import ProgramSpec, programs
from tests.model_builder import FnBuilder, tensor
from tests.oracle_small import Oracle, check_plan

ORDERING = "xla-cpu-region"
EXHAUSTIVE_DONORS = 8
"""Up to this many donors every assignment is tried."""
FEW_ROUNDS = 10
"""The most rounds of re-matching a catalogue program or real model needs (see
:data:`.plan.EXACT_ROUNDS`), but for the two that are completed greedily."""
_ALIVE: list[object] = []


def _check(fn: FunctionModel) -> DonationPlan:
    """Check both XLA:CPU orderings' plans; the region one, with many donors, against the
    maximum matching of its pairs safe alone (an upper bound)."""
    exhaustive = len(fn.donors) <= EXHAUSTIVE_DONORS
    assert check_plan(fn, "xla-cpu", exhaustive=exhaustive) is not None
    plan = check_plan(fn, ORDERING, exhaustive=exhaustive)
    assert plan is not None
    if not exhaustive:
        oracle = Oracle(fn, ORDERING)
        donors = [a.index for a in fn.donors]
        best = oracle.max_matching(donors, {d: oracle.candidates(d) for d in donors})
        assert oracle.value(plan.pairs) == oracle.value(best)
    return plan


def _model(fun: Any, args: tuple[Any, ...], donate: tuple[int, ...]) -> FunctionModel:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lowered = jax.jit(fun, donate_argnums=donate).lower(*args)
    module = lowered.compiler_ir()
    assert module is not None
    _ALIVE.append(module)  # the model's ops point into it
    main = module_function(module)
    assert main is not None
    return function_model(main)


def _catalogue() -> Iterator[Any]:
    from benchmarks.catalogue import SINGLE

    for p in SINGLE:
        yield pytest.param(p, id=p.name)


@pytest.mark.parametrize("program", list(_catalogue()))
def test_catalogue_plans_are_consistent_and_maximum(program: Any) -> None:
    plan = _check(_model(program.fun, tuple(program.args(8)), program.donate_argnums))
    assert plan.rounds <= FEW_ROUNDS


def _record_function(name: str) -> FunctionModel:
    import jax_use_donated as jud
    from benchmarks.real_models import VARIANTS, _lower
    from jax_use_donated.dropin import records

    step, args = next(v for v in VARIANTS if v.name == name).make(False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with jud.enabled(warn=False):
            module = _lower(step, args).compiler_ir()
            _ALIVE.append(module)  # the model's ops point into it
            record = records.record_of(module)
    assert record is not None
    return record.function


@pytest.mark.parametrize(("name", "rounds"), [
    ("linen_mlp_reordered", 10), ("eqx_mlp", 0), ("ema_train", 0), ("kv_decode_reordered", 0),
    ("linen_lm_reordered", EXACT_ROUNDS),  # 455 rounds to converge: completed greedily
])
def test_real_model_plans_are_consistent_and_maximum(name: str, rounds: int) -> None:
    plan = _check(_record_function(name))
    assert plan.rounds == rounds


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs())
def test_fuzzed_program_plans_are_consistent_and_maximum(spec: ProgramSpec) -> None:
    fn = _model(spec.build(), spec.make_args(), spec.donate_argnums)
    # a conditional writing a donor follows its branch rules (analysis/conditionals.py),
    # checked against XLA's executable by tests/test_conditionals.py
    assume(not any(op.branches is not None for op in fn.ops))
    _check(fn)


@st.composite
def crossed_models(draw: st.DrawFn) -> FunctionModel:
    """Donors read by ops that each read two of them (none duplicated by fusion; some write
    in place): the region orderings' conflicts, where random models have few."""
    b = FnBuilder()
    vec = tensor("4")
    args = [b.arg(t=vec, donate=True) for _ in range(draw(st.integers(2, 5)))]
    values, results = list(args), []
    for _ in range(draw(st.integers(len(args), 2 * len(args) + 1))):
        name = draw(st.sampled_from(["atan2", "power", "divide", "remainder", "dot_general"]))
        v = b.op(f"stablehlo.{name}", draw(st.sampled_from(args)), draw(st.sampled_from(values)))
        values.append(v)
        if draw(st.booleans()):
            results.append(v)
    return b.ret(*(results or values[-1:]))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(crossed_models(), st.sampled_from([EXACT_ROUNDS, 1]))
def test_crossed_model_plans_are_consistent_and_maximal(fn: FunctionModel, rounds: int) -> None:
    """Safe, consistent, maximal and at least the dataflow plan (the best is not reached
    everywhere: ``tests/test_plan_reference.py``'s xfail); with one round before the greedy
    completion, the completed plan has no consistent augmenting path left."""
    from jax_use_donated.analysis import plan as plan_module

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(plan_module, "EXACT_ROUNDS", rounds)
        plan = check_plan(fn, ORDERING, region_best=False)
    assert plan is not None
    if plan.rounds == rounds:
        oracle = Oracle(fn, ORDERING)
        donors = [a.index for a in fn.donors]
        edges = {d: oracle.candidates(d) for d in donors}
        path = oracle.consistent_augmenting_path(plan.pairs, donors, edges)
        assert path is None, f"{plan.pairs}: consistent augmenting path {path}"


def test_unconverged_rounds_are_completed_consistently(monkeypatch: pytest.MonkeyPatch) -> None:
    """A deep Adam step returning ``(v, m, params)`` does not converge in ``EXACT_ROUNDS``:
    the completed plan pairs every donor, as the rounds do when left to run, with pairs that
    are each safe and consistent together (the executable agrees: ``adam_deep_reordered`` in
    ``tests/test_orderings.py``)."""
    from jax_use_donated.analysis import plan as plan_module

    fn = _record_function("adam_deep_reordered")
    plan = _check(fn)
    assert plan.rounds == EXACT_ROUNDS
    assert sorted(plan.pairs) == [a.index for a in fn.donors]
    monkeypatch.setattr(plan_module, "EXACT_ROUNDS", 10**6)
    exact = plan_donation(fn, ORDERING)
    assert exact.rounds > EXACT_ROUNDS
    assert len(exact.pairs) == len(plan.pairs)
    assert Oracle(fn, ORDERING).consistent(exact.pairs)
