"""``jax_use_donated.jit`` behaves like ``jax.jit`` across its interface."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jax_use_donated as jud

REPO = Path(__file__).resolve().parent.parent


def swap(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
    return b * 2.0, a * 3.0


def mats(n: int = 8, count: int = 2) -> list[jax.Array]:
    return [jnp.full((n, n), float(i + 1)) for i in range(count)]


def ours_aliasing(text: str) -> list[str]:
    return [line for line in text.splitlines() if "@main" in line]


def close(a: Any, b: Any) -> None:
    jax.tree.map(lambda x, y: np.testing.assert_allclose(x, y, rtol=1e-6), a, b)


def test_call_lower_and_trace_show_our_pairing() -> None:
    f = jud.jit(swap, donate_argnums=(0, 1))
    a, b = mats()
    expected = "%arg0: tensor<8x8xf32> {tf.aliasing_output = 1 : i32}"
    assert expected in f.lower(a, b).as_text()
    assert expected in f.trace(a, b).lower().as_text()
    close(f(a, b), swap(*mats()))
    assert a.is_deleted() and b.is_deleted()


def test_trace_is_a_traced_object() -> None:
    traced = jud.jit(swap, donate_argnums=(0, 1)).trace(*mats())
    assert isinstance(traced, jax.stages.Traced)
    assert traced.jaxpr.jaxpr.debug_info.arg_names == ("a", "b")


def test_records_go_with_their_module_and_function() -> None:
    """The planner's tables hold modules and functions weakly: once JAX drops a lowering (its
    function, jit object and lowered objects are gone), the records go too."""
    import gc
    import weakref

    from jax_use_donated.dropin import records

    def fresh_swap(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
        return b * 2.0, a * 3.0

    f = jud.jit(fresh_swap, donate_argnums=(0, 1))
    lowered = f.lower(*mats())
    lowered.compile()
    module = lowered.compiler_ir()
    record = records.record_of(module)
    assert record is not None and record.expected == {0: 1, 1: 0}
    key = f.planner_options.encode()
    assert records.records_for(key) == [record]
    module_ref, fun_ref = weakref.ref(module), weakref.ref(fresh_swap)
    del f, lowered, module, record, fresh_swap
    gc.collect()
    assert fun_ref() is None and module_ref() is None
    assert records.records_for(key) == []
    assert all(ref() is not None for ref, _ in records._BY_MODULE.values())


def test_eval_shape() -> None:
    f = jud.jit(swap, donate_argnums=(0, 1))
    assert f.eval_shape(*mats()) == jax.eval_shape(swap, *mats())


def test_static_argnums_and_argnames_and_kwargs() -> None:
    def g(x: jax.Array, k: int, *, scale: float) -> tuple[jax.Array, jax.Array]:
        return x * k, x + scale

    f = jud.jit(g, static_argnums=1, static_argnames="scale", donate_argnums=0)
    ref = jax.jit(g, static_argnums=1, static_argnames="scale")
    for k in (2, 3):
        x = jnp.ones((8, 8))
        close(f(x, k, scale=0.5), ref(jnp.ones((8, 8)), k, scale=0.5))
        assert x.is_deleted()


def test_donate_argnames() -> None:
    f = jud.jit(swap, donate_argnames=("a", "b"))
    a, b = mats()
    assert "{tf.aliasing_output = 1 : i32}" in ours_aliasing(f.lower(a, b).as_text())[0]
    close(f(a=a, b=b), swap(*mats()))
    assert a.is_deleted() and b.is_deleted()


def test_pytrees_and_result_paths() -> None:
    def step(state: dict[str, jax.Array], g: jax.Array) -> dict[str, jax.Array]:
        m = 0.9 * state["momentum"] + g
        return {"params": state["params"] - 0.1 * m, "velocity": m}

    f = jud.jit(step, donate_argnums=0)
    state = {"momentum": jnp.ones((8, 8)), "params": jnp.ones((8, 8))}
    out = f(state, jnp.ones((8, 8)))
    close(out, step({"momentum": jnp.ones((8, 8)), "params": jnp.ones((8, 8))},
                    jnp.ones((8, 8))))
    record = f.records[-1]
    assert [a.loc.name for a in record.function.args] == [
        "state['momentum']", "state['params']", "g"]
    assert record.result_paths == ["result['params']", "result['velocity']"]
    assert record.plan.pairs == {0: 1, 1: 0}


def test_grad_and_vmap() -> None:
    def h(a: jax.Array, b: jax.Array) -> jax.Array:
        return jnp.sum(swap(a, b)[0] * swap(a, b)[1])

    ours = jud.jit(h)
    np.testing.assert_allclose(jax.grad(ours)(*mats()), jax.grad(h)(*mats()))
    ours_swap = jud.jit(swap, donate_argnums=(0, 1))
    batch = [jnp.stack(mats()), jnp.stack(mats()[::-1])]
    close(jax.vmap(ours_swap)(*batch), jax.vmap(swap)(jnp.stack(mats()),
                                                        jnp.stack(mats()[::-1])))


def test_grad_through_donating_jit() -> None:
    ours = jud.jit(swap, donate_argnums=(0, 1))

    def loss(a: jax.Array, b: jax.Array) -> jax.Array:
        x, y = ours(a, b)
        return jnp.sum(x * y)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = jax.grad(loss, argnums=(0, 1))(*mats())
    want = jax.grad(lambda a, b: jnp.sum(swap(a, b)[0] * swap(a, b)[1]), argnums=(0, 1))(
        *mats())
    close(got, want)


def test_nested_inside_jax_jit() -> None:
    ours = jud.jit(swap, donate_argnums=(0, 1))
    outer = jax.jit(lambda a, b: ours(a, b)[0] + 1.0)
    np.testing.assert_allclose(outer(*mats()), swap(*mats())[0] + 1.0)
    assert "call @swap" in outer.lower(*mats()).as_text()


def test_decorator_forms_and_methods() -> None:
    @jud.jit(donate_argnums=0)
    def inc(x: jax.Array) -> jax.Array:
        return x + 1.0

    x = jnp.zeros((8, 8))
    np.testing.assert_allclose(inc(x), 1.0)
    assert x.is_deleted()
    assert inc.__name__ == "inc"

    class Model:
        scale = 2.0

        def __hash__(self) -> int:
            return 7

        @functools.partial(jud.jit, static_argnums=0)
        def apply(self, x: jax.Array) -> jax.Array:
            return x * self.scale

    np.testing.assert_allclose(Model().apply(jnp.ones((4,))), 2.0)


def test_shardings_on_one_device() -> None:
    s = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    f = jud.jit(swap, donate_argnums=(0, 1), in_shardings=(s, s), out_shardings=(s, s))
    a, b = mats()
    close(f(a, b), swap(*mats()))
    assert f.records[-1].plan.pairs == {0: 1, 1: 0}


def test_keep_unused_donates_the_unused_argument() -> None:
    def g(a: jax.Array, b: jax.Array) -> jax.Array:
        return b * 2.0

    f = jud.jit(g, donate_argnums=(0, 1), keep_unused=True)
    a, b = mats()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = f(a, b)
    np.testing.assert_allclose(out, 4.0)
    assert f.records[-1].removed == []
    assert not any("unused" in str(w.message) for w in caught)
    assert f.records[-1].plan.pairs == {0: 0}  # the unused donor hosts the result
    assert a.is_deleted() and not b.is_deleted()


def test_persistent_compilation_cache(tmp_path: Path) -> None:
    """A second process loads the executable from the persistent cache and keeps our aliasing
    (the cache key is the rewritten module)."""
    script = textwrap.dedent(f"""
        import jax, jax.numpy as jnp, numpy as np
        jax.config.update("jax_compilation_cache_dir", {str(tmp_path)!r})
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
        import jax_use_donated as jud
        from jax_use_donated.dropin.hlo_alias import aliases_from_hlo_text
        def swap(a, b):
            return b * 2.0, a * 3.0
        f = jud.jit(swap, donate_argnums=(0, 1))
        a, b = jnp.ones((64, 64)), jnp.full((64, 64), 2.0)
        pa = a.unsafe_buffer_pointer()
        x, y = f(a, b)
        assert y.unsafe_buffer_pointer() == pa and a.is_deleted()
        np.testing.assert_allclose(x, 4.0)
        assert f.fallback_reason is None, f.fallback_reason
        c = f.lower(jnp.ones((64, 64)), jnp.ones((64, 64))).compile()
        print(aliases_from_hlo_text(c.as_text()))
    """)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           env=env, timeout=120) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == "{1: 0, 0: 1}"
    assert any(tmp_path.iterdir()), "nothing was written to the persistent cache"


@pytest.mark.parametrize("donate", [(), (0,), (0, 1)])
def test_results_match_plain_jit(donate: tuple[int, ...]) -> None:
    ours = jud.jit(swap, donate_argnums=donate)
    close(ours(*mats()), jax.jit(swap, donate_argnums=donate)(*mats()))
