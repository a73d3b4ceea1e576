"""Methods that the higher rooms of the drop-in add to the objects of the lower ones.

``CallPlan.plot`` / ``CallPlan.to_html`` (drawn by :mod:`.picture`) and the ``advise`` method
of a ``jax_use_donated.jit`` object (:mod:`.advice`) are called on objects that
:mod:`.records` and :mod:`.api` make, but those modules sit below the ones that implement
them: the implementations register here when their module is imported (the ``dropin``
package imports them all), so no import runs upward::

    register_plan_method("plot", plot_plan)        # in picture.py
    plan_method("plot")(plan, advice)              # in CallPlan.plot
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

PLAN_METHODS: dict[str, Callable[..., Any]] = {}
"""Name -> ``fn(plan, *args, **kwargs)`` for :class:`~.records.CallPlan`."""
JIT_METHODS: dict[str, Callable[..., Any]] = {}
"""Name -> ``fn(jitted, *args, **kwargs)``, bound to each ``jax_use_donated.jit`` object."""


def register_plan_method(name: str, fn: Callable[..., Any]) -> None:
    PLAN_METHODS[name] = fn


def register_jit_method(name: str, fn: Callable[..., Any]) -> None:
    JIT_METHODS[name] = fn


def _load() -> None:
    # The implementations register on import; the package imports every room. A lower module
    # used on its own (a CallPlan built by hand) loads them here, once.
    importlib.import_module("jax_use_donated.dropin")


def plan_method(name: str) -> Callable[..., Any]:
    if name not in PLAN_METHODS:
        _load()
    return PLAN_METHODS[name]


def jit_methods() -> dict[str, Callable[..., Any]]:
    return dict(JIT_METHODS)
