"""An Equinox + optax train step under ``eqx.filter_jit``, planned by liveness through the
global switch (``jax_use_donated.install()`` plans every jit lowering from then on).

    python examples/equinox_switch.py
"""

from __future__ import annotations

import warnings

import equinox as eqx
import jax
import jax.numpy as jnp
import optax

import jax_use_donated as jud


def run(width: int = 128, steps: int = 3) -> tuple[list[float], jud.CallPlan]:
    """Train a few steps with the switch installed; the losses and the step's plan."""
    model = eqx.nn.MLP(width, 10, width, depth=2, key=jax.random.key(0))
    tx = optax.adamw(1e-2)
    opt_state = tx.init(eqx.filter(model, eqx.is_array))

    @eqx.filter_jit(donate="all-except-first")
    def step(x: jax.Array, model: eqx.nn.MLP,
             opt_state: optax.OptState) -> tuple[optax.OptState, eqx.nn.MLP, jax.Array]:
        def loss_fn(m: eqx.nn.MLP) -> jax.Array:
            return jnp.mean((jax.vmap(m)(x) - 1.0) ** 2)

        loss, grads = eqx.filter_value_and_grad(loss_fn)(model)
        updates, opt_state = tx.update(grads, opt_state, eqx.filter(model, eqx.is_array))
        return opt_state, eqx.apply_updates(model, updates), loss  # state first

    x = jax.random.normal(jax.random.key(1), (32, width))
    losses = []
    jud.install()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", jud.DonationWarning)
            for _ in range(steps):
                opt_state, model, loss = step(x, model, opt_state)
                losses.append(float(loss))
    finally:
        jud.uninstall()
    return losses, jud.recent_plans()[-1]


def main() -> None:
    losses, plan = run()
    print("losses:", ", ".join(f"{v:.4f}" for v in losses))
    print(f"{plan.function}: {len(plan.reused)} of {len(plan.donations)} donated leaves reused "
          "without a copy")


if __name__ == "__main__":
    main()
