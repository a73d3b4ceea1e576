"""A pytest plugin that runs another project's test suite with the donation planner switched on,
for ``benchmarks/library_suites.py``: JAX's, Flax's and Equinox's own tests are the outside
check of the drop-in and of the global switch.

``JUD_SUITE=plain|replace|install pytest -p jax_use_donated.tools.suite_plugin <tests>``:

* ``plain``: nothing changes (the baseline);
* ``replace``: ``jax.jit`` is ``jax_use_donated.jit`` (set in ``pytest_configure``, before test
  modules are collected, so ``from jax import jit`` in a test module binds the drop-in);
* ``install``: ``jax_use_donated.install()``, which plans every jit lowering (``jax.jit``,
  ``nnx.jit``, ``eqx.filter_jit``, ...).

``JUD_SUITE_WARNINGS`` says what the suite's warning filters do with our ``DonationWarning``:
``record`` (default: shown, never an error, and logged), ``ignore``, or ``suite`` (the suite's
own filters apply, which for JAX, Flax and Equinox turn every warning into an error). Only a
test that checks warnings itself (``assertWarns``, ``catch_warnings``) sees them otherwise.

``JUD_SUITE_LOG=<file>``: one JSON object per line, appended (safe with pytest-xdist workers):
``{"kind": "outcome", "nodeid", "outcome", "message"}`` per test (``passed``, ``failed``,
``error``, ``skipped``, ``xfailed``, ``xpassed``; written by the process that reports, the
controller under xdist), ``{"kind": "warning", "nodeid", "message"}`` per recorded
``DonationWarning``, and per test that planned something ``{"kind": "plans", "nodeid",
"lowerings", "donated", "reused", "fallbacks"}`` (from ``jax_use_donated.recent_plans()``,
cleared after each test; written by the process that ran the test).
"""

from __future__ import annotations

import json
import os
import warnings
from typing import Any

MODES = ("plain", "replace", "install")
WARNING_MODES = ("record", "ignore", "suite")
_DONATION_WARNING = "jax_use_donated.DonationWarning"
_OUTCOMES: dict[str, tuple[str, str]] = {}
"""Test id -> (outcome so far, first line of its failure) until its teardown report."""
_REPORTING = [True]
"""False in an xdist worker: the controller logs the outcomes it receives."""
_RUNNING = [True]
"""False in an xdist controller: the workers log the warnings they meet (the controller is
told of them again)."""


def suite_mode() -> str:
    """``JUD_SUITE`` (``JUD_JAX_SUITE``, the older name, is read too); ``plain`` by default."""
    mode = os.environ.get("JUD_SUITE") or os.environ.get("JUD_JAX_SUITE") or "plain"
    if mode not in MODES:
        raise ValueError(f"JUD_SUITE must be one of {', '.join(MODES)}, not {mode!r}")
    return mode


def warning_mode() -> str:
    """``JUD_SUITE_WARNINGS`` (``JUD_JAX_SUITE_WARNINGS`` is read too); ``record`` by default."""
    mode = (os.environ.get("JUD_SUITE_WARNINGS") or os.environ.get("JUD_JAX_SUITE_WARNINGS")
            or "record")
    if mode not in WARNING_MODES:
        raise ValueError(
            f"JUD_SUITE_WARNINGS must be one of {', '.join(WARNING_MODES)}, not {mode!r}")
    return mode


def _log(entry: dict[str, Any]) -> None:
    path = os.environ.get("JUD_SUITE_LOG")
    if not path:
        return
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry) + "\n")


def pytest_configure(config: Any) -> None:
    mode = suite_mode()
    wmode = warning_mode()
    _REPORTING[0] = not hasattr(config, "workerinput")
    _RUNNING[0] = not _REPORTING[0] or getattr(config.option, "dist", "no") == "no"
    if mode == "plain":
        return
    import jax

    import jax_use_donated

    if mode == "replace":
        jax.jit = jax_use_donated.jit
    else:
        jax_use_donated.install()
    # Later filterwarnings lines win over the suite's own ("error" first in all three suites).
    if wmode == "record":
        config.addinivalue_line("filterwarnings", f"always::{_DONATION_WARNING}")
    elif wmode == "ignore":
        config.addinivalue_line("filterwarnings", f"ignore::{_DONATION_WARNING}")


def pytest_report_header(config: Any) -> str:
    return (f"jax_use_donated suite plugin: JUD_SUITE={suite_mode()}, "
            f"JUD_SUITE_WARNINGS={warning_mode()}")


def pytest_warning_recorded(warning_message: warnings.WarningMessage, when: str,
                            nodeid: str, location: Any) -> None:
    from jax_use_donated import DonationWarning

    if _RUNNING[0] and issubclass(warning_message.category, DonationWarning):
        _log({"kind": "warning", "nodeid": nodeid, "when": when,
              "message": str(warning_message.message)})


def pytest_runtest_teardown(item: Any, nextitem: Any) -> None:
    if suite_mode() == "plain":
        return
    import jax_use_donated

    plans = jax_use_donated.recent_plans()
    if not plans:
        return
    try:
        from jax_use_donated.dropin.records import clear_recent_plans
    except ImportError:  # the package moved it: counts may then include earlier tests
        pass
    else:
        clear_recent_plans()
    donations = [d for p in plans for d in p.donations]
    _log({"kind": "plans", "nodeid": item.nodeid, "lowerings": len(plans),
          "donated": len(donations), "reused": sum(d.status == "reused" for d in donations),
          "fallbacks": sum(p.fallback_reason is not None for p in plans)})


def phase_outcome(when: str, outcome: str, wasxfail: bool) -> str | None:
    """What one phase's report says of its test (``None``: nothing beyond ``passed``)."""
    if outcome == "failed":
        return "failed" if when == "call" else "error"
    if outcome == "skipped":
        return "xfailed" if wasxfail else "skipped"
    if when == "call":
        return "xpassed" if wasxfail else "passed"
    return None


_RANK = {"passed": 0, "xpassed": 1, "skipped": 1, "xfailed": 1, "failed": 2, "error": 3}


def failure_line(longreprtext: str) -> str:
    """The first ``E`` line of a failure report (else its last line), at most 300 characters."""
    errors = [ln[1:].strip() for ln in longreprtext.splitlines() if ln.startswith("E ")]
    lines = errors or longreprtext.strip().splitlines()[-1:]
    return lines[0][:300] if lines else ""


def pytest_runtest_logreport(report: Any) -> None:
    if not _REPORTING[0] or not os.environ.get("JUD_SUITE_LOG"):
        return
    outcome, message = _OUTCOMES.get(report.nodeid, ("passed", ""))
    now = phase_outcome(report.when, report.outcome, hasattr(report, "wasxfail"))
    if now is not None and _RANK[now] >= _RANK[outcome]:
        if report.outcome == "failed" and _RANK[now] > _RANK[outcome]:
            message = failure_line(getattr(report, "longreprtext", "") or "")
        outcome = now
    _OUTCOMES[report.nodeid] = (outcome, message)
    if report.when == "teardown":
        _OUTCOMES.pop(report.nodeid)
        _log({"kind": "outcome", "nodeid": report.nodeid, "outcome": outcome,
              "message": message})
