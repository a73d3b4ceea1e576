"""What differs between the JAX/jaxlib releases this project supports (0.10.2 to 0.12.x), for
tests whose expectations depend on the installed version.

Each entry was measured on 0.10.2 (Python 3.11), 0.11.2, 0.12.0.1 and 0.12.1 (Python 3.12); op
registrations also on the 0.11.0 and 0.11.1 wheels.
"""

from __future__ import annotations

from importlib.metadata import version

import jax

from jax_use_donated.analysis.xla_release import version_tuple

JAX: tuple[int, ...] = version_tuple(jax.__version__)
JAXLIB: tuple[int, ...] = version_tuple(version("jaxlib"))

OPS_SINCE: dict[str, tuple[int, ...]] = {
    "stablehlo.collective_reduce": (0, 11, 1),
    "stablehlo.exp2": (0, 12, 1),
    "stablehlo.fma": (0, 12, 1),
    "stablehlo.log2": (0, 12, 1),
}
"""Ops our dialects define that jaxlib registers only from this version on (read from the
generated bindings, ``jaxlib/mlir/dialects/_stablehlo_ops_gen.py``, of each release's wheel)."""


def jaxlib_has_op(name: str) -> bool:
    """Whether the installed jaxlib registers ``name`` (by :data:`OPS_SINCE`; other ops: yes)."""
    return OPS_SINCE.get(name, (0,)) <= JAXLIB


LOWERS_LGAMMA_TO_CHLO: bool = JAX < (0, 12)
"""JAX 0.12 lowers ``lax.lgamma`` to a private ``@lgamma_impl`` function of StableHLO
arithmetic instead of ``chlo.lgamma``."""

LOWERS_SPECIAL_FUNCTIONS_ON_CPU_TO_FFI: bool = JAX >= (0, 12, 1)
"""JAX 0.12.1 lowers ``lgamma`` and ``digamma`` on CPU to ``stablehlo.custom_call
@cpu_lgamma_ffi`` / ``@cpu_digamma_ffi`` (no ``@lgamma_impl``, no ``chlo.digamma``), and
``erf_inv`` and ``bessel_i1e`` to StableHLO arithmetic with ``stablehlo.fma`` (no
``chlo.erf_inv``, no ``chlo.bessel_i1e``)."""
