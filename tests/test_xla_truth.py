"""``xla_truth`` against real XLA:CPU executables: per donated parameter copy-free, copied or not
donated, with the copy that XLA inserted as evidence; layout copies and copies XLA makes
whatever the aliasing do not count."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import pytest

from jax_use_donated.dropin import jit_with_forced_pairs
from jax_use_donated.dropin.xla_truth import (
    Outcome,
    entry_computation,
    executable_truth,
    read_truth,
)

N = 16


def _mats(k: int) -> list[jax.Array]:
    return [jnp.full((N, N), float(i + 1)) for i in range(k)]


def _copies(compiled: Any) -> int:
    return compiled.as_text().count(" copy(")


def _compile(fun: Callable[..., Any], args: list[jax.Array], donate: tuple[int, ...],
             pairs: dict[int, int] | None = None) -> Any:
    if pairs is None:
        return jax.jit(fun, donate_argnums=donate).lower(*args).compile()
    return jit_with_forced_pairs(fun, pairs, donate_argnums=donate).lower(*args).compile()


def _truth(fun: Callable[..., Any], k: int, donate: tuple[int, ...],
           pairs: dict[int, int] | None = None) -> tuple[Any, Any, int]:
    args = _mats(k)
    compiled = _compile(fun, args, donate, pairs)
    base = _copies(jax.jit(fun).lower(*args).compile())
    return executable_truth(compiled, donate), compiled, base


def swap(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
    return b * 2, a * 3


def test_swap_jax_pairing_copies_both() -> None:
    truth, compiled, base = _truth(swap, 2, (0, 1))
    assert truth.aliases == {0: 0, 1: 1}
    assert [truth.outcome(p) for p in (0, 1)] == [Outcome.COPIED, Outcome.COPIED]
    kinds = sorted(c.kind for c in truth.donors[0].copies)
    assert kinds == ["output", "parameter"]
    counted = {c.instruction.name for t in truth.donors.values() for c in t.copies}
    assert len(counted) == _copies(compiled) - base == 4


def test_swap_crossed_pairing_is_copy_free() -> None:
    truth, compiled, base = _truth(swap, 2, (0, 1), pairs={0: 1, 1: 0})
    assert truth.copy_free == {0: 1, 1: 0}
    assert _copies(compiled) == base


@pytest.mark.filterwarnings("ignore:Some donated buffers")
def test_unpaired_donor_is_not_donated() -> None:
    truth, _, _ = _truth(lambda a, b: a + b, 2, (0, 1))
    assert truth.aliases == {0: 0}
    assert truth.outcome(0) is Outcome.COPY_FREE
    assert truth.outcome(1) is Outcome.NOT_DONATED
    assert truth.donors[1].output is None


def test_a_donor_unread_by_its_writer_but_read_elsewhere_is_copied() -> None:
    def f(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
        return a.T @ a, b + 1

    truth, compiled, base = _truth(f, 2, (1,), pairs={1: 1})
    assert truth.outcome(1) is Outcome.COPY_FREE
    assert not truth.donors[1].copies and _copies(compiled) == base
    # JAX's pairing: b hosts a.T @ a, which does not read b, but b + 1 does and is not an
    # ancestor of the dot: XLA copies b, and the dot into b's buffer.
    truth, compiled, base = _truth(f, 2, (1,))
    assert truth.aliases == {1: 0} and truth.outcome(1) is Outcome.COPIED
    assert sorted(c.kind for c in truth.donors[1].copies) == ["output", "parameter"]


def test_layout_changing_copy_does_not_count() -> None:
    text = """HloModule m, input_output_alias={ {}: (0, {}, may-alias) }, entry_computation_layout={(f32[4,4]{1,0})->f32[4,4]{0,1}}

ENTRY %main (p: f32[4,4]) -> f32[4,4] {
  %p = f32[4,4]{1,0} parameter(0)
  %t = f32[4,4]{0,1} copy(%p)
  ROOT %n = f32[4,4]{0,1} negate(%t)
}
"""
    truth = read_truth(text, [0])
    assert truth.outcome(0) is Outcome.COPY_FREE and truth.copies == []


def test_read_after_update_copies_the_parameter() -> None:
    def step(w: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        w2 = w - 0.1 * x
        return w2, jnp.tanh(w2 @ w)  # w read after its update

    truth, compiled, base = _truth(step, 2, (0,))
    assert truth.aliases == {0: 0}
    assert truth.outcome(0) is Outcome.COPIED
    assert [c.kind for c in truth.donors[0].copies] == ["parameter"]
    assert _copies(compiled) - base == 1


def test_value_returned_twice_is_copied_whatever_the_aliasing() -> None:
    def f(a: jax.Array) -> tuple[jax.Array, jax.Array]:
        y = a + 1
        return y, y

    truth, compiled, base = _truth(f, 1, (0,))
    assert truth.aliases == {0: 0}
    assert truth.outcome(0) is Outcome.COPY_FREE
    assert _copies(compiled) == base


def test_undonated_argument_returned_unchanged_is_not_counted() -> None:
    def f(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
        return b, a + 1

    truth, compiled, base = _truth(f, 2, (0,), pairs={0: 0})
    assert truth.aliases == {0: 0}
    # The copy of b into output 0 exists without aliasing too; the one that counts is the
    # copy of a, still read by a + 1 when b's copy lands in its buffer.
    assert truth.outcome(0) is Outcome.COPIED
    assert [c.kind for c in truth.donors[0].copies] == ["parameter"]
    assert _copies(compiled) - base == 1
    truth, compiled, base = _truth(f, 2, (0,), pairs={0: 1})
    assert truth.outcome(0) is Outcome.COPY_FREE
    assert _copies(compiled) == base


def test_scan_carry_donor_copied_into_the_loop() -> None:
    def f(acc: jax.Array, xs: jax.Array) -> tuple[jax.Array, jax.Array]:
        def body(c: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
            return c + x, c * 2

        c, ys = jax.lax.scan(body, acc, xs)
        return c, acc + ys.sum(0)

    args = [jnp.ones((N,)), jnp.ones((4, N))]
    compiled = jax.jit(f, donate_argnums=(0,)).lower(*args).compile()
    truth = executable_truth(compiled, [0])
    assert truth.aliases == {0: 0}
    assert truth.outcome(0) is Outcome.COPIED  # acc is read after the loop
    assert any(c.kind == "parameter" for c in truth.donors[0].copies)


def test_reads_hlo_modules_text_and_tupled_parameters() -> None:
    compiled = _compile(swap, _mats(2), (0, 1), {0: 1, 1: 0})
    executable = compiled.runtime_executable()
    truth = executable_truth(executable, [0, 1])
    assert truth.copy_free == {0: 1, 1: 0}
    text = """HloModule m, input_output_alias={ {0}: (0, {1}, may-alias) }, entry_computation_layout={((f32[4]{0}, f32[4]{0}))->(f32[4]{0})}

ENTRY %main (p: (f32[4], f32[4])) -> (f32[4]) {
  %p = (f32[4]{0}, f32[4]{0}) parameter(0)
  %a = f32[4]{0} get-tuple-element(%p), index=0
  %b = f32[4]{0} get-tuple-element(%p), index=1
  %copy = f32[4]{0} copy(%b)
  %add = f32[4]{0} add(%a, %copy)
  ROOT %t = (f32[4]{0}) tuple(%add)
}
"""
    assert entry_computation(text).root is not None
    truth = read_truth(text, [1])
    assert truth.aliases == {1: 0}
    assert truth.outcome(1) is Outcome.COPIED


@pytest.mark.parametrize("region", [False, True])
def test_region_analysis_removes_the_copy_of_an_independent_read(region: bool) -> None:
    def step(w: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        g = x @ w.T          # the backward dot still reads w ...
        return w - 0.1 * x, g  # ... while the update does not depend on it

    args = _mats(2)
    lowered = jax.jit(step, donate_argnums=(0,)).lower(*args)
    options: dict[str, str | bool] = {"xla_cpu_copy_insertion_use_region_analysis": region}
    truth = executable_truth(lowered.compile(compiler_options=options), [0])
    assert truth.outcome(0) is (Outcome.COPY_FREE if region else Outcome.COPIED)
