"""The IR-neutral model of one function that the donation rules work on.

Adapters (``jax_use_donated.adapters.xdsl_ir`` for xDSL, ``jax_use_donated.adapters.jaxlib_ir``
for jaxlib's in-memory MLIR module) build a :class:`FunctionModel` from a ``func.func``; every
rule in :mod:`jax_use_donated.analysis` reads only this model, so both front ends share one
implementation of the rules.

Invariants (checked by :func:`FunctionModel.check`):

* values are small integers, each defined exactly once: by an argument or by one result of a
  top-level op;
* ``ops`` are the top-level ops of the function's single block, in block order, without the
  terminator; uses inside an op's nested regions of values defined outside that op are listed in
  ``Op.region_uses`` (attributed to the top-level op that contains them);
* ``results`` are the terminator's operands in order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import NamedTuple

ValueId = int
"""A value of the function: an argument or one result of a top-level op."""


@dataclass(frozen=True)
class SourceLoc:
    """Where something comes from, as far as the IR knows.

    ``text`` is a ready ``file:line:col`` for diagnostics (the user's Python line when JAX
    recorded it with ``debug_info=True``); ``name`` is a ``loc("name")`` label such as an
    argument's pytree path.
    """

    text: str | None = None
    name: str | None = None


@dataclass(frozen=True)
class TensorInfo:
    """A ranked tensor type, reduced to what the rules need.

    ``text`` is the exact printed type (``tensor<4x4xf32>``), which carries the encoding too;
    ``shape`` has ``None`` for dynamic dimensions; ``element_bits`` is ``None`` when unknown.
    """

    text: str
    shape: tuple[int | None, ...]
    element_type: str
    element_bits: int | None

    @property
    def nbytes(self) -> int | None:
        """Bytes of a dense buffer of this type, or ``None`` for dynamic shapes."""
        if self.element_bits is None or any(d is None for d in self.shape):
            return None
        count = 1
        for dim in self.shape:
            assert dim is not None
            count *= dim
        return (count * self.element_bits + 7) // 8


SHARDING_ATTRS = ("mhlo.sharding", "sdy.sharding")
MEMORY_KIND_ATTR = "mhlo.memory_kind"
LAYOUT_ATTR = "mhlo.layout_mode"
"""The argument and result attributes that make up a :class:`Placement`."""


@dataclass(frozen=True)
class Placement:
    """Attributes besides the type that must be identical for a donor to host a result
    (read from :data:`SHARDING_ATTRS`, :data:`MEMORY_KIND_ATTR` and :data:`LAYOUT_ATTR`)."""

    sharding: str | None = None
    memory_kind: str | None = None
    layout: str | None = None


class DonationKind(Enum):
    NONE = "none"
    BUFFER_DONOR = "jax.buffer_donor"
    ALIASING_OUTPUT = "tf.aliasing_output"


@dataclass(frozen=True)
class Donation:
    """What the input IR says about an argument's donation.

    ``alias_index`` is the result index of ``tf.aliasing_output`` (JAX's own pairing).
    """

    kind: DonationKind = DonationKind.NONE
    alias_index: int | None = None

    @property
    def donated(self) -> bool:
        return self.kind is not DonationKind.NONE


@dataclass
class Arg:
    """An entry-block argument of the function."""

    index: int
    value: ValueId
    tensor: TensorInfo | None
    """``None`` for a non-tensor argument (a token, a tuple, an unranked tensor)."""
    type_text: str
    placement: Placement = field(default_factory=Placement)
    donation: Donation = field(default_factory=Donation)
    loc: SourceLoc = field(default_factory=SourceLoc)
    handle: object = None
    """The adapter's own object, used to anchor diagnostics."""
    outer: ValueId | None = None
    """In the model of an op's region (:attr:`Op.xla_body`): the value of the enclosing
    function this argument stands for, when the region closes over it (``None``: a block
    argument of the region, bound to the op's operand at its position)."""

    @property
    def nbytes(self) -> int:
        """Bytes of the argument's buffer; 0 when not a static-shaped tensor."""
        return (self.tensor.nbytes or 0) if self.tensor is not None else 0

    @property
    def display_name(self) -> str:
        """The user's name for the argument (``loc("x")``), else ``%argN``."""
        return self.loc.name if self.loc.name else f"%arg{self.index}"


class DotDims(NamedTuple):
    """A ``dot_general``'s dimension numbers: ``einsum("bthd,bshd->bhts")`` is
    ``DotDims((0, 2), (0, 2), (3,), (3,))``."""

    lhs_batching: tuple[int, ...]
    rhs_batching: tuple[int, ...]
    lhs_contracting: tuple[int, ...]
    rhs_contracting: tuple[int, ...]


@dataclass(slots=True)
class Op:
    """A top-level op of the function body, with the facts the rules need.

    ``elementwise`` is ``True``/``False`` when the IR library knows the op's traits, ``None``
    when it does not (unregistered ops, jaxlib bindings): then the rules use their own tables.
    ``operand_aliases`` lists ``(result_index, operand_index)`` pairs the op declares it may
    write in place (``custom_call``'s ``output_operand_aliases``). ``call_forwards`` is set for
    calls whose callee was summarised, and for loops that surely run 0 or 1 times, whose body
    is summarised the same way (:func:`.liveness.short_loop_forwards`): result index -> operand
    indices it may return unchanged.
    """

    index: int
    name: str
    operands: list[ValueId]
    results: list[ValueId]
    operand_types: list[TensorInfo | None] = field(default_factory=list)
    result_types: list[TensorInfo | None] = field(default_factory=list)
    region_uses: list[ValueId] = field(default_factory=list)
    elementwise: bool | None = None
    operand_aliases: tuple[tuple[int, int], ...] = ()
    call_forwards: dict[int, tuple[int, ...]] | None = None
    target: str | None = None
    """``custom_call``'s ``call_target_name`` or ``func.call``'s callee, when present."""
    dps_inits: tuple[int, ...] = ()
    """Destination-passing ops (``linalg.*``, ``tensor.insert_slice``, ``scf.for``): the operand
    position of each result's destination (``outs`` init), in result order; the result is
    written into that operand's buffer."""
    same_index_operands: frozenset[int] = frozenset()
    """Operand positions a destination-passing op reads only at the element it writes (identity
    indexing maps equal to the destination's, every loop parallel): safe to overwrite in place."""
    max_trips: int | None = None
    """For a ``stablehlo.while`` whose bounds the adapter could read (a counter starting at a
    constant and compared ``LT`` with a constant): at most this many iterations."""
    pure_call: bool = False
    """A ``func.call`` whose callee has no side effects (:func:`.liveness.side_effect_free`):
    dead when nothing uses its results, as XLA inlines and removes it."""
    dot_dims: DotDims | None = None
    """A ``dot_general``'s batching and contracting dimensions (XLA transposes some batched
    dots' operands first: :func:`.building.relaid_dot_operands`)."""
    xla_body: Callable[[], FunctionModel | None] | None = None
    """The region XLA runs in this op's place, built on demand: a ``sdy.manual_computation``'s
    body (after SPMD partitioning the body is the program), a ``stablehlo.case`` whose index
    is a constant (XLA's conditional simplifier keeps the branch it takes). Its arguments are
    the region's block arguments (bound to the op's operands in order), then the outer values
    it closes over (``Arg.outer``); its results are the op's. :func:`.inline.inline_calls`
    splices it in for XLA's view."""
    branches: Callable[[], list[FunctionModel]] | None = None
    """A ``stablehlo.case`` whose index is not a constant: each branch's region as a function
    of the outer values it closes over (``Arg.outer``), built on demand for the rules of
    :mod:`.conditionals`."""
    loc: SourceLoc = field(default_factory=SourceLoc)
    handle: object = None

    def describe(self) -> str:
        """``stablehlo.add`` or ``stablehlo.add at f.py:3:7``."""
        return f"{self.name} at {self.loc.text}" if self.loc.text else self.name


@dataclass
class Result:
    """One operand of the function's terminator, i.e. one function result."""

    index: int
    value: ValueId
    tensor: TensorInfo | None
    type_text: str
    placement: Placement = field(default_factory=Placement)


@dataclass
class FunctionModel:
    """One ``func.func`` as the donation rules see it."""

    name: str
    args: list[Arg]
    ops: list[Op]
    results: list[Result]
    loc: SourceLoc = field(default_factory=SourceLoc)
    handle: object = None
    return_handle: object = None

    @property
    def donors(self) -> list[Arg]:
        return [a for a in self.args if a.donation.donated]

    def check(self) -> None:
        """Assert the structural invariants stated in the module docstring."""
        defined: set[ValueId] = set()
        for arg in self.args:
            assert arg.value not in defined, f"value {arg.value} defined twice"
            defined.add(arg.value)
        for op in self.ops:
            for v in op.operands + op.region_uses:
                assert v in defined, f"{op.name} uses value {v} before its definition"
            for v in op.results:
                assert v not in defined, f"value {v} defined twice"
                defined.add(v)
        for res in self.results:
            assert res.value in defined, f"result {res.index} is undefined"


def same_value_positions(values: list[ValueId]) -> tuple[int, ...]:
    """For each position, the first position holding the same value: ``(%a, %b, %a)`` ->
    ``(0, 1, 0)``. Adapters summarise a callee per such pattern (see ``call_forwards``)."""
    first: dict[ValueId, int] = {}
    return tuple(first.setdefault(v, i) for i, v in enumerate(values))


def reads_only(op: Op, positions: set[int], value: ValueId | None) -> bool:
    """Whether ``op`` reads a donor only as ``value``, the result written into the donor's
    buffer (operands, no read inside regions or through fused producers): it reads what was
    written, after the write, which needs no order before the writer.
    ``s1, s0 = switch(i, [lambda x, y: (x + 1.0, y), ...], s1, s0); aux = jnp.sum(s0)``: the
    sum reads the switch's result, not the old ``s0``."""
    return value is not None and bool(positions) and all(
        0 <= pos < len(op.operands) and op.operands[pos] == value for pos in positions)
