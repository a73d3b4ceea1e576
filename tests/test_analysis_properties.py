"""Property tests of the donation plan on random programs.

* optimality: no set of safe, type-compatible pairs hosts more bytes than the plan
  (brute force over every partial pairing);
* soundness: executing the program with every paired donor's buffer really overwritten at its
  writer (in block order, and in random data-dependence orders for ``dataflow``) computes the
  same results as executing it without any aliasing.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from jax_use_donated.analysis import FunctionModel, plan_donation
from jax_use_donated.analysis.liveness import CopyAfter, Liveness, ProducedBy
from jax_use_donated.analysis.plan import Ordering, PairChecker, compat_key
from tests.model_builder import FnBuilder, describe, tensor

VEC = tensor("4")
MAT = tensor("2x2")
SHAPES = {VEC.text: (4,), MAT.text: (2, 2)}

Kernel = Callable[..., list[np.ndarray]]
KERNELS: dict[str, Kernel] = {
    "stablehlo.add": lambda x, y: [x + y],
    "stablehlo.multiply": lambda x, y: [x * y + 1.0],
    "stablehlo.negate": lambda x: [-x + 0.5],
    "stablehlo.dot_general": lambda x, y: [np.roll(x, 1) * 3.0 + y],  # not elementwise
    "stablehlo.while": lambda x, y: [y * 2.0 + x.sum(), x - 1.0],
    "stablehlo.reshape": lambda x: [x.reshape(SHAPES[VEC.text] if x.ndim == 2 else
                                              SHAPES[MAT.text])],
}


@st.composite
def programs(draw: st.DrawFn) -> FunctionModel:
    b = FnBuilder()
    values: list[int] = []
    for _ in range(draw(st.integers(1, 4))):
        t = draw(st.sampled_from([VEC, VEC, MAT]))
        values.append(b.arg(t=t, donate=draw(st.booleans())))
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(sorted(KERNELS)))
        x = draw(st.sampled_from(values))
        same = [v for v in values if b.types[v] == b.types[x]]
        if kind == "stablehlo.reshape":
            t = MAT if b.types[x] == VEC else VEC
            values.append(b.op(kind, x, result_types=[t]))
        elif kind == "stablehlo.negate":
            values.append(b.op(kind, x))
        elif kind == "stablehlo.while":
            y = draw(st.sampled_from(same))
            uses = tuple(draw(st.lists(st.sampled_from(same), max_size=1)))
            values.extend(b.ops_multi(kind, x, y, result_types=[b.types[x]] * 2,
                                      region_uses=uses))
        else:
            values.append(b.op(kind, x, draw(st.sampled_from(same))))
    results = draw(st.lists(st.sampled_from(values), min_size=1, max_size=4))
    return b.ret(*results)


def _bytes(fn: FunctionModel, pairs: dict[int, int]) -> int:
    return sum(fn.args[d].nbytes for d in pairs)


def _best_by_brute_force(fn: FunctionModel, ordering: Ordering) -> int:
    from jax_use_donated.analysis.orderings import ordering_model

    # The plan's own view of the program (XLA models: fusion duplication of cheap producers).
    checker = PairChecker(fn, Liveness(fn, fusion_duplication=ordering_model(ordering).xla),
                          ordering)
    donors = [a.index for a in fn.donors]
    options: list[list[int | None]] = []
    for d in donors:
        ok: list[int | None] = [None]
        for res in fn.results:
            if compat_key(res) == compat_key(fn.args[d]) and checker.blocker(d, res.index) is None:
                ok.append(res.index)
        options.append(ok)
    best = 0
    for choice in itertools.product(*options):
        taken = [k for k in choice if k is not None]
        if len(taken) != len(set(taken)):
            continue
        pairs = {d: k for d, k in zip(donors, choice, strict=True) if k is not None}
        best = max(best, _bytes(fn, pairs))
    return best


@settings(max_examples=300, deadline=None)
@given(programs(), st.sampled_from(["dataflow", "program"]))
def test_plan_is_optimal(fn: FunctionModel, ordering: Ordering) -> None:
    plan = plan_donation(fn, ordering)
    assert _bytes(fn, plan.pairs) == _best_by_brute_force(fn, ordering)
    assert sorted(plan.pairs.values()) == sorted(set(plan.pairs.values()))


def _dependencies(fn: FunctionModel) -> list[set[int]]:
    defining = {v: op.index for op in fn.ops for v in op.results}
    return [{defining[v] for v in op.operands + op.region_uses if v in defining} for op in fn.ops]


def _random_topological_order(fn: FunctionModel, rng: random.Random) -> list[int]:
    deps = _dependencies(fn)
    done: set[int] = set()
    order: list[int] = []
    while len(order) < len(fn.ops):
        ready = [i for i in range(len(fn.ops)) if i not in done and deps[i] <= done]
        pick = rng.choice(ready)
        order.append(pick)
        done.add(pick)
    return order


def _execute(fn: FunctionModel, inputs: list[np.ndarray], order: list[int],
             pairs: dict[int, int], copies_at_return: bool = False) -> list[np.ndarray]:
    """Run ``fn`` op by op in ``order``; paired donors' buffers are overwritten by the writer
    of their result (views share buffers), as a real in-place execution would. Copies into
    donors run as early as their source exists (dataflow), or at the return (program order)."""
    live = Liveness(fn)
    buffers: list[np.ndarray] = [x.copy() for x in inputs]
    where: dict[int, int] = {a.value: a.index for a in fn.args}  # value -> buffer
    into: dict[tuple[int, int], int] = {}
    copies: dict[int | None, list[tuple[int, int]]] = {}
    for d, k in pairs.items():
        w = live.writers[k]
        if isinstance(w, ProducedBy):
            into[(w.op, w.result)] = d
        elif isinstance(w, CopyAfter):
            when = len(fn.ops) if copies_at_return else w.after
            copies.setdefault(when, []).append((fn.results[k].value, d))

    def view(v: int) -> np.ndarray:
        return buffers[where[v]]

    def run_copies(after: int | None) -> None:
        for v, d in copies.get(after, []):
            buffers[d][...] = view(v).reshape(buffers[d].shape)

    run_copies(None)
    for i in order:
        op = fn.ops[i]
        sem = live.semantics[i]
        if sem.forwards:
            for r, (pos,) in ((r, p) for r, p in sem.forwards.items()):
                source = where[op.operands[pos]]
                buffers.append(buffers[source].reshape(SHAPES[op.result_types[r].text]))  # type: ignore[union-attr]
                where[op.results[r]] = len(buffers) - 1
            run_copies(i)
            continue
        args = [view(v).copy() for v in op.operands]
        # A region reading a value mixes it in before the op writes anything.
        extra = sum(float(view(v).sum()) for v in op.region_uses)
        outs = KERNELS[op.name](*args)
        for r, value in enumerate(outs):
            value = value + extra
            target = into.get((i, r))
            if target is None:
                buffers.append(value)
                where[op.results[r]] = len(buffers) - 1
            else:
                # The writer may produce a view-compatible shape (a reshape follows it).
                buffers[target][...] = value.reshape(buffers[target].shape)
                buffers.append(buffers[target].reshape(value.shape))
                where[op.results[r]] = len(buffers) - 1
        run_copies(i)
    run_copies(len(fn.ops))
    outputs = []
    for res in fn.results:
        d = next((d for d, k in pairs.items() if k == res.index), None)
        outputs.append((buffers[d] if d is not None else view(res.value)).copy())
    return outputs


def test_simulated_forwarding_shares_storage() -> None:
    """The simulation's forwarding relies on numpy's reshape of a contiguous array being a
    view, so that overwriting a donor is seen through its reshaped views."""
    a = np.zeros(4)
    assert np.shares_memory(a, a.reshape(2, 2))


@settings(max_examples=300, deadline=None)
@given(programs(), st.sampled_from(["dataflow", "program"]), st.integers(0, 2**31))
def test_plan_never_changes_results(fn: FunctionModel, ordering: Ordering, seed: int) -> None:
    rng = np.random.default_rng(seed)
    inputs = [rng.standard_normal(SHAPES[a.type_text]) for a in fn.args]
    block_order = list(range(len(fn.ops)))
    expected = _execute(fn, inputs, block_order, {})
    plan = plan_donation(fn, ordering)
    orders = [block_order]
    if ordering == "dataflow":
        shuffle = random.Random(seed)
        orders += [_random_topological_order(fn, shuffle) for _ in range(4)]
    for order in orders:
        try:
            got = _execute(fn, inputs, order, plan.pairs, copies_at_return=ordering == "program")
        except ValueError as e:
            raise AssertionError(f"{describe(fn)}\norder {order}, plan {plan.pairs}") from e
        for k, (e, g) in enumerate(zip(expected, got, strict=True)):
            np.testing.assert_allclose(g, e, err_msg=f"{describe(fn)}\nresult {k}, order {order}, "
                                                     f"plan {plan.pairs}")
