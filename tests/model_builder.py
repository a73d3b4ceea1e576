"""A tiny builder of :class:`FunctionModel` for tests of the IR-neutral rules."""

from __future__ import annotations

from jax_use_donated.analysis.model import (
    Arg,
    Donation,
    DonationKind,
    FunctionModel,
    Op,
    Result,
    SourceLoc,
    TensorInfo,
)


def tensor(shape: str = "4x4", dtype: str = "f32") -> TensorInfo:
    dims = tuple(int(d) for d in shape.split("x")) if shape else ()
    bits = {"f32": 32, "f16": 16, "bf16": 16, "i32": 32, "i1": 1, "f64": 64}[dtype]
    text = f"tensor<{shape}x{dtype}>" if shape else f"tensor<{dtype}>"
    return TensorInfo(text, dims, dtype, bits)


class FnBuilder:
    """``b = FnBuilder(); x = b.arg(donate=True); y = b.op("stablehlo.add", x, x); b.ret(y)``."""

    def __init__(self, name: str = "main") -> None:
        self.name = name
        self.args: list[Arg] = []
        self.ops: list[Op] = []
        self.results: list[Result] = []
        self.types: dict[int, TensorInfo | None] = {}
        self._next = 0

    def _value(self, t: TensorInfo | None) -> int:
        v = self._next
        self._next += 1
        self.types[v] = t
        return v

    def arg(self, t: TensorInfo | None = None, donate: bool = False, alias: int | None = None,
            name: str | None = None) -> int:
        t = tensor() if t is None else t
        v = self._value(t)
        if alias is not None:
            donation = Donation(DonationKind.ALIASING_OUTPUT, alias)
        elif donate:
            donation = Donation(DonationKind.BUFFER_DONOR)
        else:
            donation = Donation()
        self.args.append(Arg(len(self.args), v, t, t.text if t else "!token", donation=donation,
                             loc=SourceLoc(name=name)))
        return v

    def op(self, name: str, *operands: int, result_types: list[TensorInfo | None] | None = None,
           region_uses: tuple[int, ...] = (), line: int | None = None, **kw: object) -> int:
        results = self.ops_multi(name, *operands, result_types=result_types,
                                 region_uses=region_uses, line=line, **kw)
        return results[0]

    def ops_multi(self, name: str, *operands: int, result_types: list[TensorInfo | None] | None = None,
                  region_uses: tuple[int, ...] = (), line: int | None = None,
                  **kw: object) -> list[int]:
        if result_types is None:
            first = self.types[operands[0]] if operands else tensor()
            result_types = [first if first is not None else tensor()]
        results = [self._value(t) for t in result_types]
        op = Op(len(self.ops), name, list(operands), results,
                operand_types=[self.types[v] for v in operands],
                result_types=list(result_types), region_uses=list(region_uses),
                loc=SourceLoc(text=f"f.py:{line}:1" if line else None), **kw)  # type: ignore[arg-type]
        self.ops.append(op)
        return results

    def ret(self, *values: int) -> FunctionModel:
        for i, v in enumerate(values):
            t = self.types[v]
            self.results.append(Result(i, v, t, t.text if t else "!token"))
        fn = FunctionModel(self.name, self.args, self.ops, self.results)
        fn.check()
        return fn


def describe(fn: FunctionModel) -> str:
    """A one-line-per-op text of a model, for failure messages."""
    lines = [f"func @{fn.name}(" + ", ".join(
        f"%{a.value}: {a.type_text}{' donated' if a.donation.donated else ''}" for a in fn.args
    ) + ")"]
    for op in fn.ops:
        uses = f" regions({', '.join(f'%{v}' for v in op.region_uses)})" if op.region_uses else ""
        lines.append(f"  {', '.join(f'%{v}' for v in op.results)} = {op.name}"
                     f"({', '.join(f'%{v}' for v in op.operands)}){uses}")
    lines.append("  return " + ", ".join(f"%{r.value}" for r in fn.results))
    return "\n".join(lines)
