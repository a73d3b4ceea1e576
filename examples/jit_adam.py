"""An Adam step whose optimizer state comes back before the parameters.

``jax.jit`` pairs donated inputs with outputs in order, so ``params`` would host the new first
moment while the update still reads ``params``: XLA silently copies every buffer. With
``jax_use_donated.jit`` each donated buffer hosts the output written after its last read.

    python examples/jit_adam.py
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

import jax_use_donated as jud


def adam_step(params: dict[str, jax.Array], m: dict[str, jax.Array], v: dict[str, jax.Array],
              grads: dict[str, jax.Array]) -> tuple[dict[str, jax.Array], ...]:
    m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, m, grads)
    v = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, v, grads)
    params = jax.tree.map(lambda p, m, v: p - 1e-3 * m / (jnp.sqrt(v) + 1e-8), params, m, v)
    return m, v, params  # state first


def main() -> None:
    shapes = {"w1": (512, 512), "b1": (512,), "w2": (512, 512)}

    def state(value: float) -> dict[str, jax.Array]:
        return {k: jnp.full(s, value) for k, s in shapes.items()}

    step = jud.jit(adam_step, donate_argnums=(0, 1, 2))
    print(step.explain(state(1.0), state(0.0), state(0.0), state(0.5)))

    params = state(1.0)
    before = params["w1"].unsafe_buffer_pointer()
    _m, _v, params = step(params, state(0.0), state(0.0), state(0.5))
    print("\nthe new params['w1'] reuses the donated params['w1'] buffer:",
          params["w1"].unsafe_buffer_pointer() == before)

if __name__ == "__main__":
    main()
