"""Identical ops as XLA sees them: merged into one before any rule runs.

XLA's ``HloCSE`` runs in every backend's simplification pipeline, long before copy insertion:
two ops with the same opcode, the same operands and the same attributes become one, and every
use of the second reads the first. JAX does not merge them (``jnp.sum(a)`` written twice lowers
to two ``stablehlo.reduce``), so a donor read by the duplicate looks read by an op no update
depends on, and the rules would predict a copy XLA does not make. Measured on XLA:CPU's
default copy insertion: ``a -> ((a @ a) * 2, a @ a)``, ``a -> (a - a.sum(), a.sum())`` and
three more such programs alias ``a`` copy-free; without this pass the plan said "copied".

``%0 = stablehlo.dot_general %a, %a`` ... ``%5 = stablehlo.dot_general %a, %a`` (same
attributes) becomes one op ``%0``, and every use of ``%5`` reads ``%0``.

Only ops without side effects (:data:`.semantics.PURE_OPS`, constants included) whose adapter
gives a key (``key(op)``: the op printed on its own, with its attributes and regions; ``None``
when it cannot tell) are merged; the pass runs where calls are inlined, on the XLA view of a
function only (the ``program`` ordering of bufferization keeps every op).

One rule, two uses: :class:`IdenticalOps` is the table of ops seen so far;
:func:`merge_identical_ops` runs it over a built model (the xDSL adapter, and the jaxlib
adapter after inlining calls), and the jaxlib adapter also asks it while it walks a function,
so a duplicate never becomes an :class:`Op` at all (40% of a train step's ops).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from jax_use_donated.analysis.model import FunctionModel, Op, Result, ValueId
from jax_use_donated.analysis.semantics import PURE_OPS

AttributeKey = Callable[[Op], object]
"""What makes the op itself identical to another (its attributes and regions, compared with
``==``), ``None`` when it must not be merged."""

MERGEABLE_OPS: frozenset[str] = PURE_OPS - frozenset({"tensor.empty"})
"""Ops XLA's CSE may merge: those without side effects (``tensor.empty`` stands for a new
buffer each time, never merged)."""

Item = TypeVar("Item")

_SSA_NAME = re.compile(r"%[A-Za-z0-9_.$#-]+")


def canonical_op_text(text: str) -> str:
    """An op's printed text with its SSA names renumbered in order of appearance: two ops
    that differ only in the names the printer gave their results and region values (and
    whose operands are the same values) print alike."""
    names: dict[str, str] = {}

    def rename(m: re.Match[str]) -> str:
        return names.setdefault(m.group(0), f"%{len(names)}")

    return _SSA_NAME.sub(rename, text)


class IdenticalOps(Generic[Item]):
    """The ops seen so far, by identity as XLA's CSE decides it: the same name, operands
    (already merged), result types and ``key(item)`` (the op's attributes and regions;
    ``None``: never merged). ``item`` is whatever ``key`` reads (a model :class:`Op`, or the
    IR op an adapter is walking); result types are compared with ``==``.

    Keys are asked only when two ops agree on everything else: most ops are unique and never
    need theirs."""

    def __init__(self, key: Callable[[Item], object]) -> None:
        self._key = key
        self._keyed: dict[tuple[object, ...], dict[object, Sequence[ValueId]]] = {}
        """Name, operands and result types -> key -> the first op's results."""
        self._lone: dict[tuple[object, ...], tuple[Item, Sequence[ValueId]]] = {}
        """The same, for a shape seen once: its key not yet asked."""

    def earlier(self, name: str, operands: Sequence[ValueId], result_types: tuple[object, ...],
                item: Item, results: Sequence[ValueId]) -> Sequence[ValueId] | None:
        """The results of an earlier op identical to this one (which is then redundant), or
        ``None``, and this op is remembered (if it may be merged at all)."""
        if name not in MERGEABLE_OPS:
            return None
        shape = (name, tuple(operands), result_types)
        keyed = self._keyed.get(shape)
        if keyed is None:
            lone = self._lone.pop(shape, None)
            if lone is None:
                self._lone[shape] = (item, results)
                return None
            keyed = self._keyed[shape] = {}
            first_key = self._key(lone[0])
            if first_key is not None:
                keyed[first_key] = lone[1]
        attrs = self._key(item)
        if attrs is None:
            return None
        first = keyed.get(attrs)
        if first is None:
            keyed[attrs] = results
        return first


def merge_identical_ops(fn: FunctionModel, key: AttributeKey) -> FunctionModel:
    """``fn`` with every op identical to an earlier one (:class:`IdenticalOps`) removed and its
    results replaced by the earlier op's; ``fn`` itself when there is none. Arguments, their
    donations and the result order are kept.

    ``fn`` is consumed: its ops are reused, renumbered and given merged operands in place
    (copying every op after the first merge cost more than the rest of the pass), so the
    caller must not use ``fn`` afterwards; the adapters pass a model they have just built."""
    table: IdenticalOps[Op] = IdenticalOps(key)
    subst: dict[ValueId, ValueId] = {}
    ops: list[Op] = []
    merged = False

    for op in fn.ops:
        if subst:
            get = subst.get
            operands = op.operands
            if any(v in subst for v in operands):
                op.operands = [get(v, v) for v in operands]
            if op.region_uses and any(v in subst for v in op.region_uses):
                op.region_uses = [get(v, v) for v in op.region_uses]
        first = table.earlier(op.name, op.operands,
                              tuple(t.text if t is not None else None for t in op.result_types),
                              op, op.results)
        if first is not None:
            for mine, theirs in zip(op.results, first, strict=True):
                subst[mine] = theirs
            merged = True
            continue
        if merged:
            op.index = len(ops)
        ops.append(op)
    if not merged:
        return fn
    returned = [Result(r.index, subst.get(r.value, r.value), r.tensor, r.type_text, r.placement)
                for r in fn.results]
    return FunctionModel(fn.name, fn.args, ops, returned, fn.loc, fn.handle, fn.return_handle)
