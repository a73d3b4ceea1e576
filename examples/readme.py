import jax.numpy as jnp

import jax_use_donated as jud


def adam_step(params, m, v, g):  # returns the optimizer state first, the params last
    m = 0.9 * m + 0.1 * g
    v = 0.999 * v + 0.001 * g * g
    return m, v, params - 1e-3 * m / (jnp.sqrt(v) + 1e-8)


step = jud.jit(adam_step, donate_argnums=(0, 1, 2))  # same API as jax.jit
x = jnp.ones((512, 512))
print(step.explain(x, x, x, x))
