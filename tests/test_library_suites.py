"""``benchmarks/library_suites.py`` and its pytest plugin (``jax_use_donated.tools.suite_plugin``)
on a small made-up suite: pytest's summary is read right, the plugin switches the planner on as
asked, logs every outcome and DonationWarning once, and a test that passes plain and fails
switched on is reported as a regression. No library checkout, no network."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from benchmarks import library_suites as ls
from jax_use_donated.tools import suite_plugin

SUITE_TEXT = '''
import os
import warnings

import jax
import jax.numpy as jnp
import pytest

import jax_use_donated as jud

MODE = os.environ["JUD_SUITE"]


def test_donating_jit_runs():
    x = jnp.ones(3)
    assert float(jax.jit(lambda a: a + 1, donate_argnums=0)(x).sum()) == 6.0


def test_switch_is_as_asked():
    assert (jax.jit is jud.jit) == (MODE == "replace")
    assert (jud.installed() is not None) == (MODE == "install")


def test_fails_when_switched_on():
    assert jud.installed() is None and jax.jit is not jud.jit, "switched on"


def test_unusable_donation_warns():
    # nothing the size of x is returned: the planner warns (a DonationWarning) when on
    jax.jit(lambda a: jnp.sum(a), donate_argnums=0)(jnp.ones((5,)))


def test_skipped():
    pytest.skip("not here")


@pytest.mark.xfail(reason="known")
def test_xfail():
    assert False


@pytest.fixture
def broken():
    raise RuntimeError("setup breaks")


def test_setup_error(broken):
    pass
'''


@pytest.mark.parametrize(("text", "expected"), [
    ("===== 2 failed, 519 passed in 87.25s (0:01:27) =====", {"failed": 2, "passed": 519}),
    ("24 passed in 8.90s", {"passed": 24}),
    ("864 passed, 27 skipped, 8 subtests passed in 306.15s (0:05:06)",
     {"passed": 864, "skipped": 27, "subtests passed": 8}),
    ("1 failed, 48 passed, 3 skipped, 1 xfailed, 2 warnings, 1 error in 9.15s",
     {"failed": 1, "passed": 48, "skipped": 3, "xfailed": 1, "warnings": 2, "error": 1}),
    ("== 3 passed, 1 warning in 1s ==\n...\n== 5 passed, 2 errors in 2.5s ==",
     {"passed": 5, "error": 2}),
    ("============ no tests ran in 0.01s ============", {}),
    ("ImportError while loading conftest\nTraceback ...", None),
])
def test_parse_summary(text: str, expected: dict[str, int] | None) -> None:
    assert ls.parse_summary(text) == expected


def test_phase_outcomes_and_failure_lines() -> None:
    assert suite_plugin.phase_outcome("setup", "passed", False) is None
    assert suite_plugin.phase_outcome("setup", "failed", False) == "error"
    assert suite_plugin.phase_outcome("call", "failed", False) == "failed"
    assert suite_plugin.phase_outcome("call", "skipped", True) == "xfailed"
    assert suite_plugin.phase_outcome("call", "passed", True) == "xpassed"
    assert suite_plugin.phase_outcome("teardown", "failed", False) == "error"
    text = "def test():\n>   assert x\nE   AssertionError: boom\nE   more\n\nt.py:3: Error"
    assert suite_plugin.failure_line(text) == "AssertionError: boom"
    assert suite_plugin.failure_line("only a last line\nhere") == "here"


@pytest.fixture(scope="module")
def made_up_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("suite")
    (root / "test_lib.py").write_text(textwrap.dedent(SUITE_TEXT))
    # as JAX's, Flax's and Equinox's: every warning is an error, but JAX's own (plain) one
    (root / "pytest.ini").write_text(
        "[pytest]\nfilterwarnings =\n    error\n"
        "    ignore:Some donated buffers were not usable. float32:UserWarning\n")
    return root


SUITE = ls.Suite(("test_lib.py",), "install")
EXPECTED_PLAIN = {
    "test_lib.py::test_donating_jit_runs": "passed",
    "test_lib.py::test_switch_is_as_asked": "passed",
    "test_lib.py::test_fails_when_switched_on": "passed",
    "test_lib.py::test_unusable_donation_warns": "passed",
    "test_lib.py::test_skipped": "skipped",
    "test_lib.py::test_xfail": "xfailed",
    "test_lib.py::test_setup_error": "error",
}


def test_plain_and_installed_runs_side_by_side(made_up_suite: Path) -> None:
    result = ls.run_file(made_up_suite, "test_lib.py", "install", suite=SUITE, timeout=300)
    plain, on = result.plain, result.switched
    assert plain.outcomes == EXPECTED_PLAIN, plain.output
    assert on.outcomes == {**EXPECTED_PLAIN, "test_lib.py::test_fails_when_switched_on":
                           "failed"}, on.output
    assert plain.consistent() and on.consistent()
    assert "AssertionError: switched on" in on.messages["test_lib.py::test_fails_when_switched_on"]
    assert "setup breaks" in plain.messages["test_lib.py::test_setup_error"]
    # the suite's "error" filter would fail it; the plugin records the warning instead
    assert [t for t, _ in on.warnings] == ["test_lib.py::test_unusable_donation_warns"]
    assert on.warnings[0][1].startswith("Some donated buffers were not usable")
    assert plain.warnings == [] and plain.plans == []
    planned = {str(p["nodeid"]): p for p in on.plans}
    assert planned["test_lib.py::test_donating_jit_runs"]["reused"] == 1
    # ... and the rerun under the suite's own filters finds the test that trips over it
    assert result.strict is not None
    assert list(result.strict.outcomes) == ["test_lib.py::test_unusable_donation_warns"]
    assert result.tripped() == ["test_lib.py::test_unusable_donation_warns"]

    assert result.regressions() == ["test_lib.py::test_fails_when_switched_on"]
    text = "\n".join(ls.report("made-up", SUITE, "install", "here", "cmd", [result], "record"))
    assert "| test_lib.py | 7 | 4 / 3 | 0 / 1 | 1 / 1 | 1 / 1 | 1 / 1 | 0 / 0 |" in text
    assert "Tests that pass plain and not with the planner on: 1." in text
    assert "- `test_lib.py::test_fails_when_switched_on` (failed): AssertionError" in text
    assert "warning filters (the tests that met a DonationWarning, 1, rerun" in text
    assert "- `test_lib.py::test_unusable_donation_warns` (failed): " \
           "jax_use_donated.diagnostics.DonationWarning: Some donated buffers" in text
    assert "1x `Some donated buffers were not usable" in text


def test_replace_mode_and_the_suite_s_own_warning_filter(made_up_suite: Path) -> None:
    run = ls.run(made_up_suite, ["test_lib.py"], "replace", suite=SUITE, warnings="suite",
                 timeout=300)
    assert run.outcomes["test_lib.py::test_switch_is_as_asked"] == "passed", run.output
    assert run.outcomes["test_lib.py::test_fails_when_switched_on"] == "failed"
    assert run.outcomes["test_lib.py::test_unusable_donation_warns"] == "failed"


def test_xdist_workers_log_each_outcome_once(made_up_suite: Path) -> None:
    pytest.importorskip("xdist")
    run = ls.run(made_up_suite, ["test_lib.py"], "install", suite=SUITE, workers=2,
                 timeout=300)
    assert run.consistent(), run.output
    assert len(run.outcomes) == 7
    assert [t for t, _ in run.warnings] == ["test_lib.py::test_unusable_donation_warns"]
