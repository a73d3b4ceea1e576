"""Shared fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture
def fresh_jax_caches() -> Iterator[None]:
    """Clear JAX's tracing, lowering and compilation caches before the test: a drop-in shares
    JAX's caches, so a function already lowered by another test is not lowered (nor planned,
    nor warned about) again."""
    import jax

    jax.clear_caches()
    yield
