"""The jaxlib path's two front ends of the one planning loop (:func:`.planning.plan_functions`):
:class:`BindingsFront` (models through jaxlib's Python bindings, rewrites on jaxlib's module)
and :class:`TextFront` (models read from the text jaxlib prints, rewrites as data the parent
applies). Both give up where the xDSL path must report instead: :class:`.jaxlib_io.Unsupported`
and :class:`.text_route.Declined`. Imported only when a route runs (the text route's child,
or the bindings route): the command's start-up imports none of the rules."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from jax_use_donated.adapters.jax_text import (
    TextFunction,
    TextModule,
    TextModuleAdapter,
    TextUnsupported,
    loc_name,
    loc_text,
)
from jax_use_donated.adapters.jaxlib_ir import (
    ModuleAdapter,
    OpLocation,
    set_arg_donations,
    symbol_name,
)
from jax_use_donated.analysis.errors import ALIASING_OUTPUT, BUFFER_DONOR, DonationError
from jax_use_donated.analysis.model import FunctionModel, SourceLoc
from jax_use_donated.analysis.orderings import ordering_model
from jax_use_donated.analysis.plan import DonationPlan
from jax_use_donated.analysis.xla_fallback import XlaFallback
from jax_use_donated.opt.jaxlib_io import Declined, Unsupported, functions_with_donors
from jax_use_donated.planning import FrontEnd, PlanOptions

Rewrites = dict[str, tuple[dict[int, int], list[int]]]
"""Function name -> (argument -> result it hosts, arguments left as buffer donors)."""


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


class TextFront(FrontEnd[TextFunction]):
    """The text route's steps of :func:`.planning.plan_functions`: models read from the text
    (:class:`.jax_text.TextModuleAdapter`, or ``prebuilt`` ones of XLA's view), rewrites as
    data (:data:`Rewrites`) and on the text's own attribute dictionaries, for a later pass;
    whatever the function cannot give is :class:`Declined`."""

    def __init__(self, options: PlanOptions, module: TextModule, rewrites: Rewrites,
                 prebuilt: dict[str, Any] | None) -> None:
        super().__init__(options)
        self.module = module
        self.xla = ordering_model(options.ordering).xla
        self.adapter = TextModuleAdapter(module, inline=self.xla)
        self.rewrites = rewrites
        self.prebuilt = prebuilt if self.xla else None

    def functions(self) -> list[TextFunction]:
        return [f for f in self.module.functions.values() if f.body is not None and f.has_donors]

    def build(self, func: TextFunction) -> FunctionModel:
        try:
            fn = self.prebuilt.get(func.name) if self.prebuilt is not None else None
            if fn is None:
                fn = self.adapter.build(func)
        except TextUnsupported as err:
            raise Declined(f"the text reader: {err}") from None
        if isinstance(fn, Exception):
            raise fn
        return fn

    def failed(self, func: TextFunction, err: DonationError) -> None:
        raise Declined(f"@{func.name}: {err.message}") from None

    def refuse(self, func: TextFunction, fn: FunctionModel, plan: DonationPlan) -> None:
        raise Declined("a strict plan fails")

    def write(self, func: TextFunction, fn: FunctionModel, plan: DonationPlan,
              fallback: XlaFallback) -> None:
        pairs, donors = fallback.all_pairs(plan), sorted(fallback.buffer_donors)
        self.rewrites[func.name] = (pairs, donors)
        set_text_donations(func, pairs, donors)


def set_text_donations(fn: TextFunction, pairs: dict[int, int], donors: Sequence[int]) -> None:
    """:func:`.jaxlib_ir.set_arg_donations` on the text's attribute dictionaries, for a later
    pass of the same pipeline."""
    kept = set(donors)
    for i in range(len(fn.arg_attrs)):
        d = dict(fn.arg_attrs[i] or {})
        d.pop(ALIASING_OUTPUT, None)
        d.pop(BUFFER_DONOR, None)
        if i in pairs:
            d[ALIASING_OUTPUT] = f"{pairs[i]} : i32"
        elif i in kept:
            d[BUFFER_DONOR] = "true"
        fn.arg_attrs[i] = d or None


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
