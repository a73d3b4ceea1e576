"""Real JAX text of any size: an N-layer MLP train step with Adam, outputs reordered.

``train_step_text(layers)`` lowers ``step(params, m, v, x, y) -> (v, m, params, loss)`` (the
optimizer state first, so JAX's greedy pairing hands buffers to the wrong results) with
``jax.jit(..., donate_argnums=(0, 1, 2)).lower(...).as_text()``; about 90 ops per layer.
Texts are cached in ``benchmarks/.cache`` by JAX version, layer count and debug info.

Run: ``python benchmarks/jax_modules.py LAYERS [--debug-info] [-o FILE]``.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
from pathlib import Path
from typing import Any

CACHE = Path(__file__).resolve().parent / ".cache"
WIDTH = 16
BATCH = 8


def _step(params: Any, m: Any, v: Any, x: Any, y: Any) -> Any:
    import jax
    import jax.numpy as jnp

    def loss(params: Any) -> Any:
        h = x
        for w, b in params:
            h = jnp.tanh(h @ w + b) + h
        return jnp.mean((h - y) ** 2)

    value, g = jax.value_and_grad(loss)(params)
    m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
    v = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
    p = jax.tree.map(lambda p, m, v: p - 1e-3 * m / (jnp.sqrt(v) + 1e-8), params, m, v)
    return v, m, p, value


def lower(layers: int, debug_info: bool = False) -> str:
    """The lowered text of the ``layers``-layer train step (no cache)."""
    import jax
    import jax.numpy as jnp

    params = [(jnp.zeros((WIDTH, WIDTH)), jnp.zeros((WIDTH,))) for _ in range(layers)]
    zeros = jax.tree.map(jnp.zeros_like, params)
    x = jnp.ones((BATCH, WIDTH))
    lowered = jax.jit(_step, donate_argnums=(0, 1, 2)).lower(params, zeros, zeros, x, x)
    return lowered.as_text(debug_info=debug_info)


def train_step_text(layers: int, debug_info: bool = False) -> Path:
    """A cached file holding :func:`lower`'s text."""
    import jax

    key = hashlib.sha256((jax.__version__ + inspect.getsource(_step) + inspect.getsource(lower)
                          + f"{WIDTH} {BATCH}").encode()).hexdigest()[:10]
    path = CACHE / f"mlp_adam_{layers}{'_debug' if debug_info else ''}_{key}.mlir"
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(lower(layers, debug_info))
        tmp.replace(path)
    return path


def count_ops(text: str) -> int:
    """Op lines of MLIR text (lines with `` = `` or a bare terminator), a cheap op count."""
    return sum(1 for line in text.splitlines()
               if " = " in line or line.lstrip().startswith(("return", "stablehlo.return")))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("layers", type=int)
    parser.add_argument("--debug-info", action="store_true")
    parser.add_argument("-o", "--output", type=Path)
    args = parser.parse_args()
    path = train_step_text(args.layers, args.debug_info)
    text = path.read_text()
    if args.output is not None:
        args.output.write_text(text)
    print(f"{args.output or path}: {count_ops(text)} op lines, {len(text):,} bytes")


if __name__ == "__main__":
    main()
