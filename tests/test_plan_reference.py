"""Differential tests: the scalable planner (on-demand data dependence, writers found from a
donor's last read, pruned augmenting paths) gives exactly the plans, verdicts, blockers and
messages of the bitset planner it replaced, kept as the slow reference in
``tests/reference/`` (``bitset_liveness.py``, ``bitset_plan.py``: the code before the change).

Compared on random models (every ordering, with and without the fusion rule and kept
aliases), on the JAX corpus, on the lit inputs that jaxlib reads, and on real MLP Adam
steps; the dependence relation itself is compared with the reference's ancestor bitsets.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jax_use_donated.analysis.errors import DonationError
from jax_use_donated.analysis.liveness import Liveness
from jax_use_donated.analysis.model import Donation, DonationKind, FunctionModel, TensorInfo
from jax_use_donated.analysis.orderings import ORDERINGS, Ordering, ordering_model
from jax_use_donated.analysis.plan import DonationPlan, PairChecker, plan_donation, predict_pairing
from tests.model_builder import FnBuilder, tensor
from tests.reference import bitset_liveness, bitset_plan

ROOT = Path(__file__).resolve().parent.parent
ORDERING_NAMES: list[Ordering] = [cast("Ordering", o) for o in sorted(ORDERINGS)]
VEC, MAT = tensor("4"), tensor("2x2")

UNARY = ["stablehlo.negate", "stablehlo.exponential", "stablehlo.broadcast_in_dim",
         "stablehlo.slice", "stablehlo.optimization_barrier", "stablehlo.transpose"]
BINARY = ["stablehlo.add", "stablehlo.multiply", "stablehlo.maximum", "stablehlo.dot_general",
          "stablehlo.dynamic_update_slice", "stablehlo.concatenate", "stablehlo.select"]


def summary(plan: DonationPlan) -> tuple[Any, ...]:
    """Everything a plan says, with ops named by index."""
    def op(o: Any) -> int | None:
        return None if o is None else o.index

    return (plan.pairs, plan.jax_pairs, [
        (v.arg.index, v.result, v.reason.value, v.jax_result, v.unused, v.message, v.rivals,
         [(b.result, op(b.reader), op(b.writer), b.returned_in, b.free_for, b.fused,
           b.in_place_of, b.constant, b.cycle) for b in v.blockers])
        for v in plan.verdicts])


def outcome(planner: Any, fn: FunctionModel, ordering: Ordering, keep: bool, fusion: bool) -> Any:
    try:
        return summary(planner(fn, ordering, keep, fusion))
    except DonationError as err:
        return ("error", err.message)


def assert_same_plans(fn: FunctionModel, orderings: list[Ordering] = ORDERING_NAMES,
                      keep: tuple[bool, ...] = (False, True),
                      fusion: tuple[bool, ...] = (False, True)) -> None:
    for ordering in orderings:
        for k in keep:
            for f in fusion:
                new = outcome(plan_donation, fn, ordering, k, f)
                old = outcome(bitset_plan.plan_donation, fn, ordering, k, f)
                assert new == old, (ordering, k, f)


def assert_same_dependence(fn: FunctionModel, ordering: Ordering) -> None:
    """``depends`` and the checker's read order against the reference's ancestor bitsets."""
    xla = ordering_model(ordering).xla
    live = Liveness(fn, fusion_duplication=xla)
    ref = bitset_liveness.Liveness(fn, fusion_duplication=xla)
    assert live.read_bit == ref.read_bit
    assert live.ancestors == ref.ancestors
    checker = PairChecker(fn, live, ordering)
    ref_checker = bitset_plan.PairChecker(fn, ref, ordering)
    for u in ref.read_bit:
        for p in range(len(fn.ops)):
            assert live.is_ancestor(u, p) == ref.is_ancestor(u, p), (u, p)
            assert checker._before(u, p) == ref_checker._before(u, p), (u, p)
        bound = len(fn.ops) - 1
        expected = {p for p in range(len(fn.ops)) if ref.is_ancestor(u, p)}
        assert live.descendants(u, bound, len(fn.ops)) == expected
        if len(expected) > 1:
            assert live.descendants(u, bound, len(expected) - 1) is None


@st.composite
def models(draw: st.DrawFn, max_ops: int = 14) -> FunctionModel:
    """Random single-block functions over two types: elementwise chains XLA duplicates, dots,
    forwarding ops, in-place writers, constants, loops with region uses, dead ops, and
    results that return arguments, repeat values or are constants."""
    b = FnBuilder()
    values: list[int] = []
    n_args = draw(st.integers(1, 6))
    for i in range(n_args):
        t = draw(st.sampled_from([VEC, VEC, MAT]))
        mode = draw(st.sampled_from(["donate", "donate", "alias", "keep"]))
        alias = draw(st.integers(0, 3)) if mode == "alias" else None
        values.append(b.arg(t=t, donate=mode == "donate", alias=alias, name=f"a{i}"))

    def same(t: TensorInfo | None) -> list[int]:
        return [v for v in values if b.types[v] == t]

    for line in range(draw(st.integers(0, max_ops))):
        kind = draw(st.sampled_from(["unary", "binary", "binary", "reshape", "constant",
                                     "while", "reduce"]))
        x = draw(st.sampled_from(values))
        t = b.types[x]
        if kind == "unary":
            values.append(b.op(draw(st.sampled_from(UNARY)), x, line=line))
        elif kind == "binary":
            y = draw(st.sampled_from(same(t)))
            values.append(b.op(draw(st.sampled_from(BINARY)), x, y, line=line))
        elif kind == "reshape":
            values.append(b.op("stablehlo.reshape", x, result_types=[MAT if t == VEC else VEC],
                               line=line))
        elif kind == "constant":
            values.append(b.op("stablehlo.constant", result_types=[t], line=line))
        elif kind == "while":
            y = draw(st.sampled_from(same(t)))
            uses = tuple(draw(st.lists(st.sampled_from(values), max_size=2)))
            values.extend(b.ops_multi("stablehlo.while", x, y, result_types=[t, t],
                                      region_uses=uses, line=line))
        else:
            uses = tuple(draw(st.lists(st.sampled_from(values), min_size=1, max_size=2)))
            values.append(b.op("stablehlo.reduce", x, result_types=[t], region_uses=uses,
                               line=line))
    results = draw(st.lists(st.sampled_from(values), min_size=1, max_size=6))
    return b.ret(*results)


@settings(max_examples=400, deadline=None)
@given(models())
def test_random_models_plan_identically(fn: FunctionModel) -> None:
    assert_same_plans(fn)


@settings(max_examples=150, deadline=None)
@given(models(max_ops=20), st.sampled_from(ORDERING_NAMES))
def test_random_models_depend_identically(fn: FunctionModel, ordering: Ordering) -> None:
    assert_same_dependence(fn, ordering)


@settings(max_examples=200, deadline=None)
@given(models(), st.sampled_from(ORDERING_NAMES), st.data())
def test_random_models_predict_identically(fn: FunctionModel, ordering: Ordering,
                                           data: st.DataObject) -> None:
    donors = [a.index for a in fn.donors]
    results = st.integers(0, len(fn.results) - 1)
    pairs = data.draw(st.dictionaries(st.sampled_from(donors), results) if donors
                      else st.just({}))
    assert predict_pairing(fn, ordering, pairs) == bitset_plan.predict_pairing(
        fn, ordering, pairs)


_ALIVE: list[Any] = []


def _jaxlib_models(text: str, allow_unregistered: bool = False, every_function: bool = False,
                   ) -> Iterator[FunctionModel]:
    """Models of the functions with donors (``every_function``: of every defined function,
    all arguments donated), with calls inlined and not."""
    from jax_use_donated.adapters.jaxlib_ir import ModuleAdapter
    from jax_use_donated.opt import jaxlib_path

    try:
        module = jaxlib_path.parse(text.encode(), allow_unregistered)
    except jaxlib_path.Unsupported:
        return
    _ALIVE.append(module)  # the models' ops point into it (diagnostics read their locations)
    for inline in (True, False):
        adapter = ModuleAdapter(module.operation, inline=inline)
        funcs = (jaxlib_path.functions_with_donors(module) if not every_function else
                 (f.operation for f in module.body.operations
                  if f.operation.name == "func.func" and len(f.operation.regions[0].blocks)))
        for func in funcs:
            try:
                fn = adapter.build(func)
            except DonationError:
                continue
            if every_function:
                for arg in fn.args:
                    arg.donation = Donation(DonationKind.BUFFER_DONOR)
            yield fn


def test_corpus_plans_identically() -> None:
    from tests.corpus.generate import load_corpus

    texts, _ = load_corpus()
    checked = 0
    for entry in texts:
        if entry.debug:
            continue
        for fn in _jaxlib_models(entry.text, every_function=True):
            if any(op.branches is not None for op in fn.ops):
                # a conditional writing a donor: rules the bitset planner predates
                # (analysis/conditionals.py; tests/test_conditionals.py checks them against XLA)
                continue
            assert_same_plans(fn, keep=(False,), fusion=(False,))
            checked += 1
    assert checked > 150


def test_lit_inputs_plan_identically() -> None:
    checked = 0
    for path in sorted((ROOT / "lit_tests").rglob("*.mlir")):
        for chunk in re.split(r"^// -----$", path.read_text(), flags=re.M):
            for fn in _jaxlib_models(chunk, allow_unregistered=True):
                assert_same_plans(fn)
                checked += 1
    assert checked > 50


@pytest.mark.parametrize(("layers", "orderings"), [
    (3, ORDERING_NAMES),
    (40, ["xla-cpu", "xla-gpu", "program"]),  # the region orderings' cycle check is slow
])
def test_mlp_adam_step_plans_identically(layers: int, orderings: list[Ordering]) -> None:
    from benchmarks.jax_modules import lower

    fn = next(_jaxlib_models(lower(layers)))
    assert_same_plans(fn, orderings, fusion=(False,))
    plan = plan_donation(fn)
    assert len(plan.unpaired) == layers - 1  # the weights' backward reads come last
