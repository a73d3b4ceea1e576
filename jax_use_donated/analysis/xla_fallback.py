"""What an unpaired donor keeps when the consumer is XLA.

XLA honours an alias pair even when it is unsafe, by inserting a copy; so for XLA, keeping
JAX's own choice for a donor the plan could not pair never costs more than JAX's default, and
can still save an output allocation. Backends that take aliases as forced in-place results
(IREE) must not get these pairs: the rewrite applies this module only for XLA (the jit hook
always; the xDSL pass with ``xla-fallback=true``).

Rules, for each donor the plan left unpaired:

* JAX aliased it to result ``k`` (``tf.aliasing_output = k``), the donor is read somewhere and
  no planned pair took ``k``: keep ``d -> k``; XLA copies.
* JAX left it a ``jax.buffer_donor`` and no result has its type: keep the mark, so XLA may
  still reuse the buffer for an output of the same byte size (JAX's own fallback).
* with ``keep_unpaired`` every other unpaired donor stays a ``jax.buffer_donor`` too.
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from dataclasses import dataclass, field

from jax_use_donated.analysis.plan import DonationPlan, Reason


@dataclass
class XlaFallback:
    kept_pairs: dict[int, int] = field(default_factory=dict)
    """Unpaired donor -> the result JAX gave it, for which XLA inserts a copy."""
    buffer_donors: list[int] = field(default_factory=list)
    """Unpaired donors left as ``jax.buffer_donor``."""
    notes: dict[int, str] = field(default_factory=dict)
    """Donor -> what it keeps, worded to follow its verdict message."""

    def all_pairs(self, plan: DonationPlan) -> dict[int, int]:
        """The alias pairs the executable gets: the plan's and the kept ones."""
        return dict(sorted({**plan.pairs, **self.kept_pairs}.items()))


def xla_fallback(
    plan: DonationPlan,
    jax_aliases: Mapping[int, int],
    jax_buffer_donors: Container[int],
    keep_unpaired: bool = False,
) -> XlaFallback:
    """Apply the rules of the module docstring to ``plan``'s unpaired donors.

    ``jax_aliases`` is JAX's ``tf.aliasing_output`` per argument; ``jax_buffer_donors`` the
    arguments JAX marked ``jax.buffer_donor``.
    """
    out = XlaFallback()
    taken = set(plan.pairs.values())
    for v in plan.unpaired:
        d = v.arg.index
        k = jax_aliases.get(d)
        if k is not None and k not in taken and not v.unused:
            out.kept_pairs[d] = k
            taken.add(k)
            out.notes[d] = f"it keeps JAX's pairing with result {k}, for which XLA inserts a copy"
        elif keep_unpaired or (v.reason is Reason.NO_COMPATIBLE_RESULT and d in jax_buffer_donors):
            out.buffer_donors.append(d)
            out.notes[d] = ("it stays a jax.buffer_donor, which XLA may reuse for an output of "
                            "the same size")
    return out
