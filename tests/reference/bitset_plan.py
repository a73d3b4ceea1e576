"""The bitset planner before issue 15 (a reference for the differential tests only).

The donation plan: which donor hosts which result, and why every other donor cannot.

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

from jax_use_donated.analysis.errors import DonationError, arg_label, validate_function
from jax_use_donated.analysis.fusion import fusion_safe as fusion_safe_pair
from jax_use_donated.analysis.model import Arg, DonationKind, FunctionModel, Op, Placement, Result
from jax_use_donated.analysis.orderings import Ordering, ordering_model
from jax_use_donated.analysis.semantics import FUSING_CONSUMERS, is_elementwise
from tests.reference.bitset_liveness import (
    FUSED_USE,
    REGION_USE,
    CopyAfter,
    Liveness,
    ProducedBy,
    ViewOfArg,
)


class Reason(Enum):
    PAIRED = "paired"
    NO_COMPATIBLE_RESULT = "no-compatible-result"
    READ_AFTER_WRITE = "read-after-write"
    RETURNED = "returned"
    OUTNUMBERED = "outnumbered"


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
    copied_argument: int | None = None
    cycle: bool = False
    """Safe alone under a region ordering, but the read-before-write orders of the other
    pairs would form a cycle with this one's (:func:`consistent_pairs`)."""


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


CHEAP_TO_DUPLICATE_EXCLUDED: frozenset[str] = frozenset(
    f"stablehlo.{name}"
    for name in ["divide", "exponential", "exponential_minus_one", "log", "log_plus_one", "power", "rsqrt", "sqrt", "cbrt", "tanh", "logistic", "atan2", "cosine", "sine", "tan", "remainder"]
)
"""Elementwise ops XLA counts as expensive and does not duplicate into several fusions."""


def fusion_fragile_bits(fn: FunctionModel, live: Liveness) -> int:
    """Ancestor bits of reading ops whose ordering XLA may undo (dataflow ordering only).

    A cheap elementwise op whose value is both returned and used by another op is duplicated
    by XLA's fusion into that consumer, which then reads the donor itself: the returned copy's
    read is no longer an ancestor of the consumer. Measured: ``out = a * 2; return out,
    out + a`` with ``a`` aliased to the second result compiles to a copy of ``a``.
    """
    returned = {r.value for r in fn.results}
    direct = {u for reads in live.reads.values() for u, pos in reads.positions.items()
              if pos - {FUSED_USE}}
    candidates = [
        u for u in live.read_bit
        if u in direct and is_elementwise(fn.ops[u]) and fn.ops[u].name not in CHEAP_TO_DUPLICATE_EXCLUDED
        and returned.intersection(fn.ops[u].results)
    ]
    if not candidates:
        return 0
    # Uses follow definitions: scan only the ops after the first candidate.
    targets = {v for u in candidates for v in fn.ops[u].results}
    used: set[int] = set()
    for op in fn.ops[min(candidates) + 1:]:
        used.update(targets.intersection(op.operands))
        if op.region_uses:
            used.update(targets.intersection(op.region_uses))
    bits = 0
    for u in candidates:
        if used.intersection(fn.ops[u].results):
            bits |= 1 << live.read_bit[u]
    return bits


class PairChecker:
    """Decides whether one donor can host one result without a copy."""

    def __init__(self, fn: FunctionModel, liveness: Liveness, ordering: Ordering,
                 fusion: bool = False) -> None:
        self.fn = fn
        self.live = liveness
        self.ordering = ordering
        self.model = ordering_model(ordering)
        self.kind = self.model.kind
        self.fusion = fusion
        """Also require :func:`.fusion.fusion_safe` (backends with forced in-place results)."""
        self.banned: set[tuple[int, int]] = set()
        """Pairs a region ordering cannot have with the others (:func:`consistent_pairs`)."""
        self._wanc: list[int] | None = None
        self._wbit: dict[int, int] = {}
        self.bit_op: list[int] = sorted(liveness.read_bit, key=liveness.read_bit.__getitem__)
        """Reading op of each ancestor bit (bits are handed out in op order)."""
        self.fragile = fusion_fragile_bits(fn, liveness) if self.kind == "dataflow" else 0
        self.special: frozenset[int] = frozenset(
            i for i, (op, sem) in enumerate(zip(fn.ops, liveness.semantics, strict=True))
            if self.model.xla and (sem.overwrites or op.name == "stablehlo.constant"))
        """Writers the bitset fast path must not decide (constants, in-place writers)."""
        self.anc: list[int] = (liveness.ancestors if not self.fragile
                               else [a & ~self.fragile for a in liveness.ancestors])
        """Ancestor bits of each op that XLA keeps ordered (see :func:`fusion_fragile_bits`)."""

    def is_safe(self, d: int, k: int) -> bool:
        """``blocker(d, k) is None``, with a bitset fast path for the common case (dataflow
        ordering, a result produced by an op, a donor not returned)."""
        reads = self.live.reads[d]
        writer = self.live.writers[k]
        if (self.kind == "dataflow" and not self.fusion and not reads.returned_in
                and not self.banned and type(writer) is ProducedBy
                and writer.op not in self.special):
            p = writer.op
            pbit = self.live.read_bit.get(p)
            if pbit is None or not reads.bits >> pbit & 1:
                return not reads.bits & ~self.anc[p]
        return self.blocker(d, k) is None

    def blocker(self, d: int, k: int) -> Blocker | None:
        """``None`` when ``d -> k`` is safe, else what blocks it."""
        b = self._ordering_blocker(d, k)
        if b is None and (d, k) in self.banned:
            writer = self.live.writers[k]
            op = self.fn.ops[writer.op] if isinstance(writer, ProducedBy) else None
            return Blocker(k, None, op, cycle=True)
        if b is None and self.fusion and not fusion_safe_pair(self.fn, self.live, d, k):  # pyright: ignore[reportArgumentType]  (duck-typed)
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
        if other_returns or (reads.returned_in and not isinstance(writer, ViewOfArg)):
            slot = other_returns[0] if other_returns else reads.returned_in[0]
            return Blocker(k, None, None, returned_in=slot)
        ops = self.fn.ops
        if isinstance(writer, ProducedBy):
            p = writer.op
            if self.model.xla and ops[p].name == "stablehlo.constant" and reads.positions:
                return Blocker(k, None, ops[p], constant=True)
            other = self._overwritten_argument(p, writer.result)
            if (self.model.xla and other is not None and other != d and other in self.live.reads
                    and p not in reads.positions):
                return Blocker(k, None, ops[p], in_place_of=other)
            if self.kind == "dataflow":
                return self._produced_blocker_bits(d, k, p, writer.result)
            if self.kind == "region":
                return self._produced_blocker_region(d, k, p, writer.result)
            for u in sorted(reads.positions):
                if u == p:
                    if self._self_blocks(p, writer.result, reads.positions[u]):
                        return Blocker(k, ops[u], ops[p])
                elif not self._before(u, p):
                    return Blocker(k, ops[u], ops[p])
            return None
        # A copy: placed after `after` (dataflow), or at the return (program order).
        after = writer.after if isinstance(writer, CopyAfter) else None
        if self.model.xla:
            kind, index, _ = self.live.source(self.fn.results[k].value)
            if kind == "arg" and index not in self.live.reads:
                return Blocker(k, None, None, copied_argument=index)
        if self.kind != "dataflow":
            return None  # the copy can go after every read (nothing reads a returned copy)
        for u in sorted(reads.positions):
            if u != after and not self._before(u, after):
                return Blocker(k, ops[u], ops[after] if after is not None else None)
        return None

    def _produced_blocker_bits(self, d: int, k: int, p: int, result: int) -> Blocker | None:
        """The ``ProducedBy`` case under dataflow ordering with one bitset test (the same answer
        as the per-read loop: the first blocking read in op order)."""
        reads = self.live.reads[d]
        pbit = self.live.read_bit.get(p)
        own = 1 << pbit if pbit is not None else 0
        bad = reads.bits & ~self.anc[p] & ~own
        self_blocks = False
        if reads.bits & own:
            self_blocks = self._self_blocks(p, result, reads.positions[p])
        if not bad and not self_blocks:
            return None
        ops = self.fn.ops
        first = self.bit_op[(bad & -bad).bit_length() - 1] if bad else None
        if self_blocks and (first is None or p < first):
            return Blocker(k, ops[p], ops[p])
        assert first is not None
        return Blocker(k, ops[first], ops[p])

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
                    return Blocker(k, ops[u], ops[p])
            elif self.writer_precedes(p, u):
                return Blocker(k, ops[u], ops[p])
        return None

    def writer_precedes(self, p: int, u: int) -> bool:
        """Whether op ``u`` depends on result-producing op ``p`` (transitively)."""
        if self._wanc is None:
            self._writer_ancestors()
        assert self._wanc is not None
        bit = self._wbit.get(p)
        return bit is not None and bool(self._wanc[u] >> bit & 1)

    def _writer_ancestors(self) -> None:
        """Per op, bits of the result-producing ops it depends on (one forward walk)."""
        writers = {w.op for w in self.live.writers if isinstance(w, ProducedBy)}
        self._wbit = {op: i for i, op in enumerate(sorted(writers))}
        reach: dict[int, int] = {}
        recomputed: dict[int, int] = {}  # duplicated value -> its producer's ancestors
        duplicated = self.live.duplicated
        anc: list[int] = []
        for op in self.fn.ops:
            acc = 0
            fusing = op.name in FUSING_CONSUMERS
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

    def data_precedes(self, x: int, y: int) -> bool:
        """Whether op ``y`` depends on op ``x`` (``x`` a reading or result-producing op)."""
        bit = self.live.read_bit.get(x)
        if bit is not None and self.live.ancestors[y] >> bit & 1:
            return True
        return x in self._wbit_map() and self.writer_precedes(x, y)

    def _wbit_map(self) -> dict[int, int]:
        if self._wanc is None:
            self._writer_ancestors()
        return self._wbit

    def _self_blocks(self, p: int, result: int, positions: set[int]) -> bool:
        """Whether op ``p``, reading the donor at operand ``positions``, cannot write its
        ``result`` into the donor's buffer: it reads the donor inside a region, or at a position
        it cannot overwrite for that result (an op that reads all operands at entry, like a
        loop taking its carries, needs the donor at one such position only)."""
        sem = self.live.semantics[p]
        allowed = sem.in_place.get(result, frozenset())
        if REGION_USE in positions:
            return True
        if FUSED_USE in positions:  # read through a fused elementwise chain: same element
            positions = positions - {FUSED_USE}
            if not positions:
                return not is_elementwise(self.fn.ops[p])
        return not (positions & allowed if sem.entry_reads else positions <= allowed)

    def _before(self, reader: int, writer: int | None) -> bool:
        if self.kind == "program":
            return writer is not None and reader < writer
        if writer is None:
            return False
        bit = self.live.read_bit.get(reader)
        return bit is not None and bool(self.anc[writer] >> bit & 1)


def _augment(
    start: int,
    edges: Mapping[int, list[int]],
    match_res: dict[int, int],
    match_donor: dict[int, int],
) -> bool:
    """Breadth-first search for a shortest augmenting path from free donor ``start``."""
    parent: dict[int, tuple[int, int | None]] = {}
    # parent[result] = (donor reaching it, previous result of that donor)
    queue: deque[int] = deque([start])
    seen_donors = {start}
    while queue:
        d = queue.popleft()
        for k in edges[d]:
            if k in parent:
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
    return False


class LazyEdges(Mapping[int, list[int]]):
    """The safe results of each donor in preference order (the result JAX or the input chose,
    then result order), checked only when the matching asks: with JAX's pairing mostly safe,
    a large train step costs one check per donor instead of donors x results."""

    def __init__(self, checker: PairChecker, candidates: list[int],
                 preferred: dict[int, int]) -> None:
        self.checker = checker
        self.candidates = candidates
        self.preferred = preferred
        self.full: dict[int, list[int]] = {}
        self.blocked: dict[int, list[int]] = {}
        """Donor -> its unsafe candidates (blockers are built only for verdicts)."""
        self._single: dict[tuple[int, int], bool] = {}
        self._facts: list[tuple[int, int | None, int | None]] | None = None

    def _writer_facts(self) -> list[tuple[int, int | None, int | None]]:
        """Per candidate: ``(result, ancestor bits of its producing op, that op's read bit)``;
        ``(result, None, None)`` when a copy or an argument fills the result."""
        if self._facts is None:
            live = self.checker.live
            facts: list[tuple[int, int | None, int | None]] = []
            for k in self.candidates:
                w = live.writers[k]
                if type(w) is ProducedBy and w.op not in self.checker.special:
                    facts.append((k, self.checker.anc[w.op], live.read_bit.get(w.op)))
                else:
                    facts.append((k, None, None))
            self._facts = facts
        return self._facts

    def __getitem__(self, d: int) -> list[int]:
        if d not in self.full:
            self._scan(d)
        return self.full[d]

    def _scan(self, d: int, taken: Container[int] | None = None) -> int | None:
        """Check ``d`` against every candidate in result order and store its safe and blocked
        lists; with ``taken``, stop early at the first safe candidate not taken and return it
        (then nothing is stored)."""
        safe: list[int] = []
        blocked: list[int] = []
        checker = self.checker
        reads = checker.live.reads[d]
        bits = reads.bits
        fast = (checker.kind == "dataflow" and not checker.fusion and not reads.returned_in
                and not checker.banned)
        for k, anc, pbit in self._writer_facts():
            # Inlined is_safe / _produced_blocker_bits: the hot loop of large programs.
            if fast and anc is not None and (pbit is None or not bits >> pbit & 1):
                ok = not bits & ~anc
            else:
                ok = checker.is_safe(d, k)
            if ok:
                if taken is not None and k not in taken:
                    return k
                safe.append(k)
            else:
                blocked.append(k)
        pref = self.preferred.get(d)
        if pref in safe:
            safe.remove(pref)
            safe.insert(0, pref)
        self.full[d], self.blocked[d] = safe, blocked
        return None

    def __iter__(self) -> Iterator[int]:
        return iter(self.full)

    def __len__(self) -> int:
        return len(self.full)

    def first_free(self, d: int, taken: Container[int]) -> int | None:
        """The first candidate in result order that is not ``taken`` and safe for ``d``; when
        there is none, ``d``'s full lists are stored on the way (the matching asks next)."""
        return self._scan(d, taken)

    def is_edge(self, d: int, k: int) -> bool:
        if d in self.full:
            return k in self.full[d]
        if (d, k) not in self._single:
            self._single[d, k] = k in self.candidates and self.checker.is_safe(d, k)
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
        if isinstance(edges, LazyEdges) and d not in edges.full:
            # Same choice as scanning edges[d] (its preferred result, if an edge, is taken by
            # now), without checking every candidate of the donor.
            free = edges.first_free(d, match_res)
        else:
            free = next((k for k in edges[d] if k not in match_res), None)
        if free is not None:
            match_donor[d], match_res[free] = free, d
    for d in donors:
        if d not in match_donor:
            _augment(d, edges, match_res, match_donor)
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

    classes: dict[object, list[int]] = {}
    for arg in fn.donors:
        if arg.index not in fixed:
            classes.setdefault(compat_key(arg), []).append(arg.index)
    taken = set(fixed.values())
    results_by_key: dict[object, list[int]] = {}
    for res in fn.results:
        if res.index not in taken:
            results_by_key.setdefault(compat_key(res), []).append(res.index)

    while True:
        pairs = dict(fixed)
        blocked: dict[int, list[int]] = {}
        for key, donors in classes.items():
            candidates = results_by_key.get(key, []) if key is not None else []
            edges = LazyEdges(checker, candidates, preferred)
            pairs.update(max_matching(donors, edges, preferred, edges.is_edge))
            for d in donors:
                if d not in pairs:
                    edges[d]  # every candidate checked: the verdict needs them all
                    blocked[d] = edges.blocked[d]
        rejected = [dk for dk in consistent_pairs(checker, pairs) if dk[0] not in fixed]
        if not rejected:
            break
        checker.banned.update(rejected)  # and match again without them

    verdicts = [
        _verdict(fn, live, checker, arg, pairs, blocked.get(arg.index, []), results_by_key,
                 jax_pairs)
        for arg in fn.donors
    ]
    return DonationPlan(fn.name, dict(sorted(pairs.items())), verdicts, jax_pairs, ordering,
                        checker)


def consistent_pairs(checker: PairChecker, pairs: Mapping[int, int]) -> list[tuple[int, int]]:
    """The pairs (in donor order) a region ordering cannot have together with the earlier
    ones: each pair needs every other read of its donor before its writer (a control edge
    where data dependence does not order them already); a pair whose edges would close a
    cycle through data dependence and the earlier pairs' edges keeps a copy. Nothing for
    other orderings (their pairs are safe one by one).

    The swap ``(a, b) -> (b * 2, a * 3)`` with ``a -> 0, b -> 1``: ``a * 3`` must run before
    ``b * 2`` overwrites ``a``, and ``b * 2`` before ``a * 3`` overwrites ``b``: ``b -> 1``
    is rejected.
    """
    if checker.kind != "region":
        return []
    live = checker.live
    edges: set[tuple[int, int]] = set()
    rejected: list[tuple[int, int]] = []
    for d in sorted(pairs):
        k = pairs[d]
        writer = live.writers[k]
        if not isinstance(writer, ProducedBy) or d not in live.reads:
            continue
        p = writer.op
        new = {(u, p) for u in live.reads[d].positions
               if u != p and not checker.data_precedes(u, p)}
        if not new or new <= edges:
            continue
        if _has_cycle(checker, edges | new):
            rejected.append((d, k))
        else:
            edges |= new
    return rejected


def _has_cycle(checker: PairChecker, edges: set[tuple[int, int]]) -> bool:
    """Whether the ordering edges plus data dependence among their endpoints have a cycle."""
    nodes = sorted({x for e in edges for x in e})
    succ: dict[int, set[int]] = {x: set() for x in nodes}
    for x, y in edges:
        succ[x].add(y)
    for x in nodes:
        for y in nodes:
            if x != y and checker.data_precedes(x, y):
                succ[x].add(y)
    state: dict[int, int] = {}
    for start in nodes:
        if start in state:
            continue
        stack: list[tuple[int, Iterator[int]]] = [(start, iter(succ[start]))]
        state[start] = 1
        while stack:
            x, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[x] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return True
            elif nxt not in state:
                state[nxt] = 1
                stack.append((nxt, iter(succ[nxt])))
    return False


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
    blocked: list[int],
    results_by_key: dict[object, list[int]],
    jax_pairs: dict[int, int],
) -> DonorVerdict:
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
    elif blocked and len(blocked) == len(candidates):
        returned = None
        if reads.returned_in:
            returned = next((b for b in map(lambda k: checker.blocker(arg.index, k), blocked)
                             if b is not None and b.returned_in is not None), None)
        if returned is not None:
            verdict.reason = Reason.RETURNED
            verdict.blockers = [returned]
            verdict.message = f"{label} is not reused: " + _blocker_text(returned)
        else:
            verdict.reason = Reason.READ_AFTER_WRITE
            # Name the result JAX would have given it, when there is one: the pairing the user
            # expects and the one XLA would have had to copy for.
            k = verdict.jax_result if verdict.jax_result in blocked else blocked[0]
            shown = checker.blocker(arg.index, k)
            assert shown is not None
            verdict.blockers = [shown]
            verdict.message = (f"{label} is not reused: every result of its type is written "
                               "before its last read; " + _blocker_text(shown))
    else:
        owner = {k: d for d, k in pairs.items()}
        unsafe = set(blocked)
        verdict.rivals = [(owner[k], k) for k in candidates if k not in unsafe and k in owner]
        verdict.reason = Reason.OUTNUMBERED
        held = ", ".join(f"%arg{d} hosts result {k}" for d, k in verdict.rivals)
        verdict.message = (f"{label} is not reused: every result it could host is taken by "
                           f"another donor ({held}){unused_note}")
    return verdict
