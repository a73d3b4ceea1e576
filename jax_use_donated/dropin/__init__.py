"""The jit front end: a ``jax.jit`` drop-in and a switch for every jit, planned by liveness.

Rooms: :mod:`.api` (``jit``, ``plan``, ``explain``), :mod:`.switch` (``install``,
``uninstall``, ``enabled``), :mod:`.jax_internals` (the only module that knows JAX internals),
:mod:`.planner` (what happens at each lowering and compilation), :mod:`.records` (plans kept
per lowering), :mod:`.report` (the explain table), :mod:`.options` (the planner options and
their text form).
"""

from jax_use_donated.dropin.api import (
    DonatingJit,
    explain,
    is_planned,
    jit,
    jit_with_forced_pairs,
    plan,
    planner_options,
)
from jax_use_donated.dropin.explain import DonationReport, DonorRow
from jax_use_donated.dropin.options import PlannerOptions
from jax_use_donated.dropin.records import CallPlan, LeafDonation, LoweringRecord, recent_plans
from jax_use_donated.dropin.switch import enabled, install, installed, uninstall

__all__ = [
    "CallPlan",
    "DonatingJit",
    "DonationReport",
    "DonorRow",
    "LeafDonation",
    "LoweringRecord",
    "PlannerOptions",
    "enabled",
    "explain",
    "install",
    "installed",
    "is_planned",
    "jit",
    "jit_with_forced_pairs",
    "plan",
    "planner_options",
    "recent_plans",
    "uninstall",
]
