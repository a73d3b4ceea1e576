"""The donation report of ``jax-donate-opt`` and of the passes' ``report`` option: said once,
the ordering in words, hints, ``--verbose``, JSON, ``FORMAT=FILE``, ``html`` without a file, and
the same bytes from every front end (both paths and routes of ``jax-donate-opt``, ``xdsl-opt``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from jax_use_donated.analysis.orderings import ORDERINGS
from jax_use_donated.analysis.report import ORDERING_WORDS, SCHEMA, VERSION
from jax_use_donated.analysis.report_schema import validate
from jax_use_donated.opt import text_route
from jax_use_donated.opt.driver import with_report_format
from tests.test_driver_paths import run

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "train_step.mlir"
REPORT_INPUT = ROOT / "lit_tests" / "donation_report.mlir"
NO_DEBUG_INPUT = ROOT / "lit_tests" / "donation_report_no_debug_info.mlir"


def _bin(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


def test_every_ordering_has_words() -> None:
    assert set(ORDERING_WORDS) == set(ORDERINGS)


def test_each_thing_is_said_once_on_the_example() -> None:
    """A warning per unpaired donor, then the report: no message repeated, the ordering named,
    the way to region analysis's numbers given once."""
    code, out, err = run(EXAMPLE, "-p", "jax-plan-donation", "--donation-report")
    assert code == 0 and out
    lines = err.splitlines()
    warnings = [x for x in lines if ": warning: " in x]
    assert len(warnings) == 3 and err.count("is not reused") == 3
    report = lines[len(warnings):]
    assert report[0] == ("donation report for @main: 13/16 donors reused without a copy, "
                         "82.0 KiB of 98.3 KiB")
    assert report[1] == ("  ordering: XLA's default copy insertion (a donor's other reads "
                         "must feed the write)")
    assert report[2] == ("  jax.jit's pairing: 16/16 donors, 98.3 KiB, 5 without a copy "
                         "(32.8 KiB): 11 overwrite a buffer still read, which XLA copies")
    assert report[-2] == "3 donors not reused: the warnings above say why"
    assert report[-1].startswith("hint: these numbers are for XLA's default copy insertion")
    assert report[-1].endswith("-p 'jax-plan-donation{ordering=xla-cpu-region}'")
    assert err.count("ordering=xla-cpu-region") == 1
    assert "debug_info=True" not in err  # the example carries names and source lines
    assert max(len(x) for x in report) < 240


def test_region_analysis_reuses_every_donor_of_the_example() -> None:
    code, _, err = run(EXAMPLE, "-p", "jax-plan-donation{ordering=xla-cpu-region}",
                       "--donation-report")
    assert code == 0 and ": warning: " not in err
    assert err.startswith("donation report for @main: 16/16 donors reused without a copy")
    assert "XLA:CPU with region analysis" in err and "hint" not in err


def test_verbose_adds_the_explanations_only(tmp_path: Path) -> None:
    _, _, short = run(REPORT_INPUT, "-p", "jax-plan-donation", "--donation-report")
    _, _, long = run(REPORT_INPUT, "-p", "jax-plan-donation", "--donation-report", "--verbose")
    long = "".join(x for x in long.splitlines(keepends=True)
                   if not x.startswith("jax-donate-opt: "))
    added = [x for x in long.splitlines() if x not in short.splitlines()]
    assert added[0] == "what the report says:"
    assert all(x.startswith("  ") and len(x) <= 100 for x in added[1:])
    assert "hint:" in short.splitlines()[-1] and long.splitlines()[-1] == short.splitlines()[-1]


def _json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in text.splitlines() if x.startswith("{")]


def test_json_report_is_versioned_and_complete() -> None:
    code, _, err = run(EXAMPLE, "-p", "jax-plan-donation", "--donation-report=json")
    assert code == 0
    (doc,) = _json_lines(err)
    assert (doc["schema"], doc["version"], doc["input"]) == (SCHEMA, VERSION, str(EXAMPLE))
    (record,) = doc["functions"]  # the drop-in's schema (CallPlan.to_dict)
    assert validate(record) == [] and record["front_end"] == "jax-donate-opt"
    assert (record["summary"]["donated"], record["summary"]["reused"]) == (16, 13)
    (fn,) = doc["details"]
    assert (fn["function"], fn["donors"], fn["reused"]) == ("main", 16, 13)
    assert fn["ordering"]["name"] == "xla-cpu" and fn["ordering"]["verified"] is True
    assert fn["jax_pairing"]["donors"] == 16 and len(fn["jax_pairing"]["copied"]) == 11
    assert fn["reused_bytes"] == sum(a["bytes"] for a in fn["arguments"]
                                     if a["result"] is not None)
    w2 = next(a for a in fn["arguments"] if a["name"] == "params['w2']")
    assert (w2["index"], w2["result"], w2["reason"], w2["jax_result"]) == (
        14, None, "read-after-write", 14)
    (blocker,) = w2["blockers"]
    assert blocker["reader"] == {"op": "stablehlo.dot_general",
                                 "location": "examples/train_step.py:46:20"}
    assert w2["message"] in err  # the warning's text, word for word
    assert [h["id"] for h in doc["hints"]] == ["region-ordering"]


def test_json_report_per_chunk_and_when_there_is_nothing() -> None:
    code, _, err = run(NO_DEBUG_INPUT, "-p", "jax-plan-donation", "--donation-report=json",
                       "--split-input-file")
    assert code == 0
    first, second = _json_lines(err)
    assert [h["id"] for h in first["hints"]] == ["region-ordering", "debug-info"]
    assert second["functions"] == second["details"] == [] and second["note"].startswith(
        "nothing to report: no function has donated arguments")
    _, _, err = run(NO_DEBUG_INPUT, "--donation-report=json")
    (doc,) = _json_lines(err)
    assert doc["note"].startswith("nothing to report: the pipeline has no donation pass")


def test_report_to_a_file_leaves_stderr_to_the_warnings(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.write_text("stale\n")
    code, out, err = run(REPORT_INPUT, "-p", "jax-plan-donation",
                         f"--donation-report=json={target}")
    assert code == 0 and out and err.count("\n") == 2 and "donation report" not in err
    (doc,) = _json_lines(target.read_text())
    assert doc["details"][0]["reused"] == 2 and "stale" not in target.read_text()
    text = tmp_path / "report.txt"
    run(REPORT_INPUT, "-p", "jax-plan-donation", f"--donation-report=text={text}")
    assert text.read_text().startswith("donation report for @main: 2/4 donors reused")


def test_unwritable_report_file_fails_before_anything_is_written(tmp_path: Path) -> None:
    code, out, err = run(REPORT_INPUT, "-p", "jax-plan-donation",
                         f"--donation-report=json={tmp_path / 'no' / 'such' / 'dir.json'}")
    assert (code, out) == (1, "")
    assert err.startswith("jax-donate-opt: error: No such file or directory: ")
    assert "warning" not in err


@pytest.mark.parametrize(("value", "message"), [
    ("html", "'html' writes a page to a file: name it, e.g. html=report.html"),
    ("yaml", "unknown report format 'yaml'; expected text, json (optionally =FILE, e.g. "
             "json=report.json)"),
    ("json=", "'json=' names no file after '='"),
])
def test_report_formats_outside_text_and_json_are_refused(value: str, message: str) -> None:
    done = subprocess.run([_bin("jax-donate-opt"), str(REPORT_INPUT), "-p", "jax-plan-donation",
                           f"--donation-report={value}"], capture_output=True, text=True,
                          check=False, timeout=120)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1] == (
        f"jax-donate-opt: error: argument --donation-report: {message}")
    assert "Traceback" not in done.stderr


def test_a_bare_flag_never_takes_the_input_file_as_its_value() -> None:
    assert with_report_format(["--donation-report", "in.mlir", "--donation-rep", "--",
                               "--donation-report"]) == [
        "--donation-report=text", "in.mlir", "--donation-report=text", "--",
        "--donation-report"]
    done = subprocess.run([_bin("jax-donate-opt"), "--donation-report", str(REPORT_INPUT),
                           "-p", "jax-plan-donation"], capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == 0 and done.stdout and "donation report for @main" in done.stderr


def test_a_pass_option_asks_for_the_same_report() -> None:
    flag = run(REPORT_INPUT, "-p", "jax-plan-donation", "--donation-report=json")
    option = run(REPORT_INPUT, "-p", "jax-plan-donation{report=json}")
    assert flag == option
    assert run(REPORT_INPUT, "-p", "jax-plan-donation{report=false}")[2].count("\n") == 2


def _xdsl_opt(source: Path, *args: str) -> tuple[int, str]:
    done = subprocess.run([_bin("xdsl-opt"), "-f", "jax", "-t", "jax", str(source), *args,
                           "-o", "/dev/null"], capture_output=True, text=True, check=False,
                          timeout=300)
    return done.returncode, done.stderr


@pytest.mark.parametrize("source", [EXAMPLE, REPORT_INPUT, NO_DEBUG_INPUT],
                         ids=lambda p: p.name)
def test_xdsl_opt_prints_what_jax_donate_opt_prints(source: Path) -> None:
    """Warnings named by the input file and the same report, from the pass's ``report``
    option in a plain ``xdsl-opt`` process, in each form."""
    for option, flags in (("report", ["--donation-report"]),
                          ("report=json", ["--donation-report=json"]),
                          ("report=verbose", ["--donation-report", "--verbose"])):
        code, err = _xdsl_opt(source, "-p", f"jax-plan-donation{{{option}}}")
        ours = run(source, "-p", "jax-plan-donation", *flags, "-o", "/dev/null")
        expected = "".join(x for x in ours[2].splitlines(keepends=True)
                           if not x.startswith("jax-donate-opt: "))
        assert (code, err) == (ours[0], expected), option


def test_the_text_route_renders_the_report_in_its_child(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Forced onto the text route, the example's report in every form (as jaxlib prints the
    example, which the route takes) is the bindings route's (the child renders it)."""
    from jax_use_donated.opt import jaxlib_io

    module = jaxlib_io.parse(EXAMPLE.read_bytes())
    source = tmp_path / "train_step.mlir"
    source.write_text(module.operation.get_asm(enable_debug_info=True) + "\n")
    for args in (["-p", "jax-plan-donation", "--donation-report"],
                 ["-p", "jax-plan-donation", "--donation-report=json"],
                 ["-p", "jax-plan-donation,jax-verify-donation{report=verbose}"]):
        monkeypatch.setattr(text_route, "MIN_BYTES", 1 << 40)
        bindings = run(source, *args)
        monkeypatch.setattr(text_route, "MIN_BYTES", 0)
        _, _, verbose = run(source, *args, "--verbose", "-o", "/dev/null")
        assert "model read from the text" in verbose
        assert run(source, *args) == bindings
        assert "donation report for @main" in bindings[2] or '"function": "main"' in bindings[2]
