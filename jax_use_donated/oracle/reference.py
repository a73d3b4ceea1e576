"""What JAX computes for a donated program, and how an executor's results are compared with it.

Every execution oracle checks a rewrite the same way: run the program with plain ``jax.jit`` on
host copies of its arguments (the expected numbers), lower it with the user's
``donate_argnums`` (the text the rewrite and the executor start from), run the executor, and
compare array by array with :func:`arrays_match`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class JaxReference:
    """One donated program as JAX runs and lowers it."""

    args: list[Any]
    """The arguments as host pytrees of C-contiguous numpy copies."""
    leaves: list[np.ndarray]
    """The flat argument leaves (the program's parameters, in order)."""
    expected: list[np.ndarray]
    """The flat result leaves of plain ``jax.jit``."""
    lowered: Any
    """``jax.jit(fun, donate_argnums=...).lower(*args)``: a ``jax.stages.Lowered``."""

    @property
    def stablehlo_text(self) -> str:
        """The lowered module as JAX prints it (pretty form, ``tf.aliasing_output`` set)."""
        return self.lowered.as_text()


def jax_reference(
    fun: Callable[..., object],
    args: Sequence[object],
    donate_argnums: Sequence[int],
    keep_unused: bool = True,
) -> JaxReference:
    """Run ``fun(*args)`` with plain ``jax.jit`` and lower it with ``donate_argnums``
    (``args`` may be pytrees; the program's parameters are their leaves). JAX's own
    "donated buffers were not usable" warning is silenced: judging donation is the caller's
    business."""
    import jax  # local: the oracles are optional and JAX is slow to import

    host = jax.tree_util.tree_map(lambda a: np.array(a, order="C"), list(args))
    leaves: list[np.ndarray] = jax.tree_util.tree_leaves(host)
    results = jax.jit(fun, keep_unused=keep_unused)(*host)
    expected = [np.asarray(x) for x in jax.tree_util.tree_leaves(results)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lowered = jax.jit(fun, donate_argnums=tuple(donate_argnums),
                          keep_unused=keep_unused).lower(*host)
    return JaxReference(host, leaves, expected, lowered)


def arrays_match(got: Any, want: Any, *, exact: bool = False, rtol: float = 1e-5,
                 atol: float = 1e-6, approximate_integers: bool = False) -> bool:
    """Same dtype and shape, and then: bitwise equal (``exact``), equal to ``rtol``/``atol``
    in double precision with NaNs equal (floating and complex arrays, and integer ones with
    ``approximate_integers``), or equal (the rest)."""
    x, y = np.asarray(got), np.asarray(want)
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    if exact:
        return x.tobytes() == y.tobytes()
    if x.dtype.kind in ("fciu" if approximate_integers else "fc"):
        wide = np.complex128 if x.dtype.kind == "c" else np.float64
        return bool(np.allclose(x.astype(wide), y.astype(wide), rtol=rtol, atol=atol,
                                equal_nan=True))
    return bool(np.array_equal(x, y))


def mismatched_results(got: Sequence[Any], want: Sequence[Any], *, exact: bool = False,
                       rtol: float = 1e-5, atol: float = 1e-6) -> list[int]:
    """Indices of the results that do not match (see :func:`arrays_match`); every index of
    the longer list when the counts differ."""
    if len(got) != len(want):
        return list(range(max(len(got), len(want))))
    return [k for k, (g, w) in enumerate(zip(got, want, strict=True))
            if not arrays_match(g, w, exact=exact, rtol=rtol, atol=atol)]
