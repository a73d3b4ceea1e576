"""The rules every adapter follows when it builds a :class:`.model.FunctionModel`, free of any
IR library: each adapter (:mod:`..adapters.xdsl_ir`, :mod:`..adapters.jaxlib_ir`,
:mod:`..adapters.jax_text`) keeps only the walk over its own IR API and asks these for what
the walk found.

* :func:`xla_region`: which region XLA runs in an op's place (``Op.xla_body``);
* :func:`element_bits`: bits per element of an element type, by its text;
* :func:`placement`: the placement of an argument or result from its attributes;
* :func:`loop_trips`: how many times a counted ``stablehlo.while`` runs (``Op.max_trips`` and
  the exact 0 or 1 of :func:`.liveness.short_loop_forwards`);
* :func:`dot_dims`: a ``dot_general``'s dimension numbers (``Op.dot_dims``) from the printed
  op or attribute; :func:`relaid_dot_operands`, which of its operands XLA:CPU transposes
  batch-major first (read by :func:`.liveness.fusion_facts`).

Argument donations are read by :func:`.errors.read_donation`, callee summaries kept by
:class:`.liveness.CalleeSummaries`, calls inlined by :mod:`.inline`, identical ops merged by
:mod:`.cse`: every adapter calls those too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from jax_use_donated.analysis.model import (
    LAYOUT_ATTR,
    MEMORY_KIND_ATTR,
    SHARDING_ATTRS,
    DotDims,
    Placement,
)

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


_BITS = re.compile(r"(?:i|si|ui|f|bf)(\d+)")


def element_bits(element: str) -> int | None:
    """Bits per element of the element type printed as ``element``: ``f32`` 32, ``i1`` 1,
    ``bf16`` 16, ``f8E4M3FN`` 8, ``complex<f32>`` 64, ``index`` 64; ``None`` for any other."""
    if element == "index":
        return 64
    if element.startswith("complex<") and element.endswith(">"):
        inner = element_bits(element[8:-1])
        return None if inner is None else 2 * inner
    m = _BITS.match(element)
    return int(m.group(1)) if m else None


def placement(attribute: Callable[[str], str | None]) -> Placement:
    """The :class:`.model.Placement` of an argument or result whose attribute named ``name``
    prints as ``attribute(name)`` (``None``: absent; a string attribute gives its value):
    sharding (``mhlo.sharding``, else ``sdy.sharding``), memory kind and layout mode."""
    sharding = None
    for name in SHARDING_ATTRS:
        sharding = attribute(name)
        if sharding is not None:
            break
    return Placement(sharding, attribute(MEMORY_KIND_ATTR), attribute(LAYOUT_ATTR))


def loop_trips(start: int, stop: int, counts_up_by_one: Callable[[], bool]
               ) -> tuple[int, int | None]:
    """``(max_trips, exact_trips)`` of a ``stablehlo.while`` whose condition is ``counter <
    stop`` for a counter starting at ``start``: at most ``stop - start`` trips (0 when
    negative); exactly 0 when none, exactly 1 when one is allowed and the body returns
    ``counter + 1`` as the counter (``counts_up_by_one()``, asked only then), else unknown
    (JAX's ``fori_loop(0, 1, ...)`` is exactly 1).

    ``loop_trips(0, 1, lambda: True) == (1, 1)``; ``loop_trips(0, 8, f) == (8, None)``."""
    most = max(0, stop - start)
    if most == 0:
        return 0, 0
    if most == 1 and counts_up_by_one():
        return 1, 1
    return most, None


_PRETTY = {"batching": re.compile(r"\bbatching_dims = \[([\d, ]*)\] x \[([\d, ]*)\]"),
           "contracting": re.compile(r"\bcontracting_dims = \[([\d, ]*)\] x \[([\d, ]*)\]")}
_ATTRIBUTE = re.compile(r"\b(lhs|rhs)_(batching|contracting)_dimensions = \[([\d, ]*)\]")


def _dims(text: str | None) -> tuple[int, ...]:
    return tuple(int(d) for d in text.split(",") if d.strip()) if text else ()


def dot_dims(dimension_numbers: str) -> DotDims:
    """A ``dot_general``'s :class:`.model.DotDims` from its dimension numbers as printed: the
    op's pretty form (``batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3]``) or
    the attribute (``#stablehlo.dot<lhs_batching_dimensions = [0, 2], ...>``); absent: ``()``.

    ``dot_dims("batching_dims = [0] x [1], contracting_dims = [2] x [0]")`` is
    ``DotDims((0,), (1,), (2,), (0,))``."""
    found: dict[str, tuple[int, ...]] = {}
    for kind, pattern in _PRETTY.items():
        m = pattern.search(dimension_numbers)
        if m is not None:
            found[f"lhs_{kind}"], found[f"rhs_{kind}"] = _dims(m.group(1)), _dims(m.group(2))
    if not found:
        for side, kind, dims in _ATTRIBUTE.findall(dimension_numbers):
            found[f"{side}_{kind}"] = _dims(dims)
    return DotDims(found.get("lhs_batching", ()), found.get("rhs_batching", ()),
                   found.get("lhs_contracting", ()), found.get("rhs_contracting", ()))


def relaid_dot_operands(dims: DotDims, ranks: Sequence[int | None]
                        ) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """The operands of a ``dot_general`` with these dimension numbers (and operands of these
    ``ranks``) that XLA:CPU transposes into a buffer of their own before the dot, each as
    ``(operand position, permutation)``: those whose batching dimensions are not their
    leading dimensions in order. ``DotDecomposer`` makes such a dot canonical: the left
    operand ``batch + free + contracting``, the right one ``batch + contracting + free``
    (dimensions in the order the dimension numbers list them, the free ones ascending). Two
    dots that transpose one value alike share one transpose (XLA's CSE), which runs before
    the first of them.

    Measured (XLA:CPU, jaxlib 0.10.2 and 0.12.1), multi-head attention with ``q, k, v = x +
    b``: ``einsum("bthd,bshd->bhts", q, k)`` transposes ``q`` to ``bhtd`` and ``k`` to
    ``bhds``; the backward dot for ``q``'s gradient transposes ``k`` to ``bhsd``, a second
    ``transpose_copy_fusion`` that recomputes ``x + b_k`` where that dot runs, late: XLA copies
    ``b_k``. ``q``'s and ``v``'s backward dots transpose them as their forward ones did and
    share those: ``b_q`` and ``b_v`` are read early, copy-free. A dot whose batch dimensions
    lead (``"bhtd,bhsd->bhts"``, ``"btd,bds->bts"``, whatever the contracting ones) or that has
    none reads its operands' own buffers.

    ``relaid_dot_operands(DotDims((0, 2), (0, 2), (3,), (3,)), (4, 4))`` is
    ``((0, (0, 2, 1, 3)), (1, (0, 2, 3, 1)))``."""
    out: list[tuple[int, tuple[int, ...]]] = []
    sides = ((dims.lhs_batching, dims.lhs_contracting), (dims.rhs_batching, dims.rhs_contracting))
    for position, ((batching, contracting), rank) in enumerate(zip(sides, ranks, strict=False)):
        if rank is None or batching == tuple(range(len(batching))):
            continue
        free = tuple(d for d in range(rank) if d not in batching and d not in contracting)
        out.append((position, batching + (free + contracting if position == 0
                                          else contracting + free)))
    return tuple(out)
