"""The donation plan: which donor hosts which result, and why every other donor cannot.

A pair ``d -> k`` (donor argument ``d`` hosts result ``k``) is *safe* (copy-free) when the
types and placements are identical and the write into ``d`` happens after every read of ``d``,
as the ordering model says (:mod:`.orderings`):

* ``dataflow`` models (``xla-cpu``, its old name ``dataflow``, ``xla-gpu``): every read of
  ``d`` other than the writer is a data-dependence ancestor of the writer;
* ``region`` models (``xla-cpu-region``, ``xla-gpu-region``, ``tpu``): no read of ``d`` depends
  on the writer (independent reads are ordered before it), and the orders all pairs need
  together form no cycle (:func:`consistent_pairs`);
* ``program`` (block order is execution order, as after bufferization): every read of ``d``
  comes before the writer in the block.

The writer of ``k`` is its producing op (which may itself read ``d`` only where it can write in
place), a copy (for a value returned a second time, or an argument returned unchanged), or
nothing at all when ``k`` returns ``d`` itself. A donor returned in another slot can host
nothing else. Among safe pairs the plan is a maximum matching, weighted by bytes (types in one
class have equal size, so per class a maximum-cardinality matching), found by augmenting paths
from preferred safe pairs: a donor's pair with the result of an op that overwrites it in place
(which also saves XLA's copy of the operand), else JAX's own pair; remaining ties go to
argument order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Container, Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum

from jax_use_donated.analysis.conditionals import (
    CASE,
    BranchFacts,
    CaseConflict,
    branch_facts,
    case_conflict,
    is_case,
)
from jax_use_donated.analysis.errors import DonationError, arg_label, validate_function
from jax_use_donated.analysis.fusion import fusion_safe as fusion_safe_pair
from jax_use_donated.analysis.liveness import (
    FUSED_USE,
    REDUCED_USE,
    REGION_USE,
    CopyAfter,
    Liveness,
    ProducedBy,
    ViewOfArg,
)
from jax_use_donated.analysis.model import (
    Arg,
    DonationKind,
    FunctionModel,
    Op,
    Placement,
    Result,
    reads_only,
)
from jax_use_donated.analysis.orderings import Ordering, ordering_model
from jax_use_donated.analysis.semantics import (
    EXPENSIVE_ELEMENTWISE,
    fuses_producers,
    is_elementwise,
)


class Reason(Enum):
    PAIRED = "paired"
    NO_COMPATIBLE_RESULT = "no-compatible-result"
    READ_AFTER_WRITE = "read-after-write"
    RETURNED = "returned"
    OUTNUMBERED = "outnumbered"


REDUCE = "stablehlo.reduce"


@dataclass(slots=True)
class Blocker:
    """Why ``d -> result`` is unsafe: ``reader`` still reads ``d`` when ``writer`` writes it
    (``writer is reader`` means the writer reads ``d`` but cannot write in place)."""

    result: int
    reader: Op | None
    writer: Op | None
    returned_in: int | None = None
    free_for: int | None = None
    """The donor that the result returns unchanged and so hosts for free."""
    fused: bool = False
    """Safe by data dependence, but a fusing backend would read the donor inside the kernel
    that writes it (see :mod:`.fusion`)."""
    in_place_of: int | None = None
    """The writer overwrites this other donor's buffer in place (``dynamic_update_slice``,
    ``scatter``, a loop carry): XLA copies that argument into the donor first (an undonated
    argument it copies anyway, and that copy may land in the donor)."""
    constant: bool = False
    """The result is a constant, which XLA materialises by a copy into the output buffer
    (``AddSpecialCaseCopies``) whatever the ordering."""
    cycle: bool = False
    """Safe alone under a region ordering, but the read-before-write orders of the other
    pairs would form a cycle with this one's (:func:`consistent_pairs`)."""
    detail: str = ""
    """Why a conditional writer cannot write it in place (:mod:`.conditionals`)."""
    copied_argument: int | None = None
    """The result returns this undonated argument unchanged: XLA copies it whatever the
    pairing, and into the donor's buffer a second time (measured: ``copy(copy(%s1))``)."""


@dataclass
class DonorVerdict:
    """The outcome for one donated argument."""

    arg: Arg
    result: int | None
    reason: Reason
    jax_result: int | None
    """The result JAX's greedy pairing gave it (``None``: none, or XLA decides)."""
    unused: bool = False
    blockers: list[Blocker] = field(default_factory=list)
    """What the message names (``READ_AFTER_WRITE``, ``RETURNED``); other candidates' blockers
    come from :meth:`PairChecker.blocker`."""
    rivals: list[tuple[int, int]] = field(default_factory=list)
    """For ``OUTNUMBERED``: ``(other donor, result)`` pairs holding its candidate results."""
    message: str = ""


@dataclass
class DonationPlan:
    function: str
    pairs: dict[int, int]
    """donor argument index -> result index it hosts."""
    verdicts: list[DonorVerdict]
    jax_pairs: dict[int, int]
    """JAX's greedy pairing by type, for comparison."""
    ordering: Ordering
    checker: PairChecker | None = field(default=None, repr=False, compare=False)
    """The pair rule the plan was made with, for callers that weigh further pairs (XLA's
    size matching of kept buffer donors, :mod:`.xla_fallback`)."""
    rounds: int = field(default=0, compare=False)
    """Region orderings: the times pairs were rejected and their classes matched again; at
    :data:`EXACT_ROUNDS` the plan was completed greedily (:func:`_complete_consistently`)."""

    @property
    def unpaired(self) -> list[DonorVerdict]:
        return [v for v in self.verdicts if v.result is None]

    def aliased_bytes(self, fn: FunctionModel) -> int:
        """Bytes of output buffers the plan saves (dynamic shapes count as 0)."""
        return sum(fn.args[d].nbytes for d in self.pairs)


def compat_key(t: Arg | Result) -> tuple[str, object] | None:
    """What must be identical for an argument to host a result: type (with encoding) and
    placement (sharding, memory kind, layout)."""
    if t.tensor is None:
        return None
    return (t.tensor.text, single_device_placement(t.placement))


def single_device_placement(p: Placement) -> Placement:
    """``p`` with a sharding that places on one device unsplit dropped: a committed
    single-device argument carries ``#sdy.sharding<@empty_mesh, [{}]>`` and its result none,
    and XLA (one partition: no sharding to compare) aliases them copy-free."""
    if p.sharding is not None and "@empty_mesh" in p.sharding:
        return Placement(None, p.memory_kind, p.layout)
    return p


def jax_greedy_pairing(fn: FunctionModel) -> dict[int, int]:
    """JAX's ``_set_up_aliases``: results in order, each takes the first unmatched donor of
    equal type and placement, with no regard to liveness."""
    free: dict[object, deque[int]] = {}
    for arg in fn.donors:
        key = compat_key(arg)
        if key is not None:
            free.setdefault(key, deque()).append(arg.index)
    pairs: dict[int, int] = {}
    for res in fn.results:
        queue = free.get(compat_key(res))
        if queue:
            pairs[queue.popleft()] = res.index
    return pairs




def fusion_fragile_reads(fn: FunctionModel, live: Liveness) -> frozenset[int]:
    """Reading ops whose ordering XLA may undo (dataflow ordering only): no writer counts
    them as its ancestors.

    A cheap elementwise op whose value is both returned and used by another op is duplicated
    by XLA's fusion into that consumer, which then reads the donor itself: the returned copy's
    read is no longer an ancestor of the consumer. Measured: ``out = a * 2; return out,
    out + a`` with ``a`` aliased to the second result compiles to a copy of ``a``.
    """
    returned = {r.value for r in fn.results}
    direct = {u for reads in live.reads.values() for u, pos in reads.positions.items()
              if pos - {FUSED_USE, REDUCED_USE}}
    candidates = [
        u for u in live.read_bit
        if u in direct and is_elementwise(fn.ops[u]) and fn.ops[u].name not in EXPENSIVE_ELEMENTWISE
        and returned.intersection(fn.ops[u].results)
    ]
    if not candidates:
        return frozenset()
    # Uses follow definitions: scan only the ops after the first candidate.
    targets = {v for u in candidates for v in fn.ops[u].results}
    used: set[int] = set()
    for op in fn.ops[min(candidates) + 1:]:
        used.update(targets.intersection(op.operands))
        if op.region_uses:
            used.update(targets.intersection(op.region_uses))
    return frozenset(u for u in candidates if used.intersection(fn.ops[u].results))


class PairChecker:
    """Decides whether one donor can host one result without a copy."""

    def __init__(self, fn: FunctionModel, liveness: Liveness, ordering: Ordering,
                 fusion: bool = False) -> None:
        self.fn = fn
        self.live = liveness
        self.ordering: Ordering = ordering
        self.model = ordering_model(ordering)
        self.kind = self.model.kind
        self.fusion = fusion
        """Also require :func:`.fusion.fusion_safe` (backends with forced in-place results)."""
        self.banned: set[tuple[int, int]] = set()
        """Pairs a region ordering cannot have with the others (:func:`consistent_pairs`)."""
        self.fixed: frozenset[int] = frozenset()
        """Donors whose pairs are kept as given (``keep_existing_aliases``): their control
        edges are taken before any other pair's (:func:`consistent_pairs`)."""
        self._wanc: list[int] | None = None
        self._wbit: dict[int, int] = {}
        self.fragile: frozenset[int] = (fusion_fragile_reads(fn, liveness)
                                        if self.kind == "dataflow" else frozenset())
        """Reading ops no writer counts as its ancestors (see :func:`fusion_fragile_reads`)."""
        self.special: frozenset[int] = frozenset(
            i for i, (op, sem) in enumerate(zip(fn.ops, liveness.semantics, strict=True))
            if self.model.xla and (sem.overwrites or op.name == "stablehlo.constant"
                                   or is_case(op) or op.name == "stablehlo.while"))
        """Writers the fast path must not decide (constants, in-place writers)."""
        self._descendants: dict[tuple[int, int], set[int] | None] = {}
        self._facts: dict[tuple[int, int], list[BranchFacts] | None] = {}
        self._sub: dict[int, PairChecker] = {}

    def fast(self, d: int) -> bool:
        """Whether donor ``d``'s produced pairs are decided by data dependence alone (dataflow
        ordering, no fusion rule, ``d`` not returned): :meth:`safe_produced` applies."""
        return (self.kind == "dataflow" and not self.fusion and not self.banned
                and not self.live.reads[d].returned_in)

    def is_safe(self, d: int, k: int) -> bool:
        """``blocker(d, k) is None``, with a fast path for the common case (dataflow ordering,
        a result produced by an op, a donor not returned)."""
        reads = self.live.reads[d]
        writer = self.live.writers[k]
        if (type(writer) is ProducedBy and writer.op not in self.special and self.fast(d)
                and writer.op not in reads.positions):
            p = writer.op
            return all(self._before(u, p) for u in sorted(reads.positions, reverse=True))
        return self.blocker(d, k) is None

    def safe_produced(self, d: int, by_op: Mapping[int, list[tuple[int, int]]], bound: int,
                      ) -> list[int]:
        """For a :meth:`fast` donor ``d``: the results ``k`` of ``by_op`` (writer op ->
        ``(result, result position)``, ops not :attr:`special`, none beyond ``bound``) that
        ``d`` hosts safely, without asking about every one: a safe writer is the last read
        of ``d`` itself or depends on it, so only the ops depending on the last read are
        candidates, and the reads that do not precede the last read must precede each."""
        reads = self.live.reads[d]
        if not reads.positions:
            return [k for ks in by_op.values() for k, _ in ks]
        last = max(reads.positions)
        rest = [u for u in sorted(reads.positions, reverse=True)
                if u != last and not self._before(u, last)]
        out: list[int] = []
        if last in by_op and not rest:
            out.extend(k for k, r in by_op[last]
                       if not self._self_blocks(last, r, reads.positions[last]))
        if last in self.fragile:
            return out  # nothing counts it as an ancestor
        key = (last, bound)
        if key not in self._descendants:
            self._descendants[key] = self.live.descendants(last, bound, 64 + 8 * len(by_op))
        desc = self._descendants[key]
        writers = ([p for p in desc if p in by_op] if desc is not None
                   else [p for p in by_op if p > last and self.live.depends(last, p)])
        for p in writers:
            if all(self._before(u, p) for u in rest):
                out.extend(k for k, _ in by_op[p])
        return out

    def blocker(self, d: int, k: int) -> Blocker | None:
        """``None`` when ``d -> k`` is safe, else what blocks it."""
        b = self._ordering_blocker(d, k)
        if b is None and (d, k) in self.banned:
            writer = self.live.writers[k]
            op = self.fn.ops[writer.op] if isinstance(writer, ProducedBy) else None
            return Blocker(k, None, op, cycle=True)
        if b is None and self.fusion and not fusion_safe_pair(self.fn, self.live, d, k):
            writer = self.live.writers[k]
            op = self.fn.ops[writer.op] if isinstance(writer, ProducedBy) else None
            return Blocker(k, None, op, fused=True)
        return b

    def _ordering_blocker(self, d: int, k: int) -> Blocker | None:
        reads = self.live.reads[d]
        writer = self.live.writers[k]
        if isinstance(writer, ViewOfArg):
            return None if writer.arg == d else Blocker(k, None, None, free_for=writer.arg)
        other_returns = [r for r in reads.returned_in if r != k]
        if other_returns:
            return Blocker(k, None, None, returned_in=other_returns[0])
        ops = self.fn.ops
        if (isinstance(writer, ProducedBy) and self.model.xla and is_case(ops[writer.op])):
            return self._case_blocker(d, k, writer.op, writer.result)
        if reads.returned_in:
            return Blocker(k, None, None, returned_in=reads.returned_in[0])
        if isinstance(writer, ProducedBy):
            return self._produced_blocker(d, k, writer.op, writer.result)
        # A copy: placed after `after` (dataflow), or at the return (program order).
        after = writer.after if isinstance(writer, CopyAfter) else None
        if self.model.xla:
            kind, index, _ = self.live.source(self.fn.results[k].value)
            if kind == "arg" and index not in self.live.reads:
                # XLA copies a returned parameter into a fresh buffer whatever the pairing
                # (AddSpecialCaseCopies); into a donor's buffer it copies it once more
                return Blocker(k, None, None, copied_argument=index)
        if self.kind != "dataflow":
            return None  # the copy can go after every read (nothing reads a returned copy)
        for u in sorted(reads.positions):
            if u != after and not self._before(u, after):
                return Blocker(k, ops[self.live.reader_of(u, d)], ops[after] if after is not None else None)
        return None

    def _produced_blocker(self, d: int, k: int, p: int, result: int) -> Blocker | None:
        """The blocker of ``d -> k`` when op ``p`` writes ``k`` (its result ``result``)."""
        reads = self.live.reads[d]
        ops = self.fn.ops
        if self.model.xla and ops[p].name == "stablehlo.constant" and reads.positions:
            return Blocker(k, None, ops[p], constant=True)
        other = self._overwritten_argument(p, result)
        if (self.model.xla and other is not None and other != d and other in self.live.reads
                and p not in reads.positions):
            return Blocker(k, None, ops[p], in_place_of=other)
        if self.kind == "dataflow":
            return self._produced_blocker_bits(d, k, p, result)
        if self.kind == "region":
            return self._produced_blocker_region(d, k, p, result)
        for u in sorted(reads.positions):
            if u == p:
                if self._self_blocks(p, result, reads.positions[u]):
                    return self._self_blocker(k, d, p)
            elif not self._before(u, p):
                return Blocker(k, ops[self.live.reader_of(u, d)], ops[p])
        return None

    def _produced_blocker_bits(self, d: int, k: int, p: int, result: int) -> Blocker | None:
        """The ``ProducedBy`` case under dataflow ordering: the first blocking read in op
        order (a read that does not precede the writer, or the writer itself where it cannot
        write in place)."""
        reads = self.live.reads[d]
        ops = self.fn.ops
        first = self._loop_init_writer(d, p, result)
        for u in sorted(reads.positions):
            if u == p:
                if self._self_blocks(p, result, reads.positions[p]):
                    return self._self_blocker(k, d, p, name_reader=False)
            elif first is None:
                if not self._before(u, p):
                    return Blocker(k, ops[self.live.reader_of(u, d)], ops[p])
            elif (first[0] < 0 or not self._before(u, first[0]) if u != first[0]
                  else self._self_blocks(u, first[1], reads.positions[u])):
                return Blocker(k, ops[self.live.reader_of(u, d)], ops[p])
        return None

    def _loop_init_writer(self, d: int, p: int, result: int) -> tuple[int, int] | None:
        """Under XLA's data-dependence copy insertion, where a ``while`` op ``p`` writes its
        ``result`` into donor ``d``'s buffer from an initial carry that is not ``d`` itself:
        the loop's buffer is written first by that initial value, before the loop runs, so
        the other reads of ``d`` must precede the op defining it (``(op, its result)``), or
        every read blocks when it is an argument (``(-1, 0)``: XLA copies it into the buffer,
        a copy no read precedes). ``None``: not such a loop result.

        Measured (XLA:CPU, ``xla_cpu_copy_insertion_use_region_analysis`` off):
        ``_, a, b = while(..., (0, s1 + 1, s2)); return b, a`` with ``s1`` hosting ``b``
        copies the final carry into ``s1`` (``s2`` is copied into a buffer of its own, which
        no read of ``s1`` precedes); with the initial carry ``(s1 + 1) * s2`` (it depends on
        the read) or ``s1 * 2`` (the read itself, in place) the loop runs in ``s1``'s buffer.
        Region analysis orders the reads before the initial copy: no copy in any of these."""
        op = self.fn.ops[p]
        if not self.model.xla or op.name != "stablehlo.while" or result >= len(op.operands):
            return None
        kind, index, r = self.live.source(op.operands[result])
        if kind == "arg":
            return None if index == d else (-1, 0)
        if kind != "op":
            return None
        return index, r

    def _overwritten_argument(self, p: int, result: int) -> int | None:
        """The argument whose buffer op ``p`` always writes ``result`` into (its in-place
        operands all being that argument unchanged), else ``None``."""
        sem = self.live.semantics[p]
        if not sem.overwrites:
            return None
        op = self.fn.ops[p]
        sources = {self.live.source(op.operands[i])
                   for i in sem.in_place.get(result, ()) if i < len(op.operands)}
        if len(sources) != 1:
            return None
        kind, index, _ = next(iter(sources))
        return index if kind == "arg" else None

    def _produced_blocker_region(self, d: int, k: int, p: int, result: int) -> Blocker | None:
        """The ``ProducedBy`` case under a region ordering: a read that depends on the writer
        (the writer is its ancestor) blocks; any other read is ordered before the write."""
        reads = self.live.reads[d]
        ops = self.fn.ops
        for u in sorted(reads.positions):
            if u == p:
                if self._self_blocks(p, result, reads.positions[u]):
                    return self._self_blocker(k, d, p)
            elif self.writer_precedes(p, u):
                return Blocker(k, ops[self.live.reader_of(u, d)], ops[p])
            elif (self.model.xla and ops[u].name == CASE and REGION_USE in reads.positions[u]
                  and not self.live.is_ancestor(u, p)):
                # region analysis orders no read inside a conditional before a write
                return Blocker(k, ops[self.live.reader_of(u, d)], ops[p])
        return None

    # ----------------------------------------------------------------------------------------
    # Conditionals (:mod:`.conditionals`)

    def _case_blocker(self, d: int, k: int, p: int, r: int) -> Blocker | None:
        """The blocker of ``d -> k`` written by conditional ``p``'s result ``r``."""
        op = self.fn.ops[p]
        facts = self._case_facts(p, d)
        conflict = (case_conflict(self, self.live.reads[d].positions, d, k, p, r, facts)
                    if facts is not None else CaseConflict(op))
        if conflict is None:
            return None
        if isinstance(conflict.inner, Blocker):
            return Blocker(k, conflict.reader, op,
                           detail=f"{conflict.detail}, {_blocker_text(conflict.inner)}")
        return Blocker(k, conflict.reader, op, detail=conflict.detail)

    def _case_facts(self, p: int, d: int) -> list[BranchFacts] | None:
        key = (p, d)
        if key not in self._facts:
            op = self.fn.ops[p]
            branches = self.live.branches_of(op)
            outer = {a.outer for b in branches for a in b.args if a.outer is not None}
            roots = {v: self.live.roots_of(v) for v in outer}
            self._facts[key] = branch_facts(self.fn, roots, d, branches)
        return self._facts[key]

    def _branch_checker(self, body: FunctionModel) -> PairChecker:
        checker = self._sub.get(id(body))
        if checker is None or checker.fn is not body:
            checker = PairChecker(body, Liveness(body, fusion_duplication=self.model.xla),
                                  self.ordering)
            self._sub[id(body)] = checker
        return checker

    def data_before(self, reader: int, writer: int) -> bool:
        return self.live.is_ancestor(reader, writer)

    def branch_blocker(self, body: FunctionModel, darg: int, k: int) -> object:
        return self._branch_checker(body).blocker(darg, k)

    def returned_in_branch(self, body: FunctionModel, darg: int) -> list[int]:
        return self._branch_checker(body).live.reads[darg].returned_in

    def reads_in_branch(self, body: FunctionModel, darg: int) -> bool:
        return bool(self._branch_checker(body).live.reads[darg].positions)

    def branch_source(self, body: FunctionModel, value: int) -> tuple[str, int, int]:
        return self._branch_checker(body).live.source(value)

    def outer_blocker(self, d: int, k: int, value: int) -> object:
        kind, index, r = self.live.source(value)
        if kind == "arg":
            return Blocker(k, None, None, free_for=index) if index != d else None
        return self._produced_blocker(d, k, index, r)

    def writer_precedes(self, p: int, u: int) -> bool:
        """Whether op ``u`` depends on result-producing op ``p`` (transitively; one bit test
        in per-op bitsets over the writers, built on first use: the region orderings'
        consistency check asks this many times)."""
        anc, bits = self.writer_ancestor_bits()
        bit = bits.get(p)
        return bit is not None and bool(anc[u] >> bit & 1)

    def _writer_ancestors(self) -> None:
        """Per op, bits of the result-producing ops it depends on (one forward walk, with
        :meth:`.Liveness.depends`'s rule for recomputed duplicated values)."""
        writers = {w.op for w in self.live.writers if isinstance(w, ProducedBy)}
        self._wbit = {op: i for i, op in enumerate(sorted(writers))}
        reach: dict[int, int] = {}
        recomputed: dict[int, int] = {}
        duplicated = self.live.duplicated
        anc: list[int] = []
        for op in self.fn.ops:
            acc = 0
            fusing = fuses_producers(op)
            for v in op.operands:
                acc |= recomputed[v] if fusing and v in recomputed else reach.get(v, 0)
            for v in op.region_uses:
                acc |= reach.get(v, 0)
            anc.append(acc)
            own = acc | (1 << self._wbit[op.index] if op.index in self._wbit else 0)
            for v in op.results:
                reach[v] = own
                if v in duplicated:
                    recomputed[v] = acc
        self._wanc = anc

    def writer_ancestor_bits(self) -> tuple[list[int], dict[int, int]]:
        """Per op, the bits of the result-producing ops it depends on, and each such op's
        bit (built on first use)."""
        if self._wanc is None:
            self._writer_ancestors()
        assert self._wanc is not None
        return self._wanc, self._wbit

    def data_precedes(self, x: int, y: int) -> bool:
        """Whether op ``y`` depends on op ``x`` (``x`` a reading or result-producing op): bit
        tests in the liveness's reading-op bitsets and the writers' (region orderings only)."""
        bit = self.live.read_bit.get(x)
        if bit is not None and self.live.ancestors[y] >> bit & 1:
            return True
        return self.writer_precedes(x, y)

    def _self_blocker(self, k: int, d: int, p: int, name_reader: bool = True) -> Blocker:
        """The blocker of ``d -> k`` where ``k``'s writer ``p`` itself cannot write in place
        (:meth:`_self_blocks`); where it reads ``d`` through a reduce fused into it, says so."""
        ops = self.fn.ops
        reader = ops[self.live.reader_of(p, d)] if name_reader else ops[p]
        if REDUCED_USE not in self.live.reads[d].positions.get(p, ()):
            return Blocker(k, reader, ops[p])
        first = self.live.fused_reader.get((p, d))
        fused = (ops[first].describe() if first is not None and ops[first].name == REDUCE
                 else "a reduce of the donor")
        return Blocker(k, reader, ops[p], detail=(
            f"XLA fuses {fused} into that kernel, which so reads the donor at other "
            "elements than the one it writes"))

    def _self_blocks(self, p: int, result: int, positions: set[int]) -> bool:
        """Whether op ``p``, reading the donor at operand ``positions``, cannot write its
        ``result`` into the donor's buffer: it reads the donor inside a region, or at a position
        it cannot overwrite for that result (an op that reads all operands at entry, like a
        loop taking its carries, needs the donor at one such position only)."""
        sem = self.live.semantics[p]
        allowed = sem.in_place.get(result, frozenset())
        if REGION_USE in positions or REDUCED_USE in positions:
            return True
        if FUSED_USE in positions:  # read through a fused elementwise chain: same element
            positions = positions - {FUSED_USE}
            if not positions:
                return not is_elementwise(self.fn.ops[p])
        return not (positions & allowed if sem.entry_reads else positions <= allowed)

    def _before(self, reader: int, writer: int | None) -> bool:
        if self.kind == "program":
            return writer is not None and reader < writer
        if writer is None or reader in self.fragile:
            return False
        return reader in self.live.read_bit and self.live.depends(reader, writer)


def _augment(
    start: int,
    edges: Mapping[int, list[int]],
    match_res: dict[int, int],
    match_donor: dict[int, int],
    dead: set[int] | None = None,
) -> bool:
    """Breadth-first search for a shortest augmenting path from free donor ``start``.

    ``dead`` (kept across calls): results a failed search reached. Every alternating path
    from them stays among them and ends at no free result, and augmenting elsewhere never
    changes their owners, so later searches skip them and find the same path faster."""
    parent: dict[int, tuple[int, int | None]] = {}
    # parent[result] = (donor reaching it, previous result of that donor)
    queue: deque[int] = deque([start])
    seen_donors = {start}
    while queue:
        d = queue.popleft()
        for k in edges[d]:
            if k in parent or (dead and k in dead):
                continue
            parent[k] = (d, match_donor.get(d))
            owner = match_res.get(k)
            if owner is None:
                # Flip the path ending at free result k.
                while True:
                    donor, _ = parent[k]
                    prev = match_donor.get(donor)
                    match_donor[donor] = k
                    match_res[k] = donor
                    if donor == start:
                        return True
                    assert prev is not None
                    k = prev
            if owner not in seen_donors:
                seen_donors.add(owner)
                queue.append(owner)
    if dead is not None:
        dead.update(parent)
    return False


class LazyEdges(Mapping[int, list[int]]):
    """The safe results of each donor in preference order (the result JAX or the input chose,
    then result order), found only when the matching asks: with JAX's pairing mostly safe,
    a large train step costs one check per donor instead of donors x results, and a donor's
    whole list comes from :meth:`PairChecker.safe_produced` (the writers that depend on its
    last read) rather than from a check of every candidate."""

    def __init__(self, checker: PairChecker, candidates: list[int],
                 preferred: dict[int, int]) -> None:
        self.checker = checker
        self.candidates = candidates
        self.preferred = preferred
        self.full: dict[int, list[int]] = {}
        """Donor -> its safe candidates, preferred first."""
        self.safe: dict[int, list[int]] = {}
        """Donor -> its safe candidates in result order (blockers are built only for
        verdicts, from the other candidates)."""
        self._single: dict[tuple[int, int], bool] = {}
        self._order: dict[int, int] = {k: i for i, k in enumerate(candidates)}
        self._split: tuple[dict[int, list[tuple[int, int]]], list[int], int] | None = None

    def _writers(self) -> tuple[dict[int, list[tuple[int, int]]], list[int], int]:
        """The candidates :meth:`PairChecker.safe_produced` decides (writer op -> ``(result,
        result position)``), the others, and the last writer op."""
        if self._split is None:
            live = self.checker.live
            special = self.checker.special
            by_op: dict[int, list[tuple[int, int]]] = {}
            other: list[int] = []
            for k in self.candidates:
                w = live.writers[k]
                if type(w) is ProducedBy and w.op not in special:
                    by_op.setdefault(w.op, []).append((k, w.result))
                else:
                    other.append(k)
            self._split = (by_op, other, max(by_op, default=-1))
        return self._split

    def __getitem__(self, d: int) -> list[int]:
        if d not in self.full:
            self._scan(d)
        return self.full[d]

    def safe_of(self, d: int) -> list[int]:
        """``d``'s safe candidates in result order."""
        if d not in self.full:
            self._scan(d)
        return self.safe[d]

    def _scan(self, d: int) -> None:
        """Store ``d``'s safe candidates (result order, and preferred first)."""
        checker = self.checker
        if checker.fast(d):
            by_op, other, bound = self._writers()
            found = checker.safe_produced(d, by_op, bound)
            found.extend(k for k in other if checker.is_safe(d, k))
            safe = sorted(found, key=self._order.__getitem__)
        else:
            safe = [k for k in self.candidates if checker.is_safe(d, k)]
        self.safe[d] = safe
        full = list(safe)
        pref = self.preferred.get(d)
        if pref in full:
            full.remove(pref)
            full.insert(0, pref)
        self.full[d] = full

    def __iter__(self) -> Iterator[int]:
        return iter(self.full)

    def __len__(self) -> int:
        return len(self.full)

    def first_free(self, d: int, taken: Container[int]) -> int | None:
        """The first candidate in result order that is not ``taken`` and safe for ``d``;
        ``d``'s lists are stored on the way (the matching asks next when there is none)."""
        checker = self.checker
        if d not in self.full and not checker.fast(d):
            # Check only what is free, in result order, and stop at the first safe one.
            for k in self.candidates:
                if k not in taken and self.is_edge(d, k):
                    return k
        self[d]
        return next((k for k in self.safe[d] if k not in taken), None)

    def ban(self, d: int, k: int) -> None:
        """Drop the pair ``d -> k`` (the checker has banned it): the lists stay those a fresh
        scan would build."""
        self._single[d, k] = False
        if d in self.full and k in self.full[d]:
            self.full[d].remove(k)
            self.safe[d].remove(k)

    def is_edge(self, d: int, k: int) -> bool:
        if d in self.full:
            return k in self.full[d]
        if (d, k) not in self._single:
            self._single[d, k] = k in self._order and self.checker.is_safe(d, k)
        return self._single[d, k]


def max_matching(
    donors: list[int],
    edges: Mapping[int, list[int]],
    preferred: dict[int, int],
    is_edge: Callable[[int, int], bool] | None = None,
) -> dict[int, int]:
    """A maximum matching of ``donors`` to results over ``edges`` (lists in preference order),
    seeded with the ``preferred`` pairs that are edges; deterministic. ``is_edge`` answers
    single-pair questions without building a donor's whole list."""
    match_donor: dict[int, int] = {}
    match_res: dict[int, int] = {}
    for d in donors:
        k = preferred.get(d)
        edge = is_edge(d, k) if is_edge is not None and k is not None else k in edges[d]
        if k is not None and edge and k not in match_res:
            match_donor[d], match_res[k] = k, d
    for d in donors:
        if d in match_donor:
            continue
        if isinstance(edges, LazyEdges):
            # Same choice as scanning edges[d] (its preferred result, if an edge, is taken by
            # now), without checking every candidate of the donor.
            free = edges.first_free(d, match_res)
        else:
            free = next((k for k in edges[d] if k not in match_res), None)
        if free is not None:
            match_donor[d], match_res[free] = free, d
    dead: set[int] = set()
    for d in donors:
        if d not in match_donor:
            _augment(d, edges, match_res, match_donor, dead)
    return match_donor


def plan_donation(
    fn: FunctionModel,
    ordering: Ordering = "dataflow",
    keep_existing_aliases: bool = False,
    fusion_safe: bool = False,
) -> DonationPlan:
    """Pair ``fn``'s donors with its results; see the module docstring for the rules.

    With ``keep_existing_aliases`` the ``tf.aliasing_output`` pairs of the input are kept as
    they are and only checked: a mistyped or unsafe one raises :class:`DonationError`.
    With ``fusion_safe`` a pair must also survive a backend that fuses the result's producers
    into the kernel writing the donor in place (IREE): see :mod:`.fusion`.
    """
    validate_function(fn)
    model = ordering_model(ordering)
    live = Liveness(fn, fusion_duplication=model.xla)
    checker = PairChecker(fn, live, ordering, fusion=fusion_safe)
    jax_pairs = jax_greedy_pairing(fn)
    existing = {
        a.index: a.donation.alias_index
        for a in fn.donors
        if a.donation.kind is DonationKind.ALIASING_OUTPUT and a.donation.alias_index is not None
    }
    preferred = {**(existing or jax_pairs), **_overwriting_pairs(fn, live)}

    fixed: dict[int, int] = {}
    if keep_existing_aliases:
        for d, k in existing.items():
            _check_fixed_pair(fn, checker, d, k)
            fixed[d] = k
    checker.fixed = frozenset(fixed)

    classes: dict[object, list[int]] = {}
    for arg in fn.donors:
        if arg.index not in fixed:
            classes.setdefault(compat_key(arg), []).append(arg.index)
    taken = set(fixed.values())
    results_by_key: dict[object, list[int]] = {}
    for res in fn.results:
        if res.index not in taken:
            results_by_key.setdefault(compat_key(res), []).append(res.index)

    lazy = {key: LazyEdges(checker, results_by_key.get(key, []) if key is not None else [],
                           preferred)
            for key in classes}
    class_of = {d: key for key, donors in classes.items() for d in donors}
    matched: dict[object, dict[int, int]] = {}
    safe: dict[int, list[int]] = {}
    """Unpaired donor -> its safe candidates (result order): the others block it."""
    stale = set(classes)
    log = ConsistencyLog()
    rounds = 0
    while True:
        for key in stale:
            donors, edges = classes[key], lazy[key]
            matched[key] = max_matching(donors, edges, preferred, edges.is_edge)
            for d in donors:
                safe.pop(d, None)
                if d not in matched[key]:
                    edges[d]  # every candidate decided: the verdict needs them all
                    safe[d] = edges.safe[d]
        pairs = dict(fixed)
        for key in classes:
            pairs.update(matched[key])
        rejected = [dk for dk in consistent_pairs(checker, pairs, log)
                    if dk[0] not in fixed]
        if not rejected:
            if rounds:
                pairs = _augment_unpaired(checker, pairs, classes, lazy, safe)
            break
        # Match again without them: only the classes of the rejected donors change (the
        # matching of a class depends on its own edges only).
        checker.banned.update(rejected)
        for d, k in rejected:
            lazy[class_of[d]].ban(d, k)
        stale = {class_of[d] for d, _ in rejected}
        rounds += 1
        if rounds == EXACT_ROUNDS:
            pairs = _complete_consistently(checker, pairs, rejected, classes, lazy, safe)
            break

    open_results = {k for ks in results_by_key.values() for k in ks}
    verdicts = [
        _verdict(fn, live, checker, arg, pairs, safe.get(arg.index, []), results_by_key,
                 jax_pairs, open_results)
        for arg in fn.donors
    ]
    return DonationPlan(fn.name, dict(sorted(pairs.items())), verdicts, jax_pairs, ordering,
                        checker, rounds)


@dataclass
class ConsistencyLog:
    """:func:`consistent_pairs`'s decisions in donor order, kept between the planner's rounds:
    the decision for a pair depends on the earlier pairs only, so the rounds' common prefix of
    pairs is replayed, not searched again."""

    decisions: list[tuple[int, int, frozenset[int] | None]] = field(default_factory=list)
    """``(donor, result, edges)``: the sources of the control edges the pair added (empty:
    none needed), ``None``: rejected."""


class ControlEdges:
    """The orders a region ordering's accepted pairs need (control edges, source read -> the
    writers it must precede), which with data dependence form no cycle."""

    def __init__(self, checker: PairChecker) -> None:
        self.checker = checker
        self.by_source: dict[int, set[int]] = {}

    def needed(self, d: int, k: int) -> tuple[int, frozenset[int]]:
        """The writer of ``d -> k`` and the reads of ``d`` that need an edge into it (none:
        data dependence orders them, or the edges are accepted already)."""
        live = self.checker.live
        writer = live.writers[k]
        if not isinstance(writer, ProducedBy) or d not in live.reads:
            return -1, frozenset()
        p = writer.op
        ops = self.checker.fn.ops
        written = ops[p].results[writer.result]
        new = frozenset(u for u, at in live.reads[d].positions.items()
                        if u != p and not self.checker.data_precedes(u, p)
                        and not reads_only(ops[u], at, written))
        if all(p in self.by_source.get(u, ()) for u in new):
            return p, frozenset()
        return p, new

    def add(self, p: int, reads: frozenset[int]) -> None:
        for u in reads:
            self.by_source.setdefault(u, set()).add(p)

    def try_pair(self, d: int, k: int) -> frozenset[int] | None:
        """Accept ``d -> k`` if its edges close no cycle (returns the new edges' sources),
        else ``None``."""
        p, new = self.needed(d, k)
        if new:
            if _closes_cycle(self.checker, self.by_source, p, new):
                return None
            self.add(p, new)
        return new


def consistent_pairs(checker: PairChecker, pairs: Mapping[int, int],
                     log: ConsistencyLog | None = None) -> list[tuple[int, int]]:
    """The pairs (in donor order, the kept ones of :attr:`PairChecker.fixed` first) a region
    ordering cannot have together with the earlier ones: each pair needs every other read of its donor before its writer (a control edge
    where data dependence does not order them already); a pair whose edges would close a
    cycle through data dependence and the earlier pairs' edges keeps a copy. Nothing for
    other orderings (their pairs are safe one by one). ``log``: the previous call's
    decisions (updated), whose prefix for the same pairs is reused. The pairs kept are
    consistent as a set (their edges and data dependence form no cycle), whatever the order.

    The swap ``(a, b) -> (b * 2, a * 3)`` with ``a -> 0, b -> 1``: ``a * 3`` must run before
    ``b * 2`` overwrites ``a``, and ``b * 2`` before ``a * 3`` overwrites ``b``: ``b -> 1``
    is rejected. With ``b -> 1`` kept as given, ``a -> 0`` is the one rejected.
    """
    if checker.kind != "region":
        return []
    return _consistent(checker, pairs, log)[0]


def _consistent(checker: PairChecker, pairs: Mapping[int, int], log: ConsistencyLog | None
                ) -> tuple[list[tuple[int, int]], ControlEdges]:
    """:func:`consistent_pairs`, and the edges of the pairs it keeps."""
    graph = ControlEdges(checker)
    rejected: list[tuple[int, int]] = []
    decisions = log.decisions if log is not None else []
    order = sorted(pairs, key=lambda d: (d not in checker.fixed, d))
    replayed = 0
    for d, (logged_d, logged_k, edges) in zip(order, decisions, strict=False):
        if logged_d != d or logged_k != pairs[d]:
            break
        replayed += 1
        if edges is None:
            rejected.append((d, logged_k))
        elif edges:
            writer = checker.live.writers[logged_k]
            assert isinstance(writer, ProducedBy), "a pair with edges has a producing writer"
            graph.add(writer.op, edges)
    del decisions[replayed:]
    for d in order[replayed:]:
        k = pairs[d]
        edges = graph.try_pair(d, k)
        if edges is None:
            rejected.append((d, k))
        decisions.append((d, k, edges))
    return rejected, graph


def _closes_cycle(checker: PairChecker, by_source: dict[int, set[int]], p: int,
                  reads: frozenset[int]) -> bool:
    """Whether control edges ``u -> p`` (``u`` in ``reads``) close a cycle with data
    dependence and the accepted edges ``by_source``, which have none: every new edge enters
    ``p``, so a cycle is a path from ``p`` back to one of the ``reads``.

    Searched in waves: the writers reached last (first ``p`` alone) are one mask over the
    writer bits, so an op depends on one of them in one ``&`` with its writer-ancestor bits.
    The accepted sources that may depend on a wave are found by a forward walk over def-use
    edges from it (a superset, then the bit test decides; a train step's writers are its last
    ops, so the walk is short), or, when that walk grows past the number of sources, by
    looking at every source; a source's edges give the next wave (the writers they enter that
    were not reached yet)."""
    anc, bit = checker.writer_ancestor_bits()
    users = checker.live.users()
    reached = {p}
    frontier, mask = {p}, 1 << bit[p]
    triggered: set[int] = set()
    limit = 2 * len(by_source) + 16
    while True:
        if any(u in frontier or anc[u] & mask for u in reads):
            return True
        near = _reachable_sources(frontier, users, by_source, limit)
        targets: set[int] = set()
        for x in by_source if near is None else near:
            if x not in triggered and (x in frontier or anc[x] & mask):
                triggered.add(x)
                targets |= by_source[x]
        frontier = targets - reached
        if not frontier:
            return False
        reached |= frontier
        mask = 0
        for y in frontier:
            mask |= 1 << bit[y]


def _reachable_sources(start: set[int], users: list[list[int]], sources: Container[int],
                       limit: int) -> list[int] | None:
    """The ``sources`` among ``start`` and the ops a def-use path leads to from it; ``None``
    once more than ``limit`` ops are reached."""
    seen = set(start)
    found = [x for x in start if x in sources]
    stack = list(start)
    while stack:
        for w in users[stack.pop()]:
            if w not in seen:
                seen.add(w)
                if len(seen) > limit:
                    return None
                if w in sources:
                    found.append(w)
                stack.append(w)
    return found


EXACT_ROUNDS = 16
"""Rounds of re-matching after rejected pairs before the planner completes the plan greedily
(:func:`_complete_consistently`). Each round rejects the pairs that conflict with earlier
ones and matches their classes again, one conflict at a time: an Adam MLP step returning
``(v, m, params)`` needed 2,382 rounds at 30 layers (2.7 s) and minutes at 60; the real
models' ``linen_lm_reordered`` 455 (completed at 16: the same plan), every other real model
and catalogue program at most 10 (``tests/test_region_consistency.py`` checks both)."""

AUGMENT_TRIES = 16
"""Augmenting paths tried per donor a greedy completion left unpaired."""


class _Without(Mapping[int, list[int]]):
    """``edges`` without the pairs in ``banned``."""

    def __init__(self, edges: Mapping[int, list[int]], banned: set[tuple[int, int]]) -> None:
        self.edges, self.banned = edges, banned

    def __getitem__(self, d: int) -> list[int]:
        return [k for k in self.edges[d] if (d, k) not in self.banned]

    def __iter__(self) -> Iterator[int]:
        return iter(self.edges)

    def __len__(self) -> int:
        return len(self.edges)


def _complete_consistently(checker: PairChecker, pairs: dict[int, int],
                           rejected: list[tuple[int, int]], classes: dict[object, list[int]],
                           lazy: dict[object, LazyEdges], safe: dict[int, list[int]]
                           ) -> dict[int, int]:
    """A consistent plan built greedily, once the rounds of re-matching have not converged:
    the better of two completions by :func:`_greedy_completion`: one from no pairs, taking
    the safe pairs that need the fewest new control edges first; where it pairs fewer donors
    than the last round's matching, one from that matching without its rejected pairs (kept
    only if it pairs more). Each ends with consistent augmenting paths
    (:func:`_augment_consistently`). The winner's refused pairs are banned like rejected
    ones; ``safe`` is updated for the donors that stay unpaired.

    Measured on an Adam MLP step returning ``(v, m, params)`` (JAX pairs each parameter
    with an optimizer-state result, safe one by one, conflicting together): the rounds swap
    pairs one conflict at a time; the fewest-edges completion finds the natural pairing."""
    dropped = set(rejected)
    kept = {d: k for d, k in pairs.items() if (d, k) not in dropped}
    fixed = {d: k for d, k in pairs.items() if d in checker.fixed}
    best, banned = _greedy_completion(checker, fixed, classes, lazy, fewest_edges=True)
    if len(best) < len(pairs):  # the last matching, consistent or not, bounds every plan
        other = _greedy_completion(checker, kept, classes, lazy, fewest_edges=False)
        if len(other[0]) > len(best):
            best, banned = other
    checker.banned.update(banned)
    class_of = {d: key for key, donors in classes.items() for d in donors}
    for d, k in banned:
        lazy[class_of[d]].ban(d, k)
    for key, donors in classes.items():
        for d in donors:
            if d in best:
                safe.pop(d, None)
            else:
                safe[d] = lazy[key].safe_of(d)
    return best


def _greedy_completion(checker: PairChecker, start: dict[int, int],
                       classes: dict[object, list[int]], lazy: dict[object, LazyEdges],
                       fewest_edges: bool) -> tuple[dict[int, int], set[tuple[int, int]]]:
    """``start`` (consistent) with each other donor, in order, paired with its first free safe
    candidate (preference order) whose edges close no cycle; with ``fewest_edges`` the
    candidates of all donors are tried by the number of new control edges they need (a pair
    that needs none can close no cycle), so a donor never takes a result another donor could
    host with fewer edges (on a tie, the earliest writer first). Then consistent augmenting
    paths for those left; the pairs and the pairs refused."""
    graph = ControlEdges(checker)
    for d in sorted(start, key=lambda d: (d not in checker.fixed, d)):
        accepted = graph.try_pair(d, start[d])
        # the input's own aliases may conflict among themselves; they stay as given
        assert accepted is not None or d in checker.fixed, "the kept pairs are consistent"
    pairs = dict(start)
    banned: set[tuple[int, int]] = set()
    taken = set(pairs.values())

    def take(tries: list[tuple[int, int]]) -> None:
        for d, k in tries:
            if d in pairs or k in taken:
                continue
            if graph.try_pair(d, k) is not None:
                pairs[d] = k
                taken.add(k)
            else:
                banned.add((d, k))

    if not fewest_edges:  # per donor in preference order
        take([(d, k) for key, donors in classes.items() for d in donors if d not in pairs
              for k in lazy[key][d]])
    else:
        # By the number of control edges a pair needs, then the earliest writer: a donor's
        # buffer is reused soonest after its reads (an optimizer state's own update before
        # the parameter update that reads it); then donor and preference order. The pairs
        # that need none are those the dataflow rule accepts, found from the dependants of
        # each donor's last read instead of by trying every result; the donors left try the
        # results of their own readers, and then every result still free.
        late = len(checker.fn.ops)

        def cost(dk: tuple[int, int]) -> tuple[int, int]:
            p, new = graph.needed(*dk)
            return len(new), p if p >= 0 else late

        flow = PairChecker(checker.fn, checker.live, "xla-cpu")
        free_of_edges: list[tuple[int, int]] = []
        for key, donors in classes.items():
            flow_edges = LazyEdges(flow, lazy[key].candidates, {})
            free_of_edges.extend(
                (d, k) for d in donors if d not in pairs for k in flow_edges.safe_of(d)
                if lazy[key].is_edge(d, k) and not graph.needed(d, k)[1])
        free_of_edges.sort(key=cost)
        take(free_of_edges)
        # Then the results of ops that read the donor themselves (a parameter's own update):
        # the other reads are the edges such a pair needs.
        results_of: dict[int, list[int]] = {}
        for k, w in enumerate(checker.live.writers):
            if isinstance(w, ProducedBy):
                results_of.setdefault(w.op, []).append(k)
        readers_results: list[tuple[int, int]] = []
        for key, donors in classes.items():
            edges = lazy[key]
            for d in donors:
                if d in pairs or d not in checker.live.reads:
                    continue
                readers_results.extend(
                    (d, k) for u in sorted(checker.live.reads[d].positions)
                    for k in results_of.get(u, ()) if k not in taken and edges.is_edge(d, k))
        readers_results.sort(key=cost)
        take(readers_results)
        rest: list[tuple[int, int]] = []
        for key, donors in classes.items():
            edges = lazy[key]
            open_results = [k for k in edges.candidates if k not in taken]
            rest.extend((d, k) for d in donors if d not in pairs for k in open_results
                        if edges.is_edge(d, k))
        rest.sort(key=cost)
        take(rest)
    for key, donors in classes.items():
        view = _Without(lazy[key], banned)
        for d in donors:
            if d not in pairs:
                pairs = _augment_consistently(checker, pairs, d, donors, view, banned)
    return pairs, banned


AUGMENT_CLASS_LIMIT = 64
"""Largest class of donors whose pairs :func:`_augment_unpaired` re-examines (every pair of
the class is checked alone)."""


def _augment_unpaired(checker: PairChecker, pairs: dict[int, int],
                      classes: dict[object, list[int]], lazy: dict[object, LazyEdges],
                      safe: dict[int, list[int]]) -> dict[int, int]:
    """After the rounds converged (some pairs were rejected on the way), each donor left
    unpaired tries consistent augmenting paths (:func:`_augment_consistently`) over the pairs
    that are safe alone, the rejected ones included: a pair accepted for an earlier donor may
    move to make room. ``(x, y) -> (atan2(x, y), power(x, y), sqrt(x))``: the rounds end at
    ``{x: 0}`` (every result ``y`` could host closes a cycle with it); the path
    ``y -> 0, x -> 2`` is consistent. Classes of more than :data:`AUGMENT_CLASS_LIMIT` donors
    are left as the rounds made them."""
    for key, donors in classes.items():
        if all(d in pairs for d in donors) or len(donors) > AUGMENT_CLASS_LIMIT:
            continue
        edges = {d: [k for k in lazy[key].candidates if _safe_alone(checker, d, k)]
                 for d in donors}
        for d in donors:
            if d not in pairs and edges[d]:
                pairs = _augment_by_search(checker, pairs, d, donors, edges)
        for d in donors:
            if d in pairs:
                safe.pop(d, None)
                for k in edges[d]:  # a pair the rounds banned may be consistent now
                    checker.banned.discard((d, k))
            else:
                safe[d] = lazy[key].safe_of(d)
    return pairs


AUGMENT_SEARCH_LIMIT = 256
"""Augmenting paths :func:`_augment_by_search` tries per unpaired donor."""


def _augment_by_search(checker: PairChecker, pairs: dict[int, int], d: int, donors: list[int],
                       edges: Mapping[int, list[int]]) -> dict[int, int]:
    """``pairs`` with free donor ``d`` paired along the first augmenting path (depth first,
    every simple path, at most :data:`AUGMENT_SEARCH_LIMIT`) whose pairs are consistent
    together (:func:`consistent_pairs`); ``pairs`` itself when none is."""
    owner = {k: x for x, k in pairs.items() if x in donors}

    def paths(x: int, seen: frozenset[int]) -> Iterator[list[tuple[int, int]]]:
        for k in edges[x]:
            if k in seen:
                continue
            holder = owner.get(k)
            if holder is None:
                yield [(x, k)]
            else:
                for rest in paths(holder, seen | {k}):
                    yield [(x, k), *rest]

    for tried, path in enumerate(paths(d, frozenset())):
        if tried >= AUGMENT_SEARCH_LIMIT:
            break
        trial = {**pairs, **dict(path)}
        if not _consistent(checker, trial, None)[0]:
            return trial
    return pairs


def _safe_alone(checker: PairChecker, d: int, k: int) -> bool:
    """``d -> k`` is safe by itself (the rule without the rounds' bans)."""
    if checker._ordering_blocker(d, k) is not None:  # pyright: ignore[reportPrivateUsage]
        return False
    return not checker.fusion or fusion_safe_pair(checker.fn, checker.live, d, k)


def _augment_consistently(checker: PairChecker, pairs: dict[int, int], d: int,
                          donors: list[int], edges: Mapping[int, list[int]],
                          banned: set[tuple[int, int]]) -> dict[int, int]:
    """``pairs`` with free donor ``d`` paired along a shortest augmenting path of its class
    whose pairs stay consistent (:func:`consistent_pairs`), tried :data:`AUGMENT_TRIES`
    times; the new pairs of a path that is not are added to ``banned`` (those rejected, else
    all) and left out of ``edges``."""
    for _ in range(AUGMENT_TRIES):
        match_donor = {x: pairs[x] for x in donors if x in pairs}
        match_res = {k: x for x, k in match_donor.items()}
        if not _augment(d, edges, match_res, match_donor):
            break
        changed = {(x, k) for x, k in match_donor.items() if pairs.get(x) != k}
        trial = {**pairs, **match_donor}
        rejected = _consistent(checker, trial, None)[0]
        if not rejected:
            return trial
        banned.update([dk for dk in rejected if dk in changed] or changed)
    return pairs


def predict_pairing(fn: FunctionModel, ordering: Ordering, pairs: Mapping[int, int]
                    ) -> dict[int, str]:
    """What XLA does with the given ``tf.aliasing_output`` pairs (donor -> result), per donor
    of ``fn``: ``"copy-free"`` where the pair is safe under ``ordering`` (and, for a region
    ordering, consistent with the earlier pairs), ``"copied"`` where XLA keeps the alias but
    inserts a copy, ``"not donated"`` for a donor without a pair (the values of
    :class:`jax_use_donated.dropin.xla_truth.Outcome`)."""
    model = ordering_model(ordering)
    checker = PairChecker(fn, Liveness(fn, fusion_duplication=model.xla), ordering)
    safe = {d: k for d, k in pairs.items()
            if d < len(fn.args) and k < len(fn.results) and checker.is_safe(d, k)}
    for d, _ in consistent_pairs(checker, safe):
        del safe[d]
    return {a.index: ("not donated" if a.index not in pairs
                      else "copy-free" if a.index in safe else "copied")
            for a in fn.donors}


def _overwriting_pairs(fn: FunctionModel, live: Liveness) -> dict[int, int]:
    """Donor -> the result of an op that overwrites the donor in place (``semantics
    .overwrites``): XLA copies an operand such an op may not overwrite, so of two safe pairs
    for that donor this one also saves the copy.

    ``%r = stablehlo.dynamic_update_slice %arg0, ...; return %x, %r`` with ``%arg0`` donated
    and both results of its type: ``%arg0 -> 1`` is preferred over JAX's ``%arg0 -> 0``.
    """
    pairs: dict[int, int] = {}
    for res in fn.results:
        writer = live.writers[res.index]
        if not isinstance(writer, ProducedBy):
            continue
        sem = live.semantics[writer.op]
        if not sem.overwrites:
            continue
        op = fn.ops[writer.op]
        for pos in sorted(sem.in_place.get(writer.result, ())):
            if pos >= len(op.operands):
                continue
            for d in sorted(live.roots_of(op.operands[pos])):
                if d not in pairs and compat_key(fn.args[d]) == compat_key(res):
                    pairs[d] = res.index
    return pairs


def _check_fixed_pair(fn: FunctionModel, checker: PairChecker, d: int, k: int) -> None:
    arg, res = fn.args[d], fn.results[k]
    label = arg_label(d, arg.loc.name)
    if compat_key(arg) != compat_key(res):
        raise DonationError(
            f"argument {label} of @{fn.name} aliases result {k}, but {arg.type_text}"
            f"{_placement_text(arg)} cannot hold {res.type_text}{_placement_text(res)}",
            fn.handle,
        )
    b = checker.blocker(d, k)
    if b is not None:
        raise DonationError(
            f"argument {label} of @{fn.name} aliases result {k}, which is unsafe: "
            + _blocker_text(b),
            b.reader.handle if b.reader is not None else fn.handle,
        )


def _placement_text(t: Arg | Result) -> str:
    p = t.placement
    parts = [f"{n}={v}" for n, v in (("sharding", p.sharding), ("memory_kind", p.memory_kind),
                                       ("layout", p.layout)) if v is not None]
    return f" [{', '.join(parts)}]" if parts else ""


def _blocker_text(b: Blocker) -> str:
    if b.copied_argument is not None:
        return (f"result {b.result} returns argument %arg{b.copied_argument} unchanged, which "
                "XLA copies into a new buffer anyway (into a donor's buffer it would copy it "
                "twice)")
    if b.detail or (b.writer is not None and b.writer.name == CASE and b.reader is None
                    and not (b.free_for is not None or b.returned_in is not None)):
        writer = b.writer.describe() if b.writer is not None else "its producer"
        text = f"result {b.result} is produced by {writer}"
        if b.reader is not None and b.reader is not b.writer:
            text += f" while {b.reader.describe()} still reads it"
        return text + (f": {b.detail}" if b.detail else "")
    if b.in_place_of is not None:
        writer = b.writer.describe() if b.writer is not None else "its producer"
        return (f"result {b.result} is produced by {writer}, which writes it in place into "
                f"argument %arg{b.in_place_of}'s buffer, so XLA would copy that argument into "
                "this one")
    if b.constant:
        return (f"result {b.result} is a constant, which XLA copies into the output buffer, "
                "so it cannot be computed in place")
    if b.cycle:
        writer = b.writer.describe() if b.writer is not None else "its producer"
        return (f"result {b.result} is produced by {writer}, which would have to run after "
                "the reads of this donor and before reads that other pairs order first "
                "(a cycle of reads and writes)")
    if b.fused:
        writer = b.writer.describe() if b.writer is not None else "its producer"
        return (f"result {b.result} is produced by {writer}, and a fusing backend would read "
                "it at other positions inside the kernel that overwrites it")
    if b.free_for is not None:
        return (f"result {b.result} returns donated %arg{b.free_for} unchanged, which hosts "
                "it without a copy")
    if b.returned_in is not None:
        return f"it is returned as result {b.returned_in}, so its value must survive"
    if b.reader is not None and b.reader is b.writer:
        return (f"result {b.result} is produced by {b.reader.describe()}, which reads it "
                "and cannot write in place")
    reader = b.reader.describe() if b.reader is not None else "a read"
    if b.writer is None:
        return f"{reader} reads it, and result {b.result} is a copy that may run before that read"
    writer = b.writer.describe()
    if reader == writer:
        reader = f"another {reader}"  # two ops on one source line
    return f"result {b.result} is produced by {writer} while {reader} still reads it"


def _verdict(
    fn: FunctionModel,
    live: Liveness,
    checker: PairChecker,
    arg: Arg,
    pairs: dict[int, int],
    safe: list[int],
    results_by_key: dict[object, list[int]],
    jax_pairs: dict[int, int],
    open_results: Container[int] = range(1 << 62),
) -> DonorVerdict:
    """``safe``: ``arg``'s safe candidates in result order (for an unpaired donor);
    ``open_results``: the results not held by a kept pair (``keep_existing_aliases``)."""
    reads = live.reads[arg.index]
    unused = not reads.positions and not reads.returned_in
    verdict = DonorVerdict(arg, pairs.get(arg.index), Reason.PAIRED, jax_pairs.get(arg.index),
                           unused=unused)
    name = f"'{arg.loc.name}' " if arg.loc.name else ""
    label = f"donated argument {name}(%arg{arg.index}: {arg.type_text})"
    if verdict.result is not None:
        verdict.message = f"{label} hosts result {verdict.result}"
        return verdict
    key = compat_key(arg)
    candidates = results_by_key.get(key, []) if key is not None else []
    unused_note = "; it is never read" if unused else ""
    if not candidates:
        verdict.reason = Reason.NO_COMPATIBLE_RESULT
        verdict.message = (f"{label} is not reused: no result has type {arg.type_text}"
                           f"{' with the same placement' if _placement_text(arg) else ''}"
                           f"{unused_note}")
    elif not safe:
        returned = None  # every candidate blocks it
        if reads.returned_in:
            returned = next((b for b in map(lambda k: checker.blocker(arg.index, k), candidates)
                             if b is not None and b.returned_in is not None), None)
        if returned is not None:
            verdict.reason = Reason.RETURNED
            verdict.blockers = [returned]
            verdict.message = f"{label} is not reused: " + _blocker_text(returned)
        else:
            verdict.reason = Reason.READ_AFTER_WRITE
            # Name the result JAX would have given it, when there is one: the pairing the user
            # expects and the one XLA would have had to copy for.
            jax_k = verdict.jax_result
            k = (jax_k if jax_k is not None and jax_k in open_results
                 and compat_key(fn.results[jax_k]) == key else candidates[0])
            shown = checker.blocker(arg.index, k)
            assert shown is not None
            verdict.blockers = [shown]
            verdict.message = (f"{label} is not reused: every result of its type is written "
                               "before its last read; " + _blocker_text(shown))
    else:
        owner = {k: d for d, k in pairs.items()}
        verdict.rivals = [(owner[k], k) for k in safe if k in owner]
        verdict.reason = Reason.OUTNUMBERED
        held = ", ".join(f"%arg{d} hosts result {k}" for d, k in verdict.rivals)
        verdict.message = (f"{label} is not reused: every result it could host is taken by "
                           f"another donor ({held}){unused_note}")
    return verdict
