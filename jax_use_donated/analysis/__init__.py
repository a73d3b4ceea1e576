"""The donation rules, independent of any IR library (see :mod:`.model`)."""

from jax_use_donated.analysis.errors import DonationError, read_donation, validate_function
from jax_use_donated.analysis.model import (
    Arg,
    Donation,
    DonationKind,
    DotDims,
    FunctionModel,
    Op,
    Placement,
    Result,
    SourceLoc,
    TensorInfo,
)
from jax_use_donated.analysis.orderings import (
    ORDERINGS,
    Ordering,
    OrderingModel,
    ordering_for,
    ordering_model,
)
from jax_use_donated.analysis.plan import (
    DonationPlan,
    DonorVerdict,
    Reason,
    jax_greedy_pairing,
    plan_donation,
    predict_pairing,
)

__all__ = [
    "ORDERINGS",
    "Arg",
    "Donation",
    "DonationError",
    "DonationKind",
    "DonationPlan",
    "DonorVerdict",
    "DotDims",
    "FunctionModel",
    "Op",
    "Ordering",
    "OrderingModel",
    "Placement",
    "Reason",
    "Result",
    "SourceLoc",
    "TensorInfo",
    "jax_greedy_pairing",
    "ordering_for",
    "ordering_model",
    "plan_donation",
    "predict_pairing",
    "read_donation",
    "validate_function",
]
