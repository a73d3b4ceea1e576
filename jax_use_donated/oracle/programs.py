"""Small-shaped donated JAX programs for the execution oracles (the donation catalogue's
programs at ``f32[8,8]``, so each case compiles and runs in milliseconds)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Program:
    name: str
    fun: Callable[..., object]
    num_args: int
    donate: tuple[int, ...]

    def inputs(self, n: int = 8, seed: int = 0) -> list[np.ndarray]:
        rng = np.random.default_rng(seed)
        return [rng.uniform(0.5, 2.0, (n, n)).astype(np.float32) for _ in range(self.num_args)]


def _programs() -> list[Program]:
    import jax
    import jax.numpy as jnp

    def swap(a, b):
        return b * 2, a * 3

    def swap_plain(a, b):
        return b, a

    def cycle3(a, b, c):
        return b + 1, c + 1, a + 1

    def fan_out(a):
        return a + 1, 2 * a

    def state_reordered(p, s):
        return s * 0.5, p + s

    def sgd_momentum(p, v, g):
        v2 = 0.9 * v + g
        return p - 0.1 * v2, v2

    def adam(p, m, v, g):
        m2 = 0.9 * m + 0.1 * g
        v2 = 0.999 * v + 0.001 * g * g
        return p - 0.01 * m2 / (jnp.sqrt(v2) + 1e-8), m2, v2

    def adam_state_first(p, m, v, g):
        new_p, m2, v2 = adam(p, m, v, g)
        return m2, v2, new_p

    def kv_cache(cache, x):
        return jax.lax.dynamic_update_slice(cache, x[:1], (3, 0)), x * 2

    def kv_cache_reordered(cache, x):
        new, y = kv_cache(cache, x)
        return y, new

    def fori_swap(a, b):
        return jax.lax.fori_loop(0, 3, lambda i, c: (c[1] + 1, c[0] * 2), (a, b))

    def transpose(a):
        return a.T + 1

    def read_after_produce(a, b):
        y = a * 2
        return y, a + b

    def read_after_dot(a, b):
        return a @ b, a - b

    def no_matching_output(a):
        return jnp.sum(a, axis=0)

    def reshape_output(a):
        return (a * 2).reshape(a.shape[1], a.shape[0])

    return [
        Program("swap", swap, 2, (0, 1)),
        Program("swap (b, a)", swap_plain, 2, (0, 1)),
        Program("3-cycle", cycle3, 3, (0, 1, 2)),
        Program("fan-out (a+1, 2a)", fan_out, 1, (0,)),
        Program("state reordered", state_reordered, 2, (0, 1)),
        Program("SGD momentum", sgd_momentum, 3, (0, 1)),
        Program("Adam", adam, 4, (0, 1, 2)),
        Program("Adam, state first", adam_state_first, 4, (0, 1, 2)),
        Program("KV cache", kv_cache, 2, (0, 1)),
        Program("KV cache, reordered", kv_cache_reordered, 2, (0, 1)),
        Program("fori_loop carry swap", fori_swap, 2, (0, 1)),
        Program("transpose", transpose, 1, (0,)),
        Program("read after produce", read_after_produce, 2, (0, 1)),
        Program("read after dot", read_after_dot, 2, (0, 1)),
        Program("no matching output", no_matching_output, 1, (0,)),
        Program("reshape output", reshape_output, 1, (0,)),
    ]


PROGRAMS: list[Program] = _programs()
