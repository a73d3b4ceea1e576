"""Unit tests of the destination-passing rules on the IR-neutral model
(:mod:`jax_use_donated.analysis.destinations`)."""

from __future__ import annotations

from jax_use_donated.analysis import plan_donation
from jax_use_donated.analysis.destinations import (
    BufferClasses,
    InitRewrite,
    plan_destinations,
)
from jax_use_donated.analysis.model import FunctionModel
from jax_use_donated.analysis.semantics import classify
from tests.model_builder import FnBuilder, tensor

T = tensor("4")


class Dps(FnBuilder):
    """``FnBuilder`` with linalg-like helpers: ``empty()`` and ``dps(name, ins, init)``."""

    def empty(self, t: object = None) -> int:
        return self.op("tensor.empty", result_types=[T if t is None else t])  # type: ignore[list-item]

    def ew(self, *ins: int, init: int | None = None) -> int:
        """An elementwise destination-passing op (reads inputs at the element it writes)."""
        init = self.empty() if init is None else init
        n = len(ins)
        return self.op("linalg.generic", *ins, init, result_types=[T], dps_inits=(n,),
                       same_index_operands=frozenset(range(n)))

    def gather(self, *ins: int, init: int | None = None) -> int:
        """A destination-passing op reading other elements than it writes (a transpose)."""
        init = self.empty() if init is None else init
        return self.op("linalg.generic", *ins, init, result_types=[T], dps_inits=(len(ins),))


def plan(fn: FunctionModel) -> tuple[dict[int, int], list[InitRewrite], list[str]]:
    pairs = plan_donation(fn, ordering="program").pairs
    p = plan_destinations(fn, pairs)
    return p.realised, p.rewrites, [n.message for n in p.notes]


def test_dps_semantics_write_into_init_and_same_index_inputs() -> None:
    b = Dps()
    a = b.arg(T, donate=True)
    c = b.arg(T)
    b.ew(a, c)
    fn = b.ret(b.ops[-1].results[0])
    sem = classify(fn.ops[-1])
    assert sem.in_place == {0: frozenset({0, 1, 2})}
    b2 = Dps()
    a2 = b2.arg(T, donate=True)
    r2 = b2.gather(a2)
    sem2 = classify(b2.ret(r2).ops[-1])
    assert sem2.in_place == {0: frozenset({1})}


def test_elementwise_result_goes_into_the_donor_it_reads() -> None:
    b = Dps()
    a = b.arg(T, donate=True)
    c = b.arg(T)
    r = b.ew(a, c)
    realised, rewrites, notes = plan(b.ret(r))
    assert realised == {0: 0}
    assert rewrites == [InitRewrite(1, 2, 0, a, 0)]
    assert notes == []


def test_non_identity_read_blocks_the_rewrite() -> None:
    b = Dps()
    a = b.arg(T, donate=True)
    r = b.gather(a)
    realised, rewrites, _ = plan(b.ret(r))
    assert realised == {} and rewrites == []


def test_donor_read_after_the_destination_is_written_is_not_reused() -> None:
    b = Dps()
    a = b.arg(T, donate=True)
    c = b.arg(T)
    x = b.ew(c, c)          # could go into a only if a were dead here
    y = b.ew(a, x)          # last read of a (elementwise): the result goes into a
    realised, rewrites, _ = plan(b.ret(y))
    assert realised == {0: 0}
    assert [(w.op, w.result) for w in rewrites] == [(3, 0)]


def test_swap_realises_the_boundary_pairing() -> None:
    b = Dps()
    a = b.arg(T, alias=0)
    c = b.arg(T, alias=1)
    x = b.ew(c, c)
    y = b.ew(a, a)
    realised, rewrites, _ = plan(b.ret(x, y))
    assert realised == {0: 1, 1: 0}
    assert {(w.donor, w.result, w.source) for w in rewrites} == {(1, 0, c), (0, 1, a)}


def test_chain_reuse_threads_temporaries_through_the_donor_buffer() -> None:
    """a hosts t1 (a's last read), then t2 (t1's last read), then the result."""
    b = Dps()
    a = b.arg(T, donate=True)
    c = b.arg(T)
    t1 = b.ew(a, c)
    t2 = b.ew(t1, c)
    r = b.ew(t2, c)
    fn = b.ret(r)
    realised, rewrites, _ = plan(fn)
    assert realised == {0: 0}
    assert [(w.op, w.donor, w.source, w.result) for w in rewrites] == [
        (1, 0, a, None), (3, 0, t1, None), (5, 0, t2, 0)]


def test_overlapping_temporaries_do_not_share_the_donor() -> None:
    b = Dps()
    a = b.arg(T, donate=True)
    c = b.arg(T)
    t1 = b.ew(a, c)          # into a
    t2 = b.ew(c, c)          # t1 still live: stays fresh
    r = b.ew(t1, t2)         # t1's last read: the result goes into a's buffer
    realised, rewrites, _ = plan(b.ret(r))
    assert realised == {0: 0}
    assert [(w.op, w.source) for w in rewrites] == [(1, a), (5, t1)]
    assert all(w.op != 3 for w in rewrites)


def test_temporary_must_end_before_the_result_chain_starts() -> None:
    """A temporary still read after the result's chain starts cannot live in the donor."""
    b = Dps()
    a = b.arg(T, alias=0)
    c = b.arg(T)
    t = b.ew(a, c)                 # a's last read; t could move into a ...
    r = b.ew(c, c)                 # ... but result 0 (paired with a) is written here
    s = b.ew(t, r)                 # and t is read after that
    realised, rewrites, _ = plan(b.ret(r, s))
    assert realised == {0: 0}
    assert [(w.op, w.donor, w.source, w.result) for w in rewrites] == [(3, 0, a, 0)]


def test_unpaired_donor_hosts_temporaries() -> None:
    b = Dps()
    a = b.arg(T, donate=True)
    w = b.op("linalg.generic", a, b.empty(tensor("2")), result_types=[tensor("2")],
             dps_inits=(1,))
    t = b.ew(a)  # another elementwise read of a: its last read
    r = b.op("linalg.generic", t, w, b.empty(tensor("2")), result_types=[tensor("2")],
             dps_inits=(2,))
    fn = b.ret(r)
    realised, rewrites, _ = plan(fn)
    assert realised == {}
    assert [(x.donor, x.result, x.source) for x in rewrites] == [(0, None, a)]


def test_unknown_op_captures_the_donor() -> None:
    b = Dps()
    a = b.arg(T, donate=True)
    b.op("foo.keep", a, result_types=[T])
    r = b.ew(a, a)
    realised, rewrites, notes = plan(b.ret(r))
    assert realised == {} and rewrites == []
    assert any("foo.keep" in n and "unknown" in n for n in notes)


def test_destination_that_is_not_empty_is_reported() -> None:
    b = Dps()
    a = b.arg(T, donate=True)
    cst = b.op("arith.constant", result_types=[T])
    r = b.ew(a, init=cst)
    realised, rewrites, notes = plan(b.ret(r))
    assert realised == {} and rewrites == []
    assert any("not a tensor.empty" in n and "arith.constant" in n for n in notes)


def test_view_of_donor_extends_its_lifetime() -> None:
    """A read through tensor.collapse_shape is a read of the donor's buffer."""
    b = Dps()
    a = b.arg(T, donate=True)
    v = b.op("tensor.collapse_shape", a, result_types=[tensor("4")])
    c = b.arg(T)
    x = b.ew(c, v)                                 # reads the view elementwise
    y = b.gather(v)                                # later non-elementwise read of the view
    fn = b.ret(x, y)
    bc = BufferClasses(fn)
    assert bc.class_of[a] is bc.class_of[v]
    realised, rewrites, _ = plan(fn)
    assert all(w.op < 4 or w.donor != 0 for w in rewrites)
    assert 0 not in realised or realised[0] == 1


def test_result_returned_twice_is_not_moved() -> None:
    b = Dps()
    a = b.arg(T, donate=True)
    r = b.ew(a, a)
    realised, _, notes = plan(b.ret(r, r))
    # The core may pair a with either slot; the chain is returned twice, so it stays put.
    assert realised == {}
    assert any("also returned" in n for n in notes)


def test_multiple_results_in_place_handoff_is_elementwise_only() -> None:
    """The result's chain may start at the donor's last read only when it reads it at the
    element it writes."""
    b = Dps()
    a = b.arg(T, donate=True)
    t = b.gather(a)            # non-identity read of a: a hosts nothing here
    r = b.ew(t, t)             # a dead: the result goes into a
    realised, rewrites, _ = plan(b.ret(r))
    assert realised == {0: 0}
    assert [(w.op, w.source) for w in rewrites] == [(3, a)]
