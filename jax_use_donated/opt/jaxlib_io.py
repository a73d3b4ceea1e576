"""Reading and printing with jaxlib's C++ MLIR (``jaxlib.mlir.ir``, the bindings behind
``jax._src.lib.mlir``), for the driver's jaxlib path: a context with JAX's dialects, a parse
that says why jaxlib refuses an input, the functions that have donors, the prints. jaxlib is
imported on first use only.

Example: ``parse(b"func.func @f(%a: tensor<4xf32> {jax.buffer_donor = true}) ...")`` is a
verified module; ``list(functions_with_donors(module))`` its ``@f``; ``print_module(module)``
its text as the ``jax`` target prints it (no locations).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jax_use_donated.analysis.report import ReportedPlan


MAX_NESTING = 4_000
"""Deepest brace nesting the jaxlib path takes: jaxlib's printer is quadratic in the nesting
depth (2,000 nested regions print in 0.2 s, 8,000 in 2 s); deeper IR goes to the xDSL path,
which reads it up to its recursion limit and reports what lies beyond."""


def nesting_depth(data: bytes) -> int:
    """Deepest ``{``/``}`` nesting of ``data`` (braces in strings count too: an upper bound
    for regions); 0 when there are fewer braces than :data:`MAX_NESTING`."""
    if data.count(b"{") < MAX_NESTING:
        return 0
    import numpy as np

    text = np.frombuffer(data, dtype=np.uint8)
    opens, closes = np.flatnonzero(text == ord("{")), np.flatnonzero(text == ord("}"))
    steps = np.concatenate([np.ones(len(opens), np.int64), -np.ones(len(closes), np.int64)])
    order = np.argsort(np.concatenate([opens, closes]), kind="stable")
    return int(np.cumsum(steps[order]).max(initial=0))


def check_nesting(data: bytes) -> None:
    """:class:`Unsupported` for braces nested deeper than :data:`MAX_NESTING`."""
    depth = nesting_depth(data)
    if depth > MAX_NESTING:
        raise Unsupported(f"nesting {depth:,} deep (at most {MAX_NESTING:,})")


class Unsupported(Exception):
    """The jaxlib path cannot give the xDSL path's result here (the message says why)."""


class Declined(Exception):
    """The text route cannot give the result (``reason`` says why); ``module`` is jaxlib's
    parse of the input when it got that far, for the bindings route to plan on."""

    def __init__(self, reason: str, module: Any = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.module = module


def make_context(allow_unregistered: bool = False) -> Any:
    """A jaxlib MLIR context with JAX's dialects (as ``jax.interpreters.mlir.make_ir_context``,
    without importing ``jax``)."""
    from jaxlib.mlir import ir
    from jaxlib.mlir._mlir_libs import _jax_mlir_ext  # pyright: ignore[reportMissingModuleSource]
    from jaxlib.mlir.dialects import chlo, mhlo, sdy, stablehlo

    registry = ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)
    ctx = ir.Context()
    ctx.append_dialect_registry(registry)
    ctx.load_all_available_dialects()
    sdy.register_dialect(ctx)
    mhlo.register_mhlo_dialect(ctx)
    chlo.register_dialect(ctx)
    stablehlo.register_dialect(ctx)
    ctx.allow_unregistered_dialects = allow_unregistered
    return ctx


def parse(data: bytes, allow_unregistered: bool = False, ctx: Any = None) -> Any:
    """``data`` parsed (and verified: jaxlib's parser verifies) by jaxlib, in ``ctx`` or a new
    :func:`make_context`; :class:`Unsupported` when jaxlib refuses it."""
    from jaxlib.mlir import ir

    ctx = ctx if ctx is not None else make_context(allow_unregistered)
    try:
        return ir.Module.parse(data, context=ctx)
    except Exception as err:  # MLIRError
        first = str(err).strip().splitlines()[:2]
        raise Unsupported(f"jaxlib cannot read the input ({' '.join(first)})") from None


def functions_with_donors(module: Any) -> Iterator[Any]:
    """Defined ``func.func`` ops of ``module`` (and of nested modules) with a donation
    attribute on an argument, in text order."""
    from jax_use_donated.adapters.jaxlib_ir import _dict_list  # pyright: ignore[reportPrivateUsage]
    from jax_use_donated.analysis.errors import ALIASING_OUTPUT, BUFFER_DONOR

    def visit(block: Any) -> Iterator[Any]:
        for view in block.operations:
            op = view.operation
            if op.name == "builtin.module":
                for region in op.regions:
                    for inner in region.blocks:
                        yield from visit(inner)
            elif op.name == "func.func" and len(op.regions[0].blocks):
                dicts = _dict_list(op, "arg_attrs", 0)
                if any(d is not None and (ALIASING_OUTPUT in d or BUFFER_DONOR in d)
                       for d in dicts):
                    yield op

    yield from visit(module.body)


def print_module(module: Any) -> str:
    """jaxlib's text of ``module`` without locations, as the ``jax`` target prints it."""
    return module.operation.get_asm(enable_debug_info=False) + "\n"


def print_verified_module(module: Any) -> str:
    """:func:`print_module` of a module known to verify (jaxlib's parser verified it), without
    verifying it again: the same text, and no use of MLIR's thread pool, whose threads a
    forked child does not have (:mod:`.print_ahead`)."""
    return module.operation.get_asm(enable_debug_info=False, assume_verified=True) + "\n"


@dataclass
class Outcome:
    """What the jaxlib path produced: the output text, the diagnostics and the plans."""

    text: str
    warnings: list[Any] = field(default_factory=list)
    plans: list[ReportedPlan] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    report: str | None = None
    """The rendered donation report, when another process planned (``plans`` is then
    empty)."""
