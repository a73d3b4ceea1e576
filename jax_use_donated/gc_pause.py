"""Pausing Python's cyclic garbage collector around allocation-heavy analysis."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector inside the block.

    Building a model and planning allocate many small objects while a large module is alive,
    and every full collection would rescan that module (measured: it made the pass superlinear
    in module size, and cost the jit hook 0.1-0.3 s per lowering of a 21k-op step). What the
    block creates is acyclic, so reference counting frees it.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
