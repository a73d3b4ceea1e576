"""JAX programs covering the lax surface, for dialect round-trip tests and benchmarks.

Each :class:`Program` builds a ``jax.stages.Lowered`` on demand.  Programs that need
several devices (shard_map collectives, ``NamedSharding``) declare ``devices=4``; the
generator runs them in a process started with
``XLA_FLAGS=--xla_force_host_platform_device_count=4`` (see ``generate.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


@dataclass(frozen=True)
class Program:
    """One corpus entry: ``jax.jit(fn, **jit_kwargs).lower(*make_args())``."""

    name: str
    fn: Callable[..., Any]
    make_args: Callable[[], tuple[Any, ...]]
    jit_kwargs: dict[str, Any] = field(default_factory=dict)
    devices: int = 1
    make_jit_kwargs: Callable[[], dict[str, Any]] | None = None

    def lower(self) -> jax.stages.Lowered:
        kwargs = dict(self.jit_kwargs)
        if self.make_jit_kwargs is not None:
            kwargs |= self.make_jit_kwargs()
        return jax.jit(self.fn, **kwargs).lower(*self.make_args())


def _f32(*shape: int) -> jax.ShapeDtypeStruct:
    return jax.ShapeDtypeStruct(shape, jnp.float32)


def _i32(*shape: int) -> jax.ShapeDtypeStruct:
    return jax.ShapeDtypeStruct(shape, jnp.int32)


def _args(*specs: Any) -> Callable[[], tuple[Any, ...]]:
    return lambda: specs


PROGRAMS: list[Program] = []


def program(
    name: str, *specs: Any, devices: int = 1, **jit_kwargs: Any
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register ``fn`` lowered on ``specs`` (abstract arguments) under ``name``."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        PROGRAMS.append(Program(name, fn, _args(*specs), dict(jit_kwargs), devices))
        return fn

    return register


# ---------------------------------------------------------------- elementwise & basics
@program("elementwise", _f32(4, 8), _f32(4, 8), donate_argnums=(0,))
def _elementwise(a, b):
    return jnp.tanh(a) * b + jnp.exp(a) - jnp.log1p(jnp.abs(b)) / (1.0 + a**2)


@program("integer_bitwise", _i32(16), _i32(16))
def _integer_bitwise(a, b):
    return (a & b) | (a ^ (b << 2)) >> 1, lax.population_count(a), lax.clz(b), a % 7, a // 3


@program("compare_select", _f32(8), _f32(8))
def _compare_select(a, b):
    return jnp.where(a > b, a, b), jnp.maximum(a, b), jnp.minimum(a, b), a == b, jnp.isnan(a)


@program("convert_bitcast", _f32(8))
def _convert_bitcast(a):
    return (
        a.astype(jnp.bfloat16),
        a.astype(jnp.int8),
        lax.bitcast_convert_type(a, jnp.uint32),
        a.astype(jnp.float16).astype(jnp.complex64),
    )


@program("complex_ops", jax.ShapeDtypeStruct((4,), jnp.complex64))
def _complex_ops(z):
    return jnp.real(z), jnp.imag(z), jnp.conj(z), jnp.abs(z), jnp.angle(z), z * z


@program("constants_special", _f32(4))
def _constants_special(x):
    return (
        x + jnp.inf,
        x - jnp.inf,
        jnp.full((4,), jnp.nan),
        jnp.array([1.5, -0.0, 3e38, 1e-40], jnp.float32),
    )


@program("reshape_transpose_broadcast", _f32(2, 3, 4))
def _reshape_transpose_broadcast(x):
    y = x.reshape(6, 4).T
    return jnp.broadcast_to(y[:, None, :], (4, 5, 6)), jnp.expand_dims(x, 0).squeeze(0)


@program("concat_pad_slice_rev", _f32(4, 4), _f32(4, 4))
def _concat_pad_slice_rev(a, b):
    c = jnp.concatenate([a, b], axis=1)
    p = lax.pad(c, 0.0, [(1, 2, 1), (0, -1, 0)])
    return p[1:5:2, ::3], jnp.flip(a, 0), lax.slice(b, (0, 1), (3, 4), (2, 1))


@program("iota_clamp_round", _f32(10))
def _iota_clamp_round(x):
    i = lax.iota(jnp.int32, 10)
    return (
        jnp.clip(x, -1.0, 1.0),
        jnp.round(x),
        jnp.floor(x),
        jnp.ceil(x),
        i * 2,
        lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN),
    )


@program("float_ops_misc", _f32(8), _f32(8))
def _float_ops_misc(a, b):
    return (
        jnp.arctan2(a, b),
        jnp.power(a, b),
        jnp.sqrt(a),
        lax.rsqrt(a),
        jnp.cbrt(a),
        jnp.expm1(a),
        jnp.sign(a),
        lax.nextafter(a, b),
        jnp.isfinite(a),
        lax.reduce_precision(a, exponent_bits=5, mantissa_bits=10),
    )


# ---------------------------------------------------------------- linear algebra / dots
@program("matmul", _f32(16, 32), _f32(32, 8), donate_argnums=(0,))
def _matmul(a, b):
    return a @ b


@program("batched_dot_general", _f32(3, 4, 5), _f32(3, 5, 6))
def _batched_dot(a, b):
    return lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,))), precision=lax.Precision.HIGHEST)


@program("einsum_mixed", _f32(2, 3, 4), _f32(4, 5), jax.ShapeDtypeStruct((3, 5), jnp.bfloat16))
def _einsum_mixed(a, b, c):
    return jnp.einsum("ijk,kl->ijl", a, b), jnp.einsum(
        "ij,ij->", c, c, preferred_element_type=jnp.float32
    )


@program("dot_algorithm", _f32(8, 8), _f32(8, 8))
def _dot_algorithm(a, b):
    return jnp.dot(a, b, precision=lax.DotAlgorithmPreset.F32_F32_F32)


@program("ragged_dot", _f32(11, 5), _f32(3, 5, 7), _i32(3))
def _ragged_dot(lhs, rhs, group_sizes):
    return lax.ragged_dot(lhs, rhs, group_sizes)


@program(
    "mlp_train_step", _f32(8, 16), _f32(16, 32), _f32(32), _f32(32, 4), donate_argnums=(1, 2, 3)
)
def _mlp_train_step(x, w1, b1, w2):
    def loss(params):
        w1, b1, w2 = params
        h = jax.nn.relu(x @ w1 + b1)
        return jnp.mean(jax.nn.log_softmax(h @ w2) ** 2)

    grads = jax.grad(loss)((w1, b1, w2))
    return jax.tree.map(lambda p, g: p - 0.1 * g, (w1, b1, w2), grads)


@program("attention", _f32(2, 8, 16), _f32(2, 8, 16), _f32(2, 8, 16))
def _attention(q, k, v):
    s = jnp.einsum("bqd,bkd->bqk", q, k) / 4.0
    mask = jnp.tril(jnp.ones((8, 8), bool))
    s = jnp.where(mask, s, -jnp.inf)
    return jnp.einsum("bqk,bkd->bqd", jax.nn.softmax(s, axis=-1), v)


@program("layernorm_grad", _f32(4, 16), _f32(16))
def _layernorm_grad(x, g):
    def f(x, g):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return jnp.sum((x - m) * lax.rsqrt(v + 1e-5) * g)

    return jax.grad(f, argnums=(0, 1))(x, g)


# ---------------------------------------------------------------- convolution
@program("conv2d", _f32(2, 3, 16, 16), _f32(8, 3, 3, 3))
def _conv2d(x, w):
    return lax.conv_general_dilated(x, w, (1, 1), "SAME", rhs_dilation=(1, 1))


@program("conv_nhwc_strided_grouped", _f32(1, 16, 16, 4), _f32(3, 3, 2, 8))
def _conv_nhwc(x, w):
    return lax.conv_general_dilated(
        x,
        w,
        (2, 2),
        ((1, 1), (1, 1)),
        lhs_dilation=(1, 1),
        rhs_dilation=(2, 2),
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
        feature_group_count=2,
    )


@program("conv_grad", _f32(2, 3, 8, 8), _f32(4, 3, 3, 3))
def _conv_grad(x, w):
    def f(x, w):
        return jnp.sum(lax.conv_general_dilated(x, w, (1, 1), "VALID") ** 2)

    return jax.grad(f, argnums=(0, 1))(x, w)


@program("conv1d_transpose", _f32(1, 4, 10), _f32(4, 4, 3))
def _conv1d_transpose(x, w):
    return lax.conv_transpose(x, w, (2,), "SAME", dimension_numbers=("NCH", "OIH", "NCH"))


# ---------------------------------------------------------------- reductions
@program("reductions", _f32(4, 8))
def _reductions(x):
    return x.sum(0), x.max(1), x.min(), x.prod(1), jnp.any(x > 0), jnp.all(x > 0, axis=0)


@program("argmax_argmin", _f32(4, 8))
def _argmax(x):
    return jnp.argmax(x, axis=1), jnp.argmin(x, axis=0)


@program("variadic_reduce", _f32(8), _i32(8))
def _variadic_reduce(x, i):
    def comb(a, b):
        return (jnp.maximum(a[0], b[0]), a[1] + b[1])

    return lax.reduce((x, i), (jnp.float32(-jnp.inf), jnp.int32(0)), comb, (0,))


@program("logsumexp_softmax", _f32(4, 8))
def _logsumexp(x):
    return jax.nn.logsumexp(x, axis=-1), jax.nn.softmax(x)


@program("cumsum_cumprod", _f32(16))
def _cumsum(x):
    return jnp.cumsum(x), jnp.cumprod(x), lax.cummax(x), lax.cumlogsumexp(x)


@program("max_pool", _f32(1, 8, 8, 3))
def _max_pool(x):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


@program("avg_pool_padded", _f32(1, 8, 8, 3))
def _avg_pool(x):
    return lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1), (1, 1, 1, 1), "SAME") / 9.0


@program("max_pool_grad", _f32(1, 8, 8, 3))
def _max_pool_grad(x):
    def f(x):
        return jnp.sum(lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"))

    return jax.grad(f)(x)


# ---------------------------------------------------------------- sort / top_k
@program("sort", _f32(16), _i32(16))
def _sort(x, i):
    return jnp.sort(x), jnp.argsort(x), lax.sort((x, i), num_keys=1, is_stable=True)


@program("top_k", _f32(4, 16))
def _top_k(x):
    return lax.top_k(x, 3)


# ---------------------------------------------------------------- control flow
@program("scan_rnn", _f32(8, 4), _f32(4, 4), donate_argnums=(1,))
def _scan_rnn(xs, w):
    def step(h, x):
        h = jnp.tanh(h @ w + x)
        return h, h.sum()

    return lax.scan(step, jnp.zeros(4), xs)


@program("scan_reverse_unroll", _f32(6, 3))
def _scan_reverse(xs):
    return lax.scan(lambda c, x: (c + x, c * x), jnp.ones(3), xs, reverse=True, unroll=2)


@program("while_loop", _f32(4))
def _while_loop(x):
    return lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 1.5), (0, x))


@program("fori_loop", _f32(4, 4))
def _fori_loop(x):
    return lax.fori_loop(0, 5, lambda i, a: a @ a + i, x)


@program("fori_loop_dynamic", _f32(4), _i32())
def _fori_loop_dynamic(x, n):
    return lax.fori_loop(0, n, lambda i, a: a * 2.0, x)


@program("cond", _f32(4), _f32())
def _cond(x, p):
    return lax.cond(p > 0, lambda x: jnp.sin(x), lambda x: jnp.cos(x) * 2, x)


@program("switch", _f32(4), _i32())
def _switch(x, i):
    return lax.switch(i, [jnp.sin, jnp.cos, lambda v: v + 1.0], x)


@program("cond_constant_state", _f32(4), _i32(), _f32(4), donate_argnums=(0, 1))
def _cond_constant_state(acc, count, g):
    # a constant predicate: XLA keeps the branch it takes (optax.MultiSteps lowers so)
    return lax.cond(True, lambda a, c: (a + g, c + 1), lambda a, c: (a * 2.0, c), acc, count)


@program("cond_state_machine", _f32(4), _i32(), _f32(4), donate_argnums=(0, 1))
def _cond_state_machine(acc, count, g):
    return lax.cond(count < 1, lambda a, c: (a + g, c + 1),
                    lambda a, c: (jnp.zeros_like(a), jnp.zeros_like(c)), acc, count)


@program("nested_control_flow", _f32(4), _i32())
def _nested_cf(x, n):
    def body(i, c):
        return lax.cond(
            i % 2 == 0, lambda c: c + 1.0, lambda c: lax.fori_loop(0, 2, lambda j, d: d * 0.5, c), c
        )

    return lax.fori_loop(0, n, body, x)


@program("map_vmap", _f32(5, 3))
def _map_vmap(x):
    return lax.map(lambda r: jnp.dot(r, r), x), jax.vmap(jnp.outer)(x, x)


# ---------------------------------------------------------------- indexing
@program("gather_take", _f32(10, 4), _i32(3))
def _gather(x, idx):
    return x[idx], jnp.take_along_axis(x, jnp.zeros((10, 1), jnp.int32), axis=1), x[idx, 1:3]


@program("scatter_add_set", _f32(10, 4), _i32(3), _f32(3, 4), donate_argnums=(0,))
def _scatter(x, idx, upd):
    return (
        x.at[idx].add(upd),
        x.at[idx].set(upd),
        x.at[idx, 0].max(upd[:, 0]),
        x.at[2].multiply(3.0),
    )


@program("dynamic_slice_update", _f32(16, 8), _i32(), _f32(4, 8), donate_argnums=(0,))
def _dynamic_slice(x, i, u):
    y = lax.dynamic_update_slice(x, u, (i, 0))
    return y, lax.dynamic_slice(y, (i, 2), (4, 4))


@program("segment_sum", _f32(10), _i32(10))
def _segment_sum(x, seg):
    return jax.ops.segment_sum(x, seg, num_segments=4)


@program("one_hot_embedding", _i32(6), _f32(10, 4))
def _one_hot(ids, table):
    return jax.nn.one_hot(ids, 10) @ table, table[ids]


# ---------------------------------------------------------------- randomness
@program("rng_threefry", _i32())
def _rng_threefry(seed):
    k = jax.random.key(seed, impl="threefry2x32")
    k1, k2 = jax.random.split(k)
    return (
        jax.random.normal(k1, (4, 4)),
        jax.random.uniform(k2, (3,)),
        jax.random.bernoulli(k2, 0.3, (5,)),
    )


@program("rng_bit_generator", _i32())
def _rng_rbg(seed):
    k = jax.random.key(seed, impl="rbg")
    return jax.random.normal(k, (4, 4)), jax.random.randint(jax.random.fold_in(k, 1), (6,), 0, 10)


@program("rng_unsafe_rbg_dropout", _f32(8, 8))
def _rng_unsafe(x):
    k = jax.random.key(0, impl="unsafe_rbg")
    return jnp.where(jax.random.bernoulli(k, 0.5, x.shape), x * 2.0, 0.0)


# ---------------------------------------------------------------- fft & linalg
@program("fft", _f32(16))
def _fft(x):
    c = jnp.fft.fft(x)
    return (
        jnp.fft.ifft(c),
        jnp.fft.rfft(x),
        jnp.fft.irfft(jnp.fft.rfft(x)),
        jnp.fft.fft2(x.reshape(4, 4)),
    )


@program("cholesky", _f32(4, 4))
def _cholesky(a):
    return jnp.linalg.cholesky(a @ a.T + 4 * jnp.eye(4))


@program("eigh", _f32(4, 4))
def _eigh(a):
    return jnp.linalg.eigh(a + a.T)


@program("svd", _f32(5, 3))
def _svd(a):
    return jnp.linalg.svd(a, full_matrices=False)


@program("lu_solve_det", _f32(4, 4), _f32(4))
def _lu(a, b):
    return jax.scipy.linalg.lu(a), jnp.linalg.solve(a, b), jnp.linalg.det(a)


@program("qr_triangular_solve", _f32(4, 4), _f32(4, 2))
def _qr(a, b):
    q, r = jnp.linalg.qr(a)
    return q, jax.scipy.linalg.solve_triangular(r, b, lower=False)


# ---------------------------------------------------------------- special functions (CHLO)
@program("special_erf_gamma", _f32(4, 8))
def _special_erf(x):
    return (
        jax.scipy.special.erf(x),
        jax.scipy.special.erfc(x),
        lax.erf_inv(x),
        lax.lgamma(x),
        lax.digamma(x),
        jax.scipy.special.gammaln(x),
    )


@program("special_bessel_polygamma_zeta", _f32(8))
def _special_bessel(x):
    return (
        lax.bessel_i1e(x),
        lax.bessel_i0e(x),
        jax.scipy.special.polygamma(2, x),
        jax.scipy.special.zeta(x + 2.0, x + 1.0),
        lax.igamma(x, x),
        lax.igammac(x, x),
    )


@program("special_trig_hyperbolic", _f32(8), jax.ShapeDtypeStruct((8,), jnp.complex64))
def _special_trig(x, z):
    return (
        jnp.sinh(x),
        jnp.cosh(x),
        jnp.tan(x),
        jnp.arccos(x),
        jnp.arcsin(x),
        jnp.arctan(x),
        jnp.arccosh(x),
        jnp.arcsinh(x),
        jnp.arctanh(x),
        jnp.arcsin(z),
        jnp.arccos(z),
        jnp.tan(z),
    )


@program("special_is_inf_square", _f32(8))
def _special_inf(x):
    return jnp.isinf(x), jnp.isposinf(x), jnp.isneginf(x), jnp.square(x), lax.integer_pow(x, 3)


# ---------------------------------------------------------------- transforms: remat, grad, nested jit
@program("remat", _f32(8, 8), _f32(8, 8))
def _remat(x, w):
    @jax.checkpoint
    def layer(x):
        return jnp.sin(x @ w) @ w

    return jax.grad(lambda x: jnp.sum(layer(layer(x))))(x)


@program("remat_policy", _f32(8, 8))
def _remat_policy(x):
    f = jax.checkpoint(lambda x: jnp.tanh(x @ x) @ x, policy=jax.checkpoint_policies.dots_saveable)
    return jax.grad(lambda x: f(x).sum())(x)


@program("nested_jit", _f32(4), _f32(4), donate_argnums=(1,))
def _nested_jit(a, b):
    @jax.jit
    def inner(x, y):
        return x * y + 1.0

    @partial(jax.jit, inline=True)
    def inlined(x):
        return x - 1.0

    return inner(a, b), inner(b, a), inlined(a)


@program("jvp_vmap_hessian", _f32(3))
def _jvp_vmap(x):
    f = lambda v: jnp.sum(jnp.sin(v) ** 2)  # noqa: E731
    return jax.jvp(f, (x,), (jnp.ones(3),)), jax.hessian(f)(x)


@program("custom_jvp_vjp", _f32(4))
def _custom_jvp(x):
    return jax.grad(lambda v: jnp.sum(jax.nn.softplus(v) + jax.nn.gelu(v) + jax.nn.silu(v)))(x)


# ---------------------------------------------------------------- effects, callbacks, composites
def _host_log(x: np.ndarray) -> None:
    del x


def _host_double(x: np.ndarray) -> np.ndarray:
    return np.asarray(x) * 2


@program("debug_callback", _f32(4))
def _debug_callback(x):
    jax.debug.callback(_host_log, x)
    return x + 1.0


@program("io_callback_ordered", _f32(4))
def _io_callback(x):
    from jax.experimental import io_callback

    y = io_callback(_host_double, jax.ShapeDtypeStruct((4,), jnp.float32), x, ordered=True)
    return y + 1.0


@program("pure_callback", _f32(4))
def _pure_callback(x):
    return jax.pure_callback(_host_double, jax.ShapeDtypeStruct((4,), jnp.float32), x) * 3.0


@program("composite", _f32(4))
def _composite(x):
    double = lax.composite(lambda v, scale: v * scale, name="my.scaled", version=1)
    return double(x, scale=np.float32(2.0))


@program("optimization_barrier", _f32(4))
def _opt_barrier(x):
    a, b = lax.optimization_barrier((x * 2, x + 1))
    return a + b


@program(
    "dtypes_mixed",
    jax.ShapeDtypeStruct((4,), jnp.float16),
    jax.ShapeDtypeStruct((4,), jnp.uint8),
    jax.ShapeDtypeStruct((4,), jnp.bool_),
)
def _dtypes_mixed(h, u, b):
    return (
        h * 2,
        u + 1,
        ~b,
        h.astype(jnp.float8_e4m3fn),
        u.astype(jnp.int4) if hasattr(jnp, "int4") else u,
    )


@program("big_program_resnet_block", _f32(2, 8, 8, 4), _f32(3, 3, 4, 4), _f32(4), _f32(4))
def _resnet_block(x, w, scale, bias):
    def f(x, w, scale, bias):
        y = lax.conv_general_dilated(
            x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )
        m = y.mean((0, 1, 2))
        v = y.var((0, 1, 2))
        y = (y - m) * lax.rsqrt(v + 1e-5) * scale + bias
        return jnp.sum(jax.nn.relu(y + x) ** 2)

    return jax.value_and_grad(f, argnums=(1, 2, 3))(x, w, scale, bias)


# ---------------------------------------------------------------- multi-device: shardings & shard_map
def _mesh(
    shape: tuple[int, ...], names: tuple[str, ...], explicit: bool = False
) -> jax.sharding.Mesh:
    kind = jax.sharding.AxisType.Explicit if explicit else jax.sharding.AxisType.Auto
    return jax.make_mesh(shape, names, axis_types=(kind,) * len(names))


def _sharded(
    shape: tuple[int, ...], spec: Any, mesh_shape=(2, 2), names=("x", "y"), explicit: bool = False
) -> Callable[[], jax.ShapeDtypeStruct]:
    def make() -> jax.ShapeDtypeStruct:
        mesh = _mesh(mesh_shape, names, explicit)
        return jax.ShapeDtypeStruct(
            shape, jnp.float32, sharding=jax.sharding.NamedSharding(mesh, spec)
        )

    return make


def _multi(
    name: str, fn: Callable[..., Any], *makers: Callable[[], Any], **jit_kwargs: Any
) -> None:
    PROGRAMS.append(
        Program(name, fn, lambda: tuple(m() for m in makers), dict(jit_kwargs), devices=4)
    )


P = jax.sharding.PartitionSpec


def _constraint_matmul(a, b):
    mesh = _mesh((2, 2), ("x", "y"))
    c = a @ b
    return lax.with_sharding_constraint(c, jax.sharding.NamedSharding(mesh, P(None, "y")))


_multi(
    "sharded_matmul_constraint",
    _constraint_matmul,
    _sharded((8, 8), P("x", None)),
    _sharded((8, 8), P(None, "y")),
    donate_argnums=(0,),
)


def _sharded_out(a):
    return jnp.sin(a) * 2.0, a.sum(0)


def _sharded_out_kwargs() -> dict[str, Any]:
    mesh = _mesh((4,), ("d",))
    return {
        "out_shardings": (
            jax.sharding.NamedSharding(mesh, P("d")),
            jax.sharding.NamedSharding(mesh, P()),
        ),
        "donate_argnums": (0,),
    }


PROGRAMS.append(
    Program(
        "sharded_out_shardings",
        _sharded_out,
        lambda: (_sharded((16, 4), P("d"), (4,), ("d",))(),),
        devices=4,
        make_jit_kwargs=_sharded_out_kwargs,
    )
)


def _explicit_reshard(a):
    mesh = _mesh((4,), ("x",), explicit=True)
    return jax.sharding.reshard(a * 2.0, jax.sharding.NamedSharding(mesh, P(None, "x")))


_multi(
    "explicit_reshard",
    _explicit_reshard,
    _sharded((8, 8), P("x", None), (4,), ("x",), explicit=True),
)


def _open_constraint(a):
    mesh = _mesh((2, 2), ("x", "y"))
    spec = P("x", P.UNCONSTRAINED)
    return lax.with_sharding_constraint(jnp.exp(a), jax.sharding.NamedSharding(mesh, spec))


_multi("unconstrained_dim_constraint", _open_constraint, _sharded((8, 8), P("x", "y")))


def _shmap_collectives(x):
    def body(b):
        s = lax.psum(b, "x")
        m = lax.pmax(b, "x")
        g = lax.all_gather(b, "x", tiled=True)
        p = lax.ppermute(b, "x", [(i, (i + 1) % 4) for i in range(4)])
        i = lax.axis_index("x")
        return s + m + p + i.astype(jnp.float32), g

    mesh = _mesh((4,), ("x",))
    return jax.shard_map(
        body, mesh=mesh, in_specs=P("x"), out_specs=(P("x"), P("x")), check_vma=False
    )(x)


_multi("shard_map_collectives", _shmap_collectives, lambda: _f32(16, 4))


def _shmap_all_to_all(x):
    def body(b):
        t = lax.all_to_all(b, "x", 0, 1, tiled=True)
        r = lax.psum_scatter(b, "x", scatter_dimension=0, tiled=True)
        return t, r

    mesh = _mesh((4,), ("x",))
    return jax.shard_map(
        body, mesh=mesh, in_specs=P("x"), out_specs=(P("x"), P("x")), check_vma=False
    )(x)


_multi("shard_map_all_to_all_psum_scatter", _shmap_all_to_all, lambda: _f32(16, 16))


def _shmap_2d(x, w):
    def body(xb, wb):
        y = xb @ wb
        return lax.psum(y, "y")

    mesh = _mesh((2, 2), ("x", "y"))
    return jax.shard_map(
        body, mesh=mesh, in_specs=(P("x", "y"), P("y", None)), out_specs=P("x", None)
    )(x, w)


_multi(
    "shard_map_2d_mesh_matmul",
    _shmap_2d,
    lambda: _f32(8, 8),
    lambda: _f32(8, 4),
    donate_argnums=(0,),
)


def _shmap_partial_auto(x):
    def body(b):
        return lax.psum(jnp.sin(b), "x")

    mesh = _mesh((2, 2), ("x", "y"))
    return jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P(), axis_names={"x"})(x)


_multi("shard_map_partial_manual", _shmap_partial_auto, _sharded((8, 4), P("x", "y")))


def _shmap_scan_collective(x):
    def body(b):
        def step(c, _):
            return lax.ppermute(c, "x", [(i, (i + 1) % 4) for i in range(4)]) + 1.0, lax.axis_index(
                "x"
            )

        return lax.scan(step, b, None, length=3)

    mesh = _mesh((4,), ("x",))
    return jax.shard_map(
        body, mesh=mesh, in_specs=P("x"), out_specs=(P("x"), P("x")), check_vma=False
    )(x)


_multi("shard_map_scan_ppermute", _shmap_scan_collective, lambda: _f32(8))


def _shmap_dp_step(w, x):
    mesh = _mesh((4,), ("x",))

    def body(w, x):
        g = jax.grad(lambda w: jnp.mean(jnp.tanh(x @ w) ** 2))(w)
        return w - 0.1 * lax.psum(g, "x")

    return jax.shard_map(body, mesh=mesh, in_specs=(P(), P("x")), out_specs=P())(w, x)


_multi(
    "shard_map_dp_step",
    _shmap_dp_step,
    _sharded((8, 8), P(), (4,), ("x",)),
    _sharded((16, 8), P("x"), (4,), ("x",)),
    donate_argnums=(0,),
)


def _sharded_train_step(w, x):
    def loss(w):
        return jnp.mean(jnp.tanh(x @ w) ** 2)

    return w - 0.1 * jax.grad(loss)(w)


_multi(
    "sharded_train_step",
    _sharded_train_step,
    _sharded((8, 8), P(None, "y")),
    _sharded((16, 8), P("x", None)),
    donate_argnums=(0,),
)
