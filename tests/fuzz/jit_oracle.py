"""The differential oracle for the jit hook: one :class:`ProgramSpec`, two jits, five checks.

:func:`check_program` runs the program through ``jax_use_donated.jit`` and plain ``jax.jit``
(same ``donate_argnums``) and asserts:

1. equal results (bitwise when every op is deterministic, else to float tolerance);
2. exactly the inputs the compiled program aliases were invalidated (``is_deleted()``), all of
   them donated;
3. the compiled ``input_output_alias`` equals the hook's plan (``DonatingJit.last_plan``; the
   wrapper must not have fallen back to plain ``jax.jit``);
4. XLA's copy count and temp bytes are never above JAX's default;
5. (recorded in :class:`Stats`, not asserted) whether our program has no more copies than the
   same program compiled with no donation at all, i.e. every pair we chose was copy-free.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import jax

from jax_use_donated.oracle.reference import arrays_match
from tests.fuzz.jax_programs import ProgramSpec
from tests.fuzz.xla_facts import CompiledFacts, compiled_facts


@dataclass
class Stats:
    """Running figures of a fuzz campaign (printed at the end of the run)."""

    programs: int = 0
    donors: int = 0
    ours_aliased: int = 0
    jax_aliased: int = 0
    fewer_copies: int = 0
    copies_saved: int = 0
    temp_saved: int = 0
    extra_copies_vs_plain: int = 0
    kinds: Counter[str] = field(default_factory=Counter)

    def summary(self) -> str:
        return (f"{self.programs} programs, {self.donors} donated leaves; aliased: ours "
                f"{self.ours_aliased}, jax {self.jax_aliased}; programs with fewer copies "
                f"than jax: {self.fewer_copies} ({self.copies_saved} copies, "
                f"{self.temp_saved} temp bytes saved); programs with more copies than the "
                f"undonated compile: {self.extra_copies_vs_plain}")


STATS = Stats()


def leaves_equal(a: Any, b: Any, exact: bool) -> bool:
    """Bitwise equal when ``exact``, else equal to 1e-3 (floats in double precision)."""
    return arrays_match(a, b, exact=exact, rtol=1e-3, atol=1e-3)


def _facts(jitted: Any, spec: ProgramSpec) -> CompiledFacts:
    compiled = jitted.lower(*spec.make_args()).compile()
    return compiled_facts(compiled, len(spec.inputs))


def plan_of(jitted: Any) -> tuple[dict[int, int], set[int]] | None:
    """The hook's plan for its latest lowering, from the public accessor
    (``DonatingJit.last_plan``): ``({parameter: output}, buffer donors)``; XLA may alias a
    buffer donor to any output of its size. ``None`` when nothing was planned."""
    plan = getattr(jitted, "last_plan", None)
    if plan is None:
        return None
    return dict(plan.parameter_pairs), set(plan.buffer_donors)


def check_program(spec: ProgramSpec, ours_jit: Any, stats: Stats = STATS,
                  jit_kwargs: dict[str, Any] | None = None) -> None:
    """Run every check on ``spec`` (see the module docstring); raise ``AssertionError`` with
    the program's description on the first failure."""
    kwargs = dict(jit_kwargs or {})
    kwargs["donate_argnums"] = spec.donate_argnums
    ref = jax.jit(spec.build(), **kwargs)
    ours = ours_jit(spec.build(), **kwargs)
    plain = jax.jit(spec.build(), **{k: v for k, v in kwargs.items() if k != "donate_argnums"})
    where = "\n" + spec.describe()

    ref_out = ref(*spec.make_args())
    args = spec.make_args()
    out = ours(*args)
    ref_leaves, ref_def = jax.tree.flatten(ref_out)
    out_leaves, out_def = jax.tree.flatten(out)
    assert ref_def == out_def, f"output structure {out_def} != {ref_def}{where}"
    for i, (a, b) in enumerate(zip(out_leaves, ref_leaves, strict=True)):
        assert leaves_equal(a, b, spec.exact), f"output leaf {i}: {a} != {b}{where}"

    in_leaves = jax.tree.leaves(args)
    deleted = {i for i, x in enumerate(in_leaves) if x.is_deleted()}
    facts = _facts(ours, spec)
    ref_facts = _facts(ref, spec)
    plain_facts = _facts(plain, spec)
    aliased = set(facts.leaf_alias)
    donated = {spec.leaf_order().index(i) for i in spec.donated_inputs()}
    assert deleted == aliased, (f"invalidated inputs {sorted(deleted)} != aliased inputs "
                                f"{sorted(aliased)} (leaf -> output: {facts.leaf_alias}){where}")
    assert aliased <= donated, f"aliased {sorted(aliased)} not donated {sorted(donated)}{where}"
    assert getattr(ours, "fallback_reason", None) is None, (
        f"the wrapper fell back to jax.jit: {ours.fallback_reason}{where}")
    plan = plan_of(ours)
    expected, buffer_donors = plan if plan is not None else ({}, set())
    fixed = {p: k for p, k in facts.alias.items() if p not in buffer_donors}
    assert fixed == expected, (f"compiled input_output_alias {facts.alias} != plan "
                               f"{expected} (buffer donors {sorted(buffer_donors)}){where}")
    assert facts.copies <= ref_facts.copies, (
        f"{facts.copies} copies > jax's {ref_facts.copies}{where}")
    assert facts.temp_bytes <= ref_facts.temp_bytes, (
        f"temp {facts.temp_bytes} B > jax's {ref_facts.temp_bytes} B{where}")

    stats.programs += 1
    stats.donors += len(donated)
    stats.ours_aliased += len(facts.alias)
    stats.jax_aliased += len(ref_facts.alias)
    if facts.copies < ref_facts.copies or facts.temp_bytes < ref_facts.temp_bytes:
        stats.fewer_copies += 1
        stats.copies_saved += ref_facts.copies - facts.copies
        stats.temp_saved += ref_facts.temp_bytes - facts.temp_bytes
    if facts.copies > plain_facts.copies:
        stats.extra_copies_vs_plain += 1
    for step in spec.steps:
        stats.kinds[step.kind] += 1
