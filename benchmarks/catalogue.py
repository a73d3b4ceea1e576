"""Realistic donated programs, shared by the benchmark (``donation_catalogue.py``) and the jit
tests. Each :class:`Program` builds fresh arguments of a chosen size ``n`` (the benchmark uses
``n=1024``: f32[1024,1024] operands; tests use small ``n``).

Sharded programs (``mesh="explicit"`` / ``"auto"``) need 4 devices: on CPU set
``XLA_FLAGS=--xla_force_host_platform_device_count=4`` before importing JAX.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp

Args = tuple[Any, ...]


@dataclass(frozen=True)
class Program:
    name: str
    description: str
    fun: Callable[..., Any]
    make: Callable[[int], Args]
    """``n`` -> fresh (unsharded) arguments."""
    donate_argnums: tuple[int, ...]
    mesh: str | None = None
    """``None`` (one device), ``"explicit"`` or ``"auto"``: a 4-device mesh of that axis type,
    every argument sharded along its first dimension."""

    def args(self, n: int) -> Args:
        """Fresh arguments, placed on the program's mesh."""
        args = self.make(n)
        if self.mesh is None:
            return args
        sharding = jax.sharding.NamedSharding(self._mesh(), jax.sharding.PartitionSpec("x"))
        # A jitted copy, not device_put: on CPU device_put may hand out shards that are views
        # of one host buffer, which PjRt cannot donate in place.
        place = jax.jit(jnp.copy, out_shardings=sharding)
        return jax.tree.map(lambda a: place(a) if a.ndim and a.shape[0] % 4 == 0 else a, args)

    def _mesh(self) -> jax.sharding.Mesh:
        kind = (jax.sharding.AxisType.Explicit if self.mesh == "explicit"
                else jax.sharding.AxisType.Auto)
        return jax.make_mesh((4,), ("x",), axis_types=(kind,))

    @contextlib.contextmanager
    def context(self) -> Iterator[None]:
        """The mesh context to trace and run in (explicit meshes need one)."""
        if self.mesh == "explicit":
            with jax.set_mesh(self._mesh()):
                yield
        else:
            yield


def _mats(count: int, n: int, seed: int = 0) -> list[jax.Array]:
    keys = jax.random.split(jax.random.key(seed), count)
    return [jax.random.normal(k, (n, n), jnp.float32) for k in keys]


# -- the programs ------------------------------------------------------------------------------

def swap(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
    return b * 2.0, a * 3.0


def cycle3(a: jax.Array, b: jax.Array, c: jax.Array) -> tuple[jax.Array, ...]:
    return b + 1.0, c * 2.0, a - 1.0


def state_reordered(p: jax.Array, m: jax.Array, v: jax.Array) -> tuple[jax.Array, ...]:
    p2 = p * 0.5 + 1.0
    m2 = m * 0.9 + 0.1
    v2 = v * 0.99 + 0.01
    return v2, p2, m2


def sgd_momentum(w: jax.Array, m: jax.Array, g: jax.Array) -> tuple[jax.Array, jax.Array]:
    m2 = 0.9 * m + g
    return w - 0.01 * m2, m2


def _adam(p: jax.Array, m: jax.Array, v: jax.Array, g: jax.Array) -> tuple[jax.Array, ...]:
    m2 = 0.9 * m + 0.1 * g
    v2 = 0.999 * v + 0.001 * g * g
    p2 = p - 1e-3 * m2 / (jnp.sqrt(v2) + 1e-8)
    return p2, m2, v2


def adam(p: jax.Array, m: jax.Array, v: jax.Array, g: jax.Array) -> tuple[jax.Array, ...]:
    return _adam(p, m, v, g)


def adam_state_first(p: jax.Array, m: jax.Array, v: jax.Array,
                     g: jax.Array) -> tuple[jax.Array, ...]:
    p2, m2, v2 = _adam(p, m, v, g)
    return m2, v2, p2


def _kv(kc: jax.Array, vc: jax.Array, q: jax.Array, kn: jax.Array, vn: jax.Array,
        pos: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    kc2 = jax.lax.dynamic_update_slice(kc, kn, (pos, 0))
    vc2 = jax.lax.dynamic_update_slice(vc, vn, (pos, 0))
    att = jax.nn.softmax(q @ kc2.T / 32.0, axis=-1)
    return kc2, vc2, att @ vc2


def kv_cache(kc: jax.Array, vc: jax.Array, q: jax.Array, kn: jax.Array, vn: jax.Array,
             pos: jax.Array) -> tuple[jax.Array, ...]:
    return _kv(kc, vc, q, kn, vn, pos)


def kv_cache_reordered(kc: jax.Array, vc: jax.Array, q: jax.Array, kn: jax.Array,
                       vn: jax.Array, pos: jax.Array) -> tuple[jax.Array, ...]:
    kc2, vc2, out = _kv(kc, vc, q, kn, vn, pos)
    return vc2, kc2, out


def fori_swap(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
    x, y = jax.lax.fori_loop(0, 4, lambda i, c: (c[0] * 0.5 + 1.0, c[1] + c[0] * 0.1), (a, b))
    return y, x


def scan_rows(c: jax.Array, xs: jax.Array) -> tuple[jax.Array, jax.Array]:
    n = c.shape[0]

    def body(carry: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        carry = carry * 0.9 + x
        return carry, carry[: n // 8] * 2.0

    final, ys = jax.lax.scan(body, c, xs)
    return ys.reshape(c.shape), final


def transpose(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
    return b.T * 2.0, a + 1.0


def read_after_produce(a: jax.Array) -> tuple[jax.Array, jax.Array]:
    out = a * 2.0
    return out, out + a


def read_after_dot(w: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
    y = w @ x
    return y, w - 0.01 * y


def no_matching_output(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
    return a.sum(axis=0), (a * b).mean(axis=1)


def pytree_dict(state: dict[str, jax.Array], g: jax.Array) -> dict[str, jax.Array]:
    momentum = 0.9 * state["momentum"] + g
    return {"params": state["params"] - 0.01 * momentum, "velocity": momentum}


def reshape_output(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
    n = a.shape[0]
    return (b * 2.0).reshape(n * 2, n // 2), (a + 1.0).reshape(n * 2, n // 2)


def fan_out(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    return a + 1.0, a * 2.0, b * a


def _pos(n: int) -> jax.Array:
    return jnp.asarray(n // 2, jnp.int32)


def _kv_args(n: int) -> Args:
    kc, vc, q = _mats(3, n)
    rows = max(1, n // 64)
    kn, vn = (jax.random.normal(jax.random.key(9 + i), (rows, n)) for i in range(2))
    return kc, vc, q[: max(1, n // 128)], kn, vn, _pos(n)


def _dict_args(n: int) -> Args:
    p, m, g = _mats(3, n)
    return {"params": p, "momentum": m}, g


SINGLE: list[Program] = [
    Program("swap", "(a, b) -> (b*2, a*3)", swap, lambda n: tuple(_mats(2, n)), (0, 1)),
    Program("cycle3", "(a, b, c) -> (b+1, c*2, a-1)", cycle3, lambda n: tuple(_mats(3, n)),
            (0, 1, 2)),
    Program("state_reordered", "(p, m, v) -> (v', p', m')", state_reordered,
            lambda n: tuple(_mats(3, n)), (0, 1, 2)),
    Program("sgd_momentum", "SGD with momentum (w, m, g) -> (w', m')", sgd_momentum,
            lambda n: tuple(_mats(3, n)), (0, 1)),
    Program("adam", "Adam (p, m, v, g) -> (p', m', v')", adam, lambda n: tuple(_mats(4, n)),
            (0, 1, 2)),
    Program("adam_state_first", "Adam (p, m, v, g) -> (m', v', p')", adam_state_first,
            lambda n: tuple(_mats(4, n)), (0, 1, 2)),
    Program("kv_cache", "KV cache dynamic_update_slice -> (k', v', attn)", kv_cache, _kv_args,
            (0, 1)),
    Program("kv_cache_reordered", "KV cache -> (v', k', attn)", kv_cache_reordered, _kv_args,
            (0, 1)),
    Program("fori_swap", "fori_loop carry returned swapped", fori_swap,
            lambda n: tuple(_mats(2, n)), (0, 1)),
    Program("scan", "scan: (c, xs) -> (ys reshaped, c')", scan_rows,
            lambda n: (_mats(1, n)[0], jax.random.normal(jax.random.key(5), (8, n))), (0,)),
    Program("transpose", "(a, b) -> (b.T*2, a+1)", transpose, lambda n: tuple(_mats(2, n)),
            (0, 1)),
    Program("read_after_produce", "a -> (a*2, a*2 + a)", read_after_produce,
            lambda n: tuple(_mats(1, n)), (0,)),
    Program("read_after_dot", "(w, x) -> (w@x, w - 0.01*(w@x))", read_after_dot,
            lambda n: tuple(_mats(2, n)), (0,)),
    Program("no_matching_output", "(a, b) -> (sum a, mean a*b): no output of their type",
            no_matching_output, lambda n: tuple(_mats(2, n)), (0, 1)),
    Program("pytree_dict", "{momentum, params} -> {params', velocity}", pytree_dict, _dict_args,
            (0,)),
    Program("reshape_output", "(a, b) -> ((b*2).reshape, (a+1).reshape)", reshape_output,
            lambda n: tuple(_mats(2, n)), (0, 1)),
    Program("fan_out", "(a, b) -> (a+1, a*2, b*a)", fan_out, lambda n: tuple(_mats(2, n)),
            (0, 1)),
]

SHARDED: list[Program] = [
    Program(f"{p.name}@{mesh}", p.description + f", 4 devices ({mesh} mesh)", p.fun, p.make,
            p.donate_argnums, mesh)
    for mesh in ("explicit", "auto")
    for p in SINGLE
    if p.name in ("swap", "adam_state_first", "pytree_dict")
]

ALL: list[Program] = SINGLE + SHARDED


def by_name(name: str) -> Program:
    for p in ALL:
        if p.name == name:
            return p
    raise KeyError(name)
