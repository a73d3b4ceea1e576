"""Unit tests of the IR-neutral donation rules (no IR library involved)."""

from __future__ import annotations

import pytest

from jax_use_donated.analysis import (
    DonationError,
    Placement,
    Reason,
    jax_greedy_pairing,
    plan_donation,
    read_donation,
)
from jax_use_donated.analysis.model import DonationKind
from tests.model_builder import FnBuilder, tensor


def swap() -> FnBuilder:
    b = FnBuilder()
    a = b.arg(alias=0, name="a")
    c = b.arg(alias=1, name="b")
    two = b.op("stablehlo.constant", result_types=[tensor()])
    x = b.op("stablehlo.multiply", c, two, line=3)
    y = b.op("stablehlo.multiply", a, two, line=4)
    b.ret(x, y)
    return b


def test_swap_pairs_each_donor_with_the_result_it_feeds() -> None:
    b = swap()
    fn = b.ret()  # already returned; ret() with no values keeps results
    plan = plan_donation(fn)
    assert plan.pairs == {0: 1, 1: 0}
    assert plan.jax_pairs == {0: 0, 1: 1}
    assert all(v.reason is Reason.PAIRED for v in plan.verdicts)


def test_three_cycle() -> None:
    b = FnBuilder()
    a, c, d = (b.arg(donate=True) for _ in range(3))
    r0 = b.op("stablehlo.negate", c)
    r1 = b.op("stablehlo.negate", d)
    r2 = b.op("stablehlo.negate", a)
    plan = plan_donation(b.ret(r0, r1, r2))
    assert plan.pairs == {0: 2, 1: 0, 2: 1}


def test_returned_donor_pairs_with_its_own_slot_for_free() -> None:
    b = FnBuilder()
    a = b.arg(donate=True)
    c = b.arg(donate=True)
    y = b.op("stablehlo.add", a, c)
    plan = plan_donation(b.ret(y, a))
    assert plan.pairs[0] == 1
    # %arg1 is read by the add that produces result 0 and can be overwritten in place.
    assert plan.pairs[1] == 0


def test_returned_donor_cannot_host_another_result() -> None:
    b = FnBuilder()
    a = b.arg(donate=True, name="a")
    r = b.op("stablehlo.reshape", a, result_types=[tensor("16")])
    y = b.op("stablehlo.negate", b.arg(t=tensor()))
    plan = plan_donation(b.ret(y, r))
    (verdict,) = plan.verdicts
    assert verdict.result is None
    assert verdict.reason is Reason.RETURNED
    assert "returned as result 1" in verdict.message


def test_duplicated_return_copy_goes_into_a_dead_donor() -> None:
    b = FnBuilder()
    a = b.arg(donate=True)
    b.arg(donate=True)  # dead: receives the copy for the second slot
    y = b.op("stablehlo.negate", a)
    plan = plan_donation(b.ret(y, y))
    assert plan.pairs == {0: 0, 1: 1}


def test_duplicated_donor_return() -> None:
    b = FnBuilder()
    a = b.arg(donate=True)
    dead = b.arg(donate=True)
    plan = plan_donation(b.ret(a, a))
    assert plan.pairs == {0: 0, 1: 1}
    del dead


@pytest.mark.parametrize(("ordering", "expected"), [("dataflow", {}), ("program", {1: 1})])
def test_read_after_producer_depends_on_ordering(ordering: str, expected: dict[int, int]) -> None:
    b = FnBuilder()
    a = b.arg(donate=True, name="a")
    c = b.arg(donate=True, name="b")
    x = b.op("stablehlo.add", a, c, line=3)
    y = b.op("stablehlo.multiply", a, c, line=4)
    plan = plan_donation(b.ret(x, y), ordering=ordering)  # type: ignore[arg-type]
    assert plan.pairs == expected
    blocked = [v for v in plan.verdicts if v.reason is Reason.READ_AFTER_WRITE]
    if ordering == "dataflow":
        assert len(blocked) == 2
        assert "stablehlo.multiply at f.py:4:1 still reads it" in blocked[0].message
        assert blocked[0].blockers[0].reader is not None


def test_in_place_requires_an_in_place_capable_producer() -> None:
    b = FnBuilder()
    a = b.arg(donate=True)
    y = b.op("stablehlo.dot_general", a, a)
    plan = plan_donation(b.ret(y))
    assert plan.pairs == {}
    assert "cannot write in place" in plan.verdicts[0].message


def test_elementwise_with_different_operand_type_is_not_in_place() -> None:
    b = FnBuilder()
    a = b.arg(t=tensor("4x4", "f32"), donate=True)
    y = b.op("stablehlo.convert", a, result_types=[tensor("4x4", "f32")])
    z = b.op("stablehlo.convert", b.arg(t=tensor("4x4", "i32")), result_types=[tensor()])
    plan = plan_donation(b.ret(y, z))
    assert plan.pairs == {0: 0}


def test_dynamic_update_slice_writes_operand_zero_only() -> None:
    b = FnBuilder()
    cache = b.arg(donate=True)
    upd = b.arg(donate=True, t=tensor("1x4"))
    i = b.arg(t=tensor("", "i32"))
    y = b.op("stablehlo.dynamic_update_slice", cache, upd, i, i)
    plan = plan_donation(b.ret(y))
    assert plan.pairs == {0: 0}
    b2 = FnBuilder()
    upd2 = b2.arg(t=tensor("1x4"))
    cache2 = b2.arg(donate=True)
    i2 = b2.arg(t=tensor("", "i32"))
    y2 = b2.op("stablehlo.dynamic_update_slice", b2.arg(), cache2, i2, i2,
               result_types=[tensor()])
    del upd2
    assert plan_donation(b2.ret(y2)).pairs == {}


def test_while_carry_in_place_at_same_position_only() -> None:
    b = FnBuilder()
    x = b.arg(donate=True)
    y = b.arg(donate=True)
    r = b.ops_multi("stablehlo.while", x, y, result_types=[tensor(), tensor()])
    plan = plan_donation(b.ret(r[1], r[0]))
    assert plan.pairs == {0: 1, 1: 0}
    b2 = FnBuilder()
    x2 = b2.arg(donate=True)
    y2 = b2.arg(donate=True)
    r2 = b2.ops_multi("stablehlo.while", x2, y2, region_uses=(x2,),
                      result_types=[tensor(), tensor()])
    # A read of %arg0 inside the loop body blocks the in-place carry of %arg0.
    assert plan_donation(b2.ret(r2[0], r2[1])).pairs == {1: 1}


def test_region_use_counts_as_a_read_of_the_enclosing_op() -> None:
    b = FnBuilder()
    a = b.arg(donate=True)
    y = b.op("stablehlo.negate", b.arg())
    b.op("stablehlo.case", b.arg(t=tensor("", "i32")), region_uses=(a, y),
         result_types=[tensor()])
    plan = plan_donation(b.ret(y))
    assert plan.pairs == {}


def test_sharding_must_match() -> None:
    b = FnBuilder()
    a = b.arg(donate=True)
    b.args[0].placement = Placement(sharding='#sdy.sharding<@mesh, [{"x"}, {}]>')
    y = b.op("stablehlo.negate", b.arg())
    fn = b.ret(y)
    plan = plan_donation(fn)
    assert plan.pairs == {}
    assert plan.verdicts[0].reason is Reason.NO_COMPATIBLE_RESULT
    assert "same placement" in plan.verdicts[0].message
    fn.results[0].placement = Placement(sharding='#sdy.sharding<@mesh, [{"x"}, {}]>')
    assert plan_donation(fn).pairs == {0: 0}
    del a


def test_no_matching_type_and_unused() -> None:
    b = FnBuilder()
    b.arg(donate=True, t=tensor("8"), name="w")
    y = b.op("stablehlo.negate", b.arg())
    plan = plan_donation(b.ret(y))
    (v,) = plan.verdicts
    assert v.reason is Reason.NO_COMPATIBLE_RESULT and v.unused
    assert "'w'" in v.message and "tensor<8xf32>" in v.message and "never read" in v.message


def test_outnumbered_names_the_rival() -> None:
    b = FnBuilder()
    a = b.arg(donate=True)
    c = b.arg(donate=True)
    y = b.op("stablehlo.negate", b.arg())
    plan = plan_donation(b.ret(y))
    assert plan.pairs == {0: 0}
    assert plan.verdicts[1].reason is Reason.OUTNUMBERED
    assert "%arg0 hosts result 0" in plan.verdicts[1].message
    del a, c


def test_call_forwarding_makes_later_reads_count() -> None:
    b = FnBuilder()
    a = b.arg(donate=True)
    v = b.op("func.call", a, call_forwards={0: (0,)}, target="identity")
    y = b.op("stablehlo.negate", b.arg())
    b.op("stablehlo.add", v, y)  # reads %arg0 through the call after y is produced
    z = b.op("stablehlo.negate", y)
    plan = plan_donation(b.ret(z))
    assert plan.pairs == {}


def test_forwarded_view_returned_unchanged_is_free() -> None:
    b = FnBuilder()
    a = b.arg(donate=True)
    r = b.op("stablehlo.reshape", a, result_types=[tensor("16")])
    back = b.op("stablehlo.reshape", r, result_types=[tensor()])
    plan = plan_donation(b.ret(back))
    assert plan.pairs == {0: 0}


def test_ties_prefer_existing_pairing() -> None:
    b = FnBuilder()
    a = b.arg(alias=1)
    c = b.arg(alias=0)
    u = b.op("stablehlo.negate", b.arg())
    v = b.op("stablehlo.negate", b.arg())
    plan = plan_donation(b.ret(u, v))
    assert plan.pairs == {0: 1, 1: 0}
    del a, c


def test_keep_existing_aliases_checks_fixed_pairs() -> None:
    b = swap()
    b.args[0].donation = b.args[0].donation.__class__(DonationKind.ALIASING_OUTPUT, 0)
    fn = b.ret()
    with pytest.raises(DonationError, match="aliases result 0, which is unsafe"):
        plan_donation(fn, keep_existing_aliases=True)


def test_keep_existing_aliases_rejects_mistyped_pair() -> None:
    b = FnBuilder()
    b.arg(alias=0, t=tensor("8"))
    y = b.op("stablehlo.negate", b.arg())
    with pytest.raises(DonationError, match="cannot hold tensor<4x4xf32>"):
        plan_donation(b.ret(y), keep_existing_aliases=True)


def test_validation_errors() -> None:
    b = FnBuilder()
    b.arg(alias=3)
    with pytest.raises(DonationError, match="out of range"):
        plan_donation(b.ret(b.op("stablehlo.negate", b.arg())))
    b = FnBuilder()
    b.arg(alias=0)
    b.arg(alias=0)
    with pytest.raises(DonationError, match="both alias result 0"):
        plan_donation(b.ret(b.op("stablehlo.negate", b.arg())))
    b = FnBuilder()
    b.arg(donate=True)
    b.args[0].tensor = None
    b.args[0].type_text = "!stablehlo.token"
    with pytest.raises(DonationError, match="only ranked tensors can be donated"):
        plan_donation(b.ret(b.op("stablehlo.negate", b.arg())))


@pytest.mark.parametrize(
    ("donor", "alias", "match"),
    [("1 : i32", None, "must be a boolean"), (None, "true", "must be an integer"),
     (None, True, "must be an integer")],
)
def test_read_donation_rejects_malformed(donor: object, alias: object, match: str) -> None:
    with pytest.raises(DonationError, match=match):
        read_donation(0, "x", donor, alias)


def test_read_donation_accepts_well_formed() -> None:
    assert read_donation(0, None, True, None).kind is DonationKind.BUFFER_DONOR
    assert read_donation(0, None, False, None).kind is DonationKind.NONE
    assert read_donation(0, None, None, 2).alias_index == 2


def test_jax_greedy_pairing_is_in_order() -> None:
    b = swap()
    assert jax_greedy_pairing(b.ret()) == {0: 0, 1: 1}


def test_while_takes_carries_at_entry_so_a_donor_in_two_carries_hosts_one() -> None:
    """``while(%x, %x)``: the loop copies its carries at entry, so ``%x`` may become carry 0's
    buffer (and result 0) although carry 1 reads it too; JAX's pair is kept."""
    b = FnBuilder()
    x = b.arg(alias=0)
    r = b.ops_multi("stablehlo.while", x, x, result_types=[tensor(), tensor()])
    y = b.op("stablehlo.multiply", r[1], r[1])
    plan = plan_donation(b.ret(r[0], y))
    assert plan.pairs == {0: 0}
    # An elementwise op reads every operand while it writes: still at its in-place positions
    # only (a dynamic_update_slice reading the donor as its update cannot host it).
    b2 = FnBuilder()
    x2 = b2.arg(donate=True)
    i = b2.arg(t=tensor("", "i32"))
    y2 = b2.op("stablehlo.dynamic_update_slice", x2, x2, i, i)
    assert plan_donation(b2.ret(y2)).pairs == {}


def test_a_donor_prefers_the_result_of_the_op_that_overwrites_it() -> None:
    """``%r = dynamic_update_slice %arg0``; ``return %e, %r``: both results are safe for
    ``%arg0``, JAX takes result 0, ours result 1, which also spares XLA's copy of ``%arg0``."""
    b = FnBuilder()
    cache = b.arg(donate=True)
    upd = b.arg(t=tensor("1x4"))
    i = b.arg(t=tensor("", "i32"))
    e = b.op("stablehlo.negate", b.arg())
    r = b.op("stablehlo.dynamic_update_slice", cache, upd, i, i)
    plan = plan_donation(b.ret(e, r))
    assert plan.jax_pairs == {0: 0}
    assert plan.pairs == {0: 1}


def test_dead_ops_do_not_read_the_donor() -> None:
    """``%0 = negate %arg0`` used only by a dead reshape does not keep ``%arg0`` alive past the
    op that produces the result (finding P1); a live use still does."""
    b = FnBuilder()
    x = b.arg(donate=True)
    y = b.op("stablehlo.multiply", x, x)
    dead = b.op("stablehlo.negate", x)
    b.op("stablehlo.reshape", dead, result_types=[tensor("16")])
    assert plan_donation(b.ret(y)).pairs == {0: 0}
    b2 = FnBuilder()
    x2 = b2.arg(donate=True)
    y2 = b2.op("stablehlo.multiply", x2, x2)
    live = b2.op("stablehlo.negate", x2)
    plan = plan_donation(b2.ret(y2, live))
    assert plan.pairs == {} and plan.verdicts[0].reason is Reason.READ_AFTER_WRITE
    # A custom call may have side effects: never dead.
    b3 = FnBuilder()
    x3 = b3.arg(donate=True)
    y3 = b3.op("stablehlo.negate", b3.arg())
    b3.op("stablehlo.custom_call", x3)
    z3 = b3.op("stablehlo.add", y3, y3)
    assert plan_donation(b3.ret(z3)).pairs == {}


def test_unused_call_of_a_side_effect_free_callee_is_dead() -> None:
    """A ``func.call`` the adapter marks ``pure_call`` (callee without side effects) whose
    result nothing uses reads nothing, as XLA inlines and removes it; an unmarked one still
    reads its operands (found by the pass campaign: a dead ``@_where`` call)."""
    for pure, expected in ((True, {0: 0}), (False, {})):
        b = FnBuilder()
        x = b.arg(donate=True)
        y = b.op("stablehlo.negate", x)
        b.op("func.call", x, x, call_forwards={}, pure_call=pure)
        assert plan_donation(b.ret(y)).pairs == expected, pure


def test_xla_size_matching_is_simulated_and_unsafe_buffer_donors_are_dropped() -> None:
    from jax_use_donated.analysis.xla_fallback import xla_fallback, xla_size_matching

    # Largest first, stable in parameter / output order, equal sizes only.
    assert xla_size_matching([(0, 64), (1, 16), (2, 64)], [(0, 16), (1, 64), (2, 32)]) == {
        0: 1, 1: 0}
    # %arg0: f32[2,8] (no result of its type) is read after the loop producing the only
    # 64-byte result: XLA would match it there and copy, so the mark is dropped.
    b = FnBuilder()
    x = b.arg(t=tensor("2x8"), donate=True)
    w = b.arg(donate=True)
    r = b.ops_multi("stablehlo.while", w, result_types=[tensor()])
    c = b.op("stablehlo.convert", x, result_types=[tensor("2x8", "i32")])
    plan = plan_donation(b.ret(r[0], c))
    assert plan.pairs == {1: 0}
    assert xla_fallback(plan, {}, {0}).buffer_donors == []
    # Read before the loop instead: still unsafe, the loop's buffer is first written by a
    # copy of its initial carry, the argument %w, which no read precedes (measured: XLA
    # aliases %x and copies the loop's result into it)...
    b2 = FnBuilder()
    x2 = b2.arg(t=tensor("2x8"), donate=True)
    w2 = b2.arg()
    c2 = b2.op("stablehlo.convert", x2, result_types=[tensor("2x8", "i32")])
    s2 = b2.op("stablehlo.reduce", c2, result_types=[tensor("", "i32")])
    r2 = b2.ops_multi("stablehlo.while", w2, s2, result_types=[tensor(), tensor("", "i32")])
    plan2 = plan_donation(b2.ret(r2[0]))
    assert xla_fallback(plan2, {}, {0}).buffer_donors == []
    # ...unless the initial carry depends on the read (``w * sum(x)``): XLA's match is
    # copy-free (measured) and the mark stays.
    b3 = FnBuilder()
    x3 = b3.arg(t=tensor("2x8"), donate=True)
    w3 = b3.arg()
    c3 = b3.op("stablehlo.convert", x3, result_types=[tensor("2x8", "i32")])
    s3 = b3.op("stablehlo.reduce", c3, result_types=[tensor("", "i32")])
    f3 = b3.op("stablehlo.convert", s3, result_types=[tensor("")])
    init = b3.op("stablehlo.multiply", w3,
                 b3.op("stablehlo.broadcast_in_dim", f3, result_types=[tensor()]))
    r3 = b3.ops_multi("stablehlo.while", init, result_types=[tensor()])
    plan3 = plan_donation(b3.ret(r3[0]))
    assert xla_fallback(plan3, {}, {0}).buffer_donors == [0]


def test_idempotent_ops_forward_their_operand() -> None:
    """``maximum %x, %x`` is ``%x`` to XLA (its simplifier folds it), so returning it returns
    the donor unchanged: the donor hosts it for free, and a read of it is no read of ``%x``."""
    b = FnBuilder()
    x = b.arg(donate=True)
    y = b.arg(donate=True)
    same = b.op("stablehlo.maximum", x, x)
    pred = b.op("stablehlo.compare", y, y, result_types=[tensor("4x4", "i1")])
    sel = b.op("stablehlo.select", pred, y, y, result_types=[tensor()])
    plan = plan_donation(b.ret(b.op("stablehlo.negate", y), same, sel))
    assert plan.pairs == {0: 1, 1: 2}
    # Different operands: an ordinary elementwise op.
    b2 = FnBuilder()
    x2 = b2.arg(donate=True)
    m = b2.op("stablehlo.maximum", x2, b2.arg())
    assert plan_donation(b2.ret(m, x2)).pairs == {0: 1}


def test_view_of_a_result_returned_again_is_a_copy() -> None:
    """``return %n, reshape(%n)``: both slots would be the negate's buffer, so the second is
    a copy made after the reshape, not a second write by the negate (found by the property
    test's execution oracle: the two donors hosting both slots got one buffer)."""
    from jax_use_donated.analysis.liveness import CopyAfter, Liveness, ProducedBy

    b = FnBuilder()
    x = b.arg(t=tensor("4"))
    b.arg(t=tensor("4"), donate=True)
    b.arg(t=tensor("2x2"), donate=True)
    n = b.op("stablehlo.negate", x)
    r = b.op("stablehlo.reshape", n, result_types=[tensor("2x2")])
    fn = b.ret(n, r)
    assert Liveness(fn).writers == [ProducedBy(0, 0), CopyAfter(1)]


COLLECTIVES = ["stablehlo.all_reduce", "stablehlo.all_gather", "stablehlo.reduce_scatter",
               "stablehlo.all_to_all", "stablehlo.collective_permute",
               "stablehlo.collective_broadcast", "stablehlo.collective_reduce"]


@pytest.mark.parametrize("name", COLLECTIVES)
def test_a_collective_never_hosts_its_operand(name: str) -> None:
    """Collectives (``collective_reduce`` included, new in jaxlib 0.12) are not in-place
    capable and never dead code: a donor read only by one is not paired with its result."""
    from jax_use_donated.analysis.semantics import NO_SEMANTICS, PURE_OPS, classify

    b = FnBuilder()
    a = b.arg(alias=0, name="a")
    x = b.op(name, a, line=3)
    fn = b.ret(x)
    assert classify(fn.ops[0]) is NO_SEMANTICS
    assert name not in PURE_OPS
    plan = plan_donation(fn)
    assert plan.pairs == {}
    assert [v.reason for v in plan.verdicts] == [Reason.READ_AFTER_WRITE]
    elementwise = FnBuilder()
    elementwise.ret(elementwise.op("stablehlo.negate", elementwise.arg(alias=0, name="a")))
    assert plan_donation(elementwise.ret()).pairs == {0: 0}  # the contrast: negate writes in place
