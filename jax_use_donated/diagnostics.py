"""The warning channel shared by the xDSL pass, the driver and the jit hook.

Warnings are not errors: a donor that cannot be reused leaves a correct program. They go to the
innermost active :class:`DiagnosticSink` (tests and the driver install one with
:func:`collect_diagnostics`); with no sink active they are raised as Python warnings of category
:class:`DonationWarning`, so ``pytest.warns`` and ``warnings.catch_warnings`` see them too.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Literal

from jax_use_donated.analysis.model import SourceLoc


class DonationWarning(UserWarning):
    """A donated buffer that cannot be reused, or a donation that was dropped."""


@dataclass(frozen=True)
class Diagnostic:
    severity: Literal["warning", "remark", "error"]
    message: str
    loc: SourceLoc = field(default_factory=SourceLoc)

    def format(self, fallback_location: str = "-") -> str:
        """MLIR style: ``file:line:col: warning: message``."""
        where = self.loc.text or fallback_location
        return f"{where}: {self.severity}: {self.message}"


@dataclass
class DiagnosticSink:
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]


_SINK: ContextVar[DiagnosticSink | None] = ContextVar("jax_use_donated_sink", default=None)


@contextmanager
def collect_diagnostics() -> Iterator[DiagnosticSink]:
    """Capture every diagnostic emitted inside the ``with`` block."""
    sink = DiagnosticSink()
    token = _SINK.set(sink)
    try:
        yield sink
    finally:
        _SINK.reset(token)


def emit(diagnostic: Diagnostic) -> None:
    """Send ``diagnostic`` to the active sink, else raise it as a :class:`DonationWarning`."""
    sink = _SINK.get()
    if sink is not None:
        sink.diagnostics.append(diagnostic)
    elif diagnostic.severity == "warning":
        warnings.warn(diagnostic.format(), DonationWarning, stacklevel=3)
