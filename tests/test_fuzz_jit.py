"""Differential fuzzing of ``jax_use_donated.jit`` against plain ``jax.jit``.

Every random program (:mod:`tests.fuzz.jax_programs`: elementwise chains, ``dot_general``,
reductions, transposes, reshapes, converts, ``dynamic_update_slice``, scatter,
``fori_loop`` / ``while_loop`` / ``scan`` carries, ``cond``, nested jits, pytrees of inputs and
outputs in random orders, random donate sets, colliding shapes and dtypes) must pass
:func:`tests.fuzz.jit_oracle.check_program`: equal results (bitwise for deterministic ops),
exactly the aliased inputs invalidated, the compiled ``input_output_alias`` equal to the
plan, and no more XLA copies or temp bytes than JAX's default.

Profiles (environment variables):

* default (CI): ``JUD_FUZZ_PROFILE`` unset or ``ci``: 300 single-device programs
  (derandomized, so CI is reproducible) and 40 programs on 4 host devices in a subprocess;
  about 2-3 minutes on 2 cores;
* ``JUD_FUZZ_PROFILE=long``: 10,000 single-device and 1,000 sharded programs, random seeds;
* ``JUD_FUZZ_EXAMPLES=N`` / ``JUD_FUZZ_SHARDED_EXAMPLES=N`` override the counts of either.

For example ``JUD_FUZZ_PROFILE=long pytest tests/test_fuzz_jit.py -s`` (``-s`` prints the
campaign summary: programs, donors, aliased buffers, copies saved).
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import pytest
from hypothesis import HealthCheck, given, settings
from jax import lax

import jax_use_donated
from tests.fuzz.jax_programs import ProgramSpec, Step, TypeSpec, programs
from tests.fuzz.jit_oracle import STATS, Stats, check_program
from tests.fuzz.xla_facts import parse_input_output_alias

PROFILE = os.environ.get("JUD_FUZZ_PROFILE", "ci")
LONG = PROFILE == "long"
EXAMPLES = int(os.environ.get("JUD_FUZZ_EXAMPLES", 10_000 if LONG else 300))
SHARDED_EXAMPLES = int(os.environ.get("JUD_FUZZ_SHARDED_EXAMPLES", 1_000 if LONG else 40))
ROOT = Path(__file__).resolve().parent.parent

HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example]


@pytest.fixture(autouse=True)
def _quiet_donation_warnings() -> Any:
    """Unreusable donors warn by design; thousands of warnings would drown the report."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=not LONG,
          suppress_health_check=HEALTH)
@given(programs())
def test_jit_matches_jax_on_random_programs(spec: ProgramSpec) -> None:
    check_program(spec, jax_use_donated.jit)


def test_campaign_summary() -> None:
    """Print the figures of the campaign above (runs after it in file order)."""
    print(f"\njit fuzz ({PROFILE}): {STATS.summary()}")
    print(f"op kinds: {dict(sorted(STATS.kinds.items()))}")
    if STATS.programs:
        assert STATS.ours_aliased > 0, "no program aliased anything: the fuzzer is broken"


def test_sharded_programs_on_four_host_devices() -> None:
    """The sharded variant needs ``XLA_FLAGS`` before jax is imported: a subprocess."""
    env = dict(os.environ)
    env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") +
                        " --xla_force_host_platform_device_count=4").strip()
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    cmd = [sys.executable, "-m", "tests.fuzz.sharded_worker", "--examples",
           str(SHARDED_EXAMPLES)]
    if LONG:
        cmd += ["--seed", str(int.from_bytes(os.urandom(4), "little"))]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300 if not LONG else 6 * 3600)
    print(f"\nsharded jit fuzz: {proc.stdout.strip().splitlines()[-1:]}")
    assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}"


# ------------------------------------------------------------------------- fixed programs
def _spec(inputs: list[TypeSpec], steps: list[Step], outputs: list[int],
          donate: tuple[int, ...]) -> ProgramSpec:
    groups = tuple(("leaf", (i,)) for i in range(len(inputs)))
    output = ("tuple", tuple(("leaf", v) for v in outputs))
    return ProgramSpec(tuple(inputs), groups, tuple(steps), output, donate, seed=7)


F4 = TypeSpec((4,), "float32")
I4 = TypeSpec((4,), "int32")


@pytest.mark.parametrize("name, spec", [
    # (a, b) -> (b * b, a + a): JAX pairs a -> 0, which overwrites a before its read
    ("swap", _spec([F4, F4], [Step("binary", (1, 1), "mul", (F4,)),
                              Step("binary", (0, 0), "add", (F4,))], [2, 3], (0, 1))),
    # an input returned unchanged and donated: it hosts itself
    ("returned-donor", _spec([F4, F4], [Step("unary", (1,), "neg", (F4,))], [0, 2], (0, 1))),
    # the same value returned twice
    ("duplicate-output", _spec([F4], [Step("unary", (0,), "abs", (F4,))], [1, 1], (0,))),
    # a loop carrying its two inputs swapped
    ("loop-swap", _spec([F4, F4], [Step("fori", (0, 1), (3, (("keep", 1, 1), ("keep", 0, 0))),
                                        (F4, F4))], [2, 3], (0, 1))),
    # same byte size, other dtype: only XLA's size matching could pair them
    ("dtype-collision", _spec([F4, I4], [Step("convert", (0,), "int32", (I4,))], [2], (0, 1))),
])
def test_fixed_programs(name: str, spec: ProgramSpec) -> None:
    stats = Stats()
    check_program(spec, jax_use_donated.jit, stats)
    assert stats.programs == 1


def test_swap_is_copy_free_where_jax_copies() -> None:
    """The oracle can tell the two apart: on the swap, ours has fewer copies than JAX's."""
    stats = Stats()
    spec = _spec([TypeSpec((4, 4), "float32")] * 2,
                 [Step("binary", (1, 1), "mul", (TypeSpec((4, 4), "float32"),)),
                  Step("binary", (0, 0), "add", (TypeSpec((4, 4), "float32"),))],
                 [2, 3], (0, 1))
    check_program(spec, jax_use_donated.jit, stats)
    assert stats.fewer_copies == 1 and stats.copies_saved > 0


def test_alias_header_parser() -> None:
    header = ("HloModule jit_f, is_scheduled=true, input_output_alias={ {0}: (1, {}, "
              "may-alias), {1}: (0, {}, must-alias) }, entry_computation_layout={(f32[4]{0})}")
    assert parse_input_output_alias(header) == {1: 0, 0: 1}
    assert parse_input_output_alias("HloModule m, entry_computation_layout={()->()}") == {}


def test_donor_feeding_several_loop_carries_keeps_jax_pairing() -> None:
    """Finding J1 (fixed): a donor fed to two while carries may host the result of one of
    them, because the loop takes its carries at entry; that pair saves XLA's entry copy."""
    def f(x: Any) -> Any:
        a, b = lax.fori_loop(0, 3, lambda i, c: (jnp.maximum(c[0], c[1]), c[1] - c[1]), (x, x))
        return a, b * b

    x = jnp.arange(4, dtype=jnp.int32)
    ours = str(jax_use_donated.jit(f, donate_argnums=0).lower(x).compile().as_text())
    theirs = str(jax.jit(f, donate_argnums=0).lower(x).compile().as_text())
    assert ours.count(" copy(") <= theirs.count(" copy(")


I22 = TypeSpec((2, 2), "int32")
F44 = TypeSpec((4, 4), "float32")


def test_returned_donor_and_size_matched_buffer_donor() -> None:
    """Finding J2 (fixed): a kept ``jax.buffer_donor`` that XLA's size matching would give a
    result it cannot host safely (here the loop's ``f32[4,4]`` for the ``f32[2,8]`` donor read
    by a later convert) loses its mark instead of costing XLA a copy and temp buffer."""
    spec = ProgramSpec(
        (I4, I4, TypeSpec((2, 8), "float32"), F44), (("tuple", (2, 0, 3)), ("leaf", (1,))),
        (Step("while", (3,), (2, (("keep", 0, 0),)), (F44,)),
         Step("while", (3, 1, 0), (3, (("add", 0, 0), ("keep", 1, 1), ("sub", 2, 1))),
              (F44, I4, I4)),
         Step("convert", (2,), "int32", (TypeSpec((2, 8), "int32"),))),
        ("dict", (("o00", ("leaf", 0)), ("o01", ("leaf", 5)), ("o02", ("leaf", 8)),
                  ("o03", ("leaf", 4)))), (0, 1), seed=5)
    check_program(spec, jax_use_donated.jit, Stats())


def test_donor_in_scatter_and_loop_carry_returned_twice() -> None:
    """Finding J3 (docs/reliability.md): XLA inlines the one-trip loop and the donor read by a
    scatter and by the loop hosts the loop result's second return slot, which XLA compiles
    with one more copy and a 16 B temp than no pairing, under XLA's default copy insertion.
    The footprint guard measures both pairings and keeps JAX's: no copy or temp over it."""
    check_program(J3_SPEC, functools.partial(jax_use_donated.jit, region_analysis=False),
                  Stats())


J3_SPEC = ProgramSpec(
    (I22,), (("leaf", (0,)),),
    (Step("scatter", (0, 0), (1,), (I22,)),
     Step("fori", (1, 0), (1, (("sub", 0, 1), ("sub", 1, 1))), (I22, I22))),
    ("tuple", (("leaf", 2), ("leaf", 3), ("leaf", 3))), (0,), seed=5)


def test_donor_in_scatter_and_loop_carry_returned_twice_with_region_analysis() -> None:
    """J3's program under the drop-in's default compile: no copy or temp over ``jax.jit``."""
    check_program(J3_SPEC, jax_use_donated.jit, Stats())


def test_call_passing_one_value_twice_is_folded_like_xla() -> None:
    """Found by the long campaign: ``jnp.where(c, v, v)`` lowers to a call of ``@_where``
    with one value twice, which XLA inlines and folds to ``v``; summarised per call site,
    the donor hosts that result for free, as in JAX's pairing (was 2 copies against 1)."""
    inner = jax.jit(lambda u, v: (u * v, v))

    def f(t: Any) -> Any:
        v1, v0 = t
        v2, v3 = inner(v0, v0)
        v5 = jnp.where(v3 > v3, v3, v3)
        v6 = jnp.minimum(v5, v2)
        return ({"o00": v1 - v1, "o01": v5}, {"o00": v6, "o01": v2}, v6)

    args = ((jnp.arange(16, dtype=jnp.int32), jnp.ones((4, 4))),)
    ours = jax_use_donated.jit(f, donate_argnums=0).lower(*args).compile()
    theirs = jax.jit(f, donate_argnums=0).lower(*args).compile()
    (ours_copies, ours_temp), (jax_copies, jax_temp) = _copies_and_temp(ours), _copies_and_temp(theirs)
    assert ours_copies <= jax_copies and ours_temp <= jax_temp


def test_outnumbered_buffer_donor_keeps_jax_mark_when_xla_match_is_safe() -> None:
    """Found by the long campaign: JAX marks ``%arg1`` a ``jax.buffer_donor`` (the result
    ``reshape(arg1)`` has its size, not its shape) and XLA's size matching makes that result
    free; ours had dropped the mark because the donor's typed candidate was taken (1 copy
    against JAX's 0). The mark is now kept where a simulation of XLA's matching is safe."""
    def f(d1: Any, d2: Any) -> Any:
        v0, v2 = d1["b"], d2["b"]
        v5 = v0 - jnp.sum(v0, axis=0, keepdims=True)
        return {"o00": v2.reshape(4), "o01": jnp.where(v0 > v5, v0, v5)}

    square = jnp.arange(4, dtype=jnp.int32).reshape(2, 2)
    args = ({"a": square, "b": square + 1}, {"a": jnp.ones(16, jnp.float16), "b": square + 2})
    ours = jax_use_donated.jit(f, donate_argnums=(0, 1)).lower(*args).compile()
    theirs = jax.jit(f, donate_argnums=(0, 1)).lower(*args).compile()
    (ours_copies, ours_temp), (jax_copies, jax_temp) = _copies_and_temp(ours), _copies_and_temp(theirs)
    assert ours_copies <= jax_copies and ours_temp <= jax_temp


def _copies_and_temp(compiled: Any) -> tuple[int, int]:
    """XLA's copy count and temp bytes of a compiled program."""
    text = str(compiled.as_text())
    return text.count(" copy("), int(compiled.memory_analysis().temp_size_in_bytes)


@pytest.mark.parametrize("order", ["loop first", "loop last"])
def test_one_trip_loop_returning_its_carry_is_the_donor(order: str) -> None:
    """Finding C4: XLA inlines ``fori_loop(0, 1, ...)`` and folds ``maximum(c, c)`` to ``c``,
    so the loop's result is the donor itself. Summarised like a callee, the donor hosts it for
    free: no copy, where the opaque-loop rule (and here JAX's pairing) cost one."""
    def f(x: jax.Array) -> Any:
        loop = jax.lax.fori_loop(0, 1, lambda i, c: jnp.maximum(c, c), x)
        return (x * 2.0, loop - 1.0, loop) if order == "loop last" else (x + 1.0, loop)

    args = (jnp.ones((4, 4)),)
    ours = jax_use_donated.jit(f, donate_argnums=0).lower(*args).compile()
    theirs = jax.jit(f, donate_argnums=0).lower(*args).compile()
    (ours_copies, ours_temp), (jax_copies, jax_temp) = _copies_and_temp(ours), _copies_and_temp(theirs)
    assert ours_copies == 0 and ours_temp <= jax_temp
    assert ours_copies <= jax_copies


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs())
def test_replay_reads_back_what_the_campaign_logs(spec: ProgramSpec) -> None:
    """``tests.fuzz.replay.parse_spec`` inverts ``ProgramSpec.describe()`` (what a campaign's
    failure log holds), so a logged failure can be rerun on any commit."""
    from tests.fuzz.replay import parse_spec

    text = spec.describe()
    again = parse_spec(text)
    assert again.describe() == text
    assert again.steps == spec.steps and again.output == spec.output


F4 = TypeSpec((4,), "float32")


def test_conditional_closing_over_an_inlined_call_s_result() -> None:
    """Found by the fuzzer: a ``cond`` closing over the result of an inlined call; the
    branches' outer values must follow the inlining's renaming (was a fallback on KeyError)."""
    spec = ProgramSpec(
        (F4, F4), (("leaf", (0,)), ("leaf", (1,))),
        (Step("call", (0, 0), "add", (F4, F4)), Step("cond", (0, 1, 2), "swap", (F4, F4))),
        ("tuple", (("leaf", 4), ("leaf", 1), ("leaf", 1))), (0,), seed=0)
    check_program(spec, jax_use_donated.jit, Stats())
