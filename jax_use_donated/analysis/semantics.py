"""Per-op facts the donation rules need: which results forward an operand's buffer, and which
operands an op can overwrite in place to produce a result.

This is the single table of op semantics for every front end. An op this module does not know
(including every unregistered op) forwards nothing and overwrites nothing: the conservative
answer, which can only cost a missed reuse, never a wrong one.
"""

from __future__ import annotations

from dataclasses import dataclass

from jax_use_donated.analysis.model import Op, TensorInfo

ELEMENTWISE_OPS: frozenset[str] = frozenset(
    f"stablehlo.{name}"
    for name in (
        "abs", "add", "and", "atan2", "cbrt", "ceil", "clamp", "complex", "convert", "cosine",
        "count_leading_zeros", "divide", "exp2", "exponential", "exponential_minus_one",
        "floor", "fma", "imag", "is_finite", "log", "log2", "log_plus_one", "logistic", "maximum", "minimum",
        "multiply", "negate", "not", "or", "popcnt", "power", "real", "reduce_precision",
        "remainder", "round_nearest_afz", "round_nearest_even", "rsqrt", "select",
        "shift_left", "shift_right_arithmetic", "shift_right_logical", "sign", "sine", "sqrt",
        "subtract", "tan", "tanh", "xor", "compare", "uniform_quantize", "uniform_dequantize",
    )
)
"""StableHLO ops that compute each output element from the same element of each operand.

XLA may write their result into an operand's buffer when the two types are identical. The
StableHLO dialect in ``dialects/`` marks exactly these ops with the ``Elementwise`` trait (a
test checks the two agree).
"""

FORWARDING_OPS: frozenset[str] = frozenset(
    {
        "stablehlo.reshape",
        "stablehlo.bitcast_convert",
        "stablehlo.optimization_barrier",
        "sdy.sharding_constraint",
        "sdy.reshard",
        "stablehlo.tuple",
        "stablehlo.get_tuple_element",
        "mhlo.sharding_constraint",
    }
)
"""Ops whose results may share an operand's buffer without reading it (views, wrappers)."""

TENSOR_VIEW_OPS: frozenset[str] = frozenset(
    {
        "tensor.cast",
        "tensor.collapse_shape",
        "tensor.expand_shape",
        "tensor.extract_slice",
        "tensor.reshape",
        "tensor.bitcast",
    }
)
"""Tensor-dialect ops that bufferization turns into views of operand 0's buffer (destination-
passing IR below StableHLO): their result shares the operand's buffer."""

PURE_OPS: frozenset[str] = ELEMENTWISE_OPS | frozenset(
    f"stablehlo.{name}"
    for name in (
        "reshape", "bitcast_convert", "broadcast_in_dim", "broadcast", "transpose", "slice",
        "dynamic_slice", "dynamic_update_slice", "concatenate", "pad", "reverse", "iota",
        "constant", "dot_general", "dot", "gather", "scatter", "reduce", "reduce_window",
        "select_and_scatter", "sort", "convolution", "clamp", "real_dynamic_slice",
        "dynamic_broadcast_in_dim", "dynamic_reshape", "dynamic_iota", "dynamic_pad",
        "get_dimension_size", "tuple", "get_tuple_element", "map",
        "fft", "cholesky", "triangular_solve", "reduce_precision",
    )
) | frozenset({"tensor.empty"}) | TENSOR_VIEW_OPS
"""Ops without side effects, which XLA's dead-code elimination removes when their results are
unused. Collectives, custom calls, calls, loops and conditionals are not listed: their regions
or callees may have effects."""

EXPENSIVE_ELEMENTWISE: frozenset[str] = frozenset(
    f"stablehlo.{name}"
    for name in ["divide", "exponential", "exp2", "exponential_minus_one", "log", "log2",
                 "log_plus_one", "power", "rsqrt", "sqrt", "cbrt", "tanh", "logistic", "atan2", "cosine", "sine", "tan",
                 "remainder"]
)
"""Elementwise ops XLA counts as expensive (``HloInstruction::IsOpElementwise`` + cost) and
does not duplicate into several fusions."""

XLA_MULTIPLY_OPS: frozenset[str] = frozenset({"chlo.square"})
"""CHLO ops XLA receives as one ``multiply`` of their operand by itself (jaxlib legalizes
``chlo.square(x)`` to ``multiply(x, x)`` before XLA's passes): a cheap elementwise op to
fusion."""

DUPLICABLE_OPS: frozenset[str] = (ELEMENTWISE_OPS - EXPENSIVE_ELEMENTWISE) | frozenset(
    f"stablehlo.{name}" for name in ("broadcast_in_dim", "broadcast", "iota", "constant",
                                     "reshape", "slice")) | XLA_MULTIPLY_OPS
"""Cheap producers XLA's instruction fusion duplicates into each consumer that fuses them
(``InstructionFusion``: a producer with several users is fused into all of them unless it is
expensive). Measured: the LM loss's ``logits[:, :-1]`` slice of the bias add is recomputed in
the gather, the exp and the loss fusions, each reading the bias itself."""

FUSING_CONSUMERS: frozenset[str] = ELEMENTWISE_OPS | frozenset(
    f"stablehlo.{name}"
    for name in ("reduce", "broadcast_in_dim", "broadcast", "transpose", "slice", "concatenate",
                 "pad", "reverse", "dynamic_slice", "gather", "reduce_window", "reshape",
                 "dynamic_update_slice")
) | XLA_MULTIPLY_OPS
"""Ops XLA:CPU fuses their cheap producers into (loop and reduction fusions); dots,
convolutions, custom calls, loops and calls keep their operands as separate buffers."""


TREE_REDUCTION_WINDOW = 32
"""XLA:CPU's ``TreeReductionRewriter`` window: a ``reduce`` of a dimension longer than this
becomes a ``reduce-window`` and a ``reduce``, and that ``reduce-window`` fuses no producer."""


def fuses_producers(op: Op) -> bool:
    """Whether XLA:CPU fuses ``op``'s cheap producers into it (:data:`FUSING_CONSUMERS`), except
    the one split of the tree reduction rewriter measured: a ``reduce`` of a vector longer than
    :data:`TREE_REDUCTION_WINDOW` to a scalar.

    Measured: ``s1 + c`` returned and summed (``s1: f32[64]``): the sum's ``reduce-window``
    reads the add's buffer, it does not recompute ``s1 + c``. (A ``reduce`` of a matrix's
    rows, ``[64, 64] -> [64]``, is one fusion with its producers on XLA:CPU 0.10.)"""
    if op.name not in FUSING_CONSUMERS:
        return False
    if op.name != "stablehlo.reduce" or not op.operand_types or not op.result_types:
        return True
    operand, result = op.operand_types[0], op.result_types[0]
    if operand is None or result is None or result.shape or len(operand.shape) != 1:
        return True
    size = operand.shape[0]
    return size is not None and size <= TREE_REDUCTION_WINDOW


def duplicable(op: Op) -> bool:
    """A cheap single-result producer that XLA duplicates into its fusing consumers."""
    return op.name in DUPLICABLE_OPS and len(op.results) == 1


SHARDING_CUSTOM_CALL_TARGETS: frozenset[str] = frozenset({"Sharding"})
"""``custom_call`` targets that only annotate their operand (pre-Shardy sharding marks)."""


@dataclass(frozen=True)
class OpSemantics:
    """``forwards[r]``: operand indices result ``r`` may alias; ``in_place[r]``: operand
    indices the op can overwrite to produce result ``r`` when it is that operand's last read.

    ``overwrites``: the op always writes result ``r`` into an ``in_place[r]`` operand's buffer
    (``dynamic_update_slice``, ``scatter``, a loop carry, a destination), so XLA first copies
    an operand it may not overwrite, such as an undonated parameter; an elementwise op merely
    may. ``entry_reads``: the op reads every operand before it writes any result (a loop takes
    its carries at entry), so a donor passed at several positions can still be overwritten by
    the result of one of them.
    """

    forwards: dict[int, tuple[int, ...]]
    in_place: dict[int, frozenset[int]]
    overwrites: bool = False
    entry_reads: bool = False


NO_SEMANTICS = OpSemantics({}, {})


def _same_type(a: TensorInfo | None, b: TensorInfo | None) -> bool:
    return a is not None and b is not None and a.text == b.text


def _same_bits(a: TensorInfo | None, b: TensorInfo | None) -> bool:
    return (
        a is not None
        and b is not None
        and a.element_bits is not None
        and a.element_bits == b.element_bits
        and a.shape == b.shape
    )


def is_elementwise(op: Op) -> bool:
    """The IR library's trait when it knows one, else this module's table."""
    return op.elementwise if op.elementwise is not None else op.name in ELEMENTWISE_OPS


IDEMPOTENT_OPS: frozenset[str] = frozenset(
    {"stablehlo.maximum", "stablehlo.minimum", "stablehlo.and", "stablehlo.or"}
)
"""Binary ops with ``op(x, x) == x``, which XLA's algebraic simplifier folds to ``x``."""


def _identity_operand(op: Op) -> int | None:
    """The operand an op returns unchanged whatever its values, as XLA simplifies it:
    ``maximum %x, %x`` -> ``%x`` (also ``minimum``, ``and``, ``or``), ``select %p, %x, %x`` ->
    ``%x``. Measured: ``return jnp.minimum(x, x)`` compiles to a copy of ``x``, so the result is
    a view of ``x``, not a value an op writes."""
    ops = op.operands
    if len(op.results) != 1 or not op.result_types:
        return None
    if op.name in IDEMPOTENT_OPS and len(ops) == 2 and ops[0] == ops[1]:
        pos = 0
    elif op.name == "stablehlo.select" and len(ops) == 3 and ops[1] == ops[2]:
        pos = 1
    else:
        return None
    return pos if _same_type(op.operand_types[pos], op.result_types[0]) else None


def classify(op: Op) -> OpSemantics:
    """The forwarding and in-place facts of ``op``.

    Examples: ``stablehlo.reshape`` forwards operand 0; ``stablehlo.add`` of two
    ``tensor<4xf32>`` can write into either operand; ``stablehlo.dynamic_update_slice`` into
    operand 0 only; ``stablehlo.while`` carry ``i`` into result ``i``; ``tensor.collapse_shape``
    forwards operand 0; a ``linalg.generic`` writes into its ``outs`` init and into inputs it
    reads only at the element it writes.
    """
    name = op.name
    nres = len(op.results)
    if _plain_elementwise(op):
        return _elementwise(op)  # the common case, first
    if op.call_forwards is not None:
        return OpSemantics(dict(op.call_forwards), {})
    if name in ("stablehlo.reshape", "sdy.sharding_constraint", "sdy.reshard",
                "mhlo.sharding_constraint"):
        return OpSemantics({0: (0,)}, {})
    if name == "stablehlo.bitcast_convert":
        # Only an equal-width bitcast is a view of the same bytes.
        same = (_same_bits(op.operand_types[0], op.result_types[0])
                if op.operand_types and op.result_types else False)
        return OpSemantics({0: (0,)}, {}) if same else NO_SEMANTICS
    if name == "stablehlo.optimization_barrier":
        return OpSemantics({i: (i,) for i in range(nres)}, {})
    if name == "stablehlo.tuple":
        return OpSemantics({0: tuple(range(len(op.operands)))}, {})
    if name == "stablehlo.get_tuple_element":
        return OpSemantics({0: (0,)}, {})
    if name == "stablehlo.custom_call" and op.target in SHARDING_CUSTOM_CALL_TARGETS:
        return OpSemantics({0: (0,)}, {})
    if name == "stablehlo.custom_call" and op.operand_aliases:
        in_place: dict[int, set[int]] = {}
        for res, opnd in op.operand_aliases:
            if 0 <= res < nres and 0 <= opnd < len(op.operands):
                in_place.setdefault(res, set()).add(opnd)
        return OpSemantics({}, {r: frozenset(s) for r, s in in_place.items()},
                           overwrites=True)
    if name == "stablehlo.dynamic_update_slice":
        return OpSemantics({}, {0: frozenset({0})}, overwrites=True)
    if name == "stablehlo.scatter":
        # operands: inputs..., scatter_indices, updates...; results: one per input.
        return OpSemantics({}, {r: frozenset({r}) for r in range(nres)}, overwrites=True)
    if name == "stablehlo.while":
        if op.max_trips is not None and op.max_trips <= 1:
            # XLA's while-loop simplifier replaces the loop by (at most) one copy of its
            # body: no carry is then written in place, and the body's reads are not ordered
            # as the loop's entry. Measured: a donor paired with such a loop's carry result
            # cost a temp buffer that JAX's pairing did not.
            return NO_SEMANTICS
        return OpSemantics(
            {},
            {
                r: frozenset({r})
                for r in range(nres)
                if r < len(op.operand_types) and _same_type(op.operand_types[r], op.result_types[r])
            },
            overwrites=True,
            entry_reads=True,
        )
    if name in TENSOR_VIEW_OPS:
        return OpSemantics({0: (0,)}, {})
    identity = _identity_operand(op)
    if identity is not None:
        return OpSemantics({0: (identity,)}, {})
    if op.dps_inits:
        # Destination-passing: result r is written into its init; operands read only at the
        # element being written (identity indexing) can be that buffer too.
        return OpSemantics(
            {},
            {
                r: frozenset(
                    {init}
                    | {
                        i
                        for i in op.same_index_operands
                        if i < len(op.operand_types)
                        and r < len(op.result_types)
                        and _same_type(op.operand_types[i], op.result_types[r])
                    }
                )
                for r, init in enumerate(op.dps_inits)
                if r < nres
            },
            overwrites=True,
        )
    if nres == 1 and is_elementwise(op):
        return _elementwise(op)
    return NO_SEMANTICS


RULE_NAMES: frozenset[str] = (
    ELEMENTWISE_OPS | FORWARDING_OPS | TENSOR_VIEW_OPS | IDEMPOTENT_OPS
    | frozenset({"stablehlo.select", "stablehlo.custom_call", "stablehlo.dynamic_update_slice",
                 "stablehlo.scatter", "stablehlo.while"})
)
"""Every op name a rule of :func:`classify` matches by name; any other op has
:data:`NO_SEMANTICS` unless it is a summarised call, a destination-passing op or an op the IR
library marks elementwise."""


def classify_all(ops: list[Op]) -> list[OpSemantics]:
    """``[classify(op) for op in ops]``, sharing one :class:`OpSemantics` among elementwise ops
    of equal name and types (the bulk of a large program; the ops keep their types alive, so
    the types' ids are stable while this runs) and answering ops no rule names
    (:data:`RULE_NAMES`: constants, broadcasts, dots, reductions) without :func:`classify`."""
    shared: dict[tuple[object, ...], OpSemantics] = {}
    out: list[OpSemantics] = []
    append = out.append
    for op in ops:
        name = op.name
        if name not in RULE_NAMES:
            if op.call_forwards is None and not op.dps_inits and op.elementwise is not True:
                append(NO_SEMANTICS)
                continue
        elif _plain_elementwise(op):
            key = (name, id(op.result_types[0]) if op.result_types else None,
                   *map(id, op.operand_types))
            sem = shared.get(key)
            if sem is None:
                sem = shared[key] = _elementwise(op)
            append(sem)
            continue
        append(classify(op))
    return out


def _plain_elementwise(op: Op) -> bool:
    """A single-result op of :data:`ELEMENTWISE_OPS` that no other rule of :func:`classify`
    (the folds of :func:`_identity_operand`) applies to."""
    name = op.name
    return (len(op.results) == 1 and name in ELEMENTWISE_OPS and op.elementwise is not False
            and name not in IDEMPOTENT_OPS and name != "stablehlo.select")


def _elementwise(op: Op) -> OpSemantics:
    """An elementwise op may write into any operand of the result's type."""
    result_type = op.result_types[0] if op.result_types else None
    text = result_type.text if result_type is not None else None
    return OpSemantics({}, {0: frozenset(
        i for i, t in enumerate(op.operand_types) if t is not None and t.text == text)})
