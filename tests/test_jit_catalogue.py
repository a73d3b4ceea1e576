"""``jax_use_donated.jit`` on every single-device catalogue program: same results as plain
``jax.jit``, exactly the paired inputs are donated, each paired output lives in its donor's
buffer, and the compiled aliasing is the plan."""

from __future__ import annotations

import warnings

import jax
import numpy as np
import pytest

import jax_use_donated as jud
from benchmarks.catalogue import SINGLE, Program, by_name
from jax_use_donated.dropin import jit_with_forced_pairs
from jax_use_donated.dropin.hlo_alias import aliases_from_hlo_text

N = 32


def _run(program: Program) -> tuple[jud.DonatingJit, list[jax.Array], list[int], object]:
    wrapper = jud.jit(program.fun, donate_argnums=program.donate_argnums)
    args = program.args(N)
    leaves = jax.tree.leaves(args)
    pointers = [leaf.unsafe_buffer_pointer() for leaf in leaves]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jud.DonationWarning)
        out = wrapper(*args)
    return wrapper, leaves, pointers, out


@pytest.mark.parametrize("program", SINGLE, ids=lambda p: p.name)
def test_catalogue_program(program: Program) -> None:
    expected_out = jax.jit(program.fun)(*program.args(N))
    wrapper, leaves, pointers, out = _run(program)
    assert wrapper.fallback_reason is None
    jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5),
                 out, expected_out)

    record = wrapper.records[-1]
    main_args = record.function.args
    assert len(main_args) == len(leaves)  # no hoisted constants or tokens in these programs
    compiled = wrapper.lower(*program.args(N)).compile()
    actual = aliases_from_hlo_text(compiled.as_text())
    assert {d: k for d, k in actual.items() if d not in record.buffer_donors} == record.expected
    # Exactly the aliased inputs are donated, and each output took its donor's buffer.
    assert [leaf.is_deleted() for leaf in leaves] == [i in actual for i in range(len(leaves))]
    out_leaves = jax.tree.leaves(out)
    for d, k in actual.items():
        assert out_leaves[k].unsafe_buffer_pointer() == pointers[d]
    # Every prediction (copy-free, copied, not donated) is what the executable does.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jud.DonationWarning)
        measured = wrapper.plan(*program.args(N))
    assert measured.measured
    assert [(x.path, x.predicted, x.measured) for x in measured.disagreements] == []


@pytest.mark.parametrize("name, pairs", [
    ("swap", {0: 1, 1: 0}),
    ("cycle3", {0: 2, 1: 0, 2: 1}),
    ("state_reordered", {0: 1, 1: 2, 2: 0}),
    ("adam", {0: 0, 1: 1, 2: 2}),
    ("adam_state_first", {0: 2, 1: 0, 2: 1}),
    ("kv_cache_reordered", {0: 1, 1: 0}),
    ("fori_swap", {0: 1, 1: 0}),
    ("read_after_dot", {0: 1}),
    ("pytree_dict", {0: 1, 1: 0}),
])
def test_copy_free_pairs(name: str, pairs: dict[int, int]) -> None:
    """The plan is the liveness-aware pairing, and XLA compiles it without copies beyond those
    of the unaliased program."""
    program = by_name(name)
    wrapper = jud.jit(program.fun, donate_argnums=program.donate_argnums)
    compiled = wrapper.lower(*program.args(N)).compile()
    assert wrapper.records[-1].plan.pairs == pairs
    base_text = jax.jit(program.fun).lower(*program.args(N)).compile().as_text() or ""
    base = base_text.count(" copy(")
    assert (compiled.as_text() or "").count(" copy(") <= base


def test_no_leak_into_plain_jit() -> None:
    program = by_name("swap")
    args = program.args(8)
    ours = jud.jit(program.fun, donate_argnums=(0, 1))
    plain_before = jax.jit(program.fun, donate_argnums=(0, 1)).lower(*args).as_text()
    ours_text = ours.lower(*args).as_text()
    plain_after = jax.jit(program.fun, donate_argnums=(0, 1)).lower(*args).as_text()
    assert "%arg0: tensor<8x8xf32> {tf.aliasing_output = 1 : i32}" in ours_text
    for text in (plain_before, plain_after):
        assert "%arg0: tensor<8x8xf32> {tf.aliasing_output = 0 : i32}" in text
    # Calls too: the plain jit's executable keeps JAX's pairing.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours(*program.args(8))
        plain_c = jax.jit(program.fun, donate_argnums=(0, 1)).lower(*args).compile()
    assert aliases_from_hlo_text(plain_c.as_text()) == {0: 0, 1: 1}


@pytest.mark.usefixtures("fresh_jax_caches")
def test_fusion_duplicated_read_keeps_jax_pairing() -> None:
    """``out = a * 2; return out, out + a`` under XLA's default copy insertion: XLA duplicates
    ``a * 2`` into the add's fusion, so ``a`` cannot host ``out + a`` without a copy (the rule
    in ``fusion_fragile_reads``); the donor keeps JAX's own pair, whose copy XLA places in the
    second output: the smallest footprint."""
    program = by_name("read_after_produce")
    wrapper = jud.jit(program.fun, donate_argnums=program.donate_argnums,
                      region_analysis=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = wrapper.lower(*program.args(N)).compile()
    record = wrapper.records[-1]
    assert record.plan.pairs == {} and record.fallback.kept_pairs == {0: 0}
    assert any("keeps JAX's pairing with result 0" in str(w.message) for w in caught)

    def footprint(c: object) -> int:
        m = c.memory_analysis()  # type: ignore[attr-defined]
        return (m.argument_size_in_bytes + m.output_size_in_bytes - m.alias_size_in_bytes
                + m.temp_size_in_bytes)

    # The copy-free-looking pair a -> out + a needs a copy and a temp buffer.
    forced = jit_with_forced_pairs(program.fun, {0: 1}, donate_argnums=program.donate_argnums)
    other = forced.lower(*program.args(N)).compile()
    assert footprint(ours) < footprint(other)
