"""A brute-force reference for the donation planner, written from the definitions of
``jax_use_donated/analysis/plan.py``'s module docstring and :class:`~.plan.Blocker`, not from
the planner's code.

Taken as given, from :class:`~.liveness.Liveness`: which ops read each donor and at which
operand positions (``reads``), the slots that return it, what writes each result
(``writers``), each op's :class:`~.semantics.OpSemantics`, the values XLA's fusion recomputes
in their fusing consumers (``recomputed``), which ops fuse (``fusing``: not a transpose folded
into dots; ``relaid``: the operands a batched dot transposes first) and a value's
forwarding source (``source``).
Decided here: data dependence (a transitive closure over def-use edges, one bitset per op),
the safety of each pair, the control edges a region ordering needs and their cycles (a
depth-first search), the best plan (every assignment of donors to results) and augmenting
paths (Berge: a matching is maximum iff it has none).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from jax_use_donated.analysis.errors import DonationError, validate_function
from jax_use_donated.analysis.fusion import fusion_safe
from jax_use_donated.analysis.liveness import (
    FUSED_USE,
    REDUCED_USE,
    REGION_USE,
    CopyAfter,
    Liveness,
    ProducedBy,
    ViewOfArg,
)
from jax_use_donated.analysis.model import Arg, DonationKind, FunctionModel, Result
from jax_use_donated.analysis.orderings import Ordering, ordering_model
from jax_use_donated.analysis.plan import DonationPlan, Reason, plan_donation
from jax_use_donated.analysis.semantics import (
    EXPENSIVE_ELEMENTWISE,
    is_elementwise,
)

Pairs = Mapping[int, int]


def compatible(a: Arg, r: Result) -> bool:
    """Identical tensor type and placement; a sharding on XLA's one-device empty mesh is no
    sharding."""
    def key(t: Arg | Result) -> object:
        p = t.placement
        sharding = None if p.sharding is not None and "@empty_mesh" in p.sharding else p.sharding
        return (t.tensor.text, sharding, p.memory_kind, p.layout) if t.tensor else None

    return key(a) is not None and key(a) == key(r)


class Oracle:
    """Every rule for one function and one ordering, the slow and obvious way."""

    def __init__(self, fn: FunctionModel, ordering: Ordering, fusion: bool = False) -> None:
        model = ordering_model(ordering)
        self.fn, self.kind, self.xla, self.fusion = fn, model.kind, model.xla, fusion
        self.live = live = Liveness(fn, fusion_duplication=model.xla)
        # anc[y]: bit x set when op y depends on op x: a def-use path from x to y whose first
        # edge is not a fusing consumer's operand use of a value it recomputes (that consumer
        # depends on the producer's operands only).
        producer = {v: op.index for op in fn.ops for v in op.results}
        self.anc: list[int] = []
        for op in fn.ops:
            acc = 0
            for v in op.operands:
                x = producer.get(v)
                if x is not None:
                    weak = v in live.recomputed and (op.index in live.fusing
                                                     or v in live.relaid.get(op.index, ()))
                    acc |= self.anc[x] | (0 if weak else 1 << x)
            for v in op.region_uses:
                x = producer.get(v)
                if x is not None:
                    acc |= self.anc[x] | 1 << x
            self.anc.append(acc)
        # Dataflow only: a cheap elementwise op reading a donor itself whose value is returned
        # and also used by another op is duplicated into that op, so it precedes no writer.
        returned = {r.value for r in fn.results}
        used = {v for op in fn.ops for v in (*op.operands, *op.region_uses)}
        direct = {u for r in live.reads.values() for u, pos in r.positions.items()
                  if pos - {FUSED_USE, REDUCED_USE}}
        self.fragile = {u for u in direct if model.kind == "dataflow"
                        and is_elementwise(fn.ops[u]) and fn.ops[u].name not in EXPENSIVE_ELEMENTWISE
                        and returned & set(fn.ops[u].results) & used}

    # -- dependence and order ----------------------------------------------------------------

    def depends(self, u: int, p: int) -> bool:
        """Whether op ``p`` depends on op ``u``."""
        return bool(self.anc[p] >> u & 1)

    def before(self, u: int, p: int | None) -> bool:
        """Whether read ``u`` surely happens before ``p`` (``None``: a copy at any time) under
        the dataflow or program ordering."""
        if p is None:
            return False
        if self.kind == "program":
            return u < p
        return u not in self.fragile and self.depends(u, p)

    # -- one pair ----------------------------------------------------------------------------

    def writes_in_place(self, p: int, result: int, positions: set[int]) -> bool:
        """Whether op ``p``, reading the donor at ``positions``, can write ``result`` into it:
        not from inside a region; a fused elementwise read is of the element written; an op
        that reads every operand at entry needs one in-place position, any other op all."""
        if REGION_USE in positions or REDUCED_USE in positions:
            return False  # read inside a region, or at other elements through a fused reduce
        direct = positions - {FUSED_USE}
        if not direct:
            return is_elementwise(self.fn.ops[p])
        allowed = self.live.semantics[p].in_place.get(result, frozenset())
        return bool(direct & allowed) if self.live.semantics[p].entry_reads else direct <= allowed

    def overwritten_arg(self, p: int, result: int) -> int | None:
        """The argument whose buffer ``p`` always writes ``result`` into, if any."""
        sem = self.live.semantics[p]
        op = self.fn.ops[p]
        if not sem.overwrites:
            return None
        sources = {self.live.source(op.operands[i])
                   for i in sem.in_place.get(result, ()) if i < len(op.operands)}
        if len(sources) == 1:
            kind, index, _ = sources.pop()
            return index if kind == "arg" else None
        return None

    def safe(self, d: int, k: int) -> bool:
        """Whether donor ``d`` may host result ``k`` alone."""
        fn, live = self.fn, self.live
        if not compatible(fn.args[d], fn.results[k]):
            return False
        reads = live.reads[d]
        writer = live.writers[k]
        if isinstance(writer, ViewOfArg):  # no writer: free for its own argument only
            return writer.arg == d
        if reads.returned_in:  # its value must survive
            return False
        ok = self._ordered(d, k, writer)
        return ok and (not self.fusion or fusion_safe(fn, live, d, k))

    def _ordered(self, d: int, k: int, writer: ProducedBy | CopyAfter) -> bool:
        reads = self.live.reads[d].positions
        if isinstance(writer, CopyAfter):
            kind, index, _ = self.live.source(self.fn.results[k].value)
            if self.xla and kind == "arg" and index not in self.live.reads:
                return False  # a returned undonated argument: XLA copies it anyway, twice here
            # Region and program: the copy can wait for every read (nothing reads it).
            return self.kind != "dataflow" or all(
                u == writer.after or self.before(u, writer.after) for u in reads)
        p = writer.op
        if self.xla and self.fn.ops[p].name == "stablehlo.constant":
            return not reads  # XLA copies a constant into the output at any time
        other = self.overwritten_arg(p, writer.result) if self.xla else None
        if other is not None and other != d and other in self.live.reads and p not in reads:
            return False  # XLA would copy that donor into this one first
        first = self.first_write(d, p, writer.result)
        for u, positions in reads.items():
            if u == p:
                if not self.writes_in_place(p, writer.result, positions):
                    return False
            elif self.kind == "region":
                if self.depends(p, u):
                    return False
            elif first is not None:
                q, r = first
                if q is None or (not self.writes_in_place(q, r, positions) if u == q
                                 else not self.before(u, q)):
                    return False
            elif not self.before(u, p):
                return False
        return True

    def first_write(self, d: int, p: int, result: int) -> tuple[int | None, int] | None:
        """XLA's dataflow ordering, a loop ``p`` writing ``result`` into ``d``'s buffer: the
        op whose value, the loop's initial carry, fills the buffer first (``None`` for an
        argument, copied in before any read), where that value is not ``d`` itself."""
        op = self.fn.ops[p]
        if not self.xla or op.name != "stablehlo.while":
            return None
        kind, index, r = self.live.source(op.operands[result])
        if kind == "arg":
            return None if index == d else (None, 0)
        return index, r

    # -- sets of pairs -----------------------------------------------------------------------

    def control_edges(self, pairs: Pairs) -> set[tuple[int, int]]:
        """Region orderings: ``(read, writer)`` for every read of a paired donor that data
        dependence does not order before its writer (copies need none: nothing reads them)."""
        edges: set[tuple[int, int]] = set()
        for d, k in pairs.items():
            w = self.live.writers[k]
            if isinstance(w, ProducedBy):
                edges |= {(u, w.op) for u in self.live.reads[d].positions
                          if u != w.op and not self.depends(u, w.op)}
        return edges

    def consistent(self, pairs: Pairs) -> bool:
        """Whether the pairs' control edges and data dependence form no cycle (always, for
        other orderings). A cycle needs a control edge, and dependence is transitive, so the
        search runs over the edges' endpoints with both kinds of edges among them."""
        if self.kind != "region":
            return True
        edges = self.control_edges(pairs)
        nodes = sorted({x for e in edges for x in e})
        succ = {x: {p for u, p in edges if u == x} | {y for y in nodes if self.depends(x, y)}
                for x in nodes}
        state: dict[int, int] = {}  # 1: on the path, 2: done

        def cyclic(x: int) -> bool:
            state[x] = 1
            for y in succ[x]:
                if state.get(y) == 1 or (y not in state and cyclic(y)):
                    return True
            state[x] = 2
            return False

        return not any(x not in state and cyclic(x) for x in nodes)

    def greedy_consistent(self, pairs: Pairs) -> dict[int, int]:
        """The pairs kept in donor order, each with the earlier kept ones."""
        kept: dict[int, int] = {}
        for d in sorted(pairs):
            if self.consistent({**kept, d: pairs[d]}):
                kept[d] = pairs[d]
        return kept

    def candidates(self, d: int, taken: Iterable[int] = ()) -> list[int]:
        """The results ``d`` hosts safely alone, except ``taken``."""
        skip = set(taken)
        return [r.index for r in self.fn.results if r.index not in skip and self.safe(d, r.index)]

    def best(self, donors: list[int], fixed: Pairs | None = None) -> tuple[int, dict[int, int]]:
        """The most bytes (then pairs) any safe, consistent assignment of ``donors`` to free
        results gives, with ``fixed`` pairs held (every assignment tried, pruned by bound)."""
        fixed = dict(fixed or {})
        options = {d: self.candidates(d, fixed.values()) for d in donors}
        order = [d for d in donors if options[d]]
        weight = {d: (self.fn.args[d].nbytes << 16) + 1 for d in order}
        rest = [sum(weight[d] for d in order[i:]) for i in range(len(order) + 1)]
        best: list[tuple[int, dict[int, int]]] = [(0, {})]

        def go(i: int, pairs: dict[int, int], value: int) -> None:
            if value > best[0][0]:
                best[0] = (value, dict(pairs))
            if i == len(order) or value + rest[i] <= best[0][0]:
                return
            d = order[i]
            used = set(pairs.values()) | set(fixed.values())
            for k in options[d]:
                if k not in used and self.consistent({**fixed, **pairs, d: k}):
                    pairs[d] = k
                    go(i + 1, pairs, value + weight[d])
                    del pairs[d]
            go(i + 1, pairs, value)

        go(0, {}, 0)
        return best[0]

    def value(self, pairs: Iterable[int]) -> int:
        """:meth:`best`'s measure of a plan's donors."""
        return sum((self.fn.args[d].nbytes << 16) + 1 for d in pairs)

    def augmenting_path(self, pairs: Pairs, donors: list[int],
                        edges: Mapping[int, list[int]]) -> list[int] | None:
        """A path from a free donor of ``donors`` through ``edges`` (donor -> results)
        alternating with ``pairs`` to a free result, as ``[d0, k0, d1, k1, ...]``."""
        owner = {k: d for d, k in pairs.items()}
        for start in donors:
            if start in pairs:
                continue
            stack, seen = [(start, [start])], {start}
            while stack:
                d, path = stack.pop()
                for k in edges.get(d, []):
                    if k not in owner:
                        return [*path, k]
                    if owner[k] not in seen:
                        seen.add(owner[k])
                        stack.append((owner[k], [*path, k, owner[k]]))
        return None

    def consistent_augmenting_path(self, pairs: Pairs, donors: list[int],
                                   edges: Mapping[int, list[int]]) -> list[int] | None:
        """Like :meth:`augmenting_path`, but every path is tried and one is returned only if
        flipping it leaves the pairs consistent."""
        owner = {k: d for d, k in pairs.items()}

        def walk(d: int, path: list[int]) -> list[int] | None:
            for k in edges.get(d, []):
                if k in path[1::2]:
                    continue
                if k not in owner:
                    flipped = {**pairs, **dict(zip(path[::2], [*path[1::2], k], strict=True))}
                    if self.consistent(flipped):
                        return [*path, k]
                elif owner[k] not in path[::2]:
                    found = walk(owner[k], [*path, k, owner[k]])
                    if found is not None:
                        return found
            return None

        for start in donors:
            if start not in pairs and (found := walk(start, [start])) is not None:
                return found
        return None

    def max_matching(self, donors: list[int], edges: Mapping[int, list[int]]) -> dict[int, int]:
        """A maximum matching over ``edges``, by augmenting paths from nothing."""
        pairs: dict[int, int] = {}
        while (path := self.augmenting_path(pairs, donors, edges)) is not None:
            pairs.update(zip(path[::2], path[1::2], strict=True))
        return pairs


def existing_aliases(fn: FunctionModel) -> dict[int, int]:
    """The input's ``tf.aliasing_output`` pairs."""
    return {a.index: a.donation.alias_index for a in fn.donors
            if a.donation.kind is DonationKind.ALIASING_OUTPUT
            and a.donation.alias_index is not None}


def check_plan(fn: FunctionModel, ordering: Ordering, keep: bool = False, fusion: bool = False,
               exhaustive: bool = True, region_best: bool = True) -> DonationPlan | None:
    """Plan ``fn`` and check the plan against the oracle: refused exactly when the input or a
    kept alias is invalid; kept aliases kept; every pair safe alone; under region orderings
    all consistent and no safe pair addable; verdicts that agree. With ``exhaustive``, as
    large as the best assignment; under region orderings at least as large as the best
    assignment of dataflow-safe pairs (which need no control edge) and, with
    ``region_best``, as the best (the planner falls short where a later donor's only pairs
    conflict with an earlier donor's: it never moves the earlier one). Without
    ``exhaustive``: no augmenting path among safe pairs (dataflow, program). The plan, or
    ``None`` if refused."""
    oracle = Oracle(fn, ordering, fusion)
    fixed = existing_aliases(fn) if keep else {}
    try:
        validate_function(fn)
        refuse = any(not oracle.safe(d, k) for d, k in fixed.items())
    except DonationError:
        refuse = True
    try:
        plan = plan_donation(fn, ordering, keep, fusion)
    except DonationError:
        assert refuse, "refused a valid input"
        return None
    assert not refuse, "accepted an invalid or unsafe kept alias"
    pairs = plan.pairs
    assert all(pairs.get(d) == k for d, k in fixed.items()), "a kept alias changed"
    assert len(set(pairs.values())) == len(pairs), "two donors host one result"
    unsafe = [(d, k) for d, k in pairs.items() if d not in fixed and not oracle.safe(d, k)]
    assert not unsafe, f"unsafe pairs {unsafe}"
    fixed_ok = oracle.consistent(fixed)  # the input's own aliases may conflict
    donors = [a.index for a in fn.donors if a.index not in fixed]
    free = {d: k for d, k in pairs.items() if d not in fixed}
    region = oracle.kind == "region"
    if region and fixed_ok:
        assert oracle.consistent(pairs), "the pairs' orders form a cycle"
        taken = set(pairs.values())
        addable = [(d, k) for d in donors if d not in pairs
                   for k in oracle.candidates(d, taken) if oracle.consistent({**pairs, d: k})]
        assert not addable, f"pairs {addable} could be added"
    if exhaustive and fixed_ok:
        value, example = oracle.best(donors, fixed)
        assert oracle.value(free) <= value
        if region:
            floor, flow = Oracle(fn, "xla-cpu", fusion).best(donors, fixed)
            assert oracle.value(free) >= floor, f"{free} is smaller than {flow}"
        if region_best or not region:
            assert oracle.value(free) == value, f"{free} is smaller than {example}"
    elif not exhaustive and not region:
        edges = {d: oracle.candidates(d, fixed.values()) for d in donors}
        path = oracle.augmenting_path(free, donors, edges)
        assert path is None, f"augmenting path {path}"
    check_verdicts(oracle, plan, fixed)
    return plan


def check_verdicts(oracle: Oracle, plan: DonationPlan, fixed: Pairs) -> None:
    """Each donor's verdict agrees with its pair and with the oracle's safe results."""
    fn, live = oracle.fn, oracle.live
    owner = {k: d for d, k in plan.pairs.items()}
    assert [v.arg.index for v in plan.verdicts] == [a.index for a in fn.donors]
    for v in plan.verdicts:
        d = v.arg.index
        reads = live.reads[d]
        assert v.unused == (not reads.positions and not reads.returned_in), f"unused {d}"
        assert v.result == plan.pairs.get(d), f"verdict result {d}"
        if v.result is not None:
            assert v.reason is Reason.PAIRED, f"reason {d}"
            continue
        open_ = [r.index for r in fn.results
                 if r.index not in fixed.values() and compatible(fn.args[d], r)]
        safe = oracle.candidates(d, fixed.values())
        if not open_:
            assert v.reason is Reason.NO_COMPATIBLE_RESULT, f"reason {d}"
        elif not safe:
            # Returned, unless every result it could host is another argument's view.
            returned = reads.returned_in and any(
                not isinstance(live.writers[k], ViewOfArg) for k in open_)
            expected = Reason.RETURNED if returned else Reason.READ_AFTER_WRITE
            assert v.reason is expected, f"reason {d}"
            [b] = v.blockers
            assert b.result in open_ and not oracle.safe(d, b.result), f"blocker {d}"
            if b.reader is not None:  # a reading op, or the op XLA runs inside one
                named = {first for (u, x), first in live.fused_reader.items()
                         if x == d and u in reads.positions}
                assert b.reader.index in reads.positions or b.reader.index in named, \
                    f"blocker {d}"
        elif v.reason is Reason.OUTNUMBERED:
            assert v.rivals and all(owner.get(k) == x and k in safe for x, k in v.rivals), \
                f"rivals {d}"
            if oracle.kind != "region":
                assert all(k in owner for k in safe), f"a safe result of {d} is free"
        else:  # a region ordering's pairs that are safe alone close cycles
            assert oracle.kind == "region" and v.reason is Reason.READ_AFTER_WRITE, f"reason {d}"
            [b] = v.blockers
            assert b.result in open_ and b.cycle == oracle.safe(d, b.result), f"blocker {d}"
