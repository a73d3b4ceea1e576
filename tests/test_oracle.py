"""Proof by execution of ``jax-reuse-donated-destinations`` (upstream MLIR via torch-mlir) and of
the alias-mode pairing (IREE). Skipped only when the ``[oracle]`` extra is not installed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from jax_use_donated.oracle import iree_available, upstream_available

needs_upstream = pytest.mark.skipif(
    not upstream_available(),
    reason="upstream MLIR bindings missing: pip install --no-deps torch-mlir==20261001",
)
needs_iree = pytest.mark.skipif(
    not iree_available(),
    reason="IREE missing: pip install 'iree-base-compiler==3.13.*' 'iree-base-runtime==3.13.*'",
)

LIT_DIR = Path(__file__).resolve().parent.parent / "lit_tests" / "destinations"


EXTRA_PROGRAMS = ("swap (b, a)", "fan-out (a+1, 2a)")


def _programs() -> list[Any]:
    """Every single-device program of the donation catalogue (f32[8,8]), plus the oracle's
    extra cases."""
    from benchmarks.catalogue import SINGLE
    from jax_use_donated.oracle.programs import PROGRAMS

    cases = [pytest.param(p.name, p.fun, p.args(8), p.donate_argnums, id=p.name)
             for p in SINGLE]
    cases += [pytest.param(p.name, p.fun, p.inputs(), p.donate, id=p.name)
              for p in PROGRAMS if p.name in EXTRA_PROGRAMS]
    return cases


@needs_upstream
@pytest.mark.parametrize(("name", "fun", "args", "donate"), _programs())
def test_catalogue_program_runs_in_place_with_fewer_allocations(
        name: str, fun: Callable[..., Any], args: tuple[Any, ...], donate: tuple[int, ...]
) -> None:
    from jax_use_donated.oracle.harness import check_program
    from jax_use_donated.oracle.upstream import OracleError

    try:
        report = check_program(name, fun, args, donate)
    except OracleError as err:
        if "stablehlo-legalize-to-linalg left" in str(err):
            pytest.skip(f"upstream cannot lower this program to linalg: {err}")
        raise
    assert report.ok, report.problems
    assert report.numbers_equal
    assert all(report.in_place.values())
    assert report.copies_after <= report.copies_before
    assert report.conflicts_after <= report.conflicts_before
    assert report.allocs_after <= report.allocs_before
    if report.moved_destinations:
        assert report.allocs_after < report.allocs_before


@needs_upstream
def test_swap_pairs_are_proven_in_place() -> None:
    from jax_use_donated.oracle.harness import check_program

    a = np.arange(64, dtype=np.float32).reshape(8, 8)
    b = a + 100
    report = check_program("swap", lambda x, y: (y * 2, x * 3), [a, b], (0, 1))
    assert report.ok, report.problems
    # JAX paired a -> 0 and b -> 1; the rewrite writes b*2 into b and a*3 into a.
    assert report.pairs == {0: 1, 1: 0}
    assert report.in_place == {0: True, 1: True}
    assert (report.allocs_before, report.allocs_after) == (4, 2)


@needs_upstream
@pytest.mark.parametrize("name", ["swap", "Adam", "fan-out (a+1, 2a)"])
def test_wrong_rewrite_is_caught(name: str) -> None:
    """Test the test: a rewrite that reuses a donor before its last read must fail."""
    from jax_use_donated.oracle.harness import check_program, wrong_rewrite
    from jax_use_donated.oracle.programs import PROGRAMS

    program = next(p for p in PROGRAMS if p.name == name)
    report = check_program(name, program.fun, program.inputs(), program.donate,
                           rewrite=wrong_rewrite)
    assert not report.ok
    assert any("read-after-write conflict" in p for p in report.problems)


@needs_upstream
def test_claimed_but_unrealised_pair_is_caught() -> None:
    """Test the test: claiming a donor hosts a result it does not must fail the in-place
    check."""
    from jax_use_donated.oracle.harness import check_program, run_pass

    def claim_swapped(text: str) -> str:
        out, _ = run_pass(text)
        # Swap the two claims: each donor now claims the other's result.
        return (out.replace("tf.aliasing_output = 0 : i32", "tf.aliasing_output = 9 : i32")
                .replace("tf.aliasing_output = 1 : i32", "tf.aliasing_output = 0 : i32")
                .replace("tf.aliasing_output = 9 : i32", "tf.aliasing_output = 1 : i32"))

    a = np.arange(64, dtype=np.float32).reshape(8, 8)
    report = check_program("swap", lambda x, y: (y * 2, x * 3), [a, a + 1], (0, 1),
                           rewrite=claim_swapped)
    assert not report.ok
    assert any("is not returned in the buffer" in p for p in report.problems)


@needs_upstream
@pytest.mark.parametrize("case", ["chain", "swap", "read_later", "overlap", "temps_only", "loop",
                                  "loop_read_after", "loop_init_not_writable"])
def test_lit_cases_execute_correctly(case: str) -> None:
    """The hand-written lit inputs, bufferized and run, compute what the un-rewritten input
    computes, with fewer allocations and no new conflicts."""
    from jax_use_donated.oracle import upstream
    from jax_use_donated.oracle.harness import mark_writable, run_pass

    chunks = [c for f in sorted(LIT_DIR.glob("*.mlir")) for c in f.read_text().split("// -----")]
    chunk = next(c for c in chunks if f"func.func @{case}(" in c)
    chunk = chunk.replace(f"@{case}(", "@main(")
    rewritten, _ = run_pass(chunk)
    before, after = upstream.bufferize(mark_writable(chunk)), upstream.bufferize(rewritten)
    if case == "loop_init_not_writable":
        # Only the donor's own chain moves; the loop keeps its fresh buffers.
        assert after.allocs == before.allocs - 1
    else:
        assert after.allocs < before.allocs
    assert after.copies <= before.copies
    assert after.out_of_place <= before.out_of_place
    rng = np.random.default_rng(1)
    inputs = [rng.uniform(1, 2, 4).astype(np.float32) for _ in range(before.num_args)]
    shape = () if case == "temps_only" else (4,)
    templates = [np.zeros(shape, np.float32)] * before.num_results
    want = upstream.execute(upstream.compile_bufferized(before), [x.copy() for x in inputs],
                            templates)
    got = upstream.execute(upstream.compile_bufferized(after), [x.copy() for x in inputs],
                           templates)
    for w, g in zip(want, got, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-6)


IREE_CASES = ["swap (b, a)", "fan-out (a+1, 2a)", "swap", "transpose"]


@needs_iree
@pytest.mark.parametrize("name", IREE_CASES)
def test_iree_computes_correct_numbers_after_our_pairing(name: str) -> None:
    from jax_use_donated.oracle.iree_exec import compare
    from jax_use_donated.oracle.programs import PROGRAMS

    program = next(p for p in PROGRAMS if p.name == name)
    result = compare(name, program.fun, program.inputs(), program.donate)
    assert result.fusion_safe_correct
    if name != "transpose":
        assert result.ours_correct
    if name in ("swap (b, a)", "fan-out (a+1, 2a)", "swap"):
        # JAX's greedy pairing makes IREE overwrite a buffer that is still read.
        assert not result.greedy_correct


OPS = ("add", "mul", "sub", "neg", "transpose", "dot", "row_sum")


def _apply(op: str, x: Any, y: Any) -> Any:
    import jax.numpy as jnp

    if op == "add":
        return x + y
    if op == "mul":
        return x * y
    if op == "sub":
        return x - y
    if op == "neg":
        return -x
    if op == "transpose":
        return x.T
    if op == "dot":
        return x @ y
    return jnp.broadcast_to(x.sum(0), x.shape)


def _random_program(steps: list[tuple[str, int, int]], outs: list[int]) -> Callable[..., Any]:
    def fun(*args: Any) -> tuple[Any, ...]:
        vals = list(args)
        for op, i, j in steps:
            vals.append(_apply(op, vals[i % len(vals)], vals[j % len(vals)]))
        return tuple(vals[k % len(vals)] for k in outs)

    return fun


@needs_upstream
def test_random_programs_execute_correctly_after_the_rewrite() -> None:
    """Differential check on random programs: elementwise chains, transposes, matmuls and
    reductions over donated arguments, results in random order (duplicates and returned
    arguments included). Every rewrite must keep the numbers and create no conflict."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from jax_use_donated.oracle.harness import check_program

    step = st.tuples(st.sampled_from(OPS), st.integers(0, 20), st.integers(0, 20))

    @settings(max_examples=15, deadline=None, derandomize=True)
    @given(st.integers(1, 3), st.lists(st.booleans(), min_size=3, max_size=3),
           st.lists(step, min_size=1, max_size=6), st.lists(st.integers(0, 20), min_size=1,
                                                              max_size=3))
    def check(n_args: int, donated: list[bool], steps: list[tuple[str, int, int]],
              outs: list[int]) -> None:
        donate = tuple(i for i in range(n_args) if donated[i]) or (0,)
        fun = _random_program(steps, outs)
        rng = np.random.default_rng(len(steps))
        inputs = [rng.uniform(0.5, 1.5, (8, 8)).astype(np.float32) for _ in range(n_args)]
        report = check_program("random", fun, inputs, donate, rtol=1e-4, atol=1e-5)
        assert report.ok, (steps, outs, donate, report.problems)

    check()
