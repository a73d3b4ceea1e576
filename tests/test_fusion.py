"""The fusion-safety rule for executors that fuse producers into in-place kernels (IREE)."""

from __future__ import annotations

from jax_use_donated.analysis import plan_donation
from jax_use_donated.analysis.liveness import Liveness
from jax_use_donated.analysis.plan import PairChecker, Reason
from tests.model_builder import FnBuilder


def test_transposed_read_in_the_cone_is_unsafe_elementwise_is_safe() -> None:
    b = FnBuilder()
    a = b.arg(donate=True)
    c = b.arg(donate=True)
    t = b.op("stablehlo.transpose", c)
    two = b.op("stablehlo.constant")
    r0 = b.op("stablehlo.multiply", t, two)   # (c.T * 2): dataflow-safe into c, not fused-safe
    r1 = b.op("stablehlo.add", a, two)        # a + 2: elementwise, safe either way
    fn = b.ret(r0, r1)
    pairs = plan_donation(fn, ordering="dataflow").pairs
    assert pairs == {0: 1, 1: 0}
    fused = plan_donation(fn, ordering="dataflow", fusion_safe=True)
    assert fused.pairs == {0: 1}
    (blocked,) = fused.unpaired
    assert blocked.reason is Reason.READ_AFTER_WRITE
    checker = PairChecker(fn, Liveness(fn), "dataflow", fusion=True)
    fused_blocker = checker.blocker(1, 0)
    assert fused_blocker is not None and fused_blocker.fused
    assert fused_blocker.writer is not None
    assert fused_blocker.writer.name == "stablehlo.multiply"


def test_returned_donor_and_elementwise_chains_stay() -> None:
    b = FnBuilder()
    a = b.arg(donate=True)
    c = b.arg(donate=True)
    x = b.op("stablehlo.negate", a)
    y = b.op("stablehlo.multiply", x, x)
    fn = b.ret(y, c)
    pairs = plan_donation(fn, ordering="dataflow").pairs
    assert plan_donation(fn, fusion_safe=True).pairs == pairs == {0: 0, 1: 1}


def test_reduction_in_the_cone_is_unsafe() -> None:
    b = FnBuilder()
    a = b.arg(donate=True)
    s = b.op("stablehlo.reduce", a)
    r = b.op("stablehlo.add", s, s)
    fn = b.ret(r)
    pairs = plan_donation(fn, ordering="dataflow").pairs
    assert pairs == {0: 0}
    assert plan_donation(fn, fusion_safe=True).pairs == {}


def test_dynamic_update_slice_of_the_donor_itself_is_safe() -> None:
    b = FnBuilder()
    cache = b.arg(donate=True)
    x = b.arg()
    i = b.op("stablehlo.constant")
    new = b.op("stablehlo.dynamic_update_slice", cache, x, i, i)
    fn = b.ret(new)
    pairs = plan_donation(fn, ordering="dataflow").pairs
    assert plan_donation(fn, fusion_safe=True).pairs == pairs == {0: 0}
    # ... but not when the update is computed from the cache through a non-elementwise op.
    b2 = FnBuilder()
    cache2 = b2.arg(donate=True)
    t = b2.op("stablehlo.transpose", cache2)
    j = b2.op("stablehlo.constant")
    new2 = b2.op("stablehlo.dynamic_update_slice", cache2, t, j, j)
    fn2 = b2.ret(new2)
    pairs2 = plan_donation(fn2, ordering="dataflow").pairs
    assert pairs2 == {0: 0}
    assert plan_donation(fn2, fusion_safe=True).pairs == {}


def test_xla_cpu_fusion_model_single_use_producers_and_tree_reductions() -> None:
    """XLA:CPU's fusion as the dependence rules see it (``Liveness(fusion_duplication=True)``):
    an expensive elementwise op used once by an elementwise op runs inside it (its reads move
    to the consumer); a reduce of a vector longer than 32 to a scalar fuses no producer."""
    from jax_use_donated.analysis.liveness import FUSED_USE, single_use_fused
    from jax_use_donated.analysis.semantics import fuses_producers
    from tests.model_builder import tensor

    b = FnBuilder()
    m = b.arg(tensor("64"), donate=True)
    n = b.arg(tensor("64"), donate=True)
    q = b.op("stablehlo.divide", m, n, result_types=[tensor("64")])  # used once, by the add
    r = b.op("stablehlo.add", q, n, result_types=[tensor("64")])
    fn = b.ret(r)
    assert q in single_use_fused(fn) and r not in single_use_fused(fn)
    live = Liveness(fn, fusion_duplication=True)
    add = fn.ops[-1].index
    assert live.reads[0].positions == {add: {FUSED_USE}}  # m is read where the add runs

    for shape, result, fuses in (("64", "", False), ("32", "", True), ("64x64", "64", True)):
        builder = FnBuilder()
        x = builder.arg(tensor(shape))
        init = builder.op("stablehlo.constant", result_types=[tensor("")])
        builder.op("stablehlo.reduce", x, init, result_types=[tensor(result)])
        model = builder.ret(x)
        assert fuses_producers(model.ops[-1]) is fuses, (shape, result)
