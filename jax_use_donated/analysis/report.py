"""The ``--donation-report`` table of ``jax-donate-opt``, shared by its xDSL and jaxlib paths."""

from __future__ import annotations

from collections.abc import Sequence

from jax_use_donated.analysis.model import FunctionModel
from jax_use_donated.analysis.plan import DonationPlan


def format_bytes(n: int | None) -> str:
    """``512 B``, ``16.0 KiB``; ``?`` for dynamic shapes."""
    if n is None:
        return "?"
    if n < 1024:
        return f"{n} B"
    size = float(n)
    for unit in ("KiB", "MiB", "GiB"):
        size /= 1024
        if size < 1024 or unit == "GiB":
            return f"{size:.1f} {unit}"
    return f"{size:.1f} GiB"


def donation_report(plans: Sequence[tuple[FunctionModel, DonationPlan]]) -> str:
    """A readable per-donor table: argument, type, bytes, JAX's pairing, ours, reason."""
    lines: list[str] = []
    for fn, plan in plans:
        header = ("argument", "type", "bytes", "jax", "ours", "reason")
        rows: list[tuple[str, ...]] = []
        for v in plan.verdicts:
            arg = v.arg
            jax = "-" if v.jax_result is None else f"result {v.jax_result}"
            if arg.donation.alias_index is not None:
                jax = f"result {arg.donation.alias_index}"
            ours = "-" if v.result is None else f"result {v.result}"
            nbytes = arg.tensor.nbytes if arg.tensor is not None else None
            reason = v.reason.value + (" (unused)" if v.unused else "")
            rows.append((f"{arg.display_name} (%arg{arg.index})", arg.type_text,
                         format_bytes(nbytes), jax, ours, reason))
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        fmt = "  ".join(f"{{:<{w}}}" for w in widths)
        ours_bytes = plan.aliased_bytes(fn)
        jax_pairs = {a.index: a.donation.alias_index for a in fn.donors
                     if a.donation.alias_index is not None} or plan.jax_pairs
        jax_bytes = 0
        for d in jax_pairs:
            tensor = fn.args[d].tensor
            jax_bytes += (tensor.nbytes or 0) if tensor is not None else 0
        lines.append(f"donation report for @{fn.name} ({plan.ordering} ordering): "
                     f"{len(plan.pairs)}/{len(plan.verdicts)} donors reused, "
                     f"{format_bytes(ours_bytes)} aliased (input pairing: "
                     f"{format_bytes(jax_bytes)}, not checked for safety)")
        lines.append(fmt.format(*header).rstrip())
        lines.extend(fmt.format(*r).rstrip() for r in rows)
        for v in plan.unpaired:
            lines.append(f"  {v.arg.display_name}: {v.message}")
    return "\n".join(lines) + ("\n" if lines else "")
