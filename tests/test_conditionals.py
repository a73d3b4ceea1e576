"""The rules for a ``stablehlo.case`` writing a donor (:mod:`jax_use_donated.analysis.conditionals`)
against XLA's executable: per branch what it returns at the donated result (the donor itself,
a value computed in the branch from the donor or not, a value computed before the
conditional, a constant, a non-elementwise op of the donor), with the donor read elsewhere or
not, in both copy-insertion modes. The full grid (every combination of two and three branches,
1,436 programs) ran with no disagreement; this is a sample of each rule's positive and negative
cases, pinned."""

from __future__ import annotations

import warnings
from typing import Any

import jax
import jax.numpy as jnp
import pytest

from jax_use_donated.adapters.jaxlib_ir import function_model, module_function
from jax_use_donated.analysis.plan import predict_pairing
from jax_use_donated.dropin.xla_truth import read_truth

N = (64,)


def _value(kind: str, d: jax.Array, g: jax.Array, outer: jax.Array) -> jax.Array:
    if kind == "pass":
        return d
    if kind == "ew":
        return d * 2.0 + g
    if kind == "fresh":
        return g * 3.0
    if kind == "outer":
        return outer
    if kind == "const":
        return jnp.zeros(N)
    assert kind == "dot"
    return jnp.outer(d, g).sum(0)


def _program(kinds: tuple[str, ...], extra: str):
    def f(d: jax.Array, g: jax.Array, s: jax.Array) -> tuple[jax.Array, ...]:
        outer = g + 1.0
        index = ((d.sum() > 0) if extra == "pred" else (s > 0)).astype(jnp.int32)
        if len(kinds) == 3:
            index = index + (s > 1).astype(jnp.int32)
        r = jax.lax.switch(index, [lambda d, k=k: _value(k, d, g, outer) for k in kinds], d)
        return (r, d.sum()) if extra == "after" else (r,)

    return f


CASES = [
    # branch kinds (branch 0 first), the donor's other read, expected: (default, region)
    (("pass", "pass"), "none", ("copy-free", "copy-free")),
    (("pass", "ew"), "none", ("copy-free", "copy-free")),      # pass before the write
    (("ew", "pass"), "none", ("copied", "copied")),            # write before a pass
    (("ew", "ew"), "none", ("copied", "copy-free")),           # later branch reads
    (("ew", "fresh"), "pred", ("copy-free", "copy-free")),
    (("fresh", "ew"), "none", ("copied", "copy-free")),
    (("ew", "const"), "none", ("copy-free", "copy-free")),
    (("const", "ew"), "none", ("copied", "copy-free")),
    (("ew", "fresh"), "after", ("copied", "copied")),          # read after the case
    (("ew", "outer"), "none", ("copied", "copied")),
    (("outer", "fresh"), "pred", ("copied", "copy-free")),
    (("fresh", "dot"), "none", ("copied", "copied")),
    (("pass", "pass", "ew"), "none", ("copied", "copy-free")),
    (("pass", "pass", "fresh"), "none", ("copy-free", "copy-free")),
    (("outer", "fresh", "outer"), "pred", ("copied", "copied")),
    (("fresh", "outer", "outer"), "pred", ("copied", "copy-free")),
]


@pytest.mark.parametrize(("kinds", "extra", "expected"), CASES,
                         ids=[f"{'-'.join(k)}-{e}" for k, e, _ in CASES])
def test_case_rules_match_the_executable(kinds: tuple[str, ...], extra: str,
                                         expected: tuple[str, str]) -> None:
    args = (jnp.ones(N), jnp.ones(N), jnp.array(1.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lowered = jax.jit(_program(kinds, extra), donate_argnums=(0,)).lower(*args)
    module = lowered.compiler_ir()
    assert module is not None
    main = module_function(module, "main")
    assert main is not None
    fn = function_model(main)
    for region, want in zip((False, True), expected, strict=True):
        options: dict[str, Any] = (
            {"xla_cpu_copy_insertion_use_region_analysis": True} if region else {})
        text = lowered.compile(compiler_options=options).as_text()
        assert text is not None
        measured = read_truth(text, [0])
        got = measured.donors[0].outcome.value
        predicted = predict_pairing(fn, "xla-cpu-region" if region else "xla-cpu", {0: 0})[0]
        assert got == want, (kinds, extra, region, "XLA changed", got)
        assert predicted == got, (kinds, extra, region, predicted, got)
