"""The jit front end: a ``jax.jit`` drop-in and a switch for every jit, planned by liveness.

Rooms: :mod:`.api` (``jit``, ``plan``, ``explain``), :mod:`.switch` (``install``,
``uninstall``, ``enabled``), :mod:`.jax_internals` (the only module that knows JAX internals),
:mod:`.planner` (what happens at each lowering and compilation), :mod:`.records` (plans kept
per lowering), :mod:`.report` (the explain table), :mod:`.options` (the planner options and
their text form), :mod:`.advice` (``advise``: donations measured before they are advised),
:mod:`.variants` (a call re-compiled with other leaves donated), :mod:`.picture` (the plan as
a figure and an HTML page).
"""

from jax_use_donated.dropin.advice import Advice, Suggestion, advise
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
from jax_use_donated.dropin.picture import PictureData
from jax_use_donated.dropin.records import CallPlan, LeafDonation, LoweringRecord, recent_plans
from jax_use_donated.dropin.switch import enabled, install, installed, uninstall

__all__ = [
    "Advice",
    "CallPlan",
    "DonatingJit",
    "DonationReport",
    "DonorRow",
    "LeafDonation",
    "LoweringRecord",
    "PictureData",
    "PlannerOptions",
    "Suggestion",
    "advise",
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
