"""The jaxlib path's print, done by a forked child while the parent plans.

jaxlib's printer holds the GIL (a thread would not run beside the planner), but the jaxlib
path changes nothing in the module except the argument attributes of the functions it plans,
and those print on one line each, the function's signature. So right after parsing the
driver forks: the child prints the module as parsed and hands the text over a pipe, the
parent plans and rewrites meanwhile, and then replaces each rewritten signature line::

    // the child's text, as parsed
      func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32}, ...) -> ... {
    // the parent's rewritten signature, printed alone (:func:`signature_line`)
      func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 1 : i32}, ...) -> ... {

A signature is printed alone from a body-less copy of the ``func.func`` (same attributes, an
empty entry block of the argument types). Before the rewrite, each one must occur exactly
once in the child's text, else (and whenever the child fails) :meth:`PrintAhead.text` returns
``None`` and the driver prints the rewritten module itself: the output is always what jaxlib
prints for it. On a 2-core machine this takes the print (about a fifth of the path at
10^5 ops) off the critical path; the path's wall time drops less, 0.93-0.94x (``python
benchmarks/pass_scaling.py --print-ahead``), as the parent's own steps slow down while the
child prints.
"""

from __future__ import annotations

import contextlib
import os
import signal
import warnings
from collections.abc import Callable, Sequence
from typing import Any

MIN_BYTES = 1 << 20
"""Inputs from this size on are printed ahead (below it a fork costs more than it saves)."""


def signature_line(func: Any) -> str:
    """The first line jaxlib prints for ``func`` (a ``func.func`` with a body): its
    signature up to the body's ``{``, without locations."""
    from jaxlib.mlir import ir

    op = func.operation
    with op.context, ir.Location.unknown():
        attrs = {name: op.attributes[name] for name in op.attributes}
        copy = ir.Operation.create("func.func", attributes=attrs, regions=1)
        inputs = ir.FunctionType(attrs["function_type"].value).inputs
        copy.regions[0].blocks.append(*inputs)
        text = str(copy.get_asm(enable_debug_info=False, assume_verified=True))
    return text.split("\n", 1)[0]


class PrintAhead:
    """A forked child printing ``module`` (with ``print_module``) into a pipe; the parent
    keeps planning. :meth:`text` collects it with the given functions' new signatures;
    :meth:`cancel` stops it.

    ``print_module`` must not verify (``assume_verified``): MLIR verifies on its thread pool,
    whose threads the child does not have, and would wait for them forever."""

    def __init__(self, module: Any, functions: Sequence[Any],
                 print_module: Callable[[Any], str]) -> None:
        self.functions = list(functions)
        self.before = [signature_line(f) for f in self.functions]
        read, write = os.pipe()
        # Python 3.12+ warns of fork() in a multi-threaded process, and JAX (if imported)
        # warns of any fork; the child runs only jaxlib's printer, whose locks no other
        # thread holds once parsing is done, and never returns to Python code that could.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pid = os.fork()
        if pid == 0:  # the child: print, hand over, leave without any Python teardown
            code = 1
            try:
                os.close(read)
                data = print_module(module).encode()
                with os.fdopen(write, "wb") as out:
                    out.write(data)
                code = 0
            finally:
                os._exit(code)
        os.close(write)
        self.pid: int | None = pid
        self.read = read

    def text(self) -> str | None:
        """The child's text with the functions' signatures as they are now; ``None`` when the
        child failed or a signature is not found exactly once (the caller prints instead)."""
        with os.fdopen(self.read, "rb") as pipe:
            data = pipe.read()
        if not self._reap():
            return None
        text = data.decode()
        for func, old in zip(self.functions, self.before, strict=True):
            new = signature_line(func)
            if new == old:
                continue
            if text.count(old) != 1:
                return None
            text = text.replace(old, new, 1)
        return text

    def cancel(self) -> None:
        """Stop the child (the path gave up)."""
        if self.pid is not None:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.close(self.read)
            self._reap()

    def _reap(self) -> bool:
        pid, self.pid = self.pid, None
        if pid is None:
            return False
        _, status = os.waitpid(pid, 0)
        return os.waitstatus_to_exitcode(status) == 0


def start(module: Any, functions: Sequence[Any], size: int,
          print_module: Callable[[Any], str]) -> PrintAhead | None:
    """A :class:`PrintAhead` for an input of ``size`` bytes, or ``None`` where it does not
    pay (small input) or cannot run (no ``fork``, the fork fails, a signature cannot be
    printed alone): the caller then prints after planning, as without it."""
    if size < MIN_BYTES or not hasattr(os, "fork"):
        return None
    try:
        return PrintAhead(module, functions, print_module)
    except Exception:
        return None
