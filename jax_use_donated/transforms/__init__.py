"""xDSL passes: ``jax-plan-donation`` (rewrite), ``jax-verify-donation`` (check) and
``jax-reuse-donated-destinations`` (destination passing)."""

from jax_use_donated.transforms.plan_donation import (
    JaxPlanDonation,
    JaxVerifyDonation,
    record_plans,
)

__all__ = ["JaxPlanDonation", "JaxVerifyDonation", "record_plans"]
