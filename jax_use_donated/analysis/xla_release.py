"""Which XLA the programs compile with: the installed jaxlib's release, read from its package
metadata (jaxlib is not imported), or ``JUD_XLA_VERSION`` (e.g. ``0.12.1``, for a module
compiled elsewhere). The rules that differ between XLA releases ask :func:`xla_at_least`."""

from __future__ import annotations

import functools
import importlib.metadata
import os
import re


@functools.cache
def xla_version() -> tuple[int, ...]:
    """``(0, 12, 1)`` for jaxlib 0.12.1; ``()`` when neither jaxlib nor the variable says."""
    text = os.environ.get("JUD_XLA_VERSION")
    if not text:
        try:
            text = importlib.metadata.version("jaxlib")
        except importlib.metadata.PackageNotFoundError:
            return ()
    return version_tuple(text)


def version_tuple(text: str) -> tuple[int, ...]:
    """``"0.12.0.1"`` -> ``(0, 12, 0, 1)``; ``"0.13.0.dev20260101"`` -> ``(0, 13, 0)``."""
    parts: list[int] = []
    for piece in text.split("."):
        match = re.match(r"\d+", piece)
        if match is None:
            break
        parts.append(int(match.group()))
        if match.end() != len(piece):
            break
    return tuple(parts)


def xla_at_least(*release: int) -> bool:
    """Whether the XLA is jaxlib ``release``'s or newer (``xla_at_least(0, 12, 1)``)."""
    return xla_version() >= release
