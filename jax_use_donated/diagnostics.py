"""The warning channel shared by the xDSL pass, the driver and the jit hook.

Warnings are not errors: a donor that cannot be reused leaves a correct program. They go to the
innermost active :class:`DiagnosticSink` (tests and the driver install one with
:func:`collect_diagnostics`). With no sink active, in an ``xdsl-opt`` process they are printed
MLIR-style to stderr (``file:line:col: warning: ...``; the input's name, :func:`input_name`,
where the IR has no location); anywhere else they are raised as Python warnings of
category :class:`DonationWarning`, so ``pytest.warns`` and ``warnings.catch_warnings`` see them.
"""

from __future__ import annotations

import logging
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from jax_use_donated.analysis.model import SourceLoc


class DonationWarning(UserWarning):
    """A donated buffer that cannot be reused, or a donation that was dropped (the base of
    every warning this package gives; the two kinds below sort the drop-in's donor warnings).

    >>> import warnings, jax_use_donated as jud
    >>> warnings.filterwarnings("ignore", category=jud.DonationWarning)  # silence them all
    """


class WastedDonationWarning(DonationWarning):
    """An actionable donation problem: XLA copies a donated buffer (measured in the executable
    where it was compiled), or a read late in the program blocks a donor from hosting a result
    of its own type. Its text starts ``Donated buffer copied by XLA`` or ``Donated buffer not
    reused``, not with JAX's phrase, so the filter Equinox's ``filter_jit(donate=...)`` puts on
    that phrase lets it through.

    >>> import warnings, jax_use_donated as jud
    >>> warnings.filterwarnings("error", category=jud.WastedDonationWarning)  # in CI
    """


class UnusableDonationWarning(DonationWarning):
    """An expected donation loss: nothing in the program can host the donor (no result of its
    type, every such result hosts another donor, or jit removed the unused argument), as a
    library's "donate everything" makes normal. Its text starts with JAX's own phrase "Some
    donated buffers were not usable", so filters on it (a user's, Equinox's) keep silencing it.

    >>> import warnings, jax_use_donated as jud
    >>> warnings.filterwarnings("ignore", category=jud.UnusableDonationWarning)
    """


LOGGER_NAME = "jax_use_donated"
"""The package's :mod:`logging` logger: every donor problem of the drop-in is recorded there
whatever the warning filters (actionable ones at ``INFO``, expected ones and each plan's
summary at ``DEBUG``); it has a ``NullHandler`` and prints nothing unless configured::

    logging.basicConfig()
    logging.getLogger("jax_use_donated").setLevel(logging.DEBUG)
"""

logger = logging.getLogger(LOGGER_NAME)
logger.addHandler(logging.NullHandler())


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


_INPUT_NAME: ContextVar[str | None] = ContextVar("jax_use_donated_input", default=None)


def note_input_name(name: str) -> None:
    """Record the name of the input being read (by the ``jax`` frontend): where ``xdsl-opt``
    locates diagnostics on IR without a location."""
    _INPUT_NAME.set(name)


def input_name() -> str:
    """The name of the input being read: as the ``jax`` frontend recorded it; else, in an
    ``xdsl-opt`` process, the input file its command line names (read with xDSL's own
    arguments: ``stdin``, as xDSL names it, when none); else ``xdsl-opt``."""
    recorded = _INPUT_NAME.get()
    if recorded:
        return recorded
    if running_xdsl_opt():
        named = _command_line_input()
        if named is not None:
            _INPUT_NAME.set(named)
            return named
    return "xdsl-opt"


def _command_line_input() -> str | None:
    """``xdsl-opt``'s input file as its argument parser reads ``sys.argv`` (``stdin`` when it
    names none), ``None`` where that cannot be told."""
    import argparse

    try:
        from xdsl.xdsl_opt_main import xDSLOptMain

        tool = object.__new__(xDSLOptMain)
        tool.available_frontends = {}
        tool.available_passes = {}
        tool.available_targets = {}
        parser = argparse.ArgumentParser(add_help=False, exit_on_error=False)
        tool.register_all_arguments(parser)
        args, _ = parser.parse_known_args(sys.argv[1:])
    except (Exception, SystemExit):
        return None
    name = getattr(args, "input_file", None)
    return name if isinstance(name, str) and name else "stdin"  # xDSL's name for it


def running_xdsl_opt() -> bool:
    """Whether this process is ``xdsl-opt`` (the console script or ``python -m``)."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and getattr(spec, "name", None) == "xdsl.tools.xdsl_opt":
        return True
    return bool(sys.argv) and Path(sys.argv[0]).name in ("xdsl-opt", "xdsl_opt.py")


def emit(diagnostic: Diagnostic) -> None:
    """Send ``diagnostic`` to the active sink; else print it (``xdsl-opt``) or raise it as a
    :class:`DonationWarning` (warnings only)."""
    sink = _SINK.get()
    if sink is not None:
        sink.diagnostics.append(diagnostic)
    elif running_xdsl_opt():
        sys.stdout.flush()
        print(diagnostic.format(input_name()), file=sys.stderr, flush=True)
    elif diagnostic.severity == "warning":
        warnings.warn(diagnostic.format(), DonationWarning, stacklevel=3)
