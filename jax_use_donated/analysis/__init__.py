"""The donation rules, independent of any IR library (see :mod:`.model`)."""

from jax_use_donated.analysis.errors import DonationError, read_donation, validate_function
from jax_use_donated.analysis.model import (
    Arg,
    Donation,
    DonationKind,
    FunctionModel,
    Op,
    Placement,
    Result,
    SourceLoc,
    TensorInfo,
)
from jax_use_donated.analysis.plan import (
    DonationPlan,
    DonorVerdict,
    Ordering,
    Reason,
    jax_greedy_pairing,
    plan_donation,
)

__all__ = [
    "Arg",
    "Donation",
    "DonationError",
    "DonationKind",
    "DonationPlan",
    "DonorVerdict",
    "FunctionModel",
    "Op",
    "Ordering",
    "Placement",
    "Reason",
    "Result",
    "SourceLoc",
    "TensorInfo",
    "jax_greedy_pairing",
    "plan_donation",
    "read_donation",
    "validate_function",
]
