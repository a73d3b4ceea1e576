"""The rules every adapter follows when it builds a :class:`.model.FunctionModel`, free of any
IR library: each adapter (:mod:`..adapters.xdsl_ir`, :mod:`..adapters.jaxlib_ir`,
:mod:`..adapters.jax_text`) keeps only the walk over its own IR API and asks these for what
the walk found.

* :func:`xla_region`: which region XLA runs in an op's place (``Op.xla_body``);
"""

from __future__ import annotations

MANUAL_COMPUTATION = "sdy.manual_computation"
CASE = "stablehlo.case"


def xla_region(op_name: str, regions: int, index: int | None) -> int | None:
    """The region XLA runs in place of an op named ``op_name`` with ``regions`` regions, or
    ``None`` (the op stays one op). ``index``: the op's first operand when it is a scalar
    integer constant, else ``None``.

    * ``sdy.manual_computation`` (``shard_map``): its body, region 0: after SPMD partitioning
      the body is the per-device program, its block arguments the operands' shards;
    * ``stablehlo.case`` with a constant index ``i``: branch ``i``, or the last branch when
      ``i`` is out of range (StableHLO's rule); XLA's conditional simplifier inlines it.

    ``xla_region("stablehlo.case", 2, 0) == 0``; ``xla_region("stablehlo.case", 2, 7) == 1``;
    ``xla_region("stablehlo.case", 2, None) is None``.
    """
    if regions <= 0:
        return None
    if op_name == MANUAL_COMPUTATION:
        return 0
    if op_name == CASE and index is not None:
        return index if 0 <= index < regions else regions - 1
    return None
