"""Real-model benchmark: the plan's per-donor prediction against what XLA's executable does.

Twenty steps written as Flax (NNX and linen), Equinox and optax users write them
(:data:`VARIANTS`: an MLP classifier with adamw, natural and reordered outputs; a 2-layer
decoder LM with ``clip_by_global_norm`` + adamw; gradient accumulation with ``scan``; an EMA
of the params; KV-cache decoding; a deep hand-written Adam), and eight steps of public code
bases rewritten at toy size (:data:`PUBLIC_VARIANTS`: Flax's Gemma example and miniGPT
tutorial, EasyLM's LLaMA, Levanter's trainer, t5x's micro-batched accumulation, an
``optax.MultiSteps`` step, a ``jax.shard_map`` data-parallel step on 4 host devices, an
autoregressive ``fori_loop`` decode into a donated KV cache), each flat and nested (the step
is an inner ``jax.jit`` / ``eqx.filter_jit`` / ``nnx.jit`` called from the outer jit: one
``func.call`` in the module).

For each, two pairings (JAX's greedy one and the plan's, with the unpaired donors keeping JAX's
pair as the drop-in does) compiled twice (XLA:CPU's default copy insertion and
``xla_cpu_copy_insertion_use_region_analysis=True``). Per donated leaf the rules predict
copy-free / copied / not donated for that pairing under that compile's ordering
(:func:`jax_use_donated.analysis.ordering_for`), and :mod:`jax_use_donated.dropin.xla_truth` reads
what the executable does; a disagreement is a rule to fix. Then the drop-in as users run it
(:func:`measure_dropin`, with ``region_analysis`` on and off): its plan measured leaf by leaf
as ``jud.plan`` does, its ``jud.DonationWarning``s (one saying XLA copies a donor the
executable does not copy is a false warning) and its footprint next to ``jax.jit``'s.

    python benchmarks/real_models.py            # every variant (about 35 minutes on 2 cores)
    python benchmarks/real_models.py --quick    # three variants
    python benchmarks/real_models.py --only nnx_mlp,ema_train --verbose
    python benchmarks/real_models.py --only shard_map_dp,optax_multisteps --no-dropin
    python benchmarks/real_models.py --catalogue   # also benchmarks/catalogue.py's programs

A run that includes ``shard_map_dp`` re-executes itself with
``XLA_FLAGS=--xla_force_host_platform_device_count=4`` (single-device steps measure the same
with 4 host devices). Writes ``benchmarks/results/real_models.md`` (not with ``--only`` /
``--quick``).
"""

from __future__ import annotations

import argparse
import inspect
import os
import re
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
from jax_use_donated.dropin.records import CallPlan, LeafDonation
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
    devices: int = 1
    """Host devices the step needs (more than one: the process runs with
    :data:`HOST_DEVICES_FLAG`)."""


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


# ------------------------------------------------------------------------- public steps
#
# Train steps of public code bases, rewritten here from their structure (what is donated, in
# which order the state comes back, what the step does), scaled down to run on 2 CPU cores in
# seconds. Sources: Flax's Gemma example (``examples/gemma/train.py``) and miniGPT tutorial
# (``docs_nnx/examples/minigpt.md``), EasyLM (``EasyLM/models/llama/llama_train.py``),
# Levanter (``src/levanter/trainer.py``, ``trainer_state.py``), t5x (``t5x/trainer.py``:
# ``accumulate_grads_microbatched``, ``apply_grads``), optax (``MultiSteps``), and the
# data-parallel ``shard_map`` step of JAX's sharding tutorials. Kept out of :data:`VARIANTS`
# (which the tests require to agree with the executable everywhere) while the rules they
# expose are being fixed: ``tests/test_public_steps.py`` pins them (:func:`broken_claims`).

SHARD_DEVICES = 4                    # host devices the shard_map step runs on
HOST_DEVICES_FLAG = f"--xla_force_host_platform_device_count={SHARD_DEVICES}"


def _nnx_jit(step: Callable[..., Any], nested: bool, **kw: Any) -> Any:
    """``nnx.jit(step, **kw)``; nested: an outer ``nnx.jit`` whose body calls
    ``nnx.jit(step)`` (argument names in ``static_argnames`` / ``donate_argnames`` become
    positions for the outer function, which has none)."""
    if not nested:
        return nnx.jit(step, **kw)
    names = list(inspect.signature(step).parameters)
    statics = kw.pop("static_argnames", ())
    if "donate_argnames" in kw:
        kw["donate_argnums"] = tuple(names.index(n) for n in kw.pop("donate_argnames"))
    inner = nnx.jit(step, static_argnames=statics)
    return nnx.jit(lambda *a: inner(*a),
                   static_argnums=tuple(names.index(n) for n in statics), **kw)


def _rope(x: jax.Array) -> jax.Array:
    """Rotary position embedding over the sequence axis of ``x`` ([batch, seq, heads, dim])."""
    half = x.shape[-1] // 2
    freq = 1.0 / (10_000 ** (jnp.arange(half) / half))
    angle = jnp.arange(x.shape[1])[:, None] * freq[None]
    sin, cos = jnp.sin(angle)[None, :, None], jnp.cos(angle)[None, :, None]
    a, b = x[..., :half], x[..., half:]
    return jnp.concatenate([a * cos - b * sin, b * cos + a * sin], axis=-1)


def _causal_attention(q: jax.Array, k: jax.Array, v: jax.Array) -> jax.Array:
    """Softmax attention with a causal mask, ``[batch, seq, heads, dim]`` in and out."""
    seq = q.shape[1]
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / jnp.sqrt(q.shape[-1]).astype(q.dtype)
    scores = jnp.where(jnp.tril(jnp.ones((seq, seq), bool)), scores, -1e9)
    return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(scores, axis=-1), v)


# Flax's Gemma example: pre-norm blocks (RMSNorm, rotary attention, gated GELU), logits from
# the embedding table itself; ``nnx.jit(..., donate_argnames=("model", "optimizer"))``,
# adamw on a warmup + rsqrt schedule, metrics updated inside the step (not donated).

class GemmaBlock(nnx.Module):
    def __init__(self, rngs: nnx.Rngs, heads: int = 2) -> None:
        self.heads = heads
        self.pre_attn = nnx.RMSNorm(E, rngs=rngs)
        self.qkv = nnx.Linear(E, 3 * E, use_bias=False, rngs=rngs)
        self.proj = nnx.Linear(E, E, use_bias=False, rngs=rngs)
        self.pre_ffw = nnx.RMSNorm(E, rngs=rngs)
        self.gate = nnx.Linear(E, 2 * E, use_bias=False, rngs=rngs)
        self.up = nnx.Linear(E, 2 * E, use_bias=False, rngs=rngs)
        self.down = nnx.Linear(2 * E, E, use_bias=False, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        b, t, _ = x.shape
        q, k, v = jnp.split(self.qkv(self.pre_attn(x)).reshape(b, t, self.heads, -1), 3, -1)
        x = x + self.proj(_causal_attention(_rope(q), _rope(k), v).reshape(b, t, E))
        h = self.pre_ffw(x)
        return x + self.down(jax.nn.gelu(self.gate(h)) * self.up(h))


class TinyGemma(nnx.Module):
    def __init__(self, rngs: nnx.Rngs) -> None:
        self.embedder = nnx.Embed(V, E, rngs=rngs)
        self.blocks = nnx.List([GemmaBlock(rngs) for _ in range(L)])
        self.final_norm = nnx.RMSNorm(E, rngs=rngs)
        self.dropout = nnx.Dropout(0.1)

    def __call__(self, tokens: jax.Array, rngs: nnx.Rngs) -> jax.Array:
        x = self.embedder(tokens) * jnp.sqrt(E).astype(jnp.float32)
        x = self.dropout(x, rngs=rngs)
        for block in self.blocks:
            x = block(x)
        return self.embedder.attend(self.final_norm(x))


def _smoothed_xent(logits: jax.Array, targets: jax.Array, weights: jax.Array,
                   label_smoothing: float) -> jax.Array:
    """Per-sequence cross entropy against label-smoothed one-hot targets, pad-weighted."""
    vocab = logits.shape[-1]
    on = 1.0 - label_smoothing
    off = label_smoothing / (vocab - 1)
    soft = jax.nn.one_hot(targets, vocab) * (on - off) + off
    loss = -jnp.sum(soft * jax.nn.log_softmax(logits), axis=-1) * weights
    return loss.sum(axis=1) * loss.shape[0] / jnp.maximum(weights.sum(), 1.0)


def _gemma_step(nested: bool) -> tuple[Any, tuple[Any, ...]]:
    model = TinyGemma(nnx.Rngs(0))
    warmup = 10
    schedule = optax.join_schedules(
        [optax.linear_schedule(0.0, 1e-3, warmup),
         lambda n: 1e-3 * ((n + warmup) ** -0.5) * warmup ** 0.5],
        boundaries=[warmup])
    optimizer = nnx.Optimizer(model, optax.adamw(schedule, b1=0.9, b2=0.98, eps=1e-9,
                                                 weight_decay=0.1), wrt=nnx.Param)
    rngs = nnx.Rngs(params=0, dropout=1)
    metrics = nnx.MultiMetric(loss=nnx.metrics.Average("loss"),
                              accuracy=nnx.metrics.Accuracy())
    tokens = jax.random.randint(_key(6), (B // 4, T), 0, V)
    batch = {"inputs": tokens, "targets": jnp.roll(tokens, -1, axis=1)}

    def train_step(model: TinyGemma, optimizer: nnx.Optimizer, rngs: nnx.Rngs,
                   batch: dict[str, jax.Array], train_metrics: nnx.MultiMetric,
                   label_smoothing: float = 0.0, pad_id: int = 0) -> None:
        inputs, targets = batch["inputs"], batch["targets"]
        weights = (inputs > pad_id).astype(jnp.float32)

        def loss_fn(model: TinyGemma, rngs: nnx.Rngs) -> Any:
            logits = model(inputs, rngs)
            per_sample = _smoothed_xent(logits, targets, weights, label_smoothing)
            return per_sample.mean(), (per_sample, logits)

        (_, (per_sample, logits)), grads = nnx.value_and_grad(loss_fn, has_aux=True)(
            model, rngs)
        optimizer.update(model, grads)
        train_metrics.update(loss=per_sample, logits=logits, labels=targets,
                             mask={"accuracy": inputs > pad_id})

    step = _nnx_jit(train_step, nested, static_argnames=("label_smoothing", "pad_id"),
                    donate_argnames=("model", "optimizer"))
    return step, (model, optimizer, rngs, batch, metrics, 0.0, 0)


# Flax's miniGPT tutorial: learned token + position embeddings, post-norm blocks with
# dropout, ``@nnx.jit(donate_argnums=(0, 1, 3))``: model, optimizer and the batch donated,
# the metrics not; adam; the step returns nothing.

class MiniGptBlock(nnx.Module):
    def __init__(self, rngs: nnx.Rngs) -> None:
        self.mha = nnx.MultiHeadAttention(num_heads=2, in_features=E, decode=False, rngs=rngs)
        self.dropout1 = nnx.Dropout(0.1, rngs=rngs)
        self.layer_norm1 = nnx.LayerNorm(E, epsilon=1e-6, rngs=rngs)
        self.mlp = nnx.Sequential(nnx.Linear(E, 2 * E, rngs=rngs), nnx.relu,
                                  nnx.Linear(2 * E, E, rngs=rngs), nnx.Dropout(0.1, rngs=rngs))
        self.layer_norm2 = nnx.LayerNorm(E, epsilon=1e-6, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        attended = self.dropout1(self.mha(x, mask=nnx.make_causal_mask(x[..., 0])))
        x = self.layer_norm1(x + attended)
        return self.layer_norm2(x + self.mlp(x))


class MiniGpt(nnx.Module):
    def __init__(self, rngs: nnx.Rngs) -> None:
        self.token_emb = nnx.Embed(V, E, rngs=rngs)
        self.pos_emb = nnx.Embed(T, E, rngs=rngs)
        self.blocks = nnx.Sequential(*[MiniGptBlock(rngs) for _ in range(L)])
        self.output_layer = nnx.Linear(E, V, rngs=rngs)

    def __call__(self, tokens: jax.Array) -> jax.Array:
        x = self.token_emb(tokens) + self.pos_emb(jnp.arange(tokens.shape[1])[None])
        return self.output_layer(self.blocks(x))


def _minigpt_step(nested: bool) -> tuple[Any, tuple[Any, ...]]:
    model = MiniGpt(nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)
    metrics = nnx.MultiMetric(loss=nnx.metrics.Average("loss"))
    tokens = jax.random.randint(_key(7), (B // 4, T + 1), 0, V)
    batch = (tokens[:, :-1], tokens[:, 1:])

    def loss_fn(model: MiniGpt, batch: tuple[jax.Array, jax.Array]) -> Any:
        logits = model(batch[0])
        return optax.softmax_cross_entropy_with_integer_labels(logits, batch[1]).mean(), logits

    def train_step(model: MiniGpt, optimizer: nnx.Optimizer, metrics: nnx.MultiMetric,
                   batch: tuple[jax.Array, jax.Array]) -> None:
        (loss, _), grads = nnx.value_and_grad(loss_fn, has_aux=True)(model, batch)
        metrics.update(loss=loss)
        optimizer.update(model, grads)

    return _nnx_jit(train_step, nested, donate_argnums=(0, 1, 3)), (
        model, optimizer, metrics, batch)


# EasyLM's LLaMA ``train_step(train_state, rng, batch)``: a flax ``TrainState``, the RNG key
# donated with it and returned second (split for the dropout streams), metrics third;
# clip_by_global_norm + adamw on a warmup-cosine schedule with a weight-decay mask.

class LlamaRMSNorm(nn.Module):
    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        scale = self.param("kernel", nn.initializers.ones, (x.shape[-1],))
        return x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6) * scale


class LlamaBlock(nn.Module):
    heads: int = 2

    @nn.compact
    def __call__(self, x: jax.Array, deterministic: bool) -> jax.Array:
        b, t, _ = x.shape
        h = LlamaRMSNorm()(x)
        q, k, v = (nn.Dense(E, use_bias=False)(h).reshape(b, t, self.heads, -1)
                   for _ in range(3))
        attended = _causal_attention(_rope(q), _rope(k), v).reshape(b, t, E)
        x = x + nn.Dropout(0.0)(nn.Dense(E, use_bias=False)(attended),
                                deterministic=deterministic)
        h = LlamaRMSNorm()(x)
        gated = nn.silu(nn.Dense(2 * E, use_bias=False)(h)) * nn.Dense(2 * E, use_bias=False)(h)
        return x + nn.Dropout(0.0)(nn.Dense(E, use_bias=False)(gated),
                                   deterministic=deterministic)


class TinyLlama(nn.Module):
    @nn.compact
    def __call__(self, tokens: jax.Array, deterministic: bool = True) -> jax.Array:
        x = nn.Dropout(0.0)(nn.Embed(V, E)(tokens), deterministic=deterministic)
        for _ in range(L):
            x = LlamaBlock()(x, deterministic)
        return nn.Dense(V, use_bias=False)(LlamaRMSNorm()(x))


class _KeyStream:
    """EasyLM's stateful key holder: each call splits the held key."""

    def __init__(self, key: jax.Array) -> None:
        self.key = key

    def __call__(self, names: tuple[str, ...] | None = None) -> Any:
        if names is None:
            self.key, sub = jax.random.split(self.key)
            return sub
        keys = jax.random.split(self.key, len(names) + 1)
        self.key = keys[0]
        return dict(zip(names, keys[1:], strict=True))


def _masked_xent_and_accuracy(logits: jax.Array, tokens: jax.Array,
                              valid: jax.Array) -> tuple[jax.Array, jax.Array]:
    length = jnp.maximum(valid.sum(axis=-1), 1e-10)
    logp = jnp.take_along_axis(jax.nn.log_softmax(logits), tokens[..., None], -1)[..., 0]
    loss = -jnp.mean(jnp.sum(jnp.where(valid > 0, logp, 0.0), axis=-1) / length)
    correct = jnp.where(valid > 0, jnp.argmax(logits, -1) == tokens, False)
    return loss, jnp.mean(correct.sum(axis=-1) / length)


def _easylm_step(nested: bool) -> tuple[Any, tuple[Any, ...]]:
    from flax.training.train_state import TrainState

    model = TinyLlama()
    tokens = jax.random.randint(_key(8), (B // 4, T + 1), 0, V)
    batch = {"input_tokens": tokens[:, :-1], "target_tokens": tokens[:, 1:],
             "loss_masks": jnp.ones((B // 4, T), jnp.float32)}
    schedule = optax.warmup_cosine_decay_schedule(0.0, 1e-2, 20, 1000, 1e-3)
    tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(
        schedule, b1=0.9, b2=0.95, weight_decay=1e-4,
        mask=lambda p: jax.tree.map(lambda a: a.ndim > 1, p)))
    params = model.init(_key(), batch["input_tokens"])
    state = TrainState.create(apply_fn=None, params=params, tx=tx)
    rng = jax.random.PRNGKey(42)
    streams = ("params", "dropout", "fcm")

    def train_step(train_state: Any, rng: jax.Array, batch: dict[str, jax.Array]) -> Any:
        keys = _KeyStream(rng)

        def loss_and_accuracy(params: Any) -> Any:
            logits: jax.Array = model.apply(  # pyright: ignore[reportAssignmentType]
                params, batch["input_tokens"], deterministic=False, rngs=keys(streams))
            return _masked_xent_and_accuracy(logits, batch["target_tokens"],
                                             batch["loss_masks"])

        (loss, accuracy), grads = jax.value_and_grad(loss_and_accuracy, has_aux=True)(
            train_state.params)
        train_state = train_state.apply_gradients(grads=grads)
        metrics = {"loss": loss, "accuracy": accuracy,
                   "learning_rate": schedule(train_state.step),
                   "gradient_norm": optax.global_norm(grads),
                   "param_norm": optax.global_norm(train_state.params)}
        return train_state, keys(), metrics

    return _jax_jit(train_step, nested, donate_argnums=(0, 1)), (state, rng, batch)


# Levanter's trainer: an Equinox ``TrainerState`` (step, model, optimizer state, training
# key) donated whole (``named_jit(..., donate_args=(True,))``), the step returning
# ``(loss, new_state, metrics, hook_infos)``: the state comes back second. The optimizer is
# Levanter's AdamConfig: clip + scale_by_adam + decoupled decay + a scheduled learning rate,
# under ``optax.inject_hyperparams``.

class EqxBlock(eqx.Module):
    ln1: eqx.nn.LayerNorm
    qkv: eqx.nn.Linear
    proj: eqx.nn.Linear
    ln2: eqx.nn.LayerNorm
    up: eqx.nn.Linear
    down: eqx.nn.Linear

    def __init__(self, key: jax.Array) -> None:
        k = jax.random.split(key, 4)
        self.ln1, self.ln2 = eqx.nn.LayerNorm(E), eqx.nn.LayerNorm(E)
        self.qkv = eqx.nn.Linear(E, 3 * E, key=k[0])
        self.proj = eqx.nn.Linear(E, E, key=k[1])
        self.up = eqx.nn.Linear(E, 2 * E, key=k[2])
        self.down = eqx.nn.Linear(2 * E, E, key=k[3])

    def __call__(self, x: jax.Array) -> jax.Array:       # [seq, embed]
        t = x.shape[0]
        q, k, v = jnp.split(jax.vmap(self.qkv)(jax.vmap(self.ln1)(x)).reshape(t, 2, -1),
                            3, -1)
        attended = _causal_attention(q[None], k[None], v[None])[0].reshape(t, E)
        x = x + jax.vmap(self.proj)(attended)
        return x + jax.vmap(self.down)(jax.nn.gelu(jax.vmap(self.up)(jax.vmap(self.ln2)(x))))


class EqxLM(eqx.Module):
    embed: eqx.nn.Embedding
    blocks: list[EqxBlock]
    head: eqx.nn.Linear

    def __init__(self, key: jax.Array) -> None:
        keys = jax.random.split(key, L + 2)
        self.embed = eqx.nn.Embedding(V, E, key=keys[0])
        self.blocks = [EqxBlock(k) for k in keys[1:-1]]
        self.head = eqx.nn.Linear(E, V, key=keys[-1])

    def __call__(self, tokens: jax.Array, key: jax.Array) -> jax.Array:   # [seq]
        x = jax.vmap(self.embed)(tokens)
        x = x * jax.random.bernoulli(key, 0.9, x.shape) / 0.9       # embedding dropout
        for block in self.blocks:
            x = block(x)
        return jax.vmap(self.head)(x)


class TrainerState(eqx.Module):
    step: jax.Array
    model: EqxLM
    opt_state: Any
    training_key: jax.Array
    optimizer: optax.GradientTransformation = eqx.field(static=True)


def _levanter_tx() -> optax.GradientTransformation:
    def adam(learning_rate: Any) -> optax.GradientTransformation:
        return optax.chain(optax.clip_by_global_norm(1.0), optax.scale_by_adam(0.9, 0.95),
                           optax.add_decayed_weights(0.1), optax.scale(-1.0),
                           optax.scale_by_learning_rate(learning_rate, flip_sign=False))

    schedule = optax.warmup_cosine_decay_schedule(0.0, 3e-3, 10, 1000)
    return optax.inject_hyperparams(adam)(learning_rate=schedule)


def _levanter_step(nested: bool) -> tuple[Any, tuple[Any, ...]]:
    model = EqxLM(_key(9))
    tx = _levanter_tx()
    state = TrainerState(jnp.int32(0), model, tx.init(eqx.filter(model, eqx.is_array)),
                         jax.random.PRNGKey(5), tx)
    tokens = jax.random.randint(_key(10), (B // 4, T + 1), 0, V)

    def loss_fn(model: EqxLM, tokens: jax.Array, key: jax.Array) -> jax.Array:
        keys = jax.random.split(key, tokens.shape[0])
        logits = jax.vmap(model)(tokens[:, :-1], keys)
        return _xent(logits.reshape(-1, V), tokens[:, 1:].reshape(-1))

    def train_step(state: TrainerState, tokens: jax.Array) -> Any:
        key, new_key = jax.random.split(state.training_key)
        loss, grads = eqx.filter_value_and_grad(loss_fn)(state.model, tokens, key)
        updates, opt_state = state.optimizer.update(
            grads, state.opt_state, eqx.filter(state.model, eqx.is_array))
        model = eqx.apply_updates(state.model, updates)
        new_state = TrainerState(state.step + 1, model, opt_state, new_key, state.optimizer)
        return loss, new_state, {"train/loss": loss}, None

    return _jax_jit(train_step, nested, donate_argnums=(0,)), (state, tokens)


# t5x's trainer: ``train_step(train_state, batch)`` with ``donate_argnums=(0,)``; the
# dropout key folds the step into a base key; ``accumulate_grads_microbatched`` runs a
# ``fori_loop`` over micro-batches (``dynamic_slice`` of the batch) carrying the key, a
# float32 gradient accumulator started at zeros inside the step, and metrics merged under a
# ``cond`` on the first iteration; ``apply_grads`` applies them at the scheduled learning rate
# (adafactor, its rate injected). Returns ``(new_train_state, metrics)``.

class DropoutLM(nn.Module):
    @nn.compact
    def __call__(self, tokens: jax.Array, deterministic: bool = True) -> jax.Array:
        x = nn.Dropout(0.1)(nn.Embed(V, E)(tokens), deterministic=deterministic)
        for _ in range(L):
            x = LinenBlock()(x)
        return nn.Dense(V)(nn.LayerNorm()(x))


def _t5x_step(nested: bool) -> tuple[Any, tuple[Any, ...]]:
    from flax.training.train_state import TrainState

    model = DropoutLM()
    tokens = jax.random.randint(_key(11), (B // 2, T + 1), 0, V)
    batch = {"decoder_input_tokens": tokens[:, :-1], "decoder_target_tokens": tokens[:, 1:],
             "decoder_loss_weights": jnp.ones((B // 2, T), jnp.float32)}
    params = model.init(_key(), batch["decoder_input_tokens"])["params"]
    tx = optax.inject_hyperparams(lambda learning_rate: optax.adafactor(learning_rate))(
        learning_rate=1e-2)
    state = TrainState.create(apply_fn=None, params=params, tx=tx)
    base_rng = jax.random.PRNGKey(17)
    micro = MICRO
    size = (B // 2) // micro

    def learning_rate(step: jax.Array) -> jax.Array:
        return 1e-2 / jnp.sqrt(jnp.maximum(step, 10).astype(jnp.float32))

    def loss_fn(params: Any, mbatch: dict[str, jax.Array], rng: jax.Array) -> Any:
        logits: jax.Array = model.apply(  # pyright: ignore[reportAssignmentType]
            {"params": params}, mbatch["decoder_input_tokens"], deterministic=False,
            rngs={"dropout": rng})
        losses = optax.softmax_cross_entropy_with_integer_labels(
            logits, mbatch["decoder_target_tokens"]) * mbatch["decoder_loss_weights"]
        loss = losses.sum()
        return loss, {"loss": loss, "weight_sum": mbatch["decoder_loss_weights"].sum()}

    def train_step(train_state: Any, batch: dict[str, jax.Array]) -> Any:
        dropout_rng = jax.random.fold_in(base_rng, train_state.step)
        grad_fn = jax.value_and_grad(loss_fn, has_aux=True)

        def microbatch(i: jax.Array) -> dict[str, jax.Array]:
            return {k: jax.lax.dynamic_slice_in_dim(b, i * size, size) for k, b in batch.items()}

        def per_microbatch(i: jax.Array, carry: Any) -> Any:
            rng, grad_accum, prev = carry
            rng, sub = jax.random.split(rng)
            (_, metrics), grad = grad_fn(train_state.params, microbatch(i), sub)
            grad_accum = jax.tree.map(jnp.add, grad_accum, grad)
            metrics = jax.lax.cond(i == 0, lambda: metrics,
                                   lambda: jax.tree.map(jnp.add, prev, metrics))
            return rng, grad_accum, metrics

        zeros = jax.tree.map(lambda p: jnp.zeros(p.shape, jnp.float32), train_state.params)
        init_metrics = {"loss": jnp.float32(0), "weight_sum": jnp.float32(0)}
        _, grad_accum, metrics = jax.lax.fori_loop(
            0, micro, per_microbatch, (dropout_rng, zeros, init_metrics))
        lr = learning_rate(train_state.step)
        opt_state = train_state.opt_state
        opt_state = opt_state._replace(hyperparams={**opt_state.hyperparams,
                                                    "learning_rate": lr})
        new_state = train_state.replace(opt_state=opt_state).apply_gradients(grads=grad_accum)
        return new_state, {**metrics, "learning_rate": lr}

    return _jax_jit(train_step, nested, donate_argnums=(0,)), (state, batch)


# optax.MultiSteps (EasyLM's ``accumulate_gradient_steps``): the optimizer state carries the
# gradient accumulator and the inner adamw state; every k-th call applies the mean, the others
# return zero updates, chosen by ``lax.cond`` inside optax.

def _multisteps_step(nested: bool) -> tuple[Any, tuple[Any, ...]]:
    model = LinenMLP()
    tx = optax.MultiSteps(optax.adamw(1e-3), every_k_schedule=4)
    x, y = _xy()
    params = model.init(_key(), x)
    opt_state = tx.init(params)

    def train_step(params: Any, opt_state: Any, x: jax.Array, y: jax.Array) -> Any:
        loss, grads = jax.value_and_grad(lambda p: _xent(model.apply(p, x), y))(params)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    return _jax_jit(train_step, nested, donate_argnums=(0, 1)), (params, opt_state, x, y)


# Data parallelism by hand: ``jax.shard_map`` over a 4-device ``batch`` axis, parameters and
# adam state replicated and donated, each device's gradients summed with ``psum`` (the body
# lowers to ``sdy.manual_computation``).

def _shard_map_step(nested: bool) -> tuple[Any, tuple[Any, ...]]:
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    devices = jax.devices()
    if len(devices) < SHARD_DEVICES:
        raise RuntimeError(f"shard_map_dp needs {SHARD_DEVICES} devices: set XLA_FLAGS="
                           f"{HOST_DEVICES_FLAG} before JAX starts (main() re-executes itself)")
    mesh = jax.make_mesh((SHARD_DEVICES,), ("batch",), devices=devices[:SHARD_DEVICES])
    model, tx = LinenMLP(), optax.adam(1e-3)
    x, y = _xy()
    params = model.init(_key(), x)
    opt_state = tx.init(params)
    replicated, split = NamedSharding(mesh, P()), NamedSharding(mesh, P("batch"))
    params, opt_state = jax.device_put((params, opt_state), replicated)
    x, y = jax.device_put((x, y), split)

    def local_step(params: Any, opt_state: Any, x: jax.Array, y: jax.Array) -> Any:
        loss, grads = jax.value_and_grad(lambda p: _xent(model.apply(p, x), y))(params)
        grads = jax.tree.map(lambda g: jax.lax.psum(g, "batch") / SHARD_DEVICES, grads)
        updates, opt_state = tx.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state,
                jax.lax.pmean(loss, "batch"))

    mapped = jax.shard_map(local_step, mesh=mesh, in_specs=(P(), P(), P("batch"), P("batch")),
                           out_specs=(P(), P(), P()))
    return _jax_jit(mapped, nested, donate_argnums=(0, 1)), (params, opt_state, x, y)


# An autoregressive decode loop: ``fori_loop`` over positions writing a donated KV cache with
# ``.at[].set`` (greedy decoding of the single-head model of :func:`_kv_jax`).

def _kv_decode_loop(nested: bool) -> tuple[Any, tuple[Any, ...]]:
    params = _kv_params()
    k_cache = jnp.zeros((B // 4, T, E))
    v_cache = jnp.zeros((B // 4, T, E))
    x = jax.random.normal(_key(4), (B // 4, E))
    embed = jax.random.normal(_key(12), (V, E)) / 8

    def decode(params: Any, k_cache: jax.Array, v_cache: jax.Array, x: jax.Array) -> Any:
        def body(pos: jax.Array, carry: Any) -> Any:
            k_cache, v_cache, x, tokens = carry
            q, k, v = x @ params["wq"], x @ params["wk"], x @ params["wv"]
            k_cache = k_cache.at[:, pos].set(k)
            v_cache = v_cache.at[:, pos].set(v)
            scores = jnp.einsum("be,bte->bt", q, k_cache) / jnp.sqrt(E)
            scores = jnp.where(jnp.arange(T)[None] <= pos, scores, -1e9)
            out = jnp.einsum("bt,bte->be", jax.nn.softmax(scores), v_cache)
            token = jnp.argmax(out @ params["wo"], axis=-1)
            return k_cache, v_cache, embed[token], tokens.at[:, pos].set(token)

        tokens = jnp.zeros((x.shape[0], T), jnp.int32)
        k_cache, v_cache, _, tokens = jax.lax.fori_loop(0, T, body,
                                                        (k_cache, v_cache, x, tokens))
        return tokens, k_cache, v_cache

    return _jax_jit(decode, nested, donate_argnums=(1, 2)), (params, k_cache, v_cache, x)


PUBLIC_VARIANTS: list[Variant] = [
    Variant("gemma_nnx", "nnx", True, _gemma_step,
            "Flax examples/gemma: nnx.jit donate_argnames=(model, optimizer), metrics inside"),
    Variant("minigpt_nnx", "nnx", True, _minigpt_step,
            "Flax miniGPT tutorial: donate_argnums=(0, 1, 3), the batch donated too"),
    Variant("easylm_llama", "linen", True, _easylm_step,
            "EasyLM LLaMA: TrainState and RNG key donated, returns state, key, metrics"),
    Variant("levanter_trainer", "equinox", True, _levanter_step,
            "Levanter: TrainerState donated, returns loss, state, metrics, hooks"),
    Variant("t5x_microbatch", "linen", True, _t5x_step,
            "t5x: fori_loop over 4 micro-batches, accumulator started inside, adafactor"),
    Variant("optax_multisteps", "optax", True, _multisteps_step,
            "optax.MultiSteps(adamw, every_k_schedule=4): lax.cond inside optax"),
    Variant("shard_map_dp", "jax", True, _shard_map_step,
            f"jax.shard_map data parallelism on {SHARD_DEVICES} host devices, grads psum'ed",
            devices=SHARD_DEVICES),
    Variant("kv_decode_loop", "jax", False, _kv_decode_loop,
            "fori_loop decoding T tokens into a donated KV cache with .at[].set"),
]


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
    dropin: dict[bool, DropinCell] = field(default_factory=dict)
    """``region_analysis`` -> the drop-in as it runs with that setting (``run_variant(...,
    dropin=True)``)."""


@dataclass(frozen=True)
class WarningClaim:
    """One ``jud.DonationWarning`` the drop-in emitted while lowering."""

    parameter: int | None
    """The ``@main`` parameter it names (``%argN``), ``None`` for a summary line."""
    claims_copy: bool
    """It says XLA copies that donor (JAX's pair kept, "XLA inserts a copy")."""
    message: str
    where: str
    """``file:line`` the warning points at."""


@dataclass
class DropinCell:
    """The drop-in as users run it (``jud.enabled(region_analysis=...)`` around the library's
    own jit): its plan with every donated leaf measured in the executable (what
    :func:`jax_use_donated.plan` returns), the warnings it emitted, its footprint."""

    region_analysis: bool
    plan: CallPlan
    warnings: list[WarningClaim]
    footprint: int
    copies: int
    numbers_equal: bool

    @property
    def disagreements(self) -> list[LeafDonation]:
        return self.plan.disagreements

    @property
    def false_warnings(self) -> list[WarningClaim]:
        """Warnings claiming XLA copies a donor that the executable does not copy."""
        measured = {x.parameter: x.measured for x in self.plan.donations}
        return [w for w in self.warnings if w.claims_copy
                and measured.get(w.parameter) != Outcome.COPIED.value]

    def count(self, outcome: Outcome, which: str = "measured") -> int:
        return sum((x.measured if which == "measured" else x.predicted) == outcome.value
                   for x in self.plan.donations)


_ARG = re.compile(r"\(%arg(\d+):")


def _claim(w: warnings.WarningMessage) -> WarningClaim:
    text = str(w.message)
    m = _ARG.search(text)
    return WarningClaim(int(m.group(1)) if m else None, "XLA inserts a copy" in text, text,
                        f"{Path(w.filename).name}:{w.lineno}")


def measure_dropin(variant: Variant, nested: bool, region_analysis: bool, base: int,
                   reference: list[Any]) -> DropinCell:
    """Lower and compile a fresh instance of ``variant`` under the switch with this
    ``region_analysis`` (JAX's caches cleared, so the lowering runs and warns), record its
    ``DonationWarning``s, and measure every donated leaf as :func:`jax_use_donated.plan`
    does; ``base``: copies of the undonated compile with the same XLA options."""
    jax.clear_caches()
    step, args = variant.make(nested)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with jud.enabled(region_analysis=region_analysis):
            lowered = _lower(step, args)
            compiled = lowered.compile()
    record = records.record_of(lowered.compiler_ir())
    assert record is not None, variant.name
    text = compiled.as_text()
    plan = record.call_plan()
    donated = [x.parameter for x in plan.donations if x.parameter is not None]
    plan = plan.with_truth(read_truth(text, donated))
    claims = [_claim(w) for w in caught if issubclass(w.category, jud.DonationWarning)]
    return DropinCell(region_analysis, plan, claims, _footprint(compiled),
                      text.count(" copy(") - base, _same(_run(compiled, args), reference))


CLAIMS = ("disagreement", "false copy warning", "numbers", "footprint")
"""What :func:`broken_claims` checks of the drop-in, per ``region_analysis`` setting."""


def broken_claims(row: Row) -> dict[str, list[str]]:
    """``"<check> region=<bool>"`` -> what breaks it in ``row``'s drop-in cells: a leaf
    whose prediction the executable contradicts, a warning saying XLA copies a donor it does
    not copy, outputs unlike the undonated compile's, a footprint above ``jax.jit`` compiled
    with the same XLA options (multi-device programs keep XLA's default in the drop-in)."""
    out: dict[str, list[str]] = {}
    for region, cell in row.dropin.items():
        same = row.cells["jax", "region" if region and row.variant.devices == 1 else "default"]
        problems = {
            "disagreement": [f"{x.path}: predicted {x.predicted}, measured {x.measured}"
                             for x in cell.disagreements],
            "false copy warning": [w.message for w in cell.false_warnings],
            "numbers": [] if cell.numbers_equal else ["outputs differ"],
            "footprint": ([f"{cell.footprint} B > {same.footprint} B"]
                          if cell.footprint > same.footprint else []),
        }
        for check in CLAIMS:
            out[f"{check} region={region}"] = problems[check]
    return out


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
    """Fresh copies of the arguments' array leaves in the executable's own argument order
    (with those jit removed as unused, as ``call`` takes them): each argument takes the next
    unused leaf of its shape and dtype (every compile of a row gets the same inputs, so their
    outputs must agree whatever the wrapper's flattening)."""
    pool: dict[tuple[Any, ...], list[jax.Array]] = {}
    for leaf in jax.tree.leaves(args):
        if isinstance(leaf, jax.Array):
            pool.setdefault((leaf.shape, leaf.dtype), []).append(leaf)
    taken: dict[tuple[Any, ...], int] = {}
    out: list[jax.Array] = []
    executable = compiled._executable
    info = getattr(executable, "_all_args_info", None)   # unused arguments included
    for aval in info.in_avals if info is not None else executable.in_avals:
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


def run_variant(variant: Variant, nested: bool, dropin: bool = False) -> Row:
    """Every pairing and compile of ``variant`` (see the module docstring); ``dropin``: also
    the drop-in as it runs, with and without region analysis (:func:`measure_dropin`)."""
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
        bases: dict[str, int] = {}
        for compile_name, options in COMPILES.items():
            ordering = _ordering(options)
            with _forced({}):
                unaliased = _lower(step, args).compile(compiler_options=options or None)
            base = bases[compile_name] = unaliased.as_text().count(" copy(")
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
    measured = {region: measure_dropin(variant, nested, region,
                                       bases["region" if region else "default"], reference)
                for region in ((True, False) if dropin else ())}
    return Row(variant, nested, len(donors), calls, cells, names, time.perf_counter() - t0,
               measured)


# -------------------------------------------------------------------------------- report

KEYS = [("jax", "default"), ("ours", "default"), ("jax", "region"), ("ours", "region")]


def _cell_text(cell: Cell) -> str:
    free = cell.count(Outcome.COPY_FREE)
    copied = cell.count(Outcome.COPIED)
    bad = len(cell.disagreements)
    return f"{free}/{copied}/{cell.copies}" + (f" **{bad}✗**" if bad else "")


def _outcomes(cell: DropinCell, which: str) -> str:
    return "/".join(str(cell.count(o, which)) for o in Outcome)


def _dropin_text(cell: DropinCell) -> str:
    """Predicted and measured copy-free/copied/not donated, disagreements, warnings (those
    claiming a copy, the false ones), XLA copies beyond the undonated compile."""
    bad = len(cell.disagreements)
    claims = sum(w.claims_copy for w in cell.warnings)
    return (f"predicted {_outcomes(cell, 'predicted')} measured {_outcomes(cell, 'measured')}"
            + (f" **{bad}✗**" if bad else "")
            + f", warnings {len(cell.warnings)} ({claims} claim a copy, "
            f"{len(cell.false_warnings)} false), copies {cell.copies}")


def dropin_markdown(rows: list[Row]) -> list[str]:
    """The drop-in as it runs, per row measured with :func:`measure_dropin`."""
    measured = [r for r in rows if r.dropin]
    if not measured:
        return []
    lines = [
        "## The drop-in as it runs", "",
        "`jud.enabled(region_analysis=...)` around the library's own jit (fresh caches): per "
        "donated leaf the plan's prediction against the executable (copy-free / copied / not "
        "donated; **✗** disagreements), the `jud.DonationWarning`s it emitted (those saying "
        "XLA copies the donor, and how many of those the executable contradicts), XLA copies "
        "beyond the undonated compile, and footprints in bytes (`memory_analysis()`: "
        "arguments + outputs - aliased + temporaries) next to `jax.jit` without and with "
        "region analysis; **Δ**: the drop-in minus `jax.jit` compiled with the same XLA "
        "options (multi-device programs keep XLA's default copy insertion in the drop-in).",
        "",
        "| variant | form | region_analysis | predicted | measured | ✗ | warnings (copy / "
        "false) | copies | jax.jit | jax.jit region | drop-in | Δ |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in measured:
        for region, c in r.dropin.items():
            claims = sum(w.claims_copy for w in c.warnings)
            jax_fp = r.cells["jax", "default"].footprint
            region_fp = r.cells["jax", "region"].footprint
            same = region_fp if region and r.variant.devices == 1 else jax_fp
            lines.append(
                f"| {r.variant.name} | {'nested' if r.nested else 'flat'} | {region} "
                f"| {_outcomes(c, 'predicted')} | {_outcomes(c, 'measured')} "
                f"| {len(c.disagreements)} | {len(c.warnings)} ({claims} / "
                f"{len(c.false_warnings)}) | {c.copies} | {jax_fp} | {region_fp} "
                f"| {c.footprint} | {c.footprint - same:+d} |")
    lines += ["", "Disagreements of the drop-in:", ""]
    bad = [(r, region, x) for r in measured for region, c in r.dropin.items()
           for x in c.disagreements]
    for r, region, x in bad:
        lines.append(f"- {r.variant.name} ({'nested' if r.nested else 'flat'}, "
                     f"region_analysis={region}): `{x.path}` ({x.status}) predicted "
                     f"{x.predicted}, measured {x.measured}"
                     + (f" ({x.evidence})" if x.evidence else ""))
    if not bad:
        lines.append("None.")
    return [*lines, ""]


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
    lines += ["", *dropin_markdown(rows)]
    lines += ["## Variants", ""]
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


# ------------------------------------------------------------------------------- advice

ADVICE_CASES: list[tuple[str, str, tuple[int, ...] | None]] = [
    ("linen_mlp", "as written: params, opt_state", None),
    ("linen_mlp", "params only", (0,)),
    ("nnx_functional", "as written: params, opt_state", None),
    ("nnx_functional", "params only", (0,)),
    ("linen_lm", "as written: params, opt_state", None),
    ("linen_lm", "params only", (0,)),
    ("linen_transformer", "as written: params, opt_state", None),
    ("linen_transformer", "params only", (0,)),
    ("grad_accum", "as written: params, opt_state, acc", None),
    ("grad_accum", "params, opt_state (acc kept)", (0, 1)),
    ("ema_train", "as written: params, ema, opt_state", None),
    ("ema_train", "params only", (0,)),
    ("adamw_apply", "as written: params, opt_state, grads", None),
    ("adamw_apply", "params only", (0,)),
    ("adam_deep_reordered", "as written: params, m, v", None),
    ("adam_deep_reordered", "params only", (0,)),
    ("optax_multisteps", "as written: params, opt_state", None),
    ("optax_multisteps", "params only (optimizer state not donated)", (0,)),
    ("easylm_llama", "as written: train_state, rng", None),
    ("t5x_microbatch", "as written: train_state", None),
    ("levanter_trainer", "as written: state", None),
    ("kv_decode", "as written: k_cache, v_cache", None),
    ("kv_decode", "nothing donated", ()),
    ("kv_decode_loop", "as written: k_cache, v_cache", None),
]
"""``jax.jit`` steps advised (flat form): as their users donate, and with less donated
(a Flax step that donates only the params, an optax step that keeps its optimizer state)."""


@dataclass
class AdviceRow:
    """One step advised (:func:`run_advice`): ``jax.jit`` side by side with the drop-in."""

    variant: str
    donated: str
    jax: int
    """Footprint in bytes of ``jax.jit`` as the step donates."""
    jax_region: int
    ours: int
    """The drop-in as the step donates (the advice's footprint as called)."""
    advised: int
    """The drop-in with every verified suggestion applied (measured)."""
    jax_hint: int | None
    """``jax.jit`` with the advice's ``donate_argnums`` (``None``: no advice to apply)."""
    advice: Any
    seconds: float

    @property
    def found(self) -> int:
        return self.ours - self.advised


def run_advice(variant: Variant, label: str, donate: tuple[int, ...] | None) -> AdviceRow:
    """Advise ``variant``'s flat step re-jitted with ``donate`` (``None``: as written)."""
    from jax_use_donated.analysis.picture import Footprint
    from jax_use_donated.dropin.advice import advise_call

    t0 = time.perf_counter()
    step, args = variant.make(False)
    info = step._jit_info
    fun = step.__wrapped__
    statics = {"static_argnums": info.static_argnums, "static_argnames": info.static_argnames}
    jitted = step if donate is None else jax.jit(fun, donate_argnums=donate, **statics)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = Footprint.of(jitted.lower(*args).compile()).total
        region = Footprint.of(jitted.lower(*args).compile(
            compiler_options=COMPILES["region"])).total
        advice = advise_call(jitted, args)
        jax_hint = None
        if advice.applied:
            hinted = jax.jit(fun, donate_argnums=advice.donate_argnums,
                             donate_argnames=advice.donate_argnames or None, **statics)
            jax_hint = Footprint.of(hinted.lower(*args).compile()).total
    return AdviceRow(variant.name, label, plain, region, advice.footprint,
                     advice.footprint_advised, jax_hint, advice, time.perf_counter() - t0)


def _where(advice: Any) -> str:
    """The applied suggestions grouped by path prefix: ``opt_state[0].mu (6 leaves)``."""
    from jax_use_donated.analysis.picture import group_paths

    applied = list(advice.applied)
    if not applied:
        return "-"
    groups = group_paths(applied, 4)
    counts: dict[str, int] = {}
    for path in applied:
        counts[groups[path]] = counts.get(groups[path], 0) + 1
    return ", ".join(f"`{g}` ({n})" if n > 1 else f"`{g}`" for g, n in counts.items())


def _others(advice: Any) -> str:
    kinds: dict[str, int] = {}
    for s in advice.suggestions:
        if s.action != "donate":
            kinds[s.action] = kinds.get(s.action, 0) + 1
    competing = sum(1 for s in advice.suggestions if s.verified and s.path not in advice.applied)
    text = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    if competing:
        text += (", " if text else "") + f"{competing} competing"
    return text or "-"


def advice_markdown(rows: list[AdviceRow], elapsed: float) -> str:
    mib = 2**20
    lines = [
        "# Real models: what verified advice finds beyond what the step donates",
        "",
        f"Generated by `python benchmarks/real_models.py --advice` (jax {jax.__version__}, "
        f"{jax.default_backend()}, {elapsed:.0f} s). Per `jax.jit` step (flat form), as its "
        "users donate and with less donated: the footprint in MiB (`memory_analysis()`: "
        "arguments + outputs - aliased + temporaries) of `jax.jit`, `jax.jit` with region "
        "analysis, `jax_use_donated.jit` as the step donates, and with every verified "
        "suggestion of `jud.advise` applied (each suggestion compiled and measured, outputs "
        "equal bit for bit to the call's, on copies of the arguments; the total compiled "
        "once more with all of them). **found**: what the advice saves beyond the step's own "
        "donation; **jax.jit + hint**: plain `jax.jit` with the advice's `donate_argnums`. "
        "**where**: the applied suggestions by path prefix; **other**: donated leaves the "
        "advice can only explain (`none`), or fix by a change to the function "
        "(`restructure`, `reorder`: predicted, not verified), and verified suggestions that "
        "compete for a result another one takes.",
        "",
        "| step | donated | jax.jit | jax.jit region | jud.jit | jud.jit + advice | found "
        "| jax.jit + hint | verified | where | other | compiles | s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        a = r.advice
        hint = f"{r.jax_hint / mib:.3f}" if r.jax_hint is not None else "-"
        lines.append(
            f"| {r.variant} | {r.donated} | {r.jax / mib:.3f} | {r.jax_region / mib:.3f} "
            f"| {r.ours / mib:.3f} | {r.advised / mib:.3f} | "
            + (f"**{r.found / mib:.3f}**" if r.found else "0") + f" | {hint} "
            f"| {len(a.applied)} | {_where(a)} | {_others(a)} | {a.compiles} "
            f"| {r.seconds:.0f} |")
    found = [r for r in rows if r.found]
    none = [r for r in rows if not r.found]
    lines += [
        "",
        f"Advice finds memory in {len(found)} of {len(rows)} steps: "
        + "; ".join(f"{r.variant} ({r.donated}) {r.found / mib:.3f} MiB" for r in found) + ".",
        "",
        "Nothing left in " + "; ".join(f"{r.variant} ({r.donated})" for r in none) + ".",
        "",
        "Every suggestion's outputs equal the call's: "
        + ("yes" if all(r.advice.results_equal for r in rows) else "**no**") + ".",
        "",
        "## The advice, step by step",
        "",
    ]
    for r in rows:
        lines += [f"### {r.variant}, {r.donated}", "", "```", str(r.advice), "```", ""]
    text = "\n".join(lines).replace(str(Path(__file__).resolve().parent.parent) + "/", "")
    return re.sub(r"/\S*/site-packages/", "site-packages/", text)


def _host_devices(argv: list[str] | None) -> bool:
    """Whether this process has (or, for a command-line run, will have) the host devices of
    the multi-device variants. The device count is read when JAX starts its CPU client: a
    command started without :data:`HOST_DEVICES_FLAG` re-executes itself with it (before JAX
    initialises any device); an in-process call (``argv`` given) cannot."""
    flags = os.environ.get("XLA_FLAGS", "")
    if HOST_DEVICES_FLAG in flags:
        return jax.device_count() >= SHARD_DEVICES
    if argv is not None:
        return False
    env = dict(os.environ, XLA_FLAGS=f"{flags} {HOST_DEVICES_FLAG}".strip())
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable, str(Path(__file__).resolve()), *sys.argv[1:]],
              env)


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
    parser.add_argument("--no-dropin", action="store_true",
                        help="skip the drop-in as it runs (plan, warnings, footprint)")
    parser.add_argument("--advice", action="store_true",
                        help="only the advice study (ADVICE_CASES): what jud.advise finds "
                             "beyond what each step donates; writes "
                             "results/real_models_advice.md (with --only: the chosen steps, "
                             "no file unless --out)")
    ns = parser.parse_args(argv)
    if ns.advice:
        return _advice_main(ns)
    every = VARIANTS + PUBLIC_VARIANTS
    chosen = every + (catalogue_variants() if ns.catalogue else [])
    if ns.only:
        wanted = set(ns.only.split(","))
        chosen = [v for v in every + catalogue_variants() if v.name in wanted]
        if unknown := wanted - {v.name for v in chosen}:
            parser.error(f"unknown variants: {', '.join(sorted(unknown))}")
    elif ns.quick:
        chosen = [v for v in VARIANTS if v.name in ("linen_mlp", "grad_accum", "kv_decode")]
    if any(v.devices > 1 for v in chosen) and not _host_devices(argv):
        print(f"skipping the multi-device variants: this process has no {SHARD_DEVICES} "
              f"devices (run the command with XLA_FLAGS={HOST_DEVICES_FLAG})")
        chosen = [v for v in chosen if v.devices == 1]
    t0 = time.perf_counter()
    rows: list[Row] = []
    for v in chosen:
        for nested in (False,) if ns.flat_only else (False, True):
            row = run_variant(v, nested, dropin=not ns.no_dropin)
            rows.append(row)
            print(f"{v.name:26} {'nested' if nested else 'flat':6} donors={row.donors:3} "
                  f"calls={row.calls} "
                  + "  ".join(f"{p}/{c}: {_cell_text(row.cells[p, c])}" for p, c in KEYS)
                  + f"  ({row.seconds:.1f} s)", flush=True)
            for region, cell in row.dropin.items():
                print(f"{'':33} drop-in{'' if region else ' (region_analysis=False)'}: "
                      f"{_dropin_text(cell)}, footprint {cell.footprint} B", flush=True)
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
              if not all(c.numbers_equal for c in [*r.cells.values(), *r.dropin.values()])]
    if differ:
        print(f"numbers differ: {', '.join(differ)}")
        return 1
    return 0


def _advice_main(ns: argparse.Namespace) -> int:
    by_name = {v.name: v for v in VARIANTS + PUBLIC_VARIANTS}
    by_name["adamw_apply"] = Variant("adamw_apply", "optax", True, _adamw_apply,
                                     "optax.adamw's update alone, gradients given")
    cases = [c for c in ADVICE_CASES if not ns.only or c[0] in set(ns.only.split(","))]
    t0 = time.perf_counter()
    rows = []
    for name, label, donate in cases:
        row = run_advice(by_name[name], label, donate)
        rows.append(row)
        print(f"{name:22} {label:44} jax {row.jax:9} ours {row.ours:9} advised "
              f"{row.advised:9} found {row.found:8} ({len(row.advice.applied)} applied, "
              f"{row.advice.compiles} compiles, {row.seconds:.1f} s)", flush=True)
    text = advice_markdown(rows, time.perf_counter() - t0)
    out = ns.out
    if out is None and not ns.only:
        out = str(Path(__file__).parent / "results" / "real_models_advice.md")
    if out is not None:
        Path(out).write_text(text)
        print(f"wrote {out}")
    return 0 if all(r.advice.results_equal for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
