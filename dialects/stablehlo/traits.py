"""Op traits StableHLO declares in ODS and xDSL lacks: ``Elementwise`` and the
shape/element-type agreement checks (``SameOperandsAndResultShape`` and friends).

Dynamic dimensions (``?``) are compatible with any size, as in MLIR's
``verifyCompatibleShape``. Each check raises a :class:`VerifyException` naming the op and
the offending operand or result.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType, i1
from xdsl.ir import Attribute, Operation
from xdsl.traits import OpTrait
from xdsl.utils.exceptions import VerifyException

DYN = DYNAMIC_INDEX


def shapes_compatible(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    return len(a) == len(b) and all(x == y or DYN in (x, y) for x, y in zip(a, b, strict=True))


def _tensors(op: Operation, include_results: bool = True) -> list[tuple[str, TensorType[Attribute]]]:
    out: list[tuple[str, TensorType[Attribute]]] = []
    for i, v in enumerate(op.operands):
        if isinstance(v.type, TensorType):
            out.append((f"operand #{i}", v.type))
    if include_results:
        for i, r in enumerate(op.results):
            if isinstance(r.type, TensorType):
                out.append((f"result #{i}", r.type))
    return out


def _fmt_shape(s: tuple[int, ...]) -> str:
    return "x".join("?" if d == DYN else str(d) for d in s) or "scalar"


@dataclass(frozen=True)
class Elementwise(OpTrait):
    """Each result element depends only on the same-index element of each operand.

    The donation analysis reads this trait to decide whether a result may be written into
    an operand's buffer.
    """


@dataclass(frozen=True)
class SameOperandsAndResultShape(OpTrait):
    """All tensor operands and results have compatible shapes."""

    def verify(self, op: Operation) -> None:
        ts = _tensors(op)
        if not ts:
            return
        first_name, first = ts[0]
        for name, t in ts[1:]:
            if not shapes_compatible(tuple(first.get_shape()), tuple(t.get_shape())):
                raise VerifyException(
                    f"'{op.name}' requires the same shape for all operands and results: "
                    f"{first_name} is {_fmt_shape(tuple(first.get_shape()))} but {name} is "
                    f"{_fmt_shape(tuple(t.get_shape()))}"
                )


def _verify_one_element_type(op: Operation, include_results: bool) -> None:
    ts = _tensors(op, include_results)
    if not ts:
        return
    first_name, first = ts[0]
    for name, t in ts[1:]:
        if t.get_element_type() != first.get_element_type():
            raise VerifyException(
                f"'{op.name}' requires the same element type for all operands"
                f"{' and results' if include_results else ''}: {first_name} has "
                f"{first.get_element_type()} but {name} has {t.get_element_type()}"
            )


@dataclass(frozen=True)
class SameOperandsAndResultElementType(OpTrait):
    """All tensor operands and results have the same element type."""

    def verify(self, op: Operation) -> None:
        _verify_one_element_type(op, include_results=True)


@dataclass(frozen=True)
class SameOperandsElementType(OpTrait):
    """All tensor operands have the same element type."""

    def verify(self, op: Operation) -> None:
        _verify_one_element_type(op, include_results=False)


def verify_i1_results(op: Operation) -> None:
    """Every tensor result holds ``i1`` (comparisons, ``is_finite``)."""
    for r in op.results:
        if isinstance(r.type, TensorType) and r.type.get_element_type() != i1:
            raise VerifyException(f"'{op.name}' result must be a tensor of i1, got {r.type}")


@dataclass(frozen=True)
class CompatibleOperandsAndResultType(OpTrait):
    """``HLO_CompatibleOperandsAndResultType``: same element type, compatible shapes."""

    def verify(self, op: Operation) -> None:
        SameOperandsAndResultElementType().verify(op)
        SameOperandsAndResultShape().verify(op)


@dataclass(frozen=True)
class PairwiseSameOperandAndResultType(OpTrait):
    """Operand ``i`` and result ``i`` have the same type (``optimization_barrier``)."""

    def verify(self, op: Operation) -> None:
        if len(op.operands) != len(op.results):
            raise VerifyException(
                f"'{op.name}' requires as many results as operands, got "
                f"{len(op.operands)} operands and {len(op.results)} results"
            )
        for i, (a, r) in enumerate(zip(op.operands, op.results, strict=True)):
            if a.type != r.type:
                raise VerifyException(
                    f"'{op.name}' result #{i} has type {r.type} but operand #{i} has {a.type}"
                )
