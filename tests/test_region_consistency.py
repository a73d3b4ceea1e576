"""The region ordering's consistency loop, fast and exact: ``plan_donation`` under
``xla-cpu-region`` gives the same pairs and the same blockers as the straightforward algorithm
it replaced (every class re-matched from scratch after each rejection, and a cycle test that
builds the whole graph of ordering edges with every data dependence among their endpoints).

The reference below is that algorithm, kept here only as the oracle; the programs are the
catalogue, real Flax/Equinox/optax steps (``benchmarks/real_models.py``) and fuzzed JAX
programs.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping
from typing import Any

import jax
import pytest
from hypothesis import HealthCheck, given, settings

from jax_use_donated.adapters.jaxlib_ir import function_model, module_function
from jax_use_donated.analysis import plan as plan_module
from jax_use_donated.analysis.liveness import Liveness, ProducedBy
from jax_use_donated.analysis.model import FunctionModel
from jax_use_donated.analysis.orderings import ordering_model
from jax_use_donated.analysis.plan import (
    LazyEdges,
    PairChecker,
    compat_key,
    jax_greedy_pairing,
    max_matching,
    plan_donation,
)
from tests.fuzz.jax_programs import ProgramSpec, programs

ORDERING = "xla-cpu-region"


def _reference_has_cycle(checker: PairChecker, edges: set[tuple[int, int]]) -> bool:
    nodes = sorted({x for e in edges for x in e})
    succ: dict[int, set[int]] = {x: set() for x in nodes}
    for x, y in edges:
        succ[x].add(y)
    for x in nodes:
        for y in nodes:
            if x != y and checker.data_precedes(x, y):
                succ[x].add(y)
    state: dict[int, int] = {}

    def visit(x: int) -> bool:
        state[x] = 1
        for y in succ[x]:
            if state.get(y) == 1 or (y not in state and visit(y)):
                return True
        state[x] = 2
        return False

    return any(x not in state and visit(x) for x in nodes)


def _reference_consistent(checker: PairChecker, pairs: Mapping[int, int]
                          ) -> list[tuple[int, int]]:
    live = checker.live
    edges: set[tuple[int, int]] = set()
    rejected: list[tuple[int, int]] = []
    for d in sorted(pairs):
        writer = live.writers[pairs[d]]
        if not isinstance(writer, ProducedBy) or d not in live.reads:
            continue
        p = writer.op
        new = {(u, p) for u in live.reads[d].positions
               if u != p and not checker.data_precedes(u, p)}
        if not new or new <= edges:
            continue
        if _reference_has_cycle(checker, edges | new):
            rejected.append((d, pairs[d]))
        else:
            edges |= new
    return rejected


def reference_plan(fn: FunctionModel) -> tuple[dict[int, int], list[tuple[Any, ...]]]:
    """Pairs and every donor's verdict (index, result, reason, message), the slow way."""
    live = Liveness(fn, fusion_duplication=ordering_model(ORDERING).xla)
    checker = PairChecker(fn, live, ORDERING)
    jax_pairs = jax_greedy_pairing(fn)
    preferred = {**jax_pairs, **plan_module._overwriting_pairs(fn, live)}
    classes: dict[object, list[int]] = {}
    for arg in fn.donors:
        classes.setdefault(compat_key(arg), []).append(arg.index)
    results_by_key: dict[object, list[int]] = {}
    for res in fn.results:
        results_by_key.setdefault(compat_key(res), []).append(res.index)
    while True:
        pairs: dict[int, int] = {}
        safe: dict[int, list[int]] = {}
        for key, donors in classes.items():
            edges = LazyEdges(checker, results_by_key.get(key, []) if key is not None else [],
                              preferred)
            pairs.update(max_matching(donors, edges, preferred, edges.is_edge))
            for d in donors:
                if d not in pairs:
                    edges[d]
                    safe[d] = edges.safe[d]
        rejected = _reference_consistent(checker, pairs)
        if not rejected:
            break
        checker.banned.update(rejected)
    verdicts = [plan_module._verdict(fn, live, checker, arg, pairs, safe.get(arg.index, []),
                                     results_by_key, jax_pairs)
                for arg in fn.donors]
    return pairs, [_summary(v) for v in verdicts]


def _summary(v: Any) -> tuple[Any, ...]:
    return (v.arg.index, v.result, v.reason, v.message)


def _assert_same(fn: FunctionModel) -> None:
    plan = plan_donation(fn, ORDERING)
    pairs, verdicts = reference_plan(fn)
    assert plan.pairs == dict(sorted(pairs.items()))
    assert [_summary(v) for v in plan.verdicts] == verdicts


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


@pytest.mark.parametrize("name", ["linen_mlp_reordered", "eqx_mlp", "ema_train",
                                  "kv_decode_reordered", "linen_lm_reordered"])
def test_real_model_plans_equal_the_reference(name: str) -> None:
    import jax_use_donated as jud
    from benchmarks.real_models import VARIANTS, _lower
    from jax_use_donated.dropin import records

    step, args = next(v for v in VARIANTS if v.name == name).make(False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with jud.enabled(warn=False):
            record = records.record_of(_lower(step, args).compiler_ir())
    assert record is not None
    _assert_same(record.function)


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs())
def test_fuzzed_program_plans_equal_the_reference(spec: ProgramSpec) -> None:
    _assert_same(_model(spec.build(), spec.make_args(), spec.donate_argnums))
