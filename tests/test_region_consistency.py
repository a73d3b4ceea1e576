"""The region ordering's consistency loop, fast and exact: ``plan_donation`` under
``xla-cpu-region`` gives the same pairs and the same blockers as the straightforward algorithm
it replaced (every class re-matched from scratch after each rejection, and a cycle test that
builds the whole graph of ordering edges with every data dependence among their endpoints).

The reference is that algorithm as it stands in the bitset planner kept for the differential
test (``tests/reference/bitset_plan.py``); the programs are the catalogue, real
Flax/Equinox/optax steps (``benchmarks/real_models.py``) and fuzzed JAX programs.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import jax
import pytest
from hypothesis import HealthCheck, assume, given, settings

from jax_use_donated.adapters.jaxlib_ir import function_model, module_function
from jax_use_donated.analysis.model import FunctionModel
from jax_use_donated.analysis.plan import plan_donation
from tests.fuzz.jax_programs import ProgramSpec, programs
from tests.reference import bitset_plan

ORDERING = "xla-cpu-region"


def _summary(v: Any) -> tuple[Any, ...]:
    return (v.arg.index, v.result, v.reason.value, v.message)


def _assert_same(fn: FunctionModel) -> None:
    plan = plan_donation(fn, ORDERING)
    reference = bitset_plan.plan_donation(fn, ORDERING)
    assert plan.pairs == reference.pairs
    assert [_summary(v) for v in plan.verdicts] == [_summary(v) for v in reference.verdicts]


def _model(fun: Any, args: tuple[Any, ...], donate: tuple[int, ...]) -> FunctionModel:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lowered = jax.jit(fun, donate_argnums=donate).lower(*args)
    module = lowered.compiler_ir()
    assert module is not None
    main = module_function(module)
    assert main is not None
    return function_model(main)


def _catalogue() -> Iterator[Any]:
    from benchmarks.catalogue import SINGLE

    for p in SINGLE:
        yield pytest.param(p, id=p.name)


@pytest.mark.parametrize("program", list(_catalogue()))
def test_catalogue_plans_equal_the_reference(program: Any) -> None:
    _assert_same(_model(program.fun, tuple(program.args(8)), program.donate_argnums))


def _record_function(name: str) -> FunctionModel:
    import jax_use_donated as jud
    from benchmarks.real_models import VARIANTS, _lower
    from jax_use_donated.dropin import records

    step, args = next(v for v in VARIANTS if v.name == name).make(False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with jud.enabled(warn=False):
            record = records.record_of(_lower(step, args).compiler_ir())
    assert record is not None
    return record.function


@pytest.mark.parametrize("name", ["linen_mlp_reordered", "eqx_mlp", "ema_train",
                                  "kv_decode_reordered", "linen_lm_reordered"])
def test_real_model_plans_equal_the_reference(name: str) -> None:
    _assert_same(_record_function(name))


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs())
def test_fuzzed_program_plans_equal_the_reference(spec: ProgramSpec) -> None:
    fn = _model(spec.build(), spec.make_args(), spec.donate_argnums)
    # a conditional writing a donor follows rules the bitset planner predates
    # (analysis/conditionals.py, checked against XLA by tests/test_conditionals.py)
    assume(not any(op.branches is not None for op in fn.ops))
    _assert_same(fn)


def test_unconverged_rounds_are_completed_consistently(monkeypatch: pytest.MonkeyPatch) -> None:
    """A deep Adam step returning ``(v, m, params)`` does not converge in
    ``EXACT_ROUNDS``: the completed plan pairs every donor, as the rounds do when left to
    run, with pairs that are each safe and consistent together (the executable agrees:
    ``adam_deep_reordered`` in ``tests/test_orderings.py``). ``linen_lm_reordered`` is
    completed too (455 rounds to converge): its plan is the reference's, above."""
    from jax_use_donated.analysis import plan as plan_module
    from jax_use_donated.analysis.plan import EXACT_ROUNDS, consistent_pairs

    fn = _record_function("adam_deep_reordered")
    plan = plan_donation(fn, ORDERING)
    assert plan.rounds == EXACT_ROUNDS
    assert sorted(plan.pairs) == [a.index for a in fn.donors]
    assert plan.unpaired == []
    assert plan.checker is not None
    assert all(plan.checker.is_safe(d, k) for d, k in plan.pairs.items())
    assert consistent_pairs(plan.checker, plan.pairs) == []
    monkeypatch.setattr(plan_module, "EXACT_ROUNDS", 10**6)
    exact = plan_donation(fn, ORDERING)
    assert exact.rounds > EXACT_ROUNDS
    assert len(exact.pairs) == len(plan.pairs)

