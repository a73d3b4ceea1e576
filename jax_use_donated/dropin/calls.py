"""The call a plan describes: its arguments as lowering sees them, and leaf paths.

:func:`jax_use_donated.plan` keeps, for each plan it returns, how to make its call again
(:func:`remember`, :func:`recall`): the function, the arguments' abstract values and, weakly,
the caller's arrays (a plan never keeps an array alive). :func:`group_paths` groups leaf paths
by prefix for pictures and tables of many leaves::

    recall(plan)              # (step, args, kwargs): live arrays, or ShapeDtypeStructs
    group_paths(["opt[0].mu['w']", "opt[0].nu['w']"], 10)
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


def abstract(x: Any) -> Any:
    """A leaf as lowering sees it: a ``jax.ShapeDtypeStruct`` for arrays (sharding kept only
    when the array is committed, as JAX lowers it), the value itself otherwise."""
    import jax

    if isinstance(x, jax.Array):
        return jax.ShapeDtypeStruct(x.shape, x.dtype, weak_type=x.weak_type,
                                    sharding=x.sharding if x.committed else None)
    if isinstance(x, np.ndarray):
        return jax.ShapeDtypeStruct(x.shape, x.dtype)
    return x


def _is_array(x: Any) -> bool:
    import jax

    return isinstance(x, jax.Array)


def is_gone(x: Any) -> bool:
    """An array that was deleted (donated by a call) or is only an abstract value."""
    import jax

    return isinstance(x, jax.ShapeDtypeStruct) or (_is_array(x) and x.is_deleted())


_CALLS: dict[int, tuple[weakref.ref[Any], Callable[[], tuple[Any, list[Any], dict[str, Any]]]]] = {}
_LOCK = threading.Lock()


def remember(plan: Any, fun: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> None:
    """Keep how to make the call ``plan`` describes again, while the plan object lives: the
    function, the arguments' abstract values, and the caller's arrays weakly."""
    import jax

    leaves, treedef = jax.tree.flatten((tuple(args), dict(kwargs)))
    shapes = [abstract(x) for x in leaves]
    refs = [weakref.ref(x) if _is_array(x) else None for x in leaves]

    def call() -> tuple[Any, list[Any], dict[str, Any]]:
        values = []
        for ref, shape in zip(refs, shapes, strict=True):
            x = ref() if ref is not None else None
            values.append(x if x is not None and not x.is_deleted() else shape)
        a, k = treedef.unflatten(values)
        return fun, list(a), dict(k)

    key = id(plan)

    def forget(ref: weakref.ref[Any], calls: dict[int, Any] = _CALLS,
               lock: threading.Lock = _LOCK) -> None:
        with lock:  # (the module's globals may be gone at interpreter exit)
            entry = calls.get(key)
            if entry is not None and entry[0] is ref:
                del calls[key]

    with _LOCK:
        _CALLS[key] = (weakref.ref(plan, forget), call)


def recall(plan: Any) -> tuple[Any, list[Any], dict[str, Any]]:
    """``(fun, args, kwargs)`` of the call ``plan`` was returned for by
    :func:`jax_use_donated.plan` (arrays the caller no longer has are abstract values);
    ``LookupError`` for a plan from elsewhere (``last_plan``, ``recent_plans()``)."""
    with _LOCK:
        entry = _CALLS.get(id(plan))
    if entry is None or entry[0]() is not plan:
        raise LookupError("this plan was not returned by jax_use_donated.plan(f, *args) or "
                          "step.plan(*args), so the call it describes is unknown: use "
                          "jud.plan(step, *args).plot(), or jud.advise(step, *args).plot()")
    return entry[1]()


