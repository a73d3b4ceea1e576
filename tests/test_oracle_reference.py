"""The shared pieces of the execution oracles: :mod:`jax_use_donated.oracle.reference` (JAX's
numbers and lowering, result comparison) and :mod:`jax_use_donated.oracle.xla_exec` (XLA run
of StableHLO text). Needs only JAX: no ``[oracle]`` extra."""

from __future__ import annotations

import numpy as np
import pytest

from jax_use_donated.oracle.reference import arrays_match, jax_reference, mismatched_results


def test_arrays_match_compares_dtype_shape_then_values() -> None:
    a = np.array([1.0, 2.0, np.nan], dtype=np.float32)
    assert arrays_match(a, a.copy())  # NaNs compare equal
    assert arrays_match(a, a + 1e-7)
    assert not arrays_match(a, a + 1e-7, exact=True)
    assert not arrays_match(a, a + 1e-2)
    assert arrays_match(a, a + 1e-4, rtol=1e-3, atol=1e-3)
    assert not arrays_match(a, a.astype(np.float64))
    assert not arrays_match(a, a.reshape(3, 1))
    c = np.array([1 + 2j], dtype=np.complex64)
    assert arrays_match(c, c + 1e-7) and not arrays_match(c, c + 1e-2j)


def test_integers_are_exact_unless_asked_otherwise() -> None:
    x = np.array([5000], dtype=np.int32)
    assert not arrays_match(x, x + 1, rtol=1e-3, atol=1e-3)
    assert arrays_match(x, x + 1, rtol=1e-3, atol=1e-3, approximate_integers=True)
    assert not arrays_match(x, x + 1, exact=True, approximate_integers=True)
    b = np.array([True, False])
    assert arrays_match(b, b.copy()) and not arrays_match(b, ~b)


def test_mismatched_results_names_the_bad_indices() -> None:
    ones, twos = np.ones(2, np.float32), np.full(2, 2.0, np.float32)
    assert mismatched_results([ones, twos], [ones, twos]) == []
    assert mismatched_results([ones, ones], [ones, twos]) == [1]
    assert mismatched_results([ones], [ones, twos]) == [0, 1]


def test_jax_reference_runs_and_lowers_with_donation() -> None:
    a = np.arange(4, dtype=np.float32)
    ref = jax_reference(lambda x, t: (t["y"] * 2, x + 1), [a, {"y": a + 10}], (0,))
    assert [leaf.tolist() for leaf in ref.leaves] == [a.tolist(), (a + 10).tolist()]
    assert ref.leaves[0] is not a  # host copies: an executor may overwrite them
    np.testing.assert_array_equal(ref.expected[0], (a + 10) * 2)
    np.testing.assert_array_equal(ref.expected[1], a + 1)
    assert "tf.aliasing_output" in ref.stablehlo_text


def test_keep_unused_keeps_every_parameter() -> None:
    a = np.ones(2, np.float32)
    kept = jax_reference(lambda x, unused: x * 2, [a, a], (), keep_unused=True)
    pruned = jax_reference(lambda x, unused: x * 2, [a, a], (), keep_unused=False)
    assert kept.stablehlo_text.count("%arg") > pruned.stablehlo_text.count("%arg")


@pytest.mark.parametrize("strict", [False, True])
def test_xla_run_reports_aliasing_and_invalidated_inputs(strict: bool) -> None:
    from jax_use_donated.oracle import xla_exec
    from tests.fuzz import xla_exec as campaign_exec

    a = np.arange(4, dtype=np.float32)
    ref = jax_reference(lambda x, y: (y * 2, x * 3), [a, a + 1], (0, 1))
    run = (campaign_exec.run_text if strict else xla_exec.run_text)(ref.stablehlo_text,
                                                                      ref.leaves)
    assert not mismatched_results(run.outputs, ref.expected, exact=True)
    assert run.alias == {0: 0, 1: 1}  # JAX's greedy pairing: x -> y*2, y -> x*3
    assert run.deleted == [True, True]
