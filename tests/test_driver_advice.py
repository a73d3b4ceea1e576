"""``jax-donate-opt --advise`` and ``--donation-report=html=FILE``: the driver's predicted
advice (analysis/advice.py's rules under the pipeline's ordering, marked unverified) and its
self-contained page, drawn from the plan records the JSON report writes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from jax_use_donated.analysis.advice import predict_advice
from jax_use_donated.analysis.report import AdvisedFunction, advice_text, advise_functions
from tests.test_driver_paths import run

ROOT = Path(__file__).resolve().parent.parent
ADVISE_INPUT = ROOT / "lit_tests" / "advise.mlir"
REPORT_INPUT = ROOT / "lit_tests" / "donation_report.mlir"
EXAMPLE = ROOT / "examples" / "train_step.mlir"

NO_DONORS = """\
module @jit_f {
  func.func public @main(%arg0: tensor<8xf32> loc("x"), %arg1: tensor<8xi32> loc("ids"), %arg2: tensor<3xf32> loc("small")) -> (tensor<8xf32>) {
    %0 = stablehlo.negate %arg0 : tensor<8xf32> loc("f.py":2:8)
    return %0 : tensor<8xf32>
  }
  func.func private @helper(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    return %arg0 : tensor<8xf32>
  }
}
"""


def _advice_lines(err: str) -> list[str]:
    start = err.index("advice for ")
    return err[start:].splitlines()


def test_advise_names_the_undonated_argument_that_could_host_a_result() -> None:
    code, out, err = run(ADVISE_INPUT, "-p", "jax-plan-donation", "--advise")
    assert code == 0 and out
    lines = _advice_lines(err)
    assert lines[0] == ("advice for @main (predicted from the module, unverified: nothing "
                        "compiled or measured)")
    rows = {line.split()[0]: line for line in lines if line.startswith("  ") and "(%arg" in line}
    assert set(rows) == {"grads", "count"}
    assert " donate " in rows["grads"] and "16 B" in rows["grads"]
    assert "if the caller does not use it after the call" in rows["grads"]
    assert " none " in rows["count"]
    assert lines[-1].startswith("note: predicted from the module, unverified")


def test_existing_output_is_unchanged_by_advise() -> None:
    for args in (("-p", "jax-plan-donation"), ("-p", "jax-plan-donation", "--donation-report"),
                 ("-p", "jax-plan-donation", "--donation-report=json")):
        plain = run(REPORT_INPUT, *args, "--path=xdsl")  # --advise reads with xDSL
        advised = run(REPORT_INPUT, *args, "--advise")
        assert advised[:2] == plain[:2]
        assert advised[2].startswith(plain[2])
        assert advised[2][len(plain[2]):].startswith("advice for @main")


def test_advise_without_donors_or_pass_and_never_another_dtype_or_size(
        tmp_path: Path) -> None:
    path = tmp_path / "no_donors.mlir"
    path.write_text(NO_DONORS)
    code, out, err = run(path, "--advise")
    assert code == 0 and "@helper" in out
    assert "advice for @helper" not in err  # private: its callers' donations matter
    lines = _advice_lines(err)
    donate = [line for line in lines if " donate " in line]
    assert [line.split()[0] for line in donate] == ["x"]
    assert "ids" not in err and "small" not in err  # other dtype, other size: not worth a word
    assert "total: donating the 1 argument above together would reuse 32 B more" in err


@pytest.mark.parametrize("pipeline", ["jax-plan-donation{ordering=xla-cpu}",
                                      "jax-plan-donation{ordering=xla-cpu-region}",
                                      "jax-plan-donation{mode=materialize}"])
def test_driver_advice_is_the_rules_prediction_on_the_drivers_plan(
        pipeline: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from jax_use_donated.opt import driver

    seen: list[list[AdvisedFunction]] = []

    def spy(*args: object, **kwargs: object) -> list[AdvisedFunction]:
        got = advise_functions(*args, **kwargs)  # type: ignore[arg-type]
        seen.append(got)
        return got

    monkeypatch.setattr(driver, "advise_functions", spy)
    code, _, err = run(EXAMPLE, "-p", pipeline, "--advise", "-o", "/dev/null")
    assert code == 0 and len(seen) == 1
    (advised,) = seen
    assert [a.fn.name for a in advised] == ["main"]
    assert err[err.index("advice for @main"):] == advice_text(advised, str(EXAMPLE))
    for item in advised:
        assert item.advice == predict_advice(item.fn, item.plan.ordering, item.plan)
        assert item.plan.ordering == ("program" if "materialize" in pipeline
                                      else pipeline.split("=")[1].rstrip("}"))
        for a in item.advice:
            if a.action == "donate":  # never another dtype, size or placement
                arg = item.fn.args[a.arg]
                assert not arg.donation.donated
                assert any(r.type_text == arg.type_text for r in item.fn.results)


def test_html_page_is_self_contained_and_the_json_records(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    code, out, err = run(EXAMPLE, "-p", "jax-plan-donation", f"--donation-report=html={page}",
                         "--advise")
    assert code == 0 and out and "advice for @main" in err
    text = page.read_text()
    assert text.startswith("<!doctype html>") and text.rstrip().endswith("</html>")
    assert "<script" not in text and "http://" not in text.replace(
        "http://www.w3.org/2000/svg", "")
    _, _, json_err = run(EXAMPLE, "-p", "jax-plan-donation", "--donation-report=json")
    doc = json.loads(next(line for line in json_err.splitlines() if line.startswith("{")))
    leaves = doc["functions"][0]["leaves"]
    drawn = re.findall(r'<g class="strip" data-path="([^"]*)"', text)
    assert sorted(drawn) == sorted(x["path"].replace("'", "&#x27;") for x in leaves)
    assert "n/a: not measured" in text and "<h3>Advice</h3>" in text
    assert "no (predicted)" in text or "nothing compiled or measured" in text
    # the plain page: no advice, same strips
    plain = tmp_path / "plain.html"
    code, _, err = run(EXAMPLE, "-p", "jax-plan-donation", f"--donation-report=html={plain}")
    assert code == 0 and "advice for" not in err and "<h3>Advice</h3>" not in plain.read_text()
    assert re.findall(r'data-path="([^"]*)"', plain.read_text()) == re.findall(
        r'<g class="strip" data-path="([^"]*)"', text)


def test_html_needs_a_file_and_the_xdsl_path() -> None:
    exe = str(Path(sys.executable).with_name("jax-donate-opt"))
    done = subprocess.run([exe, str(REPORT_INPUT), "-p", "jax-plan-donation",
                           "--donation-report=html"], capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == 2 and done.stderr.splitlines()[-1] == (
        "jax-donate-opt: error: argument --donation-report: 'html' writes a page to a file: "
        "name it, e.g. html=report.html")
    code, _, err = run(REPORT_INPUT, "-p", "jax-plan-donation", "--advise", "--path=jaxlib")
    assert code == 1 and "--advise is handled by the xDSL path" in err


def test_html_page_without_a_donation_pass_says_why(tmp_path: Path) -> None:
    page = tmp_path / "none.html"
    code, _, _ = run(REPORT_INPUT, f"--donation-report=html={page}")
    assert code == 0
    assert "Nothing to report: the pipeline has no donation pass" in page.read_text()
