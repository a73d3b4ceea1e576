"""The text route's front end of the one planning loop (:func:`.planning.plan_functions`):
:class:`TextFront` reads models from the text jaxlib prints and writes rewrites as data the
parent applies. It gives up where the xDSL path must report instead
(:class:`.jaxlib_io.Declined`). It imports no IR library: the text route's child, forked
before the driver's imports, runs it without loading jaxlib (0.18 s of CPU per run)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jax_use_donated.adapters.jax_text import (
    TextFunction,
    TextModule,
    TextModuleAdapter,
    TextUnsupported,
)
from jax_use_donated.analysis.errors import ALIASING_OUTPUT, BUFFER_DONOR, DonationError
from jax_use_donated.analysis.model import FunctionModel
from jax_use_donated.analysis.orderings import ordering_model
from jax_use_donated.analysis.plan import DonationPlan
from jax_use_donated.analysis.xla_fallback import XlaFallback
from jax_use_donated.opt.jaxlib_io import Declined
from jax_use_donated.planning import FrontEnd, PlanOptions

Rewrites = dict[str, tuple[dict[int, int], list[int]]]
"""Function name -> (argument -> result it hosts, arguments left as buffer donors)."""


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
