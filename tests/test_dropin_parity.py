"""``jax_use_donated.jit`` is a faithful ``jax.jit``: same object, errors, names, stages,
caches and options; nesting and transforms give ``jax.jit``'s numbers; the outermost jit's
options apply. (JAX's own tests/api_test.py, pjit_test.py and layout_test.py are the wider
check: ``benchmarks/jax_test_suite.py``.)"""

from __future__ import annotations

import functools
import pickle
import subprocess
import sys
import textwrap
import traceback
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jax_use_donated as jud
from jax_use_donated.dropin import jax_internals
from jax_use_donated.dropin.hlo_alias import aliases_from_hlo_text

REPO = Path(__file__).resolve().parent.parent


def swap(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
    return b * 2.0, a * 3.0


def square(x: Any) -> Any:
    return x * x


def pair() -> tuple[jax.Array, jax.Array]:
    return jnp.full((4, 4), 1.0), jnp.full((4, 4), 2.0)


# -- composition --------------------------------------------------------------------------


def test_grad_of_nested_drop_ins_gives_jax_numbers() -> None:
    """The bug that started it: the outer wrapper ran the inner one's jit (9.0, not 6.0)."""
    assert float(jud.jit(jax.grad(jud.jit(square)))(3.0)) == 6.0
    assert float(jud.jit(jax.grad(jud.jit(lambda x: x * x)))(3.0)) == 6.0


@pytest.mark.parametrize("transform", ["grad", "jacfwd", "jacrev"])
def test_derivatives_with_aux_through_nested_drop_ins(transform: str) -> None:
    def f(x: jax.Array) -> tuple[jax.Array, jax.Array]:
        y = jnp.sum(x ** 3)
        return y, x * 2.0

    x = jnp.arange(1.0, 5.0)
    t = getattr(jax, transform)
    ours = jud.jit(t(jud.jit(f), has_aux=True))(x)
    want = jax.jit(t(jax.jit(f), has_aux=True))(x)
    jax.tree.map(np.testing.assert_array_equal, ours, want)


def test_outer_drop_in_options_apply() -> None:
    """``jud.jit(jud.jit(f), donate_argnums=0)`` donates: the outer jit is the executable."""
    inner = jud.jit(lambda x: x + 1.0)
    outer = jud.jit(inner, donate_argnums=0)
    x = jnp.ones((8, 8))
    np.testing.assert_array_equal(outer(x), 2.0)
    assert x.is_deleted()
    assert "tf.aliasing_output = 0" in outer.lower(jnp.ones((8, 8))).as_text()
    assert outer.last_plan is not None and outer.last_plan.parameter_pairs == {0: 0}
    assert inner.last_plan is None  # never lowered on its own


def test_nested_drop_in_is_a_plain_call_in_the_outer_module() -> None:
    ours = jud.jit(swap, donate_argnums=(0, 1))
    outer = jax.jit(lambda a, b: ours(a, b)[0] + 1.0)
    text = outer.lower(*pair()).as_text()
    assert "call @swap" in text and "tf.aliasing_output" not in text
    np.testing.assert_array_equal(outer(*pair()), 5.0)


def test_make_jaxpr_of_a_drop_in_equals_jax_jit() -> None:
    ours = str(jax.make_jaxpr(jud.jit(swap, donate_argnums=(0, 1)))(*pair()))
    plain = str(jax.make_jaxpr(jax.jit(swap, donate_argnums=(0, 1)))(*pair()))
    assert ours == plain and "jax_use_donated" not in ours


def test_transforms_of_drop_ins_match_jax() -> None:
    def f(x: jax.Array, y: jax.Array) -> jax.Array:
        return jnp.sin(x) * y + jnp.cos(y)

    x, y = jnp.arange(4.0), jnp.arange(4.0, 8.0)
    cases: list[tuple[Any, Any]] = [
        (lambda g: jax.vmap(g), (x, y)),
        (lambda g: jax.grad(lambda a, b: g(a, b).sum(), argnums=(0, 1)), (x, y)),
        (lambda g: (lambda a, b: jax.jvp(g, (a, b), (b, a))), (x, y)),
        (lambda g: (lambda a, b: jax.vjp(g, a, b)[1](a)), (x, y)),
        (lambda g: jax.checkpoint(g), (x, y)),
        (lambda g: (lambda a, b: jax.lax.scan(lambda c, t: (g(c, t), c), a, jnp.stack([b, b]))),
         (x, y)),
        (lambda g: (lambda a, b: jax.lax.cond(True, g, lambda p, q: p, a, b)), (x, y)),
        (lambda g: (lambda a, b: jax.lax.fori_loop(0, 3, lambda i, c: g(c, b), a)), (x, y)),
    ]
    for make, args in cases:
        ours = jud.jit(make(jud.jit(f, donate_argnums=())), donate_argnums=())(*args)
        want = jax.jit(make(jax.jit(f)))(*args)
        jax.tree.map(np.testing.assert_allclose, ours, want)


def test_custom_vjp_inside_drop_in() -> None:
    @jax.custom_vjp
    def clip_grad(x: jax.Array) -> jax.Array:
        return x

    clip_grad.defvjp(lambda x: (x, None), lambda _, g: (jnp.clip(g, -1.0, 1.0),))
    f = jud.jit(jax.grad(lambda x: jnp.sum(jud.jit(clip_grad)(x) * 5.0)))
    np.testing.assert_array_equal(f(jnp.ones(3)), 1.0)


# -- the object is jax.jit's --------------------------------------------------------------


def test_same_type_repr_and_names_as_jax_jit() -> None:
    ours: Any = jud.jit(swap)
    plain: Any = jax.jit(swap)
    assert type(ours) is type(plain)
    assert repr(ours) == repr(plain) == f"<PjitFunction of {swap!r}>"
    assert ours.__wrapped__ is swap
    assert (ours.__name__, ours.__qualname__, ours.__module__, ours.__doc__) == (
        plain.__name__, plain.__qualname__, plain.__module__, plain.__doc__)
    assert jud.is_planned(ours) and not jud.is_planned(plain)


def test_eager_type_errors_are_jax_jits() -> None:
    def gen(x: Any) -> Any:
        yield x

    cases: list[tuple[Any, str]] = [(3, "Expected a callable value"),
                                    (gen, "Expected a function, got a generator function")]
    for bad, pattern in cases:
        with pytest.raises(TypeError, match=pattern):
            jud.jit(bad)
    with pytest.raises(TypeError, match="staticmethod arguments are not supported"):
        class A:
            @jud.jit
            @staticmethod
            def f(x: Any) -> Any:
                return x


def test_decorator_factory_and_partial() -> None:
    @jud.jit(static_argnames=["flag"])
    def f(x: Any, flag: bool) -> Any:
        return x if flag else -x

    assert f(1, True) == 1 and f(1, False) == -1
    g = functools.partial(jud.jit, donate_argnums=0)(lambda x: x + 1.0)
    x = jnp.ones(4)
    np.testing.assert_array_equal(g(x), 2.0)
    assert x.is_deleted()


def test_pickling_matches_jax_jit() -> None:
    """Where ``jax.jit`` pickles, the drop-in does; where it does not, neither does ours."""
    def outcome(obj: Any) -> str:
        try:
            pickle.dumps(obj)
            return "ok"
        except Exception as e:
            return type(e).__name__

    assert outcome(jud.jit(swap)) == outcome(jax.jit(swap))


def test_eval_shape_keeps_shardings() -> None:
    s = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    ours = jud.jit(swap, out_shardings=(s, s)).eval_shape(*pair())
    plain = jax.jit(swap, out_shardings=(s, s)).eval_shape(*pair())
    assert ours == plain and ours[0].sharding == s


def test_aot_stages_carry_the_plan() -> None:
    f = jud.jit(swap, donate_argnums=(0, 1))
    traced = f.trace(*pair())
    assert isinstance(traced, jax.stages.Traced)
    lowered = traced.lower()
    compiled = lowered.compile()
    assert aliases_from_hlo_text(compiled.as_text()) == {0: 1, 1: 0}
    a, b = pair()
    np.testing.assert_array_equal(compiled(a, b)[0], 4.0)
    assert a.is_deleted() and b.is_deleted()
    # What XLA is given (the computation's compile arguments) has no trace of the marker.
    compile_args = lowered._lowering.compile_args  # type: ignore[attr-defined]
    assert jax_internals.MARKER not in str(compile_args.get("compiler_options_kvs", ()))


def test_jax_options_pass_through() -> None:
    f = jud.jit(swap, donate_argnames=("a",), keep_unused=True, inline=False,
                compiler_options={"xla_cpu_enable_fast_math": False})
    a, b = pair()
    np.testing.assert_array_equal(f(a, b)[1], 3.0)
    assert a.is_deleted() and not b.is_deleted()
    assert f._cache_size() == 1
    f.clear_cache()
    assert f._cache_size() == 0
    with pytest.raises(TypeError, match="reserved"):
        jud.jit(swap, compiler_options={jax_internals.MARKER: "x"})


def test_user_compiler_options_on_a_nested_drop_in_are_rejected_as_jax_does() -> None:
    inner_ours = jud.jit(square, compiler_options={"xla_cpu_enable_fast_math": False})
    inner_plain = jax.jit(square, compiler_options={"xla_cpu_enable_fast_math": False})
    for inner in (inner_ours, inner_plain):
        with pytest.raises(ValueError, match="can only be passed to top-level"):
            jax.jit(lambda x, inner=inner: inner(x))(1.0)


def test_tracebacks_hide_this_package_as_jax_hides_itself() -> None:
    def bad(x: jax.Array) -> jax.Array:
        return x @ jnp.ones((3, 3))  # shape mismatch

    frames: dict[str, list[str]] = {}
    for name, jit in (("ours", jud.jit), ("plain", jax.jit)):
        with pytest.raises(TypeError) as info:
            jit(bad, donate_argnums=0)(jnp.ones((4, 4)))
        frames[name] = [f.filename for f in traceback.extract_tb(info.value.__traceback__)]
    assert not [f for f in frames["ours"] if "jax_use_donated" in f]
    assert len(frames["ours"]) == len(frames["plain"])


def test_jax_jit_can_be_replaced_by_the_drop_in() -> None:
    script = textwrap.dedent("""
        import jax, jax.numpy as jnp
        import jax_use_donated as jud
        jax.jit = jud.jit
        f = jax.jit(lambda a, b: (b * 2.0, a * 3.0), donate_argnums=(0, 1))
        a, b = jnp.ones(4), jnp.ones(4)
        print(float(f(a, b)[0][0]), jud.is_planned(f), f.last_plan.parameter_pairs)
        print(float(jax.jit(jax.grad(jax.jit(lambda x: x * x)))(3.0)))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, check=True)
    assert out.stdout.split() == ["2.0", "True", "{0:", "1,", "1:", "0}", "6.0"]


# -- caches -------------------------------------------------------------------------------


def test_re_creating_the_drop_in_hits_jax_caches() -> None:
    traces: list[int] = []

    def f(x: jax.Array) -> jax.Array:
        traces.append(1)
        return jnp.sin(x) * 2.0

    x = jnp.ones(8)
    for _ in range(5):
        jud.jit(f)(x)
    for _ in range(5):
        jud.jit(f, donate_argnums=0)(jnp.ones(8))
    assert len(traces) == 1, "tracing is shared by every jit of f (as with jax.jit)"
    assert jud.jit(f)._cache_size() == 1


def test_planned_and_plain_lowerings_never_meet() -> None:
    def f(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
        return b * 2.0, a * 3.0

    plain_first = jax.jit(f, donate_argnums=(0, 1)).lower(*pair()).as_text()
    ours = jud.jit(f, donate_argnums=(0, 1)).lower(*pair()).as_text()
    plain_again = jax.jit(f, donate_argnums=(0, 1)).lower(*pair()).as_text()
    jax_pairs = "%arg0: tensor<4x4xf32> {tf.aliasing_output = 0 : i32}"
    assert jax_pairs in plain_first and jax_pairs in plain_again
    assert "%arg0: tensor<4x4xf32> {tf.aliasing_output = 1 : i32}" in ours


def test_the_marker_never_reaches_xla() -> None:
    compiled = jud.jit(swap, donate_argnums=(0, 1)).lower(*pair()).compile()
    assert jax_internals.MARKER not in compiled.as_text()


def test_locations_never_name_the_drop_in_s_wrappers() -> None:
    """A nested drop-in with no user frame of its own: JAX records the lowering's stack, which
    must not show this package's wrappers (in the text or in the warnings)."""
    inner = jud.jit(lambda x: x + 1.0)
    outer = jud.jit(inner, donate_argnums=0)
    text = outer.lower(jnp.ones((8, 8))).as_text(debug_info=True)
    assert "jax_use_donated" not in text
    assert "test_dropin_parity.py" in text


def test_dropping_the_jit_frees_what_its_function_closes_over() -> None:
    """JAX's ``test_jit_reference_dropping``: no reference cycle through the drop-in's
    attributes keeps the function (and its closure) alive once the jit object goes, even
    with the collector off; ``jit(f).plan(x)`` on a temporary still works."""
    import gc
    import weakref

    gc.disable()
    try:
        x = jnp.ones(10)
        f = (lambda x: lambda: x)(x)
        g = jud.jit(f)
        x_ref = weakref.ref(x)
        del x
        g()
        del f
        assert x_ref() is not None
        g()
        del g
        assert x_ref() is None
    finally:
        gc.enable()

    def swap(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
        return b * 2, a * 3

    assert jud.jit(swap, donate_argnums=(0, 1)).plan(jnp.ones(4), jnp.ones(4)).pairs == {
        0: 1, 1: 0}
