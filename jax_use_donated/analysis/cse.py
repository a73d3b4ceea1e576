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
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from jax_use_donated.analysis.model import FunctionModel, Op, Result, ValueId
from jax_use_donated.analysis.semantics import PURE_OPS

AttributeKey = Callable[[Op], object]
"""What makes the op itself identical to another (its attributes and regions, compared with
``==``), ``None`` when it must not be merged."""

_NEVER = frozenset({"tensor.empty"})

_SSA_NAME = re.compile(r"%[A-Za-z0-9_.$#-]+")


def canonical_op_text(text: str) -> str:
    """An op's printed text with its SSA names renumbered in order of appearance: two ops
    that differ only in the names the printer gave their results and region values (and
    whose operands are the same values) print alike."""
    names: dict[str, str] = {}

    def rename(m: re.Match[str]) -> str:
        return names.setdefault(m.group(0), f"%{len(names)}")

    return _SSA_NAME.sub(rename, text)


def merge_identical_ops(fn: FunctionModel, key: AttributeKey) -> FunctionModel:
    """``fn`` with every op identical to an earlier one (name, operands after merging, result
    types and ``key``) removed and its results replaced by the earlier op's; ``fn`` itself
    when there is none. Arguments, their donations and the result order are kept."""
    seen: dict[tuple[object, ...], dict[object, Op] | None] = {}
    """Name, operands and result types -> the first op of each key (``None``: one op so far,
    its key not yet asked: most ops are unique and never need theirs)."""
    lone: dict[tuple[object, ...], Op] = {}
    subst: dict[ValueId, ValueId] = {}
    ops: list[Op] = []
    merged = False

    for op in fn.ops:
        operands = [subst.get(v, v) for v in op.operands]
        region_uses = [subst.get(v, v) for v in op.region_uses]
        if op.name in PURE_OPS and op.name not in _NEVER:
            shape: tuple[object, ...] = (op.name, tuple(operands), len(op.results),
                                         tuple(t.text if t is not None else None
                                               for t in op.result_types))
            if shape not in seen:
                seen[shape] = None
                lone[shape] = op
            else:
                by_key = seen[shape]
                if by_key is None:
                    first_op = lone.pop(shape)
                    by_key = seen[shape] = {}
                    first_key = key(first_op)
                    if first_key is not None:
                        by_key[first_key] = first_op
                attrs = key(op)
                first = by_key.get(attrs) if attrs is not None else None
                if first is not None:
                    for mine, theirs in zip(op.results, first.results, strict=True):
                        subst[mine] = theirs
                    merged = True
                    continue
                if attrs is not None:
                    by_key[attrs] = op
        if merged or operands != op.operands or region_uses != op.region_uses:
            op = replace(op, index=len(ops), operands=operands, region_uses=region_uses)
        ops.append(op)
    if not merged:
        return fn
    returned = [Result(r.index, subst.get(r.value, r.value), r.tensor, r.type_text, r.placement)
                for r in fn.results]
    return FunctionModel(fn.name, fn.args, ops, returned, fn.loc, fn.handle, fn.return_handle)
