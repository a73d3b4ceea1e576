"""The planner's options, and their text form.

The options travel through JAX as text: as the value of a compiler option that the drop-in adds
to its ``jax.jit`` (stripped again before XLA sees it, see :mod:`.jax_internals`) and as the
value of the global switch's JAX config state. JAX puts both into its cache keys, so a lowering
planned with one set of options is never served to a call that asked for another, or for none.

>>> PlannerOptions(strict=True).encode()
'v1;strict=1'
>>> PlannerOptions.decode('v1;strict=1;fn=7') == PlannerOptions(strict=True, token='7')
True
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

_VERSION = "v1"


class OptionsError(ValueError):
    """A text that is not an encoding of :class:`PlannerOptions`."""


@dataclass(frozen=True)
class PlannerOptions:
    """How the liveness planner treats one lowering."""

    strict: bool = False
    """Raise :class:`~jax_use_donated.analysis.DonationError` when a donation cannot be
    honoured (default: one :class:`~jax_use_donated.DonationWarning` per donor)."""
    keep_unpaired_donors: bool = False
    """Leave ``jax.buffer_donor`` on unpaired donors, so XLA may still reuse them by size."""
    verify_executable: bool = False
    """Also compare the compiled executable's ``input_output_alias`` with the plan, and warn
    where a donor's measured outcome (measured after every compile, ``last_plan`` shows it)
    contradicts the prediction."""
    warn: bool = True
    """Emit warnings for donations that cannot be honoured (``False``: only record them)."""
    region_analysis: bool = True
    """On XLA:CPU, compile with ``xla_cpu_copy_insertion_use_region_analysis=True`` (unless the
    user's compiler options or ``XLA_FLAGS`` set it) and plan with the matching ordering, where
    the plan predicts it saves a copy: XLA then orders independent reads before the in-place
    write instead of copying. On by default: it removes every copy of a donated buffer in the
    MLP and LM train steps of ``benchmarks/real_models.py``; where the data-dependence plan is
    as good, the program compiles with XLA's default; ``False`` compiles as ``jax.jit`` does."""
    footprint_guard: bool = True
    """Where the plan compiles differently from ``jax.jit`` (other alias pairs, or region
    analysis), also compile JAX's own pairing with XLA's default options, once per lowering, on
    a thread beside the plan's compile (twice the compile CPU; about one compile's wall time
    where a core is free), and keep whichever executable needs fewer bytes (arguments, unaliased outputs,
    temporaries): the drop-in's footprint is never above ``jax.jit``'s (``False``: one
    compile, ours)."""
    forced_pairs: tuple[tuple[int, int], ...] | None = None
    """Benchmarks only: write exactly these ``@main`` alias pairs and skip the analysis."""
    token: str = ""
    """Which drop-in function this lowering belongs to (attribution of records only; it never
    changes the plan)."""

    def encode(self) -> str:
        """The text form: ``v1`` then ``;name=value`` for every field not at its default."""
        parts = [_VERSION]
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value == f.default:
                continue
            if f.name == "forced_pairs":
                text = ",".join(f"{a}:{b}" for a, b in value)
            elif f.name == "token":
                parts.append(f"fn={value}")
                continue
            else:
                text = "1" if value else "0"
            parts.append(f"{f.name}={text}")
        return ";".join(parts)

    @classmethod
    def decode(cls, text: str) -> PlannerOptions:
        """Inverse of :meth:`encode`; raises :class:`OptionsError` on anything else."""
        head, *items = text.split(";")
        if head != _VERSION:
            raise OptionsError(f"not a jax_use_donated planner option text: {text!r}")
        values: dict[str, object] = {}
        names = {f.name for f in dataclasses.fields(cls)}
        for item in items:
            name, sep, value = item.partition("=")
            if not sep:
                raise OptionsError(f"malformed item {item!r} in {text!r}")
            if name == "fn":
                values["token"] = value
            elif name == "forced_pairs":
                try:
                    values[name] = tuple(
                        (int(a), int(b)) for a, b in (p.split(":") for p in value.split(",") if p))
                except ValueError as e:
                    raise OptionsError(f"malformed forced_pairs {value!r}") from e
            elif name in names and value in ("0", "1"):
                values[name] = value == "1"
            else:
                raise OptionsError(f"unknown item {item!r} in {text!r}")
        return cls(**values)  # type: ignore[arg-type]

    def with_token(self, token: str) -> PlannerOptions:
        return dataclasses.replace(self, token=token)
