"""What the jit hook adds to lower + compile on a large train step.

A 128-layer MLP (matmul, bias, layer norm, GELU, residual) trained by Adam, about 21k StableHLO
ops in ``@main``, params and both Adam states donated. Each repetition jits a fresh function
with plain ``jax.jit`` and with ``jax_use_donated.jit`` (alternating), lowers and compiles it,
and the medians are compared in this one run. The hook's own time (model, plan, diagnostics,
rewrite) is also reported against plain lower + compile.

    python benchmarks/hook_overhead.py [--layers 128] [--reps 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import jax_use_donated as jud


def make_train_step(layers: int, width: int, batch: int) -> tuple[Callable[..., Any], tuple]:
    def loss(params: Any, x: jax.Array, y: jax.Array) -> jax.Array:
        h = x
        for w, b in params:
            z = h @ w + b
            mu = z.mean(-1, keepdims=True)
            var = ((z - mu) ** 2).mean(-1, keepdims=True)
            h = jax.nn.gelu((z - mu) * jax.lax.rsqrt(var + 1e-5)) + h
        return jnp.mean((h - y) ** 2)

    def step(params: Any, m: Any, v: Any, x: jax.Array, y: jax.Array) -> Any:
        g = jax.grad(loss)(params, x, y)
        m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
        v = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
        p = jax.tree.map(lambda p, m, v: p - 1e-3 * m / (jnp.sqrt(v) + 1e-8), params, m, v)
        return p, m, v

    params = [(jnp.full((width, width), 0.01), jnp.zeros((width,))) for _ in range(layers)]
    zeros = jax.tree.map(jnp.zeros_like, params)
    x = jnp.ones((batch, width))
    return step, (params, zeros, jax.tree.map(jnp.zeros_like, params), x, x)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--layers", type=int, default=128)
    parser.add_argument("--width", type=int, default=128)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args(argv)
    step, inputs = make_train_step(args.layers, args.width, 32)

    def fresh() -> Callable[..., Any]:
        def train_step(*a: Any) -> Any:
            return step(*a)
        return train_step

    plain_t: list[float] = []
    ours_t: list[float] = []
    hook_t: list[float] = []
    ops = 0
    record = None
    for _ in range(args.reps):
        t0 = time.perf_counter()
        jax.jit(fresh(), donate_argnums=(0, 1, 2)).lower(*inputs).compile()
        plain_t.append(time.perf_counter() - t0)
        wrapper = jud.jit(fresh(), donate_argnums=(0, 1, 2))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            wrapper.lower(*inputs).compile()
            ours_t.append(time.perf_counter() - t0)
        record = wrapper.records[-1]
        hook_t.append(record.seconds)
        ops = len(record.function.ops)
    assert record is not None
    plain, ours, hook = (statistics.median(t) for t in (plain_t, ours_t, hook_t))
    print(f"{args.layers}-layer MLP train step with Adam: {ops} ops in @main, "
          f"{len(record.plan.verdicts)} donated leaves, {len(record.plan.pairs)} paired")
    print(f"plain jax.jit lower+compile      median {plain:7.3f} s  {plain_t}")
    print(f"jax_use_donated.jit lower+compile median {ours:7.3f} s  {ours_t}")
    print(f"ratio ours / plain: {ours / plain:.3f}")
    print(f"hook time (model+plan+rewrite)   median {hook:7.3f} s = "
          f"{100 * hook / plain:.1f}% of plain lower+compile (target <= 5%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
