"""``jud.advise`` against a brute force over every donate set.

For small programs (2-4 array arguments) every subset of donated arguments is compiled with
``jud.jit`` and measured (``memory_analysis()``); the advice, from a given donate set, must:
mark verified only suggestions that really save their stated bytes (``bytes_saved``) when
applied and compiled,
miss no saving the brute force finds (its total equals the best superset), never suggest a
leaf of another dtype or with no result of its size, and leave every output unchanged.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jax_use_donated as jud
from jax_use_donated.dropin.advice import advise_call
from jax_use_donated.dropin.variants import Footprint

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks import catalogue

N = 32


def _footprint(fun: Callable[..., Any], donate: Sequence[int], args: Sequence[Any]) -> int:
    return Footprint.of(jud.jit(fun, donate_argnums=tuple(donate), warn=False)
                        .lower(*args).compile()).total


def _outputs(fun: Callable[..., Any], donate: Sequence[int], args: Sequence[Any]
             ) -> list[np.ndarray]:
    step = jud.jit(fun, donate_argnums=tuple(donate), warn=False)
    return [np.asarray(o) for o in jax.tree.leaves(step(*[a.copy() for a in args]))]


def mixed_dtypes(a: jax.Array, b: jax.Array, c: jax.Array) -> tuple[jax.Array, ...]:
    """``b`` is bf16 and no result is; ``c`` is int32 and one result is."""
    return a * 2.0 + b.astype(jnp.float32), c + 1


def other_size(a: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``x`` (f32[n]) has no result of its size."""
    return a + x, x.sum()


def same_size_other_shape(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``b`` (f32[n*n]) has the size of ``a`` (f32[n, n]), not its shape."""
    return a * 2.0, b.sum()


def returned_unchanged(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
    return a, b + 1.0


def read_after_update(p: jax.Array, g: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The read of the old ``p`` uses the new one: nothing but a restructure helps."""
    new = p - 0.1 * g
    return new, (new * p).sum()


def _mats(k: int) -> tuple[jax.Array, ...]:
    keys = jax.random.split(jax.random.key(7), k)
    return tuple(jax.random.normal(key, (N, N)) for key in keys)


PROGRAMS: dict[str, tuple[Callable[..., Any], Callable[[], tuple[Any, ...]]]] = {
    p.name: (p.fun, (lambda p=p: tuple(p.args(N))))
    for p in catalogue.SINGLE
    if p.name in ("swap", "cycle3", "state_reordered", "sgd_momentum", "adam",
                  "adam_state_first", "fori_swap", "transpose", "read_after_dot",
                  "no_matching_output", "reshape_output", "fan_out")
}
PROGRAMS.update({
    "mixed_dtypes": (mixed_dtypes, lambda: (
        _mats(1)[0], _mats(1)[0].astype(jnp.bfloat16),
        jnp.arange(N * N, dtype=jnp.int32).reshape(N, N))),
    "other_size": (other_size, lambda: (_mats(1)[0], jnp.ones((N,)))),
    "same_size_other_shape": (same_size_other_shape,
                              lambda: (_mats(1)[0], jnp.ones((N * N,)))),
    "returned_unchanged": (returned_unchanged, lambda: _mats(2)),
    "read_after_update": (read_after_update, lambda: _mats(2)),
})


def _starts(k: int) -> list[tuple[int, ...]]:
    """The donate sets advised from: none, the first argument, all but the last."""
    return list(dict.fromkeys([(), (0,), tuple(range(k - 1))]))


def _compatible(arg: Any, outs: Sequence[Any]) -> bool:
    """A result of the leaf's dtype and size exists (any shape: XLA's size matching)."""
    return any(o.size == arg.size and o.dtype == arg.dtype for o in outs)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_advice_matches_brute_force(name: str) -> None:
    fun, make = PROGRAMS[name]
    args = make()
    k = len(args)
    assert 2 <= k <= 4
    brute = {s: _footprint(fun, s, args)
             for r in range(k + 1) for s in itertools.combinations(range(k), r)}
    outs = jax.tree.leaves(jax.eval_shape(fun, *args))
    for start in _starts(k):
        step = jud.jit(fun, donate_argnums=start, warn=False)
        advice = advise_call(step, args)
        label = f"{name} from donate_argnums={start}:\n{advice}"
        assert not any(a.is_deleted() for a in args), label  # the caller's arrays are kept
        assert advice.footprint == brute[start], label
        best = min(fp for s, fp in brute.items() if set(start) <= set(s))
        # No saving the brute force finds is missed, and none is invented.
        assert advice.footprint_advised == best, label
        assert advice.results_equal, label
        reference = _outputs(fun, start, args)
        args_index = {n: i for i, n in enumerate(advice.site.names)} if advice.site else {}
        groups: dict[tuple[Any, ...], list[Any]] = {}
        for s in advice.suggestions:
            assert s.leaf is not None
            if s.action == "donate":
                assert not s.donated, label
                # Never a leaf of another dtype or with no result of its size.
                assert _compatible(args[s.leaf], outs), label
            if not s.verified:
                continue
            assert s.action == "donate" and s.bytes_saved > 0, label
            key = (s.on_top_of, s.path if s.measured_alone else s.note)
            groups.setdefault(key, []).append(s)
        for (on_top_of, _), members in groups.items():
            # Each suggestion (or group verified in one compile) saves its stated bytes when
            # applied to the call as made (or on top of the suggestions it names).
            before = tuple(sorted({*start, *(args_index[p] for p in on_top_of)}))
            donate = tuple(sorted({*before, *(m.leaf for m in members)}))
            saved = brute[before] - brute[donate]
            stated = sum(m.bytes_saved for m in members)
            assert abs(saved - stated) <= 0.01 * stated, label
            for x, y in zip(_outputs(fun, donate, args), reference, strict=True):
                np.testing.assert_array_equal(x, y)
        for leaf in range(k):
            if leaf not in start and not _compatible(args[leaf], outs):
                assert all(s.leaf != leaf for s in advice.suggestions), label
        if advice.applied:
            applied = {advice.site.leaf(p) for p in advice.applied} if advice.site else set()
            together = tuple(sorted(set(start) | applied))
            assert brute[together] == advice.footprint_advised, label


def test_donor_that_no_result_fits_gets_none_with_the_reason() -> None:
    a, x = _mats(1)[0], jnp.ones((N,))
    advice = jud.jit(other_size, donate_argnums=(0, 1), warn=False).advise(a, x)
    s = advice.suggestion("x")
    assert s.action == "none" and s.donated and not s.verified and s.bytes_saved == 0
    assert "no result has its size" in s.reason, s.reason


def test_bf16_donor_is_told_the_dtype_differs() -> None:
    def f(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
        return a * 2.0, b.astype(jnp.float32).sum()

    a = _mats(1)[0].astype(jnp.float16)
    b = _mats(1)[0].astype(jnp.bfloat16)
    s = jud.jit(f, donate_argnums=(1,), warn=False).advise(a, b).suggestion("b")
    assert s.action == "none" and "another dtype" in s.reason, s.reason


def test_read_of_the_old_value_after_the_update_is_a_restructure() -> None:
    p, g = _mats(2)
    advice = jud.jit(read_after_update, donate_argnums=(0,), warn=False).advise(p, g)
    s = advice.suggestion("p")
    assert s.action == "restructure" and not s.verified, advice
    assert "uses the new value" in s.reason and "test_advice.py" in s.reason, s.reason
    # g could host the new p: the advice finds it, verified.
    assert advice.suggestion("g").action == "donate" and advice.suggestion("g").verified


def test_advice_says_what_it_cannot_know_and_the_total() -> None:
    step = jud.jit(catalogue.sgd_momentum, donate_argnums=(0,), warn=False)
    w, m, g = _mats(3)
    text = str(step.advise(w, m, g))
    assert "if you do not use m after this call" in text
    assert "footprint as called" in text and "verified suggestion" in text
    assert "cannot know whether you use an array after the call" in text


def test_pytree_leaves_keep_their_paths_and_the_hint_is_measured() -> None:
    def step(params: dict[str, jax.Array], opt: dict[str, jax.Array], g: dict[str, jax.Array]
             ) -> tuple[dict[str, jax.Array], dict[str, jax.Array]]:
        opt = {k: 0.9 * opt[k] + g[k] for k in opt}
        return {k: params[k] - 0.1 * opt[k] for k in params}, opt

    w, b, m, mb = _mats(4)
    params, opt = {"w": w, "b": b[0]}, {"w": m, "b": mb[0]}
    grads = {"w": w * 0.1, "b": b[0] * 0.1}
    advice = jud.advise(jud.jit(step, donate_argnums=(0,), warn=False), params, opt, grads)
    verified = {s.path for s in advice.verified}
    assert {"opt['w']", "opt['b']"} <= verified, advice
    assert advice.donate_hint.startswith("donate_argnums=(0, 1"), advice.donate_hint
    assert advice.hint_footprint == advice.footprint_advised, advice


def test_a_buffer_passed_twice_is_never_suggested_twice() -> None:
    def f(a: jax.Array, b: jax.Array) -> jax.Array:
        return a + b

    x = _mats(1)[0]
    advice = jud.advise(jax.jit(f), x, x)
    assert not any(s.action == "donate" for s in advice.suggestions), advice
    assert advice.footprint_advised == advice.footprint


def test_plain_jax_jit_and_non_jit_callables() -> None:
    a, b = _mats(2)
    advice = jud.advise(jax.jit(catalogue.swap), a, b)
    assert advice.bytes_saved > 0 and advice.verified
    with pytest.raises(TypeError):
        jud.advise(catalogue.swap, a, b)


def test_predicted_advice_from_the_module_alone() -> None:
    """``analysis.advice.predict_advice`` (what ``jax-donate-opt`` can print for a module
    file: no executable) names the same leaves the measured advice verifies, on a program
    without temporaries to repack."""
    from jax_use_donated.adapters.jaxlib_ir import function_model, module_function
    from jax_use_donated.analysis.advice import format_predicted, predict_advice

    w, m, g = _mats(3)
    lowered = jax.jit(catalogue.sgd_momentum, donate_argnums=(0,)).lower(w, m, g)
    module = lowered.compiler_ir()
    assert module is not None
    main = module_function(module)
    assert main is not None
    fn = function_model(main)
    predicted = predict_advice(fn, "xla-cpu-region")
    donate = {fn.args[a.arg].display_name for a in predicted if a.action == "donate"}
    measured = jud.advise(jax.jit(catalogue.sgd_momentum, donate_argnums=(0,)), w, m, g)
    assert donate == {s.path for s in measured.verified}
    assert all(a.bytes_saved == N * N * 4 for a in predicted if a.action == "donate")
    text = format_predicted(predicted, fn.name)
    assert "predicted from the module" in text and "m: donate" in text


def test_static_arguments_keywords_and_shardings_are_kept() -> None:
    """The flattened variants keep static arguments, keyword arguments, ``donate_argnames``
    and ``in_shardings``: the advice's leaves and measurements are those of the call."""

    def f(scale: float, a: jax.Array, *, b: jax.Array, c: jax.Array
          ) -> tuple[jax.Array, jax.Array]:
        return a * scale, b + c

    step = jud.jit(f, static_argnums=(0,), donate_argnames=("b",), warn=False)
    a, b, c = _mats(3)
    advice = step.advise(2.0, a, b=b, c=c)
    assert "a" in {s.path for s in advice.verified}, advice
    assert all(s.path != "b" or s.action != "donate" for s in advice.suggestions)  # donated
    assert advice.donate_hint.startswith("donate_argnums=(1,), donate_argnames=('b'"), advice
    assert advice.hint_footprint == advice.footprint_advised
    assert advice.results_equal and not any(x.is_deleted() for x in (a, b, c))
    assert advice.plan.donation("b").status == "reused"

    # in_shardings (positional arguments only, as jit requires)
    sharding = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    sharded = jud.jit(catalogue.swap, in_shardings=(sharding, sharding), warn=False)
    assert sharded.advise(a, b).footprint_advised == _footprint(catalogue.swap, (0, 1), (a, b))
