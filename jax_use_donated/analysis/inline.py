"""Calls as XLA sees them: every ``func.call`` of a defined function replaced by the callee's
body, before any rule runs.

XLA's ``CallInliner`` runs early in every backend pipeline, long before copy insertion, so a
step that is itself a ``jax.jit`` (or ``eqx.filter_jit``, ``nnx.jit``) called from the jitted
function, one ``func.call`` in the module, is one flat program by the time XLA assigns
buffers. Analysed as one opaque op, such a call reads every donor and writes nothing in place
(0 of 25 donors reused on an NNX train step); inlined, it gives the same plan as the program
written flat.

Adapters build the callee's model (:class:`.model.FunctionModel`, donating nothing) and hand
it to :func:`inline_calls` through ``resolve``; this module renumbers values and ops and
substitutes each call result by the value the callee returns there. Recursive calls and calls
whose callee is unknown, external or multi-block stay calls (with their summaries).

The same goes for ops whose region XLA runs in their place (:attr:`.model.Op.xla_body`): a
``sdy.manual_computation`` (``shard_map``), whose body is the program once XLA's SPMD
partitioner has run, and a ``stablehlo.case`` whose index is a constant, which XLA's
conditional simplifier replaces by the branch it takes (``optax.MultiSteps`` lowers its state
machine so). The region's block arguments take the op's operands, the outer values it closes
over (``Arg.outer``) stay themselves::

    %r = sdy.manual_computation(%w) ... (%a: tensor<2xf32>) { %0 = multiply %a, %a; sdy.return %0 }
    // becomes
    %0' = multiply %w, %w     (every use of %r reads %0')

``%r = func.call @f(%a)`` with ``@f(%x) { %0 = add %x, %x; return %0 }`` becomes
``%0' = add %a, %a`` and every use of ``%r`` reads ``%0'``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from jax_use_donated.analysis.model import FunctionModel, Op, Result, ValueId

Resolver = Callable[[str], FunctionModel | None]
"""Callee name -> its model (arguments without donation), ``None`` when it cannot be inlined."""


def has_calls(fn: FunctionModel) -> bool:
    """Whether ``fn`` has ops :func:`inline_calls` may replace: calls, and ops with an
    :attr:`.model.Op.xla_body`."""
    return any((op.name == "func.call" and op.target) or op.xla_body is not None
               for op in fn.ops)


class _Inliner:
    def __init__(self, resolve: Resolver) -> None:
        self.resolve = resolve
        self.done: dict[str, FunctionModel | None] = {}
        self.active: set[str] = set()

    def callee(self, name: str) -> FunctionModel | None:
        """The callee's model with its own calls inlined (memoised; ``None`` on recursion)."""
        if name in self.done:
            return self.done[name]
        if name in self.active:
            return None
        self.active.add(name)
        try:
            body = self.resolve(name)
            if body is not None:
                body = self.inline(body)
        finally:
            self.active.discard(name)
        self.done[name] = body
        return body

    def region(self, op: Op) -> FunctionModel | None:
        """``op``'s :attr:`~.model.Op.xla_body` with its own calls and regions inlined."""
        assert op.xla_body is not None
        body = op.xla_body()
        return self.inline(body) if body is not None else None

    def inline(self, fn: FunctionModel) -> FunctionModel:
        if not has_calls(fn):
            return fn
        next_id = 1 + max([a.value for a in fn.args]
                          + [v for op in fn.ops for v in op.results], default=-1)
        subst: dict[ValueId, ValueId] = {}
        ops: list[Op] = []

        def m(v: ValueId) -> ValueId:
            return subst.get(v, v)

        for op in fn.ops:
            body = (self.callee(op.target) if op.name == "func.call" and op.target
                    else self.region(op) if op.xla_body is not None else None)
            if body is None or not _binds(body, op):
                ops.append(_renumbered(op, len(ops), [m(v) for v in op.operands],
                                       op.results, [m(v) for v in op.region_uses], m))
                continue
            local: dict[ValueId, ValueId] = {}
            for i, a in enumerate(body.args):
                local[a.value] = m(op.operands[i] if a.outer is None else a.outer)
            for bop in body.ops:
                results: list[ValueId] = []
                for r in bop.results:
                    local[r] = next_id
                    results.append(next_id)
                    next_id += 1
                ops.append(_renumbered(bop, len(ops), [local[v] for v in bop.operands],
                                       results, [local[v] for v in bop.region_uses],
                                       _lookup(dict(local))))
            for k, res in enumerate(body.results):
                subst[op.results[k]] = local[res.value]
        returned = [Result(r.index, m(r.value), r.tensor, r.type_text, r.placement)
                    for r in fn.results]
        return FunctionModel(fn.name, fn.args, ops, returned, fn.loc, fn.handle,
                             fn.return_handle)


def _binds(body: FunctionModel, op: Op) -> bool:
    """Whether ``body`` can stand for ``op``: its block arguments first, bound to the op's
    first operands in order (a called function's to all of them, a case branch's to none),
    then the outer values it closes over; one result per result."""
    n = sum(a.outer is None for a in body.args)
    return (n <= len(op.operands) and all(a.outer is None for a in body.args[:n])
            and all(a.outer is not None for a in body.args[n:])
            and len(body.results) == len(op.results))


def _renumbered(op: Op, index: int, operands: list[ValueId], results: list[ValueId],
                region_uses: list[ValueId], rename: Callable[[ValueId], ValueId]) -> Op:
    """``op`` at ``index`` with its values renamed; its conditional branches' outer values
    (``Arg.outer``) are renamed by ``rename`` too."""
    branches = op.branches
    if branches is not None:
        original = branches
        done: list[list[FunctionModel]] = []

        def renamed() -> list[FunctionModel]:
            if not done:
                done.append([replace(b, args=[replace(a, outer=rename(a.outer))
                                              if a.outer is not None else a for a in b.args])
                             for b in original()])
            return done[0]

        branches = renamed
    return replace(op, index=index, operands=operands, results=results,
                   region_uses=region_uses, branches=branches)


def _lookup(table: dict[ValueId, ValueId]) -> Callable[[ValueId], ValueId]:
    return lambda v: table.get(v, v)


def inline_calls(fn: FunctionModel, resolve: Resolver) -> FunctionModel:
    """``fn`` with every ``func.call`` whose callee ``resolve`` gives replaced by the callee's
    body (transitively); ``fn`` itself when it calls nothing inlinable. ``fn``'s arguments
    (with their donations) and result order are kept."""
    return _Inliner(resolve).inline(fn)
