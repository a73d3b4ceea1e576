"""Real-model benchmark: the plan's per-donor prediction against what XLA's executable does.

Eighteen steps written as Flax (NNX and linen), Equinox and optax users write them (an MLP
classifier with adamw, natural and reordered outputs; a 2-layer decoder LM with
``clip_by_global_norm`` + adamw; gradient accumulation with ``scan``; an EMA of the params;
KV-cache decoding), each flat and nested (the step is an inner ``jax.jit`` /
``eqx.filter_jit`` / ``nnx.jit`` called from the outer jit: one ``func.call`` in the module).

For each, two pairings (JAX's greedy one and the plan's, with the unpaired donors keeping JAX's
pair as the drop-in does) compiled twice (XLA:CPU's default copy insertion and
``xla_cpu_copy_insertion_use_region_analysis=True``). Per donated leaf the rules predict
copy-free / copied / not donated for that pairing under that compile's ordering
(:func:`jax_use_donated.analysis.ordering_for`), and :mod:`jax_use_donated.dropin.xla_truth` reads
what the executable does; a disagreement is a rule to fix.

    python benchmarks/real_models.py            # every variant, a few minutes on CPU
    python benchmarks/real_models.py --quick    # three variants
    python benchmarks/real_models.py --only nnx_mlp,ema_train --verbose
    python benchmarks/real_models.py --catalogue   # also benchmarks/catalogue.py's programs

Writes ``benchmarks/results/real_models.md`` (not with ``--only`` / ``--quick``).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import equinox as eqx
import flax.linen as nn
import jax
import jax.numpy as jnp
import optax
from flax import nnx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import jax_use_donated as jud
from jax_use_donated import analysis
from jax_use_donated.adapters.jaxlib_ir import arg_donations, function_model, module_function
from jax_use_donated.analysis.errors import ALIASING_OUTPUT
from jax_use_donated.analysis.liveness import Liveness
from jax_use_donated.analysis.plan import PairChecker
from jax_use_donated.analysis.xla_fallback import xla_fallback
from jax_use_donated.dropin import jax_internals, records
from jax_use_donated.dropin.options import PlannerOptions
from jax_use_donated.dropin.xla_truth import Outcome, read_truth


def _region_option() -> dict[str, Any]:
    """The backend's region-analysis copy-insertion option (``benchmarks/gpu_real_models.sh``
    runs this on a GPU)."""
    gpu = jax.default_backend() in ("gpu", "cuda", "rocm")
    return {f"xla_{'gpu' if gpu else 'cpu'}_copy_insertion_use_region_analysis": True}


COMPILES: dict[str, dict[str, Any]] = {"default": {}, "region": _region_option()}

B, D, H, C = 16, 32, 64, 10          # batch, input, hidden, classes
V, E, T, L = 64, 32, 16, 2           # vocab, embedding, sequence, layers
MICRO = 4                            # micro-batches of the accumulation step
BIG_LAYERS, BIG_EMBED, BIG_VOCAB, BIG_HEADS = 6, 128, 512, 4    # the larger transformer
BIG_TOKENS = (8, 64)                 # its batch and sequence


def _ordering(options: dict[str, Any]) -> analysis.Ordering:
    """The ordering the rules use for a compile with these options (``ordering_for`` when
    the core has it, else the one ordering the core had)."""
    ordering_for = getattr(analysis, "ordering_for", None)
    if ordering_for is None:
        return "dataflow"
    return ordering_for(jax.default_backend(), options)


# --------------------------------------------------------------------------------- models

def _key(i: int = 0) -> jax.Array:
    return jax.random.PRNGKey(i)


def _xy(i: int = 1) -> tuple[jax.Array, jax.Array]:
    k1, k2 = jax.random.split(_key(i))
    return jax.random.normal(k1, (B, D)), jax.random.randint(k2, (B,), 0, C)


def _tokens(i: int = 2) -> jax.Array:
    return jax.random.randint(_key(i), (B // 4, T), 0, V)


class LinenMLP(nn.Module):
    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        x = nn.relu(nn.Dense(H)(x))
        x = nn.relu(nn.Dense(H)(x))
        return nn.Dense(C)(x)


class NnxMLP(nnx.Module):
    def __init__(self, rngs: nnx.Rngs) -> None:
        self.l1 = nnx.Linear(D, H, rngs=rngs)
        self.l2 = nnx.Linear(H, H, rngs=rngs)
        self.out = nnx.Linear(H, C, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.out(jax.nn.relu(self.l2(jax.nn.relu(self.l1(x)))))


class LinenBlock(nn.Module):
    embed: int = E
    heads: int = 2

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        mask = nn.make_causal_mask(jnp.ones(x.shape[:2]))
        x = x + nn.SelfAttention(num_heads=self.heads, qkv_features=self.embed)(
            nn.LayerNorm()(x), mask=mask)
        h = nn.Dense(2 * self.embed)(nn.LayerNorm()(x))
        return x + nn.Dense(self.embed)(nn.gelu(h))


class LinenLM(nn.Module):
    layers: int = L
    embed: int = E
    vocab: int = V
    heads: int = 2

    @nn.compact
    def __call__(self, tokens: jax.Array) -> jax.Array:
        x = nn.Embed(self.vocab, self.embed)(tokens)
        for _ in range(self.layers):
            x = LinenBlock(self.embed, self.heads)(x)
        return nn.Dense(self.vocab)(nn.LayerNorm()(x))


class NnxBlock(nnx.Module):
    def __init__(self, rngs: nnx.Rngs) -> None:
        self.ln1 = nnx.LayerNorm(E, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(2, E, decode=False, rngs=rngs)
        self.ln2 = nnx.LayerNorm(E, rngs=rngs)
        self.up = nnx.Linear(E, 2 * E, rngs=rngs)
        self.down = nnx.Linear(2 * E, E, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        mask = nnx.make_causal_mask(jnp.ones(x.shape[:2]))
        x = x + self.attn(self.ln1(x), mask=mask)
        return x + self.down(jax.nn.gelu(self.up(self.ln2(x))))


class NnxLM(nnx.Module):
    def __init__(self, rngs: nnx.Rngs) -> None:
        self.embed = nnx.Embed(V, E, rngs=rngs)
        self.blocks = nnx.List([NnxBlock(rngs) for _ in range(L)])
        self.ln = nnx.LayerNorm(E, rngs=rngs)
        self.head = nnx.Linear(E, V, rngs=rngs)

    def __call__(self, tokens: jax.Array) -> jax.Array:
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln(x))


def _xent(logits: Any, y: jax.Array) -> jax.Array:
    return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()


def _lm_loss(logits: Any, tokens: jax.Array) -> jax.Array:
    return _xent(logits[:, :-1].reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))


# ------------------------------------------------------------------------------- variants

@dataclass(eq=False)
class Variant:
    """A step as its library's users write it: ``make(nested)`` returns the jitted step (the
    library's own jit; nested: its body calls the step as an inner jit) and its arguments."""

    name: str
    library: str
    training: bool
    make: Callable[[bool], tuple[Any, tuple[Any, ...]]]
    note: str = ""


def _jax_jit(step: Callable[..., Any], nested: bool, **kw: Any) -> Any:
    if not nested:
        return jax.jit(step, **kw)
    inner = jax.jit(step)
    return jax.jit(lambda *a: inner(*a), **kw)


def _linen_mlp(reordered: bool) -> Callable[[bool], tuple[Any, tuple[Any, ...]]]:
    def make(nested: bool) -> tuple[Any, tuple[Any, ...]]:
        model, tx = LinenMLP(), optax.adamw(1e-3)
        x, y = _xy()
        params = model.init(_key(), x)
        opt_state = tx.init(params)

        def train_step(params: Any, opt_state: Any, x: jax.Array, y: jax.Array) -> Any:
            def loss_fn(p: Any) -> jax.Array:
                return _xent(model.apply(p, x), y)

            loss, grads = jax.value_and_grad(loss_fn)(params)
            updates, opt_state = tx.update(grads, opt_state, params)
            params = optax.apply_updates(params, updates)
            if reordered:
                return loss, opt_state, params
            return params, opt_state, loss

        return _jax_jit(train_step, nested, donate_argnums=(0, 1)), (params, opt_state, x, y)
    return make


def _nnx_mlp(make_nested: bool) -> tuple[Any, tuple[Any, ...]]:
    model = NnxMLP(nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adamw(1e-3), wrt=nnx.Param)
    x, y = _xy()

    def train_step(model: NnxMLP, optimizer: nnx.Optimizer, x: jax.Array,
                   y: jax.Array) -> jax.Array:
        def loss_fn(m: NnxMLP) -> jax.Array:
            return _xent(m(x), y)

        loss, grads = nnx.value_and_grad(loss_fn)(model)
        optimizer.update(model, grads)
        return loss

    if make_nested:
        inner = nnx.jit(train_step)
        step = nnx.jit(lambda m, o, x, y: inner(m, o, x, y), donate_argnums=(0, 1))
    else:
        step = nnx.jit(train_step, donate_argnums=(0, 1))
    return step, (model, optimizer, x, y)


def _nnx_functional(reordered: bool) -> Callable[[bool], tuple[Any, tuple[Any, ...]]]:
    """``nnx.split`` once, then a functional step in ``jax.jit`` over the state pytrees."""
    def make(nested: bool) -> tuple[Any, tuple[Any, ...]]:
        graphdef, params = nnx.split(NnxMLP(nnx.Rngs(0)), nnx.Param)
        tx = optax.adamw(1e-3)
        opt_state = tx.init(params)
        x, y = _xy()

        def train_step(params: Any, opt_state: Any, x: jax.Array, y: jax.Array) -> Any:
            def loss_fn(p: Any) -> jax.Array:
                return _xent(nnx.merge(graphdef, p)(x), y)

            loss, grads = jax.value_and_grad(loss_fn)(params)
            updates, opt_state = tx.update(grads, opt_state, params)
            params = optax.apply_updates(params, updates)
            return (opt_state, params, loss) if reordered else (params, opt_state, loss)

        return _jax_jit(train_step, nested, donate_argnums=(0, 1)), (params, opt_state, x, y)
    return make


def _eqx_mlp(reordered: bool) -> Callable[[bool], tuple[Any, tuple[Any, ...]]]:
    def make(nested: bool) -> tuple[Any, tuple[Any, ...]]:
        model = eqx.nn.MLP(D, C, H, 2, key=_key())
        tx = optax.adamw(1e-3)
        opt_state = tx.init(eqx.filter(model, eqx.is_array))
        x, y = _xy()

        def train_step(model: eqx.nn.MLP, opt_state: Any, x: jax.Array, y: jax.Array) -> Any:
            def loss_fn(m: eqx.nn.MLP) -> jax.Array:
                return _xent(jax.vmap(m)(x), y)

            loss, grads = eqx.filter_value_and_grad(loss_fn)(model)
            updates, opt_state = tx.update(grads, opt_state, eqx.filter(model, eqx.is_array))
            model = eqx.apply_updates(model, updates)
            return (opt_state, model, loss) if reordered else (model, opt_state, loss)

        if nested:
            inner = eqx.filter_jit(train_step)
            step = eqx.filter_jit(lambda m, o, x, y: inner(m, o, x, y),
                                  donate="all-except-first")
        else:
            step = eqx.filter_jit(train_step, donate="all-except-first")
        return step, (model, opt_state, x, y)
    return make


def _lm_tx() -> optax.GradientTransformation:
    return optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(1e-3))


def _linen_lm(reordered: bool, big: bool = False
              ) -> Callable[[bool], tuple[Any, tuple[Any, ...]]]:
    def make(nested: bool) -> tuple[Any, tuple[Any, ...]]:
        model = (LinenLM(layers=BIG_LAYERS, embed=BIG_EMBED, vocab=BIG_VOCAB, heads=BIG_HEADS)
                 if big else LinenLM())
        tx = _lm_tx()
        tokens = (jax.random.randint(_key(2), BIG_TOKENS, 0, BIG_VOCAB) if big
                  else _tokens())
        params = model.init(_key(), tokens)
        opt_state = tx.init(params)

        def train_step(params: Any, opt_state: Any, tokens: jax.Array) -> Any:
            loss, grads = jax.value_and_grad(
                lambda p: _lm_loss(model.apply(p, tokens), tokens))(params)
            updates, opt_state = tx.update(grads, opt_state, params)
            params = optax.apply_updates(params, updates)
            return (loss, opt_state, params) if reordered else (params, opt_state, loss)

        return _jax_jit(train_step, nested, donate_argnums=(0, 1)), (params, opt_state, tokens)
    return make


def _nnx_lm(nested: bool) -> tuple[Any, tuple[Any, ...]]:
    model = NnxLM(nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, _lm_tx(), wrt=nnx.Param)
    tokens = _tokens()

    def train_step(model: NnxLM, optimizer: nnx.Optimizer, tokens: jax.Array) -> jax.Array:
        loss, grads = nnx.value_and_grad(lambda m: _lm_loss(m(tokens), tokens))(model)
        optimizer.update(model, grads)
        return loss

    if nested:
        inner = nnx.jit(train_step)
        step = nnx.jit(lambda m, o, t: inner(m, o, t), donate_argnums=(0, 1))
    else:
        step = nnx.jit(train_step, donate_argnums=(0, 1))
    return step, (model, optimizer, tokens)


def _grad_accum(nested: bool) -> tuple[Any, tuple[Any, ...]]:
    """Micro-batch gradients summed by ``scan`` into a running accumulator (optax.MultiSteps
    style: the accumulator lives across calls and is donated with the params and state)."""
    model, tx = LinenMLP(), optax.adamw(1e-3)
    x, y = _xy()
    params = model.init(_key(), x)
    opt_state = tx.init(params)
    acc = jax.tree.map(jnp.zeros_like, params)
    xs, ys = x.reshape(MICRO, B // MICRO, D), y.reshape(MICRO, B // MICRO)

    def train_step(params: Any, opt_state: Any, acc: Any, xs: jax.Array,
                   ys: jax.Array) -> Any:
        def micro(acc: Any, batch: tuple[jax.Array, jax.Array]) -> tuple[Any, jax.Array]:
            bx, by = batch
            loss, grads = jax.value_and_grad(lambda p: _xent(model.apply(p, bx), by))(params)
            return jax.tree.map(jnp.add, acc, grads), loss

        acc, losses = jax.lax.scan(micro, acc, (xs, ys))
        grads = jax.tree.map(lambda g: g / MICRO, acc)
        updates, opt_state = tx.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
        return params, opt_state, acc, losses.mean()

    return (_jax_jit(train_step, nested, donate_argnums=(0, 1, 2)),
            (params, opt_state, acc, xs, ys))


def _ema_train(nested: bool) -> tuple[Any, tuple[Any, ...]]:
    model, tx = LinenMLP(), optax.adamw(1e-3)
    x, y = _xy()
    params = model.init(_key(), x)
    opt_state = tx.init(params)
    ema = jax.tree.map(jnp.copy, params)

    def train_step(params: Any, ema: Any, opt_state: Any, x: jax.Array, y: jax.Array) -> Any:
        loss, grads = jax.value_and_grad(lambda p: _xent(model.apply(p, x), y))(params)
        updates, opt_state = tx.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
        ema = optax.incremental_update(params, ema, step_size=0.01)
        return params, ema, opt_state, loss

    return (_jax_jit(train_step, nested, donate_argnums=(0, 1, 2)),
            (params, ema, opt_state, x, y))


def _kv_params() -> dict[str, jax.Array]:
    ks = jax.random.split(_key(3), 4)
    return {"wq": jax.random.normal(ks[0], (E, E)) / 8, "wk": jax.random.normal(ks[1], (E, E)) / 8,
            "wv": jax.random.normal(ks[2], (E, E)) / 8, "wo": jax.random.normal(ks[3], (E, V)) / 8}


def _kv_jax(reordered: bool, committed: bool) -> Callable[[bool], tuple[Any, tuple[Any, ...]]]:
    """One decoding step of single-head attention over a preallocated KV cache (written with
    ``dynamic_update_slice`` at the position), as hand-written decoders do."""
    def make(nested: bool) -> tuple[Any, tuple[Any, ...]]:
        params = _kv_params()
        k_cache = jnp.zeros((B // 4, T, E))
        v_cache = jnp.zeros((B // 4, T, E))
        x = jax.random.normal(_key(4), (B // 4, E))
        pos = jnp.int32(3)
        if committed:
            dev = jax.devices()[0]
            k_cache, v_cache, x = (jax.device_put(a, dev) for a in (k_cache, v_cache, x))

        def decode(params: Any, k_cache: jax.Array, v_cache: jax.Array, x: jax.Array,
                   pos: jax.Array) -> Any:
            q, k, v = x @ params["wq"], x @ params["wk"], x @ params["wv"]
            k_cache = jax.lax.dynamic_update_slice(k_cache, k[:, None], (0, pos, 0))
            v_cache = jax.lax.dynamic_update_slice(v_cache, v[:, None], (0, pos, 0))
            scores = jnp.einsum("be,bte->bt", q, k_cache) / jnp.sqrt(E)
            scores = jnp.where(jnp.arange(T)[None] <= pos, scores, -1e9)
            out = jnp.einsum("bt,bte->be", jax.nn.softmax(scores), v_cache)
            logits = out @ params["wo"]
            return (v_cache, k_cache, logits) if reordered else (logits, k_cache, v_cache)

        return (_jax_jit(decode, nested, donate_argnums=(1, 2)),
                (params, k_cache, v_cache, x, pos))
    return make


class LinenDecoder(nn.Module):
    @nn.compact
    def __call__(self, tokens: jax.Array, decode: bool = False) -> jax.Array:
        x = nn.Embed(V, E)(tokens)
        x = x + nn.SelfAttention(num_heads=2, qkv_features=E, decode=decode)(x)
        return nn.Dense(V)(x)


def _kv_linen(nested: bool) -> tuple[Any, tuple[Any, ...]]:
    model = LinenDecoder()
    tokens = jnp.zeros((B // 4, T), jnp.int32)
    variables = model.init(_key(), tokens, decode=True)
    params, cache = variables["params"], variables["cache"]
    tok = jnp.ones((B // 4, 1), jnp.int32)

    def decode(params: Any, cache: Any, tok: jax.Array) -> Any:
        logits, updated = model.apply({"params": params, "cache": cache}, tok, decode=True,
                                      mutable=["cache"])
        return logits, updated["cache"]

    return _jax_jit(decode, nested, donate_argnums=(1,)), (params, cache, tok)


def _kv_nnx(nested: bool) -> tuple[Any, tuple[Any, ...]]:
    attn = nnx.MultiHeadAttention(2, E, decode=True, rngs=nnx.Rngs(0))
    attn.init_cache((B // 4, T, E))
    x = jax.random.normal(_key(5), (B // 4, 1, E))

    def decode(attn: nnx.MultiHeadAttention, x: jax.Array) -> jax.Array:
        return attn(x)

    if nested:
        inner = nnx.jit(decode)
        step = nnx.jit(lambda a, x: inner(a, x), donate_argnums=(0,))
    else:
        step = nnx.jit(decode, donate_argnums=(0,))
    return step, (attn, x)


def _ema_only(nested: bool) -> tuple[Any, tuple[Any, ...]]:
    params = LinenMLP().init(_key(), _xy()[0])
    ema = jax.tree.map(jnp.copy, params)

    def update(ema: Any, params: Any) -> Any:
        return optax.incremental_update(params, ema, step_size=0.01)

    return _jax_jit(update, nested, donate_argnums=(0,)), (ema, params)


def _adamw_apply(nested: bool) -> tuple[Any, tuple[Any, ...]]:
    """The optimizer half alone: gradients given, params, state and gradients donated."""
    params = LinenMLP().init(_key(), _xy()[0])
    tx = optax.adamw(1e-3)
    opt_state = tx.init(params)
    grads = jax.tree.map(lambda p: p * 0.01, params)

    def apply(params: Any, opt_state: Any, grads: Any) -> Any:
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state

    return _jax_jit(apply, nested, donate_argnums=(0, 1, 2)), (params, opt_state, grads)


DEEP_LAYERS = 20                     # the hand-written Adam step with reordered outputs


def _deep_adam(nested: bool) -> tuple[Any, tuple[Any, ...]]:
    """:mod:`benchmarks.jax_modules`' Adam MLP step returning ``(v, m, params, loss)``: JAX
    pairs each parameter with an optimizer-state result; the region ordering's re-matching
    does not converge in :data:`~jax_use_donated.analysis.plan.EXACT_ROUNDS` and the plan is
    completed greedily."""
    from benchmarks.jax_modules import BATCH, WIDTH, _step

    keys = jax.random.split(_key(3), 2 * DEEP_LAYERS + 2)
    params = [(0.3 * jax.random.normal(keys[2 * i], (WIDTH, WIDTH)),
               0.1 * jax.random.normal(keys[2 * i + 1], (WIDTH,))) for i in range(DEEP_LAYERS)]
    m = jax.tree.map(lambda a: 0.01 * a, params)
    v = jax.tree.map(lambda a: 0.001 * a * a, params)
    x = jax.random.normal(keys[-2], (BATCH, WIDTH))
    y = jax.random.normal(keys[-1], (BATCH, WIDTH))
    return _jax_jit(_step, nested, donate_argnums=(0, 1, 2)), (params, m, v, x, y)


VARIANTS: list[Variant] = [
    Variant("linen_mlp", "linen", True, _linen_mlp(False)),
    Variant("linen_mlp_reordered", "linen", True, _linen_mlp(True), "returns loss, state, params"),
    Variant("nnx_mlp", "nnx", True, _nnx_mlp, "nnx.jit, nnx.Optimizer"),
    Variant("nnx_functional", "nnx", True, _nnx_functional(False), "nnx.split + jax.jit"),
    Variant("nnx_functional_reordered", "nnx", True, _nnx_functional(True),
            "returns state, params, loss"),
    Variant("eqx_mlp", "equinox", True, _eqx_mlp(False), "eqx.filter_jit"),
    Variant("eqx_mlp_reordered", "equinox", True, _eqx_mlp(True), "returns state, model, loss"),
    Variant("linen_lm", "linen", True, _linen_lm(False), "2-layer decoder, clip + adamw"),
    Variant("linen_lm_reordered", "linen", True, _linen_lm(True), "returns loss, state, params"),
    Variant("nnx_lm", "nnx", True, _nnx_lm, "2-layer decoder, clip + adamw, nnx.jit"),
    Variant("linen_transformer", "linen", True, _linen_lm(False, big=True),
            "6-layer decoder, width 128, vocab 512, 8x64 tokens, clip + adamw"),
    Variant("grad_accum", "linen", True, _grad_accum, "scan over 4 micro-batches"),
    Variant("ema_train", "linen", True, _ema_train, "adamw + EMA of params"),
    Variant("kv_decode", "jax", False, _kv_jax(False, False), "dynamic_update_slice cache"),
    Variant("kv_decode_reordered", "jax", False, _kv_jax(True, False), "returns caches first"),
    Variant("kv_decode_committed", "jax", False, _kv_jax(False, True), "device_put arguments"),
    Variant("kv_linen", "linen", False, _kv_linen, "SelfAttention(decode=True) cache"),
    Variant("kv_nnx", "nnx", False, _kv_nnx, "MultiHeadAttention(decode=True), nnx.jit"),
    Variant("ema_only", "optax", False, _ema_only, "incremental_update"),
    Variant("adam_deep_reordered", "jax", True, _deep_adam,
            f"{DEEP_LAYERS}-layer MLP, hand-written Adam, returns v, m, params"),
]
assert len(VARIANTS) == 20


def catalogue_variants(n: int = 32) -> list[Variant]:
    """The single-device programs of :mod:`benchmarks.catalogue` as variants (``n``: the size
    of their square operands)."""
    from benchmarks.catalogue import SINGLE, Program

    def make(program: Program) -> Callable[[bool], tuple[Any, tuple[Any, ...]]]:
        return lambda nested: (_jax_jit(program.fun, nested,
                                        donate_argnums=program.donate_argnums),
                               tuple(program.args(n)))

    return [Variant(f"catalogue/{p.name}", "jax", False, make(p), p.description)
            for p in SINGLE]


# ---------------------------------------------------------------------------- measurement

def _lower(step: Any, args: tuple[Any, ...]) -> Any:
    """``step.lower(*args)`` as JAX's ``Lowered`` (Equinox wraps it: ``.lowered``)."""
    lowered = step.lower(*args)
    return getattr(lowered, "lowered", lowered)


@contextmanager
def _forced(pairs: dict[int, int]) -> Iterator[None]:
    """Every jit lowering inside gets exactly these ``@main`` alias pairs (and no other
    donation): the switch's benchmark mode."""
    text = PlannerOptions(forced_pairs=tuple(sorted(pairs.items()))).encode()
    with jax_internals.planner_state()(text):
        yield


@dataclass
class Cell:
    """One pairing compiled one way: the rules' prediction and the executable's outcome per
    donor (``@main`` argument index)."""

    pairs: dict[int, int]
    predicted: dict[int, Outcome]
    measured: dict[int, Outcome]
    copies: int
    """`` copy(`` in the executable's text minus those of the compile without aliasing."""
    evidence: dict[int, str] = field(default_factory=dict)
    footprint: int = 0
    """Bytes: arguments + outputs - aliased + temporaries (``memory_analysis()``)."""
    compile_s: float = 0.0
    """Process CPU seconds of XLA's compile."""
    numbers_equal: bool = True
    """The executable's outputs equal those of the compile without aliasing."""

    @property
    def disagreements(self) -> list[int]:
        return [d for d in self.predicted if self.predicted[d] is not self.measured.get(d)]

    def count(self, outcome: Outcome, which: str = "measured") -> int:
        table = self.measured if which == "measured" else self.predicted
        return sum(o is outcome for o in table.values())


@dataclass
class Row:
    variant: Variant
    nested: bool
    donors: int
    calls: int
    cells: dict[tuple[str, str], Cell]
    """(pairing ``jax`` / ``ours``, compile ``default`` / ``region``) -> cell."""
    names: dict[int, str]
    seconds: float


def _predict(fn: analysis.FunctionModel, ordering: analysis.Ordering,
             pairs: dict[int, int]) -> dict[int, Outcome]:
    """Per donor what the rules say XLA does with ``pairs``: copy-free where the pair is safe
    under ``ordering``, copied where it is not, not donated where it has none."""
    predict_pairing = getattr(analysis, "predict_pairing", None)
    if predict_pairing is not None:
        return {d: Outcome(o) for d, o in predict_pairing(fn, ordering, pairs).items()}
    checker = PairChecker(fn, Liveness(fn), ordering)
    return {a.index: (Outcome.NOT_DONATED if a.index not in pairs
                      else Outcome.COPY_FREE if checker.is_safe(a.index, pairs[a.index])
                      else Outcome.COPIED)
            for a in fn.donors}


def _inputs(compiled: Any, args: tuple[Any, ...]) -> list[jax.Array]:
    """Fresh copies of the arguments' array leaves in the executable's own parameter order:
    each parameter takes the next unused leaf of its shape and dtype (every compile of a row
    gets the same inputs, so their outputs must agree whatever the wrapper's flattening)."""
    pool: dict[tuple[Any, ...], list[jax.Array]] = {}
    for leaf in jax.tree.leaves(args):
        if isinstance(leaf, jax.Array):
            pool.setdefault((leaf.shape, leaf.dtype), []).append(leaf)
    taken: dict[tuple[Any, ...], int] = {}
    out: list[jax.Array] = []
    for aval in compiled._executable.in_avals:
        key = (tuple(aval.shape), aval.dtype)
        i = taken.get(key, 0)
        taken[key] = i + 1
        leaves = pool.get(key, [])
        out.append(jnp.copy(leaves[i % len(leaves)]) if leaves
                   else jnp.zeros(aval.shape, aval.dtype))
    return out


def _run(compiled: Any, args: tuple[Any, ...]) -> list[Any]:
    """The executable's flat outputs on :func:`_inputs` (as numpy arrays)."""
    import numpy as np

    outs = compiled._executable.call(*_inputs(compiled, args))
    return [np.asarray(jax.random.key_data(o) if jnp.issubdtype(
        o.dtype, jax.dtypes.prng_key) else o) for o in outs]


def _same(a: list[Any], b: list[Any]) -> bool:
    import numpy as np

    return len(a) == len(b) and all(
        x.shape == y.shape and (np.allclose(x, y, rtol=1e-5, atol=1e-6, equal_nan=True)
                                if x.dtype.kind in "fc" else np.array_equal(x, y))
        for x, y in zip(a, b, strict=True))


def _footprint(compiled: Any) -> int:
    m = compiled.memory_analysis()
    if m is None:
        return 0
    return int(m.argument_size_in_bytes + m.output_size_in_bytes - m.alias_size_in_bytes
               + m.temp_size_in_bytes)


def _measure(step: Any, args: tuple[Any, ...], pairs: dict[int, int], donors: list[int],
             options: dict[str, Any], base: int, reference: list[Any]) -> Cell:
    """Compile ``step`` with exactly ``pairs`` aliased and measure it (``predicted`` is left
    empty for the caller)."""
    with _forced(pairs):
        lowered = _lower(step, args)
        t0 = time.process_time()
        compiled = lowered.compile(compiler_options=options or None)
        compile_s = time.process_time() - t0
    text = compiled.as_text()
    truth = read_truth(text, donors)
    assert truth.aliases == pairs, (truth.aliases, pairs)
    evidence = {p: "; ".join(f"{c.kind} %{c.instruction.name}" for c in t.copies)
                for p, t in truth.donors.items() if t.copies}
    return Cell(pairs, {}, {p: t.outcome for p, t in truth.donors.items() if p in donors},
                text.count(" copy(") - base, evidence, _footprint(compiled), compile_s,
                _same(_run(compiled, args), reference))


def run_variant(variant: Variant, nested: bool) -> Row:
    t0 = time.perf_counter()
    step, args = variant.make(nested)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = _lower(step, args)
        main = module_function(plain.compiler_ir())
        assert main is not None
        jax_pairs = {d: k for d, (attr, k) in arg_donations(main).items()
                     if attr == ALIASING_OUTPUT and isinstance(k, int)}
        with jud.enabled(warn=False):
            record = records.record_of(_lower(step, args).compiler_ir())
        assert record is not None, variant.name
        fn = record.function
        donors = [a.index for a in fn.donors]
        calls = sum(op.name == "func.call" for op in function_model(main, inline=False).ops)
        cells: dict[tuple[str, str], Cell] = {}
        reference: list[Any] = []
        for compile_name, options in COMPILES.items():
            ordering = _ordering(options)
            with _forced({}):
                unaliased = _lower(step, args).compile(compiler_options=options or None)
            base = unaliased.as_text().count(" copy(")
            if not reference:
                reference = _run(unaliased, args)
            plan = analysis.plan_donation(fn, ordering)
            fallback = xla_fallback(plan, jax_pairs, set())
            ours = fallback.all_pairs(plan)
            for pairing, pairs in (("jax", jax_pairs), ("ours", ours)):
                if pairing == "ours" and pairs == jax_pairs:
                    # The same module compiled with the same options: JAX's executable.
                    cells[pairing, compile_name] = cells["jax", compile_name]
                    continue
                cell = _measure(step, args, pairs, donors, options, base, reference)
                cell.predicted = _predict(fn, ordering, pairs)
                cells[pairing, compile_name] = cell
    names = {a.index: a.display_name for a in fn.donors}
    return Row(variant, nested, len(donors), calls, cells, names, time.perf_counter() - t0)


# -------------------------------------------------------------------------------- report

KEYS = [("jax", "default"), ("ours", "default"), ("jax", "region"), ("ours", "region")]


def _cell_text(cell: Cell) -> str:
    free = cell.count(Outcome.COPY_FREE)
    copied = cell.count(Outcome.COPIED)
    bad = len(cell.disagreements)
    return f"{free}/{copied}/{cell.copies}" + (f" **{bad}✗**" if bad else "")


def markdown(rows: list[Row], elapsed: float) -> str:
    lines = [
        "# Real models: predicted vs. measured donor outcomes",
        "",
        "Generated by `python benchmarks/real_models.py` (jax "
        f"{jax.__version__}, {jax.default_backend()}, {elapsed:.0f} s). Per variant and form "
        "(flat, or the step as an inner jit: `calls` is the number of `func.call` in "
        "`@main`), per pairing (JAX's greedy one, ours) and compile (XLA:CPU default copy "
        f"insertion, `{next(iter(COMPILES['region']))}=True`): measured "
        "copy-free / copied donors / XLA copies beyond the no-aliasing compile, and **n✗** "
        "the donors whose predicted outcome (rules, ordering of that compile) differs from "
        "the executable's (`jax_use_donated.dropin.xla_truth`).",
        "",
        "| variant | form | donors | calls | jax default | ours default | jax region "
        "| ours region |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        cells = " | ".join(_cell_text(r.cells[k]) for k in KEYS)
        lines.append(f"| {r.variant.name} | {'nested' if r.nested else 'flat'} | {r.donors} "
                     f"| {r.calls} | {cells} |")
    total = {k: sum(len(r.cells[k].disagreements) for r in rows) for k in KEYS}
    lines += ["", f"Disagreements: {sum(total.values())} "
              f"({', '.join(f'{p} {c}: {n}' for (p, c), n in total.items())}).", ""]
    lines += [
        "## Footprint, compile time, numbers",
        "",
        "Per compile: footprint in MiB (`memory_analysis()`: arguments + outputs - aliased + "
        "temporaries) / XLA compile in CPU seconds. The columns are, in order, `jax.jit`; "
        "`jax_use_donated.jit(region_analysis=False)`; `jax.jit` with region analysis; "
        "`jax_use_donated.jit` as it compiles by default on CPU (our pairing, region "
        "analysis). **numbers**: every compile's outputs equal those of the compile without "
        "aliasing, on the same inputs.",
        "",
        "| variant | form | jax default | ours, option off | jax region | ours (default) "
        "| numbers |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        cells = " | ".join(f"{r.cells[k].footprint / 2**20:.3f} / {r.cells[k].compile_s:.2f}"
                           for k in KEYS)
        same = all(c.numbers_equal for c in r.cells.values())
        lines.append(f"| {r.variant.name} | {'nested' if r.nested else 'flat'} | {cells} "
                     f"| {'equal' if same else '**differ**'} |")
    lines.append("")
    lines.append("## Disagreements")
    lines.append("")
    any_bad = False
    for r in rows:
        for k in KEYS:
            cell = r.cells[k]
            for d in cell.disagreements:
                any_bad = True
                lines.append(
                    f"- {r.variant.name} ({'nested' if r.nested else 'flat'}, {k[0]} pairing, "
                    f"{k[1]}): `{r.names[d]}` (parameter {d} -> output {cell.pairs.get(d)}) "
                    f"predicted {cell.predicted[d].value}, measured "
                    f"{cell.measured[d].value}"
                    + (f" ({cell.evidence[d]})" if d in cell.evidence else ""))
    if not any_bad:
        lines.append("None.")
    lines += ["", "## Variants", ""]
    for v in dict.fromkeys(r.variant for r in rows):
        lines.append(f"- `{v.name}` ({v.library}{', training' if v.training else ''})"
                     + (f": {v.note}" if v.note else ""))
    return "\n".join(lines) + "\n"


def total_disagreements(rows: list[Row]) -> int:
    return sum(len(c.disagreements) for r in rows for c in r.cells.values())


def chart(rows: list[Row], path: Path) -> None:
    """Copies of donated buffers (XLA copies beyond the no-aliasing compile, at least 0) and
    footprint per flat variant, the four compiles side by side."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    flat = [r for r in rows if not r.nested]
    labels = ["jax default", "ours, option off", "jax region", "ours (default)"]
    fig, axes = plt.subplots(2, 1, figsize=(12, 7), sharex=True)
    width = 0.2
    xs = range(len(flat))
    for i, k in enumerate(KEYS):
        offset = [x + (i - 1.5) * width for x in xs]
        axes[0].bar(offset, [max(r.cells[k].copies, 0) for r in flat], width, label=labels[i])
        axes[1].bar(offset, [r.cells[k].footprint / r.cells["jax", "default"].footprint
                             if r.cells["jax", "default"].footprint else 0 for r in flat],
                    width, label=labels[i])
    axes[0].set_ylabel("copies of donated buffers")
    axes[0].legend(ncol=4, fontsize=8)
    axes[1].set_ylabel("footprint / jax default")
    axes[1].set_ylim(0.5, 1.1)
    axes[1].set_xticks(list(xs), [r.variant.name for r in flat], rotation=60, ha="right",
                       fontsize=8)
    fig.suptitle(f"Real train steps on XLA:{jax.default_backend().upper()} "
                 f"(python benchmarks/real_models.py, jax {jax.__version__})")
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or '').splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="three variants, flat and nested")
    parser.add_argument("--only", default="", help="comma-separated variant names")
    parser.add_argument("--flat-only", action="store_true", help="skip the nested forms")
    parser.add_argument("--verbose", action="store_true", help="print each disagreement")
    parser.add_argument("--catalogue", action="store_true",
                        help="also the single-device programs of benchmarks/catalogue.py")
    parser.add_argument("--out", default=None,
                        help="markdown file to write (default: results/real_models.md for "
                             "the full run, none for a partial one)")
    ns = parser.parse_args(argv)
    chosen = VARIANTS + (catalogue_variants() if ns.catalogue else [])
    if ns.only:
        wanted = set(ns.only.split(","))
        chosen = [v for v in VARIANTS + catalogue_variants() if v.name in wanted]
    elif ns.quick:
        chosen = [v for v in VARIANTS if v.name in ("linen_mlp", "grad_accum", "kv_decode")]
    t0 = time.perf_counter()
    rows: list[Row] = []
    for v in chosen:
        for nested in (False,) if ns.flat_only else (False, True):
            row = run_variant(v, nested)
            rows.append(row)
            print(f"{v.name:26} {'nested' if nested else 'flat':6} donors={row.donors:3} "
                  f"calls={row.calls} "
                  + "  ".join(f"{p}/{c}: {_cell_text(row.cells[p, c])}" for p, c in KEYS)
                  + f"  ({row.seconds:.1f} s)", flush=True)
    text = markdown(rows, time.perf_counter() - t0)
    if ns.verbose:
        print(text.split("## Disagreements")[1].split("## Variants")[0])
    print(f"disagreements: {total_disagreements(rows)}")
    out = ns.out
    if out is None and not ns.only and not ns.quick and not ns.flat_only:
        out = str(Path(__file__).parent / "results" / "real_models.md")
    if out is not None:
        Path(out).write_text(text)
        print(f"wrote {out}")
        png = Path(out).with_suffix(".png")
        chart(rows, png)
        print(f"wrote {png}")
    differ = [f"{r.variant.name} ({'nested' if r.nested else 'flat'})" for r in rows
              if not all(c.numbers_equal for c in r.cells.values())]
    if differ:
        print(f"numbers differ: {', '.join(differ)}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
