"""Last-use facts for donated arguments: which ops read a donor's buffer, which results return
it, what writes each result, and the data-dependence ancestors of each op.

Invariants:

* a value's *roots* are the donors whose buffer it may share: a donor is its own root, a
  forwarding op's result (``reshape``, equal-width ``bitcast_convert``, ``optimization_barrier``,
  ``sdy.sharding_constraint``, tuples, summarised calls) has the roots of its forwarded operands;
  every other result has none;
* an op *reads* a donor when an operand or a use inside its regions has that donor among its
  roots, except operands a pure forwarding op only forwards;
* a *dead* op (a side-effect-free op of :data:`.semantics.PURE_OPS` whose results no live op,
  region or function result uses) reads nothing: XLA removes it before it assigns buffers,
  and a dead read of an overwritten buffer cannot change any result;
* op ``p`` *depends on* op ``u`` when a def-use path (operands and uses inside regions) leads
  from ``u`` to ``p`` whose first edge is not a fusing consumer's use of a value XLA's fusion
  recomputes inside it (:meth:`Liveness.depends`): answered on demand by a search pruned by
  block position, so memory stays linear in the function's size. The bitsets of
  :attr:`Liveness.ancestors` (one integer per op over the reading ops) are built only when
  asked for (the region orderings' cycle check).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass, field

from jax_use_donated.analysis.building import relaid_dot_operands
from jax_use_donated.analysis.conditionals import case_returns
from jax_use_donated.analysis.model import FunctionModel, Op, TensorInfo, ValueId
from jax_use_donated.analysis.semantics import (
    DUPLICABLE_OPS,
    ELEMENTWISE_OPS,
    FUSING_CONSUMERS,
    PURE_OPS,
    TREE_REDUCTION_WINDOW,
    XLA_MULTIPLY_OPS,
    OpSemantics,
    classify_all,
    duplicable,
    fuses_producers,
)
from jax_use_donated.analysis.xla_release import xla_at_least

REGION_USE = -1
"""The operand position recorded for a read inside an op's nested regions."""
FUSED_USE = -2
"""The operand position recorded for a read through a cheap producer that XLA's fusion
duplicates into the reading op (:data:`.semantics.DUPLICABLE_OPS`)."""
REDUCED_USE = -3
"""The operand position recorded for a read through a small ``reduce`` that XLA's fusion puts
inside the reading op (:func:`_reduces_fused_into_users`): the op reads the donor at other
elements than the one it writes, so it cannot write its result in the donor's buffer."""


@dataclass(frozen=True)
class ProducedBy:
    """Result slot written by ``op``'s result ``result`` (its first slot for that value)."""

    op: int
    result: int


@dataclass(frozen=True)
class ViewOfArg:
    """Result slot that returns argument ``arg`` unchanged (possibly through forwarding ops)."""

    arg: int


@dataclass(frozen=True)
class CopyAfter:
    """Result slot filled by a copy made once ``after`` has run (``None``: any time), because the
    value is also returned in an earlier slot or is a view of an argument."""

    after: int | None


Writer = ProducedBy | ViewOfArg | CopyAfter


@dataclass
class DonorReads:
    """Where one donor's buffer is read: op index -> operand positions (``REGION_USE`` for
    reads inside regions)."""

    positions: dict[int, set[int]] = field(default_factory=dict)
    returned_in: list[int] = field(default_factory=list)
    """Result slots whose value may share this donor's buffer."""

    @property
    def last_read(self) -> int | None:
        return max(self.positions) if self.positions else None


def dead_ops(fn: FunctionModel) -> frozenset[int]:
    """Indices of the ops whose results nothing live uses and that have no side effects
    (:data:`.semantics.PURE_OPS` or ``Op.pure_call``, no nested regions reading outer values),
    found in one backward sweep.

    ``%0 = stablehlo.negate %arg0; %1 = stablehlo.reshape %0; return %arg1``: both ops are dead.
    """
    used: set[ValueId] = {r.value for r in fn.results}
    dead: set[int] = set()
    use = used.update
    for op in reversed(fn.ops):
        if op.region_uses:
            use(op.operands)
            use(op.region_uses)
        elif ((op.name in PURE_OPS or op.pure_call) and op.results
              and used.isdisjoint(op.results)):
            dead.add(op.index)
        else:
            use(op.operands)
    return frozenset(dead)


def _elements(t: TensorInfo | None) -> int | None:
    if t is None or any(d is None for d in t.shape):
        return None
    n = 1
    for d in t.shape:
        assert d is not None
        n *= d
    return n


@dataclass(frozen=True)
class FusionFacts:
    """What XLA's fusion does with each cheap or single-use value, from one walk over the ops
    (:func:`fusion_facts`)."""

    duplicated: frozenset[ValueId]
    """:func:`duplicated_values`."""
    absorbed: frozenset[ValueId]
    """:func:`absorbed_values`."""
    single_use: frozenset[ValueId]
    """:func:`single_use_fused`."""
    fusing: frozenset[int] = frozenset()
    """The ops that fuse their cheap producers (:func:`.semantics.fuses_producers`)."""
    reduced: frozenset[ValueId] = frozenset()
    """The values of the chains that carry a ``reduce`` into the user it is fused into
    (:func:`_reduces_fused_into_users`, the reduce's own result first); also in
    ``duplicated`` and ``single_use``."""
    relaid: Mapping[int, frozenset[ValueId]] = field(default_factory=dict)
    """A batched dot -> its operands XLA transposes in a loop fusion of their own before it
    (:func:`.building.relaid_dot_operands`): that fusion recomputes their cheap producers, as
    a fusing consumer would, right before the dot unless ``shared`` says otherwise."""
    shared: Mapping[int, frozenset[ValueId]] = field(default_factory=dict)
    """The part of ``relaid`` a dot reads through an earlier dot's transpose of them (XLA's CSE
    keeps one, run before that earlier dot): not read when this dot runs."""


def fusion_facts(fn: FunctionModel) -> FusionFacts:
    """:func:`duplicated_values`, :func:`absorbed_values` and :func:`single_use_fused` of
    ``fn``, in one walk over its ops (21k ops of a train step: one walk instead of four)."""
    height: dict[ValueId, int] = {}
    """Broadcast-like values -> how many elementwise ops deep they are over broadcasts, iotas
    and constants (at most :data:`BROADCAST_DEPTH`; see :func:`_globally_fusible`)."""
    outside: set[ValueId] = {r.value for r in fn.results}
    """Values returned or read inside a region."""
    kept: set[ValueId] = set(outside)
    """Values some user needs as a buffer of their own (returned, read in a region, or read
    by an op that fuses no producer)."""
    fusing: set[int] = set()
    relaid: dict[int, frozenset[ValueId]] = {}
    shared: dict[int, frozenset[ValueId]] = {}
    transposed: dict[tuple[ValueId, tuple[int, ...]], int] = {}
    """(value, permutation) -> the first dot that XLA transposes the value for."""
    first_user: dict[ValueId, Op | None] = {}
    """Result of an elementwise, ``reduce`` or ``reshape`` op -> its one user so far
    (``None``: none yet; absent after a second user, or for other values)."""
    not_elementwise: set[ValueId] = set()
    """The ``reduce`` and ``reshape`` results among ``first_user``'s."""
    reduces: list[Op] = []
    """The ``reduce`` ops (XLA:CPU may fuse the small ones into their user)."""
    cheap: list[Op] = []
    """The duplicable ops (:func:`.semantics.duplicable`)."""
    transposes: list[Op] = []
    """The matrix transposes (XLA folds those read only by dots into them)."""
    dot_read: dict[ValueId, bool] = {}
    """A matrix transpose's result -> whether every user so far is a ``dot_general``."""
    # The hot loop of large programs (one pass over every op): names tested before calls.
    for op in fn.ops:
        name = op.name
        operands = op.operands
        not_dot = name != "stablehlo.dot_general"
        for v in operands:
            if v in first_user:
                user = first_user[v]
                if user is None:
                    first_user[v] = op
                elif user is not op:  # an op using v twice is one user
                    del first_user[v]
            elif not_dot and v in dot_read:
                dot_read[v] = False
        if op.region_uses:
            outside.update(op.region_uses)
            kept.update(op.region_uses)
        if name in FUSING_CONSUMERS and (name != "stablehlo.reduce" or fuses_producers(op)):
            fusing.add(op.index)
        elif op.dot_dims is not None and (op.dot_dims.lhs_batching or op.dot_dims.rhs_batching):
            moved = _relaid(op, transposed, relaid, shared)
            kept.update(v for v in operands if v not in moved)
        else:
            kept.update(operands)
        results = op.results
        if len(results) != 1:
            continue
        result = results[0]
        if name in DUPLICABLE_OPS:
            cheap.append(op)
        if name in ELEMENTWISE_OPS:
            first_user[result] = None
            depth = 0
            for v in operands:
                h = height.get(v)
                if h is None:
                    break
                if h > depth:
                    depth = h
            else:
                if operands and depth < BROADCAST_DEPTH:
                    height[result] = depth + 1
        elif name in _NOT_COUNTED:
            height[result] = 0
        elif name == "stablehlo.transpose":
            if _is_matrix(op.result_types):
                transposes.append(op)
                dot_read[result] = True
        elif name == "stablehlo.reduce" or name == "stablehlo.reshape":
            first_user[result] = None
            not_elementwise.add(result)
            if name == "stablehlo.reduce":
                reduces.append(op)
    for op in _folded_into_dots(transposes, dot_read, outside):
        fusing.discard(op.index)
        kept.update(op.operands)
    single = {v for v, user in first_user.items()
              if user is not None and user.name in ELEMENTWISE_OPS and v not in outside
              and v not in not_elementwise}
    duplicated: set[ValueId] = set(single)

    def sole(v: ValueId) -> Op | str | None:
        """v's one user; ``None``: no user yet; ``"several"``: more, or not tracked."""
        return first_user.get(v, "several")

    wide: list[Op] = []
    """Cheap ops every user fuses that are more than effectively unary
    (:func:`_kept_on_some_path`)."""
    for op in cheap:
        v = op.results[0]
        if v not in kept:
            duplicated.add(v)
            operands = op.operands
            if len(operands) < 2 or op.name not in ELEMENTWISE_OPS:
                continue
            if len(operands) == 2:  # a cheap necessary test first: this loop is hot
                a, b = operands
                if a == b or a in height or b in height:
                    continue
            if len(_full_operands(op, height)) > 1:
                wide.append(op)
        elif _globally_fusible(op, height):
            duplicated.add(v)
    if wide:
        duplicated -= _kept_on_some_path(fn, wide, fusing, sole)
    if duplicated and xla_at_least(*REDUCED_AND_BROADCAST_BACK_FROM):
        larger = {op.results[0] for op in cheap if op.results[0] in duplicated and _reads_more(op)}
        if larger:
            duplicated -= _reduced_and_broadcast_back(fn, larger, height)
    chained: set[ValueId] = set()
    if reduces:
        chained, materialized = _reduces_fused_into_users(
            reduces, sole, outside, duplicated, fusing)
        duplicated -= materialized
        duplicated |= chained
        single |= chained
    return FusionFacts(frozenset(duplicated),
                       frozenset(v for v in duplicated if v not in kept), frozenset(single),
                       frozenset(fusing), frozenset(chained), relaid, shared)


_LOOP_FUSIBLE = ELEMENTWISE_OPS | XLA_MULTIPLY_OPS | frozenset(
    f"stablehlo.{name}"
    for name in ("broadcast_in_dim", "broadcast", "concatenate", "constant", "dynamic_slice",
                 "dynamic_update_slice", "gather", "iota", "pad", "reduce", "reshape", "reverse",
                 "slice", "transpose"))
"""Producers XLA:CPU fuses into a loop fusion (``cpu_instruction_fusion.cc``'s
``CanBeLoopFused``); dots, custom calls, loops, ``reduce_window`` and scatters are not."""

_CHEAP_PRODUCERS = (DUPLICABLE_OPS | frozenset(
    f"stablehlo.{name}"
    for name in ("concatenate", "dynamic_slice", "dynamic_update_slice", "pad", "reverse",
                 "transpose")))
"""Loop-fusible producers XLA does not count as expensive (``IsExpensive``): it duplicates
them into every consumer that fuses them."""


def _reuses(consumer: Op, u: ValueId) -> bool:
    """Whether ``consumer`` may read an element of its operand ``u`` more than once (XLA's
    ``ReusesOperandElements``): a broadcast that writes more elements than it reads (one that
    does not is a reshape to XLA), a ``reduce_window`` or ``dynamic_slice``, a ``pad``'s
    padding value."""
    name = consumer.name
    if name in _BROADCASTING:
        return _grows(consumer)
    if name == "stablehlo.pad":
        return len(consumer.operands) > 1 and consumer.operands[1] == u
    return name in ("stablehlo.reduce_window", "stablehlo.dynamic_slice")


_CONSTANT_FORWARDS = frozenset({"stablehlo.constant", "stablehlo.broadcast_in_dim",
                                "stablehlo.broadcast", "stablehlo.reshape"})
"""Ops whose result is a constant when their operand is (and ``constant`` itself)."""


_PATH_BUDGET = 20_000
"""Values one producer's path search visits at most (:func:`_kept_on_some_path`); past it
the producer keeps the simpler rule (recomputed in each fusing user)."""

REASSOCIATED_SCALING_BEFORE = (0, 12)
"""The first jaxlib whose XLA no longer moves a scalar constant factor into a broadcast
operand (``(y * 2) * broadcast(g)`` to ``y * broadcast(g * 2)``, as the gradient of
``lax.square`` reads): measured on 0.10.2 and 0.11.0, not on 0.12.0.1 and 0.12.1."""


def _kept_on_some_path(fn: FunctionModel, wide: list[Op], fusing: Container[int],
                       sole: Callable[[ValueId], Op | str | None]) -> set[ValueId]:
    """The ``wide`` producers' results that XLA:CPU keeps in a buffer of their own although
    every user fuses them. ``wide``: cheap ops more than effectively unary whose operands hold
    more elements than their result (:func:`_globally_fusible` is false).

    XLA (``InstructionFusion::ComputeGloballyUnfusible``) duplicates such a producer only
    where it can fuse it into each user *on every path* from it to that user, walking the
    producers from the last: a step from an operand into the op reading it is refused when
    the op fuses nothing, the operand is kept itself, the operand's op is not loop-fusible
    (:data:`_LOOP_FUSIBLE`) or is expensive (not :data:`_CHEAP_PRODUCERS`; a division by a
    constant is a multiplication to XLA) and either has several users or is read by an op
    that reuses its elements (a growing broadcast). On older XLA (before
    :data:`REASSOCIATED_SCALING_BEFORE`) a user ``y * c`` (``c`` a constant) read by
    ``* broadcast(g)`` is folded into that product, which reads ``y`` itself. ``sole``: a
    value's one user (an :class:`Op`; anything else: several, or not known), as
    :func:`fusion_facts` tracks them. ``wide`` is in program order.

    Before (a layer norm of ``y = x + (x @ w + b)`` with the variance as ``mean(y * y) -
    mean(y)**2``; its gradient reads ``y`` directly in ``g' * y``, and ``g'`` is a broadcast of
    a reduction through ``rsqrt(var)``, which the forward normalization also reads)::

        %y = stablehlo.add %x, %xw_b          // recomputed in each fusion reading it?
        %r = stablehlo.rsqrt %var             // two users, expensive: never duplicated
        ...
        %t = stablehlo.multiply %g_bcast, %y  // its path through %r is blocked

    After: ``%y`` is kept (one fusion writes it; its readers read that buffer), so the bias
    ``b`` is read where ``%y`` is computed, before its update. Measured on jaxlib 0.10.2 and
    0.12.1 with Flax's, Equinox's and four hand-written layer norms
    (``tests/test_layer_norm_steps.py``): ``mean(y * y)`` keeps ``y``; ``jnp.var``,
    ``jax.nn.standardize`` and Equinox's keep it nowhere; ``lax.square`` (Flax's) keeps it on
    0.10.2 only."""
    first = wide[0].index
    watched = {op.results[0] for op in wide}
    """The candidates, and on older XLA their users ``y * c`` (:func:`_rescaled_users`)."""
    reassociates = not xla_at_least(*REASSOCIATED_SCALING_BEFORE)
    users: dict[ValueId, list[Op]] = {}
    producer: dict[ValueId, Op] = {}
    constant: set[ValueId] = set()
    longer: set[ValueId] = set()
    """Candidates a user also reads through another operand made after them: a path from
    them into that user is longer than one step."""
    for op in fn.ops:
        operands = op.operands
        if op.index >= first and not watched.isdisjoint(operands):
            for v in operands:
                if v not in watched:
                    continue
                found = users.setdefault(v, [])
                if not found or found[-1] is not op:
                    found.append(op)
                    start = producer[v].index
                    if any(w != v and w in producer and producer[w].index > start
                           for w in operands):
                        longer.add(v)
                if (reassociates and op.name == "stablehlo.multiply" and len(op.results) == 1
                        and any(w in constant for w in operands)):
                    watched.add(op.results[0])
        if op.name in _CONSTANT_FORWARDS and (
                op.name == "stablehlo.constant" or operands[0] in constant):
            constant.update(op.results)
        for r in op.results:
            producer[r] = op
    kept: set[ValueId] = set()

    def step_refused(consumer: Op, u: ValueId) -> bool:
        """Whether XLA's ``ShouldFuse`` refuses fusing ``u`` (reached from the producer)
        into ``consumer``."""
        if u in kept:
            return True
        op = producer[u]
        if op.name not in _LOOP_FUSIBLE:
            return True
        if op.name in _CHEAP_PRODUCERS or (
                op.name == "stablehlo.divide" and op.operands[-1] in constant):
            return False
        return not isinstance(sole(u), Op) or _reuses(consumer, u)

    for top in sorted(wide, key=lambda o: o.index, reverse=True):
        v = top.results[0]
        consumers = list(users.get(v, ()))
        if reassociates:
            rescaled = _rescaled_users(consumers, users, producer, constant)
            if rescaled:
                consumers += rescaled
                longer.add(v)
        if v not in longer:
            continue  # every path is one step long: v is fused into each user directly
        paths = _ops_on_paths(v, top.index, consumers, producer)
        if paths is None:
            continue
        ops, reached = paths
        if any(op.index not in fusing
               or any(u in reached and step_refused(op, u) for u in op.operands)
               for op in ops):
            kept.add(v)
    return kept


def _rescaled_users(consumers: list[Op], users: Mapping[ValueId, list[Op]],
                    producer: Mapping[ValueId, Op], constant: Container[ValueId]) -> list[Op]:
    """The products ``c * broadcast(g)`` of the ``consumers`` ``c = y * k`` (``k`` a
    constant) that older XLA rewrites to ``y * broadcast(g * k)`` (see
    :data:`REASSOCIATED_SCALING_BEFORE`): they read ``y`` itself."""
    out: list[Op] = []
    for c in consumers:
        if (c.name != "stablehlo.multiply" or len(c.results) != 1
                or not any(w in constant for w in c.operands)):
            continue
        for m in users.get(c.results[0], ()):
            if m.name == "stablehlo.multiply" and any(
                    w in producer and producer[w].name == "stablehlo.broadcast_in_dim"
                    and _grows(producer[w]) for w in m.operands):
                out.append(m)
    return out


def _ops_on_paths(v: ValueId, start: int, consumers: list[Op], producer: Mapping[ValueId, Op]
                  ) -> tuple[list[Op], set[ValueId]] | None:
    """The ops on a path from ``v`` (produced by op ``start``) into one of ``consumers``
    (``consumers`` included), and the values on those paths (``v`` included): an iterative
    walk back from the consumers' operands over ops after ``start``. ``None`` past
    :data:`_PATH_BUDGET` values."""
    reach: dict[ValueId, bool] = {v: True}
    stack: list[tuple[ValueId, bool]] = [(u, False) for c in consumers for u in c.operands]
    budget = _PATH_BUDGET
    while stack:
        u, expanded = stack.pop()
        if u in reach:
            continue
        op = producer.get(u)
        if op is None or op.index <= start:
            reach[u] = False
        elif expanded:
            reach[u] = any(reach.get(w, False) for w in op.operands)
        else:
            budget -= 1
            if budget < 0:
                return None
            stack.append((u, True))
            stack.extend((w, False) for w in op.operands if w not in reach)
    reached = {u for u, r in reach.items() if r}
    ops = {producer[u].index: producer[u] for u in reached if u != v}
    ops.update((c.index, c) for c in consumers)
    return list(ops.values()), reached


def _relaid(op: Op, transposed: dict[tuple[ValueId, tuple[int, ...]], int],
            relaid: dict[int, frozenset[ValueId]], shared: dict[int, frozenset[ValueId]]
            ) -> frozenset[ValueId]:
    """Record the operands of the batched dot ``op`` that XLA transposes first
    (:func:`.building.relaid_dot_operands`) in ``relaid``, and in ``shared`` those an earlier
    dot transposed alike (``transposed``, updated) and this one does not transpose again at
    another position; returns them all."""
    assert op.dot_dims is not None
    fresh: set[ValueId] = set()
    again: set[ValueId] = set()
    ranks = [len(t.shape) if t is not None else None for t in op.operand_types]
    for position, permutation in relaid_dot_operands(op.dot_dims, ranks):
        if position < len(op.operands):
            v = op.operands[position]
            first = transposed.setdefault((v, permutation), op.index) == op.index
            (fresh if first else again).add(v)
    moved = frozenset(fresh | again)
    if moved:
        relaid[op.index] = moved
    again -= fresh  # read at another position by a transpose of its own here
    if again:
        shared[op.index] = frozenset(again)
    return moved


def _small_reduce(op: Op, start: bool = True) -> bool:
    """A one-result ``reduce`` whose every reduced dimension is at most
    :data:`.semantics.TREE_REDUCTION_WINDOW` long (XLA:CPU's tree reduction rewriter leaves it
    whole) and, with ``start``, one of them longer than 1 (it reads other elements than the
    one it writes; a reduce of unit dimensions is a reshape to XLA)."""
    if len(op.results) != 1 or not op.operand_types or not op.result_types:
        return False
    operand, result = op.operand_types[0], op.result_types[0]
    if operand is None or result is None:
        return False
    return _small_reduction(operand.shape, result.shape, start)


@functools.lru_cache(maxsize=1024)
def _small_reduction(operand: tuple[int | None, ...], result: tuple[int | None, ...],
                     start: bool) -> bool:
    """:func:`_small_reduce` by shapes (a train step repeats a few). The reduced sizes are
    the operand's dimensions less the result's (a multiset: the kept dimensions are a
    subsequence of the operand's)."""
    if None in operand or None in result:
        return False
    left = list(operand)
    for n in result:
        if n not in left:
            return False
        left.remove(n)
    sizes = [n for n in left if n is not None]
    return (all(n <= TREE_REDUCTION_WINDOW for n in sizes)
            and (not start or any(n > 1 for n in sizes)))


def _reduces_fused_into_users(reduces: list[Op], sole: Callable[[ValueId], Op | str | None],
                              outside: Container[ValueId], duplicated: Container[ValueId],
                              fusing: Container[int]) -> tuple[set[ValueId], set[ValueId]]:
    """The small ``reduces`` (:func:`_small_reduce`) XLA:CPU fuses into their one user, with
    the chain of single-use values that carries them on into the next fusing user, and the
    value where each chain ends (materialized: returned, read by several ops or by an op that
    fuses nothing, or not recomputed). A chain that reaches an op writing more elements than
    it reads (a broadcast) leaves its reduce on its own: XLA does not fuse a reduction into a
    consumer that would rerun it per element; so does a chain whose end XLA recomputes in
    each of its several users (:func:`duplicated_values`): a reduce is not duplicated.
    Returns (the fused chain values, the chains' ends).

    Measured (XLA:CPU, jaxlib 0.10.2 and 0.12.1): ``b - 0.1 * sum(x * b, axis=0)`` with ``b``
    donated is one loop fusion that reduces ``x * b`` and writes ``b``'s update: it reads
    ``b`` at every row's element, so XLA copies ``b`` for rows 2 to 32 (``x: f32[N, 4]``)
    (``sum(exp(x * b), 0)`` too: the exp, used only by the reduce, is in the same fusion)
    and not from 33 on (the tree reduction rewriter splits the reduce); the vmapped linear
    layer's bias gradient ``sum(reshape(sum(g, 0)), 0)`` and a ``mean`` over axes of 6 and 6
    are fused the same way. ``b - 0.1 * sum(x * b)`` (a scalar, broadcast back) and a
    reduction used twice (Adam's moments) are not: their reduce reads ``b`` before the
    update, copy-free, and so is ``optax.MultiSteps``' accumulated bias gradient
    ``acc + (sum(g, 0) - acc) / n``, whose add XLA recomputes in each of its four users."""
    chained: set[ValueId] = set()
    ends: set[ValueId] = set()
    for r in reduces:
        v = r.results[0]
        if v in outside or v in chained or not isinstance(sole(v), Op) or not _small_reduce(r):
            continue
        members, w, fused = [v], v, True
        for _ in range(_REDUCE_CHAIN_LIMIT):
            user = sole(w)
            if not isinstance(user, Op):  # no user, or several: w's fusion ends here,
                # unless XLA recomputes w in each of its users (then the reduce stays alone)
                fused = len(members) > 1 and (user is None or w not in duplicated)
                break
            if user.index not in fusing or len(user.results) != 1:
                fused = len(members) > 1  # materialized for an op that fuses nothing
                break
            if _grows(user):
                fused = False
                break
            w = user.results[0]
            members.append(w)
            if w in outside:  # returned or read in a region: materialized
                fused = sole(w) is None or w not in duplicated
                break
            if w not in duplicated and not (user.name == "stablehlo.reduce"
                                             and _small_reduce(user, start=False)):
                break  # not recomputed: its fusion ends here
        if not fused:
            continue
        ends.add(members.pop())
        operand = r.operands[0] if r.operands else None
        if (operand is not None and operand not in outside and operand not in duplicated
                and sole(operand) is r):
            members.append(operand)  # an expensive producer used only by the reduce
        chained.update(members)
    return chained, ends


_REDUCE_CHAIN_LIMIT = 64
"""How many single-use ops after a reduce :func:`_reduces_fused_into_users` follows."""


def _grows(op: Op) -> bool:
    """Whether ``op`` writes more elements than its first operand holds (a broadcast, a pad)."""
    if not op.operand_types or not op.result_types:
        return True
    operand = _elements(op.operand_types[0])
    result = _elements(op.result_types[0])
    return operand is None or result is None or result > operand


def _folded_into_dots(transposes: list[Op], dot_read: dict[ValueId, bool],
                      outside: Container[ValueId]) -> list[Op]:
    """The ``transposes`` that XLA's ``TransposeFolding`` folds into the dots reading them: a
    matrix's (rank 2: a batched dot's operands are laid out batch-major by XLA:CPU, and a
    transpose of them is measured as a ``transpose_copy_fusion`` of its own) whose every user
    is a ``dot_general`` (``dot_read``), the value not returned or read in a region. Such a
    transpose is no kernel: each dot reads its operand's buffer with permuted dimension
    numbers, so it fuses no producer, and its operand is materialized where it is computed.

    Measured (XLA:CPU, jaxlib 0.10.2 and 0.12.1): under ``vmap`` Equinox's ``Linear`` computes
    ``transpose(dot(W, x)) + b``; the relu gradient's ``select`` (which recomputes the bias add,
    reading ``b``) is transposed for the weight gradient's dot and, below the first layer, for
    the input gradient's dot too; XLA runs one ``compare_select_fusion`` that both dots and the
    bias gradient's reduce read, so ``b`` is read before its update and JAX's pairing hosts it
    copy-free; counted as a fusing consumer, the transpose read ``b`` late and predicted a
    copy."""
    return [op for op in transposes if dot_read[op.results[0]] and op.results[0] not in outside]


def _is_matrix(types: list[TensorInfo | None]) -> bool:
    return len(types) == 1 and types[0] is not None and len(types[0].shape) == 2


REDUCED_AND_BROADCAST_BACK_FROM = (0, 12, 1)
"""The first jaxlib whose XLA keeps a cheap value that is reduced by a max and broadcast back
into the shift an ``exp`` reads (:func:`_reduced_and_broadcast_back`); measured: 0.10.2
recomputes ``l - max(l)``'s ``l`` in each fusion, 0.12.1 does not (0.12.0.1 keeps some and
not others, and keeps the older rule here)."""


def _reads_more(op: Op) -> bool:
    """Whether ``op``'s distinct operands hold more elements than its result (unknown sizes:
    no; :func:`_operand_and_result_elements`)."""
    sizes = _operand_and_result_elements(op)
    return sizes is not None and sizes[0] > sizes[1]


_BROADCASTING = frozenset({"stablehlo.broadcast_in_dim", "stablehlo.broadcast"})


def _reduced_and_broadcast_back(fn: FunctionModel, candidates: Container[ValueId],
                                height: Container[ValueId]) -> set[ValueId]:
    """The ``candidates`` (cheap values XLA's fusion would recompute in each user, whose
    operands hold more elements than they do: :func:`_reads_more`) that a user read by an
    ``exponential`` also reads through a ``reduce`` of them whose result is broadcast back,
    possibly through reshapes and elementwise ops whose other operands are broadcast-like
    (``height``): ``exp(l - broadcast(max(l)))``, the log-sum-exp of every softmax
    cross-entropy.

    XLA:CPU keeps such a producer in a buffer of its own even where it is effectively unary
    (``CpuInstructionFusion::ComputeGloballyUnfusible``: a copy recomputed in the exp's fusion
    could differ by an ulp from the one the max was taken over). A reshape or slice of it
    that the reduce reads instead stays recomputed (measured: the LM loss's
    ``logits[:, :-1]`` still reads the bias in the loss fusion). Other reductions broadcast
    back (a layer norm's ``y - mean(y)``, no exp) are left to the path rule,
    :func:`_kept_on_some_path`. Measured with jaxlib 0.12.1: the logits' bias add
    ``dot + broadcast(b)`` of an optax cross-entropy step is one fusion read by the
    reduce-max, the exp and the loss fusions, and the bias hosts its update copy-free; a
    layer norm's residual sum is recomputed in the backward fusions, and its bias is
    copied."""
    origin: dict[ValueId, tuple[frozenset[ValueId], bool]] = {}
    """Value -> (the candidates it is a reduce of, whether a broadcast was applied since)."""
    exponentiated = {v for op in fn.ops if op.name == "stablehlo.exponential" for v in op.operands}
    blocked: set[ValueId] = set()
    for op in fn.ops:
        operands = op.operands
        for v in operands:
            seen = origin.get(v)
            if seen is not None and seen[1] and op.results and op.results[0] in exponentiated:
                blocked.update(seen[0].intersection(operands))
        if len(op.results) != 1 or not operands:
            continue
        name, result = op.name, op.results[0]
        if name == "stablehlo.reduce":
            reduced = frozenset(v for v in operands if v in candidates)
            if reduced:
                origin[result] = (reduced, False)
        elif name in _BROADCASTING or name == "stablehlo.reshape":
            seen = origin.get(operands[0])
            if seen is not None:
                origin[result] = (seen[0], seen[1] or name in _BROADCASTING)
        elif name in ELEMENTWISE_OPS:
            carried = [origin[v] for v in operands if v in origin]
            if len(carried) == 1 and all(v in origin or v in height for v in operands):
                origin[result] = carried[0]
    return blocked


def duplicated_values(fn: FunctionModel) -> frozenset[ValueId]:
    """Results of cheap producers (:func:`.semantics.duplicable`) that XLA's fusion recomputes
    inside each fusing consumer, as ``InstructionFusion::ComputeGloballyUnfusible`` allows:
    the producer is effectively unary (at most one operand of full rank that is not a
    broadcast, an iota or a constant), or its operands hold no more elements than its result,
    or every user fuses it (:data:`.semantics.FUSING_CONSUMERS`, no use inside a region), it
    is not returned and every path from it into each user fuses (:func:`_kept_on_some_path`);
    and the values of :func:`single_use_fused`.

    Measured: ``a * 2`` returned and used by ``a * 2 + a`` is recomputed there; the logits'
    ``dot + broadcast(b)`` is recomputed in the reduce-max, the exp and the loss fusions;
    ``m2 = 0.9 * m + 0.1 * g`` returned and used by the update stays one fusion."""
    return fusion_facts(fn).duplicated


def single_use_fused(fn: FunctionModel) -> frozenset[ValueId]:
    """Results of elementwise ops, expensive ones included, whose one use is by an elementwise
    op (not returned, not read inside a region): XLA's fusion puts the producer inside its
    consumer's fusion, so its reads happen where the consumer runs.

    Measured (``optax.MultiSteps`` with Adam): ``m / (1 - b1**t)`` and ``sqrt(v / ...)``, each
    used once, run inside the parameter update's fusion, which reads ``mu`` and ``nu``
    themselves; a plan that hosts ``mu``'s update in ``nu``'s buffer and the parameter update
    in ``mu``'s then has a cycle, and XLA copies."""
    return fusion_facts(fn).single_use


def absorbed_values(fn: FunctionModel) -> frozenset[ValueId]:
    """The duplicated values with no instance of their own: every user fuses them and they
    are not returned, so their producer's reads happen only inside the consumers."""
    return fusion_facts(fn).absorbed


def _globally_fusible(op: Op, height: Container[ValueId]) -> bool:
    """``EffectivelyAtMostUnary`` or operands no larger than the result (element counts).
    Operands that are broadcast-like (in ``height``: a broadcast, an iota or a constant, or
    an elementwise op of such values at most :data:`BROADCAST_DEPTH` deep, which XLA's
    algebraic simplifier turns into a broadcast of the op on the smaller operands,
    ``0.1 * broadcast(g)`` is ``broadcast(0.1 * g)``) do not count as full-size."""
    if len(_full_operands(op, height)) <= 1:
        return True
    if op.name in ELEMENTWISE_OPS:
        return False  # two distinct operands of the result's size: twice its elements
    sizes = _operand_and_result_elements(op)
    return sizes is not None and sizes[0] <= sizes[1]


def _full_operands(op: Op, height: Container[ValueId]) -> set[ValueId]:
    """``op``'s distinct operands that count as full-size to ``EffectivelyAtMostUnary``: of a
    known type, at least the result's rank, and not broadcast-like (``height``)."""
    result = op.result_types[0] if op.result_types else None
    rank = len(result.shape) if result is not None else 0
    return {v for v, t in zip(op.operands, op.operand_types, strict=False)
            if t is not None and len(t.shape) >= rank and v not in height}


def _operand_and_result_elements(op: Op) -> tuple[int, int] | None:
    """Elements of ``op``'s distinct operands together, and of its result (broadcasts counted
    at their full size, as XLA counts them before fusing); ``None`` where a size is unknown."""
    result = _elements(op.result_types[0]) if op.result_types else None
    if result is None:
        return None
    total = 0
    for t in dict(zip(op.operands, op.operand_types, strict=False)).values():
        n = _elements(t)
        if n is None:
            return None
        total += n
    return total, result


BROADCAST_DEPTH = 4
"""How many elementwise ops deep over broadcasts a value still counts as a broadcast
(:func:`_globally_fusible`)."""


_NO_ORIGIN: dict[int, int] = {}

_NOT_COUNTED = frozenset({"stablehlo.broadcast_in_dim", "stablehlo.broadcast", "stablehlo.iota",
                          "stablehlo.constant"})


class Liveness:
    """All dataflow facts of one function, computed once in a single walk.

    With ``fusion_duplication`` (XLA backends) a donor read by a cheap op that XLA's fusion
    duplicates into its consumers (an elementwise op that is not expensive, a broadcast) is
    read by those consumers too (at :data:`FUSED_USE`): measured, the logits' bias add
    ``dot + broadcast(b)`` is recomputed inside the reduce-max, the exp and the loss fusions,
    and the loss fusion, which no update depends on, reads ``b`` after its update is due.
    """

    def __init__(self, fn: FunctionModel, fusion_duplication: bool = False) -> None:
        self.fn = fn
        self.fusion_duplication = fusion_duplication
        self.semantics: list[OpSemantics] = classify_all(fn.ops)
        self.arg_of_value: dict[ValueId, int] = {a.value: a.index for a in fn.args}

        donor_ids = {a.index for a in fn.donors}
        self.roots: dict[ValueId, frozenset[int]] = {
            a.value: frozenset({a.index}) for a in fn.args if a.index in donor_ids
        }
        self.reads: dict[int, DonorReads] = {i: DonorReads() for i in donor_ids}
        self.read_bit: dict[int, int] = {}
        """Reading op -> its index among the reading ops (in op order)."""
        self.def_of_value: dict[ValueId, tuple[int, int]] = {}
        self.dead: frozenset[int] = dead_ops(fn)
        facts = (fusion_facts(fn) if fusion_duplication
                 else FusionFacts(frozenset(), frozenset(), frozenset()))
        self.duplicated: frozenset[ValueId] = facts.duplicated
        """Values XLA's fusion recomputes in their fusing consumers (:func:`duplicated_values`)."""
        self.absorbed: frozenset[ValueId] = facts.absorbed
        self.single_use: frozenset[ValueId] = facts.single_use
        self.fusing: frozenset[int] = facts.fusing
        """Ops that fuse their cheap producers (:func:`.semantics.fuses_producers`)."""
        self.reduced: frozenset[ValueId] = facts.reduced
        """The chains carrying a reduce into its user (:func:`_reduces_fused_into_users`)."""
        self.relaid: Mapping[int, frozenset[ValueId]] = facts.relaid
        """A batched dot -> its operands transposed before it (:attr:`FusionFacts.relaid`)."""
        self.shared: Mapping[int, frozenset[ValueId]] = facts.shared
        """A batched dot -> operands read through an earlier dot's transpose
        (:attr:`FusionFacts.shared`)."""
        self.fused_reader: dict[tuple[int, int], int] = {}
        """(consuming op, donor) -> the op of the user's program whose read of the donor XLA
        runs inside that consumer's fusion (:func:`single_use_fused`): the read a diagnostic
        names (:meth:`reader_of`)."""
        self.recomputed: set[ValueId] = set()
        """Duplicated values of live ops: a fusing consumer's use of one does not make the
        consumer depend on the producer itself (it recomputes it), only on its operands."""
        self.branches: dict[int, list[FunctionModel]] = {}
        """Conditional op -> its branch models (:meth:`branches_of`)."""
        self._users: list[list[int]] | None = None
        self._depends: dict[tuple[int, int], bool] = {}
        self._ancestors: list[int] | None = None
        self._walk()
        for res in fn.results:
            for d in self.roots_of(res.value):
                self.reads[d].returned_in.append(res.index)
        self.writers: list[Writer] = self._compute_writers()

    def roots_of(self, v: ValueId) -> frozenset[int]:
        return self.roots.get(v, frozenset())

    def _walk(self) -> None:
        """One forward walk over the ops: definitions, roots and reads."""
        # The hot loop of large programs: locals instead of attribute lookups.
        roots = self.roots
        get_roots = roots.get
        record = self._record_read
        dead = self.dead
        def_of_value = self.def_of_value
        fused: dict[ValueId, frozenset[int]] = {}
        """Donors a fusing consumer of the value reads, through duplicated cheap producers."""
        origin: dict[ValueId, dict[int, int]] = {}
        """For single-use fused values: donor -> the op that reads it directly."""
        single_use = self.single_use
        fusing = self.fusing
        relaid = self.relaid
        shared = self.shared
        fused_reader = self.fused_reader
        duplication = self.fusion_duplication
        duplicated = self.duplicated
        absorbed = self.absorbed
        recomputed = self.recomputed
        reduced = self.reduced
        via_reduce: dict[ValueId, frozenset[int]] = {}
        """Donors a value's fused chain reads through a reduce fused into it (``reduced``)."""
        none: frozenset[int] = frozenset()
        for op, sem in zip(self.fn.ops, self.semantics, strict=True):
            index = op.index
            operands = op.operands
            region_uses = op.region_uses
            results = op.results
            for r, v in enumerate(results):
                def_of_value[v] = (index, r)
            if dead and index in dead:
                continue
            forwards = sem.forwards
            # Operands a pure forwarding op only forwards are not read.
            skip = ({i for ops in forwards.values() for i in ops}
                    if forwards and op.call_forwards is None else ())
            result = results[0] if len(results) == 1 else None
            in_absorbed = result is not None and result in absorbed
            if in_absorbed:
                skip = range(len(operands))  # read only inside its consumers (FUSED_USE)
            elif shared and index in shared:  # read by an earlier dot's transpose
                skip = {*skip, *(p for p, v in enumerate(operands) if v in shared[index])}
            for pos, v in enumerate(operands):
                ds = get_roots(v)
                if ds and pos not in skip:
                    for d in ds:
                        record(d, op, pos)
            for v in region_uses:
                for d in get_roots(v, none):
                    record(d, op, REGION_USE)
            if duplication:
                if fused and not in_absorbed and (index in fusing or index in relaid):
                    for v in (operands if index in fusing
                              else relaid[index] - shared.get(index, frozenset())):
                        for d in fused.get(v, none):
                            record(d, op, REDUCED_USE if via_reduce and d in via_reduce.get(
                                v, none) else FUSED_USE)
                            first = origin.get(v, _NO_ORIGIN).get(d)
                            if first is not None:
                                fused_reader.setdefault((index, d), first)
                if result is not None and result in duplicated:
                    recomputed.add(result)
                    through: frozenset[int] = none
                    for v in operands:
                        direct = get_roots(v)
                        if direct:
                            through = through | direct if through else direct
                        carried = fused.get(v)
                        if carried:
                            through = through | carried if through else carried
                    if through:
                        fused[result] = through
                        if reduced and result in reduced:  # a fused reduce's chain
                            via = through if op.name == "stablehlo.reduce" else none
                            for v in operands:
                                if v in via_reduce:
                                    via = via | via_reduce[v]
                            if via:
                                via_reduce[result] = via
                        if result in single_use:
                            # an expensive op XLA fuses into its one consumer is the read to
                            # name; cheap recomputed producers stay the consumer's own reads
                            mine: dict[int, int] = {}
                            for v in operands:
                                if not duplicable(op):
                                    for d in get_roots(v, none):
                                        mine.setdefault(d, index)
                                for d, first in origin.get(v, _NO_ORIGIN).items():
                                    mine.setdefault(d, first)
                            if reduced and result in reduced:
                                for d in through:  # the reduce is the read to name
                                    mine.setdefault(d, index)
                            if mine:
                                origin[result] = mine
            if op.branches is not None and region_uses:
                # a conditional's result may be a value a branch returns unchanged
                for r, outer in case_returns(self.branches_of(op)).items():
                    acc_roots = none
                    for v in outer:
                        acc_roots = acc_roots | get_roots(v, none)
                    if acc_roots and r < len(results):
                        roots[results[r]] = acc_roots
            if not forwards:
                continue
            for r, operand_positions in forwards.items():
                if r >= len(results):
                    continue
                acc_roots: frozenset[int] = none
                for pos in operand_positions:
                    if pos < len(operands):
                        acc_roots |= get_roots(operands[pos], none)
                if acc_roots:
                    roots[results[r]] = acc_roots

    def reader_of(self, u: int, d: int) -> int:
        """The op to name for op ``u``'s read of donor ``d``: the user's op that reads it
        directly where XLA runs that op inside ``u``'s fusion (``sin(x)`` used once by a
        ``convert``: the ``sin``), else ``u`` (``u`` reads it itself too, or no such op)."""
        first = self.fused_reader.get((u, d))
        if first is None or d not in self.reads:
            return u
        at = self.reads[d].positions.get(u, ())
        return first if at and all(pos in (FUSED_USE, REDUCED_USE) for pos in at) else u

    def branches_of(self, op: Op) -> list[FunctionModel]:
        """The branch models of a conditional (``Op.branches``), built once."""
        got = self.branches.get(op.index)
        if got is None:
            assert op.branches is not None
            got = self.branches[op.index] = op.branches()
        return got

    def _record_read(self, donor: int, op: Op, pos: int) -> None:
        self.reads[donor].positions.setdefault(op.index, set()).add(pos)
        self.read_bit.setdefault(op.index, len(self.read_bit))

    # ----------------------------------------------------------------------------------------
    # Data dependence

    def _weak(self, op: Op, v: ValueId) -> bool:
        """Whether ``op``'s operand ``v`` is a use that does not make ``op`` depend on ``v``'s
        producer (``op`` fuses and recomputes it)."""
        return v in self.recomputed and (op.index in self.fusing
                                          or v in self.relaid.get(op.index, ()))

    def users(self) -> list[list[int]]:
        """Per op, the ops that use one of its results (operands or uses inside regions), in
        op order without repeats; built once, on first use."""
        if self._users is None:
            users: list[list[int]] = [[] for _ in self.fn.ops]
            def_of_value = self.def_of_value
            for op in self.fn.ops:
                y = op.index
                for v in (*op.operands, *op.region_uses):
                    d = def_of_value.get(v)
                    if d is not None:
                        lst = users[d[0]]
                        if not lst or lst[-1] != y:
                            lst.append(y)
            self._users = users
        return self._users

    def _preds(self, y: int) -> list[int]:
        op = self.fn.ops[y]
        def_of_value = self.def_of_value
        return [d[0] for v in (*op.operands, *op.region_uses)
                if (d := def_of_value.get(v)) is not None]

    def _strong_users(self, u: int) -> list[int]:
        """The users of op ``u`` that depend on ``u`` itself (not only on its operands)."""
        ops = self.fn.ops
        results = set(ops[u].results)
        if not self.recomputed or not results & self.recomputed:
            return self.users()[u]
        out: list[int] = []
        for w in self.users()[u]:
            op = ops[w]
            if any(v in results for v in op.region_uses) or any(
                    v in results and not self._weak(op, v) for v in op.operands):
                out.append(w)
        return out

    def depends(self, u: int, p: int | None) -> bool:
        """Whether op ``p`` depends on op ``u``: a def-use path leads from ``u`` to ``p`` whose
        first use is not a fusing consumer recomputing a duplicated value of ``u``.

        Exactly the old per-op ancestor bitsets' answer, found by a bidirectional search
        confined to the ops between ``u`` and ``p`` in block order: forward from ``u`` taking
        the latest user first, backward from ``p`` taking the earliest operand first; memoised.
        """
        if p is None or p <= u:
            return False
        key = (u, p)
        hit = self._depends.get(key)
        if hit is None:
            hit = self._depends[key] = self._search(u, p)
        return hit

    def _search(self, u: int, p: int) -> bool:
        users = self.users()
        preds = self._preds
        forward_seen: set[int] = set()
        fstack: list[int] = []
        for w in self._strong_users(u):
            if w == p:
                return True
            if w < p:
                forward_seen.add(w)
                fstack.append(w)
        if not fstack:
            return False
        backward_seen: set[int] = {p}
        bstack: list[int] = [p]
        while fstack and bstack:
            x = fstack.pop()  # the latest op first: the one nearest to p
            for w in users[x]:
                if w > p:
                    break
                if w in backward_seen:
                    return True
                if w not in forward_seen:
                    forward_seen.add(w)
                    fstack.append(w)
            y = bstack.pop()  # the earliest op first: the one nearest to u
            for x in sorted(preds(y), reverse=True):
                if x <= u or x in backward_seen:
                    continue
                if x in forward_seen:
                    return True
                backward_seen.add(x)
                bstack.append(x)
        return False

    def descendants(self, u: int, bound: int, budget: int) -> set[int] | None:
        """The ops up to position ``bound`` that depend on op ``u`` (:meth:`depends`), or
        ``None`` when there are more than ``budget`` of them."""
        users = self.users()
        seen: set[int] = set()
        stack: list[int] = []
        for w in self._strong_users(u):
            if w <= bound:
                seen.add(w)
                stack.append(w)
        while stack:
            if len(seen) > budget:
                return None
            for w in users[stack.pop()]:
                if w > bound:
                    break
                if w not in seen:
                    seen.add(w)
                    stack.append(w)
        return seen if len(seen) <= budget else None

    @property
    def ancestors(self) -> list[int]:
        """``ancestors[i]``: bits (:attr:`read_bit`) of the reading ops that op ``i`` depends on
        (:meth:`depends`); one forward walk, on first use (memory: ops x reads bits)."""
        if self._ancestors is None:
            read_bit = self.read_bit.get
            reach: dict[ValueId, int] = {}
            recomputed: dict[ValueId, int] = {}
            anc: list[int] = []
            for op in self.fn.ops:
                acc = 0
                fusing = bool(self.recomputed) and op.index in self.fusing
                moved = self.relaid.get(op.index, ()) if self.relaid else ()
                for v in op.operands:
                    r = recomputed.get(v) if fusing or v in moved else None
                    acc |= reach.get(v, 0) if r is None else r
                for v in op.region_uses:
                    acc |= reach.get(v, 0)
                anc.append(acc)
                bit = read_bit(op.index)
                own = acc if bit is None else acc | 1 << bit
                for v in op.results:
                    reach[v] = own
                    if v in self.recomputed:
                        recomputed[v] = acc
            self._ancestors = anc
        return self._ancestors

    def source(self, v: ValueId) -> tuple[str, int, int]:
        """Follow single-operand forwarding back from ``v``: ``("arg", i, 0)`` or
        ``("op", op_index, result_index)``."""
        while True:
            if v in self.arg_of_value:
                return ("arg", self.arg_of_value[v], 0)
            op_index, r = self.def_of_value[v]
            fwd = self.semantics[op_index].forwards.get(r, ())
            op = self.fn.ops[op_index]
            if len(fwd) == 1 and fwd[0] < len(op.operands):
                v = op.operands[fwd[0]]
                continue
            return ("op", op_index, r)

    def _compute_writers(self) -> list[Writer]:
        """A slot whose buffer an earlier slot already returns (the same value, or a view of
        the same op result or argument: ``return %n, reshape(%n)``) is filled by a copy."""
        writers: list[Writer] = []
        seen: set[tuple[str, int, int]] = set()
        donor_ids = set(self.reads)
        for res in self.fn.results:
            source = self.source(res.value)
            kind, index, r = source
            defining = self.def_of_value.get(res.value)
            after = defining[0] if defining else None
            if source in seen or (kind == "arg" and index not in donor_ids):
                writers.append(CopyAfter(after))
            elif kind == "arg":
                writers.append(ViewOfArg(index))
            else:
                writers.append(ProducedBy(index, r))
            seen.add(source)
        return writers

    def is_ancestor(self, reader: int, of_op: int | None) -> bool:
        """Whether reading op ``reader`` is a data-dependence ancestor of ``of_op``."""
        return reader in self.read_bit and self.depends(reader, of_op)


def forwarded_arguments(fn: FunctionModel) -> dict[int, tuple[int, ...]]:
    """Result index -> the argument ``fn`` returns unchanged in it (through forwarding ops):
    the summary of a callee that its call sites use (``Op.call_forwards``)."""
    live = Liveness(fn)
    summary: dict[int, tuple[int, ...]] = {}
    for res in fn.results:
        kind, index, _ = live.source(res.value)
        if kind == "arg":
            summary[res.index] = (index,)
    return summary


def side_effect_free(fn: FunctionModel) -> bool:
    """Whether every top-level op of ``fn`` is side-effect free (:data:`.semantics.PURE_OPS`,
    or a call of such a function): then a call of ``fn`` whose results nothing uses is dead
    (``Op.pure_call``). JAX's ``@_where`` (one ``select``) is; a callee with a ``custom_call``
    is not."""
    return all(op.name in PURE_OPS or op.pure_call for op in fn.ops)


class CalleeSummaries:
    """What each callee returns unchanged (:func:`forwarded_arguments`) and whether it has no
    side effects (:func:`side_effect_free`), summarised once per callee and pattern of
    repeated operands, for the adapters' ``func.call`` ops (``Op.call_forwards``,
    ``Op.pure_call``). ``build(callee, same_as)`` is the adapter's model of a defined
    single-block callee (arguments without donation, one value passed at several positions
    kept as one), ``None`` for any other; a recursive callee forwards nothing.

    ``@where(%p, %x, %x)`` with ``@where(%p, %a, %b) { return select(%p, %a, %b) }``:
    ``forwards("where", (0, 1, 1))`` is ``{0: (1,)}``."""

    def __init__(self, build: Callable[[str, tuple[int, ...]], FunctionModel | None]) -> None:
        self._build = build
        self._forwards: dict[tuple[str, tuple[int, ...]], dict[int, tuple[int, ...]] | None] = {}
        self._in_progress: set[str] = set()
        self.pure: dict[str, bool] = {}
        """Callee name -> whether it has no side effects (known once summarised)."""

    def forwards(self, callee: str, same_as: tuple[int, ...] = ()) -> dict[int, tuple[int, ...]]:
        """Result index -> the callee arguments it returns unchanged (``{}``: none, for an
        unknown or recursive callee, which reads every operand)."""
        key = (callee, same_as)
        if key in self._forwards:
            return self._forwards[key] or {}
        if callee in self._in_progress:
            return {}  # recursion
        self._in_progress.add(callee)
        self._forwards[key] = None
        summary: dict[int, tuple[int, ...]] = {}
        try:
            model = self._build(callee, same_as)
            if model is not None:
                summary = forwarded_arguments(model)
                self.pure.setdefault(callee, side_effect_free(model))
        finally:
            self._in_progress.discard(callee)
        self._forwards[key] = summary
        return summary


def short_loop_forwards(trips: int | None, carries: int, body: Callable[[], FunctionModel],
                        ) -> dict[int, tuple[int, ...]] | None:
    """Result index -> the carry a ``stablehlo.while`` returns unchanged in it, for a loop
    that surely runs ``trips`` (0 or 1) times: XLA removes such a loop or inlines its body, so
    it forwards like a call (``Op.call_forwards``). For 0 trips every carry; for 1, what the
    body (``body()``: its block as a function of its carries, built only then) returns
    unchanged. ``None`` when the trip count is unknown (``trips is None``) or the body returns
    a value it closes over (an argument of the body past the carries).

    ``%r:2 = while(%i = %c0, %x = %a) cond {i < 1} do {return %i + 1, maximum(%x, %x)}``:
    ``{1: (1,)}``, so ``%r#1`` is ``%a`` and a donor ``%a`` returned as ``%r#1`` is free.
    """
    if trips is None:
        return None
    if trips == 0:
        return {i: (i,) for i in range(carries)}
    summary = forwarded_arguments(body())
    if any(j >= carries for sources in summary.values() for j in sources):
        return None
    return summary
