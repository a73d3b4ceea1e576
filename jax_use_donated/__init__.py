"""jax-use-donated: liveness-aware buffer donation for JAX programs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jax_use_donated.analysis.errors import DonationError
from jax_use_donated.diagnostics import DonationWarning

if TYPE_CHECKING:
    from jax_use_donated.explain import DonationReport, DonorRow, explain
    from jax_use_donated.jit import DonatingJit, jit

# The jit hook and the report import JAX (about 3 s); the opt driver, the xDSL pass and
# `xdsl-opt`'s entry point import this package too and must not pay for it: load lazily.
_LAZY = {
    "DonatingJit": "jax_use_donated.jit",
    "jit": "jax_use_donated.jit",
    "DonationReport": "jax_use_donated.explain",
    "DonorRow": "jax_use_donated.explain",
    "explain": "jax_use_donated.explain",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'jax_use_donated' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "DonatingJit",
    "DonationError",
    "DonationReport",
    "DonationWarning",
    "DonorRow",
    "explain",
    "jit",
]
