"""xDSL dialects for the MLIR JAX emits.

- ``stablehlo``: every op of jaxlib's StableHLO dialect (:mod:`jax_use_donated.dialects.stablehlo`).
- ``chlo``: the client HLO ops JAX emits (``top_k``, ``erf``, ``lgamma``...; :mod:`jax_use_donated.dialects.chlo`).
- ``sdy``: Shardy sharding ops and attributes (:mod:`jax_use_donated.dialects.sdy`).

:func:`get_all_dialects` maps each name to a factory that imports its module on first use,
so loading one dialect never imports the others.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Dialect


def _stablehlo() -> Dialect:
    from jax_use_donated.dialects.stablehlo import StableHLO

    return StableHLO


def _chlo() -> Dialect:
    from jax_use_donated.dialects.chlo import CHLO  # pyright: ignore[reportMissingImports, reportUnknownVariableType]

    return CHLO  # pyright: ignore[reportUnknownVariableType]


def _sdy() -> Dialect:
    from jax_use_donated.dialects.sdy import Sdy  # pyright: ignore[reportMissingImports, reportUnknownVariableType]

    return Sdy  # pyright: ignore[reportUnknownVariableType]


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    """``{"stablehlo": factory, "chlo": factory, "sdy": factory}`` for ``Context.register_dialect``."""
    return {"stablehlo": _stablehlo, "chlo": _chlo, "sdy": _sdy}
