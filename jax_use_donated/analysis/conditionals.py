"""When a ``stablehlo.case`` (``lax.cond``, ``lax.switch``) can write a result into a donor's
buffer without a copy, as XLA's copy insertion decides it for a conditional whose index is
not a constant (a constant index is inlined: :attr:`.model.Op.xla_body`).

XLA writes a conditional's result ``k`` in each branch: the branch's root value becomes the
result's buffer. For a donor ``d`` to host ``k`` copy-free, every branch must leave ``k`` in
``d``'s buffer, and no read of ``d`` may come after a write of it. XLA orders the branches of
one conditional as if branch 0 ran before branch 1, and so on (``HloOrdering``'s exclusive
branches), which gives the rules below, one per branch ``b`` by what it returns at ``k``
(measured on XLA:CPU with every combination of the kinds below in two branches, with and
without region analysis, ``tests/test_conditionals.py``):

* ``d`` itself: ``d`` must live to the end of branch ``b``: no *earlier* branch may write it;
* a value computed in the branch: the write must come after the branch's own reads of ``d``
  (the ordering's rule inside the branch, whose model is a function of the values it closes
  over), and under XLA's default copy insertion (data dependence) no *later* branch may read
  ``d`` (region analysis knows the branches exclude each other); a constant is copied into
  the result at the branch's end, after its reads;
* a value computed before the conditional (captured): it must itself be written into ``d``'s
  buffer, which only works when no branch reads or returns ``d`` (the conditional reads the
  value after it is written), by the top-level rule for its producer.

XLA allows a value's use in one exclusive branch only (``has_use_in_exclusive_branches``): a
value computed before the conditional returned by a branch before and a branch after one
that writes ``d``, or (data dependence) ``d`` returned unchanged by two branches before one
that reads and writes it, costs a copy.

Reads of ``d`` outside the conditional must be data-dependence ancestors of it whatever the
ordering: region analysis does not order an independent read before writes inside a
conditional's branches (measured: ``r = cond(...); return r, d.sum()`` copies ``d`` with and
without it). Example::

    r = lax.cond(c, lambda a: a + g, lambda a: jnp.zeros_like(a), acc)   # acc donated, -> r
    # region analysis: copy-free (each branch writes r after its reads);
    # data dependence: copied (branch 0 writes before branch 1's read of acc)

XLA 0.12 (jaxlib 0.12) treats the branches as exclusive in both modes and no longer writes a
branch that returns ``d`` unchanged: the index-order rules (a write before a later branch's
pass or read, two passes before a reading writer, a value computed before the conditional
returned on both sides of a write) do not apply there (:func:`exclusive_branches`; measured
on the same grid, 1,436 programs: the older rules predicted 154 copies it no longer makes).
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Protocol

from jax_use_donated.analysis.model import (
    Donation,
    DonationKind,
    FunctionModel,
    Op,
    reads_only,
)
from jax_use_donated.analysis.semantics import classify
from jax_use_donated.analysis.xla_release import xla_at_least

CASE = "stablehlo.case"

EXCLUSIVE_FROM = (0, 12)
"""The first jaxlib whose XLA orders no branch before another (measured: 0.10.2 does, 0.12.0.1
does not; 0.11 is not measured and keeps the older, copy-predicting rules)."""


@functools.cache
def exclusive_branches() -> bool:
    """Whether the XLA the programs compile with (:func:`.xla_release.xla_version`: the
    installed jaxlib's, or ``JUD_XLA_VERSION``) treats a conditional's branches as exclusive in
    both copy-insertion modes."""
    return xla_at_least(*EXCLUSIVE_FROM)


@dataclass
class BranchFacts:
    """One branch of a conditional, seen from one donor."""

    model: FunctionModel
    """The branch as a function of the values it closes over, the donor's marked donated."""
    donor_args: list[int]
    """Its arguments standing for the donor's buffer."""


def branch_facts(fn: FunctionModel, roots_of_outer: dict[int, frozenset[int]], d: int,
                 branches: list[FunctionModel]) -> list[BranchFacts]:
    """Each branch with the arguments that stand for donor ``d`` (an outer value among whose
    roots ``d`` is, by ``roots_of_outer``: outer value -> donors) marked donated."""
    out: list[BranchFacts] = []
    for body in branches:
        donor_args: list[int] = []
        args = []
        for a in body.args:
            if a.outer is not None and d in roots_of_outer.get(a.outer, frozenset()) \
                    and a.tensor is not None:
                donor_args.append(a.index)
                a = dataclasses.replace(a, donation=Donation(DonationKind.BUFFER_DONOR))
            args.append(a)
        out.append(BranchFacts(FunctionModel(body.name, args, body.ops, body.results,
                                             body.loc, body.handle, body.return_handle),
                               donor_args))
    return out


def case_returns(branches: list[FunctionModel]) -> dict[int, list[int]]:
    """Result index -> the outer values some branch returns there unchanged (through
    single-operand forwarding ops: ``reshape``, equal-width ``bitcast_convert``...): the
    conditional's result may be that value's buffer.

    ``case(i) {return %x, %y} {return %z, %w}`` with outer ``%x`` and ``%z``: ``{0: [x, z]}``."""
    out: dict[int, list[int]] = {}
    for body in branches:
        arg_of = {a.value: a for a in body.args}
        defining = {v: op for op in body.ops for v in op.results}
        for res in body.results:
            v, seen = res.value, 0
            while v in defining and seen < len(body.ops):
                op = defining[v]
                fwd = classify(op).forwards.get(op.results.index(v), ())
                if len(fwd) != 1 or fwd[0] >= len(op.operands):
                    break
                v, seen = op.operands[fwd[0]], seen + 1
            arg = arg_of.get(v)
            if arg is not None and arg.outer is not None:
                out.setdefault(res.index, []).append(arg.outer)
    return out


def returned_outer(facts: BranchFacts, r: int) -> set[int]:
    """The outer values branch ``facts`` returns at result ``r`` unchanged."""
    return set(case_returns([facts.model]).get(r, []))


def is_case(op: Op) -> bool:
    return op.name == CASE and op.branches is not None


@dataclass(frozen=True)
class CaseConflict:
    """Why a conditional cannot write result ``k`` into the donor's buffer copy-free:
    ``reader`` (an op of the function or of a branch) still reads it, or ``detail`` says
    what else; ``inner`` is the blocker a branch's own rule gave (an :class:`.plan.Blocker`)."""

    reader: Op | None = None
    detail: str = ""
    inner: object = None


class BranchRule(Protocol):
    """What :func:`case_conflict` needs of the top-level pair rule (:class:`.plan.PairChecker`)."""

    kind: str
    fn: FunctionModel

    def data_before(self, reader: int, writer: int) -> bool: ...
    def branch_blocker(self, body: FunctionModel, darg: int, k: int) -> object: ...
    def outer_blocker(self, d: int, k: int, value: int) -> object: ...
    def returned_in_branch(self, body: FunctionModel, darg: int) -> list[int]: ...
    def reads_in_branch(self, body: FunctionModel, darg: int) -> bool: ...
    def branch_source(self, body: FunctionModel, value: int) -> tuple[str, int, int]: ...


def case_conflict(rule: BranchRule, reads: dict[int, set[int]], d: int, k: int, p: int,
                  r: int, facts: list[BranchFacts]) -> CaseConflict | None:
    """``None`` when conditional ``p`` writes its result ``r`` (the function's result ``k``)
    into donor ``d``'s buffer copy-free under ``rule``'s ordering (see the module docstring);
    ``reads``: op -> positions of ``d``'s reads at top level."""
    fn = rule.fn
    case = fn.ops[p]
    written = case.results[r] if r < len(case.results) else None
    for u in sorted(reads):
        if u != p and not rule.data_before(u, p) and not reads_only(fn.ops[u], reads[u],
                                                                      written):
            return CaseConflict(fn.ops[u])
    writes: list[int] = []
    passes: list[int] = []
    branch_reads: list[int] = []
    outer_values: list[int] = []
    for b, facts_b in enumerate(facts):
        body = facts_b.model
        if r >= len(body.results):
            return CaseConflict(None, f"branch {b} returns fewer results")
        for darg in facts_b.donor_args:
            other = [j for j in rule.returned_in_branch(body, darg) if j != r]
            if other:
                return CaseConflict(None, f"branch {b} also returns it as result {other[0]}")
            if rule.reads_in_branch(body, darg):
                branch_reads.append(b)
        kind, index, _ = rule.branch_source(body, body.results[r].value)
        if kind == "arg":
            arg = body.args[index]
            if index in facts_b.donor_args:
                passes.append(b)
            elif arg.outer is not None:
                outer_values.append(arg.outer)
            else:
                return CaseConflict(None, f"branch {b} returns a value the rules do not know")
            continue
        writes.append(b)
        if body.ops[index].name == "stablehlo.constant":
            continue  # copied into the result at the branch's end, after its reads
        for darg in facts_b.donor_args:
            blocker = rule.branch_blocker(body, darg, r)
            if blocker is not None:
                return CaseConflict(None, f"in branch {b}", blocker)
    if exclusive_branches():
        writes = []  # no branch is ordered before another (see the module docstring)
    for bw in writes:
        # XLA allows one use in an exclusive branch (has_use_in_exclusive_branches)
        if rule.kind == "dataflow" and bw in branch_reads and sum(bp < bw for bp in passes) > 1:
            return CaseConflict(None, f"branches {passes[0]} and {passes[1]} return it "
                                f"unchanged before branch {bw} reads and writes it")
        for v in set(outer_values):
            where = [b for b, facts_b in enumerate(facts) if v in returned_outer(facts_b, r)]
            if any(b < bw for b in where) and any(b > bw for b in where):
                return CaseConflict(None, f"branches {where[0]} and {where[-1]} return a value "
                                    f"computed before it, and branch {bw} writes it between")
    for bw in writes:
        late = next((bp for bp in passes if bp > bw), None)
        if late is not None:
            return CaseConflict(None, f"branch {bw} writes it before branch {late} returns "
                                "it unchanged")
        if rule.kind == "dataflow":
            late = next((br for br in branch_reads if br > bw), None)
            if late is not None:
                return CaseConflict(None, f"branch {bw} writes it before branch {late} reads "
                                    "it (XLA orders a conditional's branches by index)")
    if outer_values:
        if branch_reads or passes:
            return CaseConflict(case, "it returns a value computed before it, which would "
                                "have to be written into the donor before the conditional "
                                "reads it")
        for value in dict.fromkeys(outer_values):
            blocker = rule.outer_blocker(d, k, value)
            if blocker is not None:
                return CaseConflict(None, "", blocker)
    return None
