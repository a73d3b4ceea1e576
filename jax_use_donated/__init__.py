"""jax-use-donated: liveness-aware buffer donation for JAX programs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jax_use_donated.analysis.errors import DonationError
from jax_use_donated.diagnostics import (
    DonationWarning,
    UnusableDonationWarning,
    WastedDonationWarning,
)

if TYPE_CHECKING:
    from jax_use_donated.dropin import (
        Advice,
        CallPlan,
        DonatingJit,
        DonationReport,
        DonorRow,
        LeafDonation,
        PlannerOptions,
        Suggestion,
        advise,
        enabled,
        explain,
        install,
        installed,
        is_planned,
        jit,
        plan,
        recent_plans,
        uninstall,
    )

# The jit front end imports JAX (about 3 s); the opt driver, the xDSL pass and `xdsl-opt`'s
# entry point import this package too and must not pay for it: load lazily.
_LAZY = frozenset({
    "Advice", "CallPlan", "DonatingJit", "DonationReport", "DonorRow", "LeafDonation",
    "PlannerOptions", "Suggestion", "advise", "enabled", "explain", "install", "installed",
    "is_planned", "jit", "plan", "recent_plans", "uninstall",
})


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'jax_use_donated' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module("jax_use_donated.dropin"), name)
    globals()[name] = value
    return value


__all__ = [
    "Advice",
    "CallPlan",
    "DonatingJit",
    "DonationError",
    "DonationReport",
    "DonationWarning",
    "DonorRow",
    "LeafDonation",
    "PlannerOptions",
    "Suggestion",
    "UnusableDonationWarning",
    "WastedDonationWarning",
    "advise",
    "enabled",
    "explain",
    "install",
    "installed",
    "is_planned",
    "jit",
    "plan",
    "recent_plans",
    "uninstall",
]
