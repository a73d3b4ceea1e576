"""A Flax NNX + optax train step, planned by liveness through the global switch.

``nnx.jit`` calls ``jax.jit`` on the user's behalf, so wrapping it in ``jax_use_donated.jit``
would plan nothing; ``jax_use_donated.enabled()`` plans every jit lowering inside the block,
whichever library makes it. Here the optimizer state comes back before the model (a common
layout in hand-written steps): JAX's in-order pairing makes XLA copy those buffers.

    python examples/nnx_switch.py
"""

from __future__ import annotations

import warnings
from typing import Any

import jax
import jax.numpy as jnp
import optax
from flax import nnx

import jax_use_donated as jud


class MLP(nnx.Module):
    def __init__(self, width: int, rngs: nnx.Rngs) -> None:
        self.hidden = nnx.Linear(width, width, rngs=rngs)
        self.out = nnx.Linear(width, 10, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.out(jax.nn.relu(self.hidden(x)))


def make_step(tx: optax.GradientTransformation) -> Any:
    @nnx.jit(donate_argnums=(0, 1))
    def step(params: nnx.State, opt_state: optax.OptState, graphdef: nnx.GraphDef,
             x: jax.Array, y: jax.Array) -> tuple[Any, Any, jax.Array]:
        def loss_fn(p: nnx.State) -> jax.Array:
            logits = nnx.merge(graphdef, p)(x)
            return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()

        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, opt_state = tx.update(grads, opt_state, params)
        return opt_state, optax.apply_updates(params, updates), loss  # state first

    return step


def run(width: int = 256, steps: int = 3) -> tuple[list[float], jud.CallPlan]:
    """Train a few steps under the switch; the losses and the step's plan."""
    graphdef, params = nnx.split(MLP(width, nnx.Rngs(0)), nnx.Param)
    tx = optax.adam(1e-2)
    opt_state = tx.init(params)
    step = make_step(tx)
    x = jax.random.normal(jax.random.key(1), (64, width))
    y = jnp.arange(64) % 10
    losses = []
    with jud.enabled(), warnings.catch_warnings():
        warnings.simplefilter("ignore", jud.DonationWarning)  # shown by explain below
        for _ in range(steps):
            opt_state, params, loss = step(params, opt_state, graphdef, x, y)
            losses.append(float(loss))
    return losses, jud.recent_plans()[-1]


def main() -> None:
    losses, plan = run()
    print("losses:", ", ".join(f"{v:.4f}" for v in losses))
    print(f"{plan.function}: {len(plan.reused)} of {len(plan.donations)} donated leaves reused "
          "without a copy")
    for leaf in plan.not_reused:
        print(f"  {leaf.path}: {leaf.status} ({leaf.reason})")


if __name__ == "__main__":
    main()
