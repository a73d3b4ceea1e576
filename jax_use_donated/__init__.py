"""jax-use-donated: liveness-aware buffer donation for JAX programs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jax_use_donated.analysis.errors import DonationError
from jax_use_donated.diagnostics import DonationWarning

if TYPE_CHECKING:
    from jax_use_donated.jit_hook import CallPlan, DonatingJit, LeafDonation, jit
    from jax_use_donated.report import DonationReport, DonorRow, explain

# The jit hook and the report import JAX (about 3 s); the opt driver, the xDSL pass and
# `xdsl-opt`'s entry point import this package too and must not pay for it: load lazily.
_LAZY = {
    "CallPlan": "jax_use_donated.jit_hook",
    "DonatingJit": "jax_use_donated.jit_hook",
    "LeafDonation": "jax_use_donated.jit_hook",
    "jit": "jax_use_donated.jit_hook",
    "DonationReport": "jax_use_donated.report",
    "DonorRow": "jax_use_donated.report",
    "explain": "jax_use_donated.report",
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
    "CallPlan",
    "DonatingJit",
    "DonationError",
    "DonationReport",
    "DonationWarning",
    "DonorRow",
    "LeafDonation",
    "explain",
    "jit",
]
