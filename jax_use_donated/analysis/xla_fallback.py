"""What an unpaired donor keeps when the consumer is XLA.

XLA honours an alias pair even when it is unsafe, by inserting a copy; so for XLA, keeping
JAX's own choice for a donor the plan could not pair never costs more than JAX's default, and
can still save an output allocation. Backends that take aliases as forced in-place results
(IREE) must not get these pairs: the rewrite applies this module only for XLA (the jit hook
always; the xDSL pass with ``xla-fallback=true``).

Rules, for each donor the plan left unpaired:

* JAX aliased it to result ``k`` (``tf.aliasing_output = k``), the donor is read somewhere and
  no planned pair took ``k``: keep ``d -> k``; XLA copies.
* JAX left it a ``jax.buffer_donor`` and no result has its type, or (unsharded functions,
  where the sizes XLA compares are known) for any reason: keep the mark, so XLA may still
  reuse the buffer for an output of the same byte size (JAX's own fallback), unless
  XLA's size matching would give it a result it cannot host without a copy. XLA's
  ``OptimizeInputOutputBufferAlias`` is simulated exactly (:func:`xla_size_matching`): donors
  and unaliased results each stably sorted by byte size, largest first, matched by two
  pointers on equal sizes; a mark whose match is unsafe by the plan's pair rule is dropped,
  and the matching is redone for the rest.
* with ``keep_unpaired`` every other unpaired donor stays a ``jax.buffer_donor`` too, whatever
  XLA then matches it with (the user's choice).
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
        elif keep_unpaired or (d in jax_buffer_donors and (
                v.reason is Reason.NO_COMPATIBLE_RESULT or _sizes_known(plan))):
            out.buffer_donors.append(d)
            out.notes[d] = ("it stays a jax.buffer_donor, which XLA may reuse for an output of "
                            "the same size")
    if not keep_unpaired:
        _drop_unsafe_buffer_donors(plan, out)
    return out


def _sizes_known(plan: DonationPlan) -> bool:
    """Whether the byte sizes XLA's size matching compares are the model's: no sharded
    argument or result (XLA matches per-device shards, whose output shapes may be unknown
    before partitioning)."""
    fn = plan.checker.fn if plan.checker is not None else None
    return fn is not None and not any(
        t.placement.sharding is not None for t in [*fn.args, *fn.results])


def xla_size_matching(donors: list[tuple[int, int]], results: list[tuple[int, int]],
                      ) -> dict[int, int]:
    """XLA's ``OptimizeInputOutputBufferAlias::Build`` for one memory space: ``donors`` are
    ``(argument, bytes)`` in parameter order, ``results`` ``(result, bytes)`` of the unaliased
    outputs in output order; returns argument -> result."""
    ds = sorted(donors, key=lambda t: -t[1])
    rs = sorted(results, key=lambda t: -t[1])
    i = j = 0
    pairs: dict[int, int] = {}
    while i < len(ds) and j < len(rs):
        if ds[i][1] > rs[j][1]:
            i += 1
        elif ds[i][1] < rs[j][1]:
            j += 1
        else:
            pairs[ds[i][0]] = rs[j][0]
            i += 1
            j += 1
    return pairs


def _drop_unsafe_buffer_donors(plan: DonationPlan, out: XlaFallback) -> None:
    """Remove the ``jax.buffer_donor`` marks XLA would match with a result the donor cannot
    host without a copy (see the module docstring)."""
    checker = plan.checker
    if checker is None or not out.buffer_donors:
        return
    fn = checker.fn
    if any(r.tensor is None or r.tensor.nbytes is None for r in fn.results):
        return  # XLA does no size matching for dynamic outputs
    aliased = set(out.all_pairs(plan).values())
    results = [(r.index, r.tensor.nbytes) for r in fn.results
               if r.index not in aliased and r.tensor is not None and r.tensor.nbytes is not None]
    while True:
        donors = [(d, fn.args[d].nbytes) for d in out.buffer_donors]
        matched = xla_size_matching(donors, results)
        unsafe = next((d for d, k in sorted(matched.items()) if not checker.is_safe(d, k)), None)
        if unsafe is None:
            return
        out.buffer_donors.remove(unsafe)
        out.notes[unsafe] = (f"it is not marked jax.buffer_donor: XLA would give it result "
                             f"{matched[unsafe]} by size, which it cannot host without a copy")
