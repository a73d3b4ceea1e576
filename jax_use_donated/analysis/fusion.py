"""Pairs that stay safe when the executor fuses a result's producers into the kernel that writes
it in place (IREE's forced in-place results).

XLA decides per buffer whether an aliased output may be written in place and copies otherwise;
IREE writes a ``tf.aliasing_output`` result straight into the donor's storage from one fused
dispatch, which may also contain the ops that read the donor. Such a pair is safe only when
every op between the donor and the result's producer reads each element at the position it
writes: a *fusion cone* of elementwise ops. For ``(a, b) -> (b.T * 2, a + 1)`` the pair
``b -> 0`` passes the data-dependence rule (the transpose runs before the multiply) but the
fused transpose-multiply kernel would read ``b`` at ``(j, i)`` after writing ``(i, j)``.
The writer itself may also be an in-place updater (``dynamic_update_slice`` operand 0, scatter,
while carry) taking the donor unchanged.
"""

from __future__ import annotations

from jax_use_donated.analysis.liveness import Liveness, ProducedBy
from jax_use_donated.analysis.model import FunctionModel, ValueId
from jax_use_donated.analysis.semantics import is_elementwise


def fusion_safe(fn: FunctionModel, live: Liveness, donor: int, result: int) -> bool:
    """Whether donor ``donor`` may host ``result`` when producers fuse into the writer."""
    writer = live.writers[result]
    if not isinstance(writer, ProducedBy):
        return True  # the donor itself, or a copy of a finished value
    defining: dict[ValueId, int] = {}
    for op in fn.ops:
        for v in op.results:
            defining[v] = op.index
    donor_value = fn.args[donor].value
    tainted: set[ValueId] = {donor_value}
    depends: list[bool] = []
    for op in fn.ops:
        uses = op.operands + op.region_uses
        d = any(v in tainted for v in uses)
        depends.append(d)
        if d:
            tainted.update(op.results)
    # Ops in the writer's cone: ancestors of the writer (and itself) that depend on the donor.
    cone: set[int] = set()
    stack = [writer.op]
    while stack:
        i = stack.pop()
        if i in cone or not depends[i]:
            continue
        cone.add(i)
        for v in fn.ops[i].operands + fn.ops[i].region_uses:
            j = defining.get(v)
            if j is not None:
                stack.append(j)
    in_place = live.semantics[writer.op].in_place.get(writer.result, frozenset())
    for i in cone:
        op = fn.ops[i]
        if any(v in tainted for v in op.region_uses):
            return False
        if i == writer.op and not is_elementwise(op):
            # An in-place updater (dynamic_update_slice, scatter, while carry) may take the
            # donor itself at its in-place operand; every other operand must be untainted.
            tainted_at = {p for p, v in enumerate(op.operands) if v in tainted}
            if not tainted_at <= in_place or any(op.operands[p] != donor_value
                                                 for p in tainted_at):
                return False
            continue
        if not is_elementwise(op):
            return False
        shapes = {t.shape for v, t in zip(op.operands, op.operand_types, strict=False)
                  if v in tainted and t is not None}
        if any(t is None or (t.shape,) != (s,) for t in op.result_types for s in shapes):
            return False
    return True

