"""Benchmarks of jax-use-donated (not part of the package)."""
