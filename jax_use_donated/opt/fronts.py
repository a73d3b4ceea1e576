"""The bindings route's front end of the one planning loop (:func:`.planning.plan_functions`):
:class:`BindingsFront` (models through jaxlib's Python bindings, rewrites on jaxlib's module),
and the location fix-ups both routes share. The text route's front end is
:class:`.text_front.TextFront`, in a module of its own so that the text route's child never
imports jaxlib. Imported only when a route runs: the command's start-up imports none of the
rules."""

from __future__ import annotations

from typing import Any, cast

from jax_use_donated.adapters.jax_text import (
    loc_name,
    loc_text,
)
from jax_use_donated.adapters.jaxlib_ir import (
    ModuleAdapter,
    OpLocation,
    set_arg_donations,
    symbol_name,
)
from jax_use_donated.analysis.errors import DonationError
from jax_use_donated.analysis.model import FunctionModel, SourceLoc
from jax_use_donated.analysis.orderings import ordering_model
from jax_use_donated.analysis.plan import DonationPlan
from jax_use_donated.analysis.xla_fallback import XlaFallback
from jax_use_donated.opt.jaxlib_io import Unsupported, functions_with_donors
from jax_use_donated.planning import FrontEnd, PlanOptions


class BindingsFront(FrontEnd[Any]):
    """Models through jaxlib's bindings (:class:`.jaxlib_ir.ModuleAdapter`, with argument,
    function and op locations as the xDSL adapter reads them), rewrites with
    :func:`.jaxlib_ir.set_arg_donations`; a model or plan the xDSL path would report, and a
    strict plan that fails, are :class:`Unsupported`."""

    def __init__(self, options: PlanOptions, module: Any, explicit_locations: bool) -> None:
        super().__init__(options)
        self.module = module
        self.explicit_locations = explicit_locations
        # As the xDSL pass: calls are inlined for XLA's orderings only.
        self.adapter = ModuleAdapter(module.operation,
                                     inline=ordering_model(options.ordering).xla)

    def functions(self) -> list[Any]:
        return list(functions_with_donors(self.module))

    def build(self, func: Any) -> FunctionModel:
        fn = self.adapter.build(func)
        fix_locations(fn, func)
        fix_op_locations(fn, self.explicit_locations)
        return fn

    def failed(self, func: Any, err: DonationError) -> None:
        raise Unsupported(f"@{symbol_name(func)}: {err.message}") from None

    def refuse(self, func: Any, fn: FunctionModel, plan: DonationPlan) -> None:
        raise Unsupported("a strict plan fails")

    def write(self, func: Any, fn: FunctionModel, plan: DonationPlan,
              fallback: XlaFallback) -> None:
        set_arg_donations(func, fallback.all_pairs(plan), fallback.buffer_donors)


def fix_locations(fn: FunctionModel, func: Any) -> None:
    """Argument and function locations as the xDSL adapter gives them (the jit hook's adapter
    keeps only argument names)."""
    for arg in fn.args:
        barg: Any = arg.handle
        printed = str(barg.location) if barg is not None else ""
        arg.loc = SourceLoc(text=loc_text(printed), name=loc_name(printed))
    fn.loc = SourceLoc(text=loc_text(str(func.location)))


def fix_op_locations(fn: FunctionModel, explicit: bool) -> None:
    """Op locations without jaxlib's made-up ones: none at all when the input has no
    ``loc(`` (``explicit`` false), else read lazily per op."""
    if not explicit:
        unknown = SourceLoc()
        for op in fn.ops:
            op.loc = unknown
        return
    for op in fn.ops:
        if op.handle is not None:
            op.loc = InputOpLocation(cast(Any, op.handle))


class InputOpLocation(OpLocation):
    """:class:`.jaxlib_ir.OpLocation` whose text drops locations jaxlib's parser made up: an op
    location as the xDSL adapter gives it, read when a diagnostic asks."""

    @property
    def text(self) -> str | None:  # type: ignore[override]
        cached = self.__dict__.get("_text", False)
        if cached is False:
            cached = loc_text(str(self.__dict__["_operation"].location))
            self.__dict__["_text"] = cached
        return cached
