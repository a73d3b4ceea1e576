"""The train step the hook's overhead is measured on (``hook_overhead.py``, ``hook_ab.py``): an
N-layer MLP (matmul, bias, layer norm, GELU, residual) trained by Adam. Imports JAX only, so a
benchmark can load it beside any checkout of ``jax_use_donated``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp


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
