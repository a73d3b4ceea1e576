"""The jaxlib path's print, done by a forked child while the parent plans.

jaxlib's printer holds the GIL (a thread would not run beside the planner), but the jaxlib
path changes nothing in the module except the argument attributes of the functions it plans,
and those print on one line each, the function's signature. So right after parsing the
driver forks: the child prints the module as parsed and hands the text over a pipe, the
parent plans and rewrites meanwhile, and then replaces each rewritten signature line::

    // the child's text, as parsed
      func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32}, ...) -> ... {
    // the parent's rewritten signature, printed alone (:mod:`.signatures`)
      func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 1 : i32}, ...) -> ... {

The fork is :class:`.child.Child`'s, the splice :class:`.signatures.Splicer`'s (the text
route's too). Each rewritten signature must be found exactly once in the child's text, else
(and whenever the child fails) :meth:`PrintAhead.text` returns ``None`` and the driver prints
the rewritten module itself: the output is always what jaxlib prints for it.

On a 2-core machine this takes the print (about a fifth of the path at 10^5 ops) off the
critical path; the path's wall time drops less, 0.93-0.94x (``python
benchmarks/pass_scaling.py --print-ahead``), as the parent's own steps slow down while the
child prints.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from jax_use_donated.opt.child import Child, Link
from jax_use_donated.opt.signatures import Splicer

MIN_BYTES = 1 << 20
"""Inputs from this size on are printed ahead (below it a fork costs more than it saves)."""


class PrintAhead:
    """A forked child printing ``module`` (with ``print_module``) into a pipe; the parent
    keeps planning. :meth:`text` collects it with the given functions' new signatures;
    :meth:`cancel` stops it.

    ``print_module`` must not verify (``assume_verified``): MLIR verifies on its thread pool,
    whose threads the child does not have, and would wait for them forever."""

    def __init__(self, module: Any, functions: Sequence[Any],
                 print_module: Callable[[Any], str]) -> None:
        from jax_use_donated.adapters.jaxlib_ir import symbol_name

        self.splicer = Splicer({symbol_name(f): f for f in functions})
        if len(self.splicer.functions) != len(functions):
            raise ValueError("two functions of one name")

        def work(link: Link) -> None:
            # jaxlib's printer only: its locks no other thread holds once parsing is done.
            link.send(print_module(module).encode())

        self.child: Child | None = Child(work)

    def text(self) -> str | None:
        """The child's text with the functions' signatures as they are now; ``None`` when the
        child failed or a changed signature is not found exactly once (the caller prints
        instead)."""
        child, self.child = self.child, None
        if child is None:
            return None
        data = child.receive()
        if not child.finish() or data is None:
            return None
        text = data.decode()
        changed = self.splicer.changed()
        if not self.splicer.locate(text, changed):
            return None
        return self.splicer.splice(text, changed)

    def cancel(self) -> None:
        """Stop the child (the path gave up)."""
        child, self.child = self.child, None
        if child is not None:
            child.cancel()

    @property
    def pid(self) -> int | None:
        """The child's process id while it is neither collected nor cancelled."""
        return self.child.pid if self.child is not None else None


def start(module: Any, functions: Sequence[Any], size: int,
          print_module: Callable[[Any], str]) -> PrintAhead | None:
    """A :class:`PrintAhead` for an input of ``size`` bytes, or ``None`` where it does not
    pay (small input) or cannot run (no ``fork``, the fork fails, two functions share a
    name): the caller then prints after planning, as without it."""
    if size < MIN_BYTES or not hasattr(os, "fork"):
        return None
    try:
        return PrintAhead(module, functions, print_module)
    except Exception:
        return None
