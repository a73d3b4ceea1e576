"""All-reduces as XLA sees them: independent ones combined into one, before copy insertion.

XLA's ``AllReduceCombiner`` (``xla/service/all_reduce_combiner.cc`` over
``CombineInstructionsByKey``, ``collective_combiner_utils.h``) merges all-reduces that share a
key (reduction, element type, replica groups, channel kind) into one all-reduce of a tuple. It
walks the computation in post order (a depth-first walk from the root, operands in order), and
repeatedly takes the first all-reduce left as the start of a group, adding the following ones
of its key until one depends on a member (or the group would pass 30 MiB or 256 ops); each
group becomes one op, and the dependences are recomputed before the next group.

A combined all-reduce runs once every member's operand is ready, and every member's result is
ready only then, so the combiner adds dependences: a data-parallel step's gradient
``psum`` s end up ordered after every backward op that feeds a gradient of the same group,
among them the backward ``dot`` that reads a layer's kernel for the gradient of the layer
below. Measured on a ``shard_map`` data-parallel step (4 host devices, XLA:CPU): the Dense_1
and Dense_2 kernels are aliased copy-free, which the separate ``psum`` s do not explain.

:func:`combine_all_reduces` rewrites a model the same way: each group becomes one
``stablehlo.all_reduce`` with every member's operands and results, and the ops are put back in
an order where every op follows the ops it uses (members' users move after the group)::

    %g0 = all_reduce(%d0)   %u0 = add %p0, %g0   %g1 = all_reduce(%d1)   %u1 = add %p1, %g1
    // becomes
    %g0, %g1 = all_reduce(%d0, %d1)   %u0 = add %p0, %g0   %u1 = add %p1, %g1

Only single-operand all-reduces at the top level of the function are combined (XLA combines
nothing else), and only those whose key the adapter can tell (``key``: the op's attributes and
reduction region, as :mod:`.cse` compares them; types are left out here, the element type is
compared apart).
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable
from dataclasses import replace

from jax_use_donated.analysis.model import FunctionModel, Op, ValueId

ALL_REDUCE = "stablehlo.all_reduce"
COMBINE_THRESHOLD_BYTES = 30 * 1024 * 1024
"""XLA's combine threshold in bytes (the value its CPU and GPU pipelines pass)."""
COMBINE_THRESHOLD_COUNT = 256

_TYPE = re.compile(r"tensor<[^<>]*>")


def _key(op: Op, key: Callable[[Op], object]) -> object:
    """The combiner's key of ``op`` (``None``: not combinable): the adapter's key with tensor
    types left out, and the element type."""
    if (op.name != ALL_REDUCE or len(op.operands) != 1 or len(op.results) != 1
            or not op.result_types or op.result_types[0] is None):
        return None
    k = key(op)
    if k is None:
        return None
    text = _TYPE.sub("T", k) if isinstance(k, str) else k
    return (text, op.result_types[0].element_type)


class _Graph:
    """Op -> the ops it uses, with each combined group contracted to one node (its first
    member). Every op joins at most one group."""

    def __init__(self, fn: FunctionModel) -> None:
        defining: dict[ValueId, int] = {}
        for op in fn.ops:
            for v in op.results:
                defining[v] = op.index
        self.preds: list[set[int]] = [
            {d for v in (*op.operands, *op.region_uses) if (d := defining.get(v)) is not None}
            for op in fn.ops]
        self.rep: list[int] = list(range(len(fn.ops)))
        self.members: dict[int, list[int]] = {}
        """A group's node -> its members."""

    def merge(self, group: list[int]) -> None:
        head = group[0]
        for m in group:
            self.rep[m] = head
        self.members[head] = list(group)

    def depends_on_any(self, b: int, nodes: list[int]) -> bool:
        """Whether ``b`` depends on one of ``nodes`` (all as their contracted nodes): one
        walk over ``b``'s ancestors."""
        rb = self.rep[b]
        targets = {self.rep[a] for a in nodes} - {rb}
        if not targets:
            return False
        seen = {rb}
        stack = [rb]
        while stack:
            n = stack.pop()
            for m in self.members.get(n, (n,)):
                for p in self.preds[m]:
                    q = self.rep[p]
                    if q in targets:
                        return True
                    if q not in seen:
                        seen.add(q)
                        stack.append(q)
        return False


def _post_order(fn: FunctionModel) -> list[int]:
    """XLA's ``MakeInstructionPostOrder`` of the model: depth first from the results in order,
    each op's operands in order, then ops no result reaches in op order."""
    defining: dict[ValueId, int] = {}
    for op in fn.ops:
        for v in op.results:
            defining[v] = op.index
    seen: set[int] = set()
    order: list[int] = []

    def visit(start: int) -> None:
        stack: list[tuple[int, bool]] = [(start, False)]
        while stack:
            i, done = stack.pop()
            if done:
                order.append(i)
                continue
            if i in seen:
                continue
            seen.add(i)
            stack.append((i, True))
            op = fn.ops[i]
            for v in reversed((*op.operands, *op.region_uses)):
                d = defining.get(v)
                if d is not None and d not in seen:
                    stack.append((d, False))

    for r in fn.results:
        d = defining.get(r.value)
        if d is not None:
            visit(d)
    for op in fn.ops:
        visit(op.index)
    return order


def combine_groups(fn: FunctionModel, key: Callable[[Op], object]) -> list[list[int]]:
    """The groups of op indices XLA's combiner merges (each of two or more all-reduces)."""
    keys = {op.index: k for op in fn.ops if (k := _key(op, key)) is not None}
    if len(keys) < 2:
        return []
    graph = _Graph(fn)
    order = [i for i in _post_order(fn) if i in keys]
    groups: list[list[int]] = []
    left = list(order)
    while left:
        first = left[0]
        group, nbytes, rest = [first], _bytes(fn.ops[first]), []
        stopped = False
        for i in left[1:]:
            if stopped or keys[i] != keys[first]:
                rest.append(i)
                continue
            size = _bytes(fn.ops[i])
            if (nbytes + size > COMBINE_THRESHOLD_BYTES
                    or graph.depends_on_any(i, group)):
                stopped = True
                rest.append(i)
                continue
            group.append(i)
            nbytes += size
            if len(group) >= COMBINE_THRESHOLD_COUNT:
                stopped = True
        if len(group) > 1:
            groups.append(sorted(group))
            graph.merge(sorted(group))
        left = rest
    return groups


def _bytes(op: Op) -> int:
    t = op.result_types[0] if op.result_types else None
    n = t.nbytes if t is not None else None
    return n if n is not None else COMBINE_THRESHOLD_BYTES + 1


def combine_all_reduces(fn: FunctionModel, key: Callable[[Op], object]) -> FunctionModel:
    """``fn`` with the all-reduces XLA combines as one op each (see the module docstring);
    ``fn`` itself when there is nothing to combine."""
    groups = combine_groups(fn, key)
    if not groups:
        return fn
    head_of = {m: g[0] for g in groups for m in g}
    combined: dict[int, Op] = {}
    for g in groups:
        members = [fn.ops[m] for m in g]
        first = members[0]
        combined[g[0]] = replace(
            first,
            operands=[v for m in members for v in m.operands],
            results=[v for m in members for v in m.results],
            operand_types=[t for m in members for t in m.operand_types],
            result_types=[t for m in members for t in m.result_types],
            region_uses=[v for m in members for v in m.region_uses])
    nodes = [i for i in range(len(fn.ops)) if head_of.get(i, i) == i]
    position = {i: (max(next(g for g in groups if g[0] == i)) if i in combined else i)
                for i in nodes}
    defining: dict[ValueId, int] = {}
    for op in fn.ops:
        for v in op.results:
            defining[v] = head_of.get(op.index, op.index)
    node_op = {i: combined.get(i, fn.ops[i]) for i in nodes}
    preds = {i: {d for v in (*node_op[i].operands, *node_op[i].region_uses)
                 if (d := defining.get(v)) is not None and d != i} for i in nodes}
    users: dict[int, list[int]] = {i: [] for i in nodes}
    for i, ps in preds.items():
        for p in ps:
            users[p].append(i)
    waiting = {i: len(ps) for i, ps in preds.items()}
    ready = [(position[i], i) for i in nodes if waiting[i] == 0]
    heapq.heapify(ready)
    ops: list[Op] = []
    while ready:
        _, i = heapq.heappop(ready)
        ops.append(replace(node_op[i], index=len(ops)))
        for u in users[i]:
            waiting[u] -= 1
            if waiting[u] == 0:
                heapq.heappush(ready, (position[u], u))
    if len(ops) != len(nodes):  # a cycle: the grouping was wrong; keep XLA's ops apart
        return fn
    return replace(fn, ops=ops)
