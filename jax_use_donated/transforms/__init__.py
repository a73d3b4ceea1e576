"""xDSL passes: ``jax-use-donated-arguments`` (rewrite) and ``jax-verify-donation`` (check)."""

from jax_use_donated.transforms.use_donated_arguments import (
    JaxUseDonatedArguments,
    JaxVerifyDonation,
    record_plans,
)

__all__ = ["JaxUseDonatedArguments", "JaxVerifyDonation", "record_plans"]
