"""jax-use-donated: liveness-aware buffer donation for JAX programs."""
