"""``jax-donate-opt --advise`` and ``--donation-report=html=FILE``: the driver's predicted
advice (analysis/advice.py's rules under the pipeline's ordering, marked unverified), in text
and in the JSON document, and its self-contained page, drawn from the plan records the JSON
report writes, rendered in a real headless Chromium, one page for a split input."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from jax_use_donated.analysis.advice import predict_advice
from jax_use_donated.analysis.picture import COLORS
from jax_use_donated.analysis.report import AdvisedFunction, advice_text, advise_functions
from jax_use_donated.analysis.report_schema import (
    ADVICE_SCHEMA_NAME,
    ADVICE_VERSION,
    validate_advice,
)
from tests.chromium import chromium, run_chromium, screenshot_pixels
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
    for args in (("-p", "jax-plan-donation"), ("-p", "jax-plan-donation", "--donation-report")):
        plain = run(REPORT_INPUT, *args, "--path=xdsl")  # --advise reads with xDSL
        advised = run(REPORT_INPUT, *args, "--advise")
        assert advised[:2] == plain[:2]
        assert advised[2].startswith(plain[2])
        assert advised[2][len(plain[2]):].startswith("advice for @main")
    # JSON: the same document plus its "advice", then the same text advice
    args = ("-p", "jax-plan-donation", "--donation-report=json")
    plain = run(REPORT_INPUT, *args, "--path=xdsl")
    advised = run(REPORT_INPUT, *args, "--advise")
    assert advised[:2] == plain[:2]
    plain_lines, advised_lines = plain[2].splitlines(), advised[2].splitlines()
    k = next(i for i, line in enumerate(plain_lines) if line.startswith("{"))
    assert advised_lines[:k] == plain_lines[:k] and len(plain_lines) == k + 1
    doc = json.loads(advised_lines[k])
    assert "advice" not in json.loads(plain_lines[k]) and doc.pop("advice")
    assert doc == json.loads(plain_lines[k])
    assert advised_lines[k + 1].startswith("advice for @main")


def _json_docs(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_advise_with_a_json_report_puts_the_advice_in_the_document(tmp_path: Path) -> None:
    code, _, err = run(ADVISE_INPUT, "-p", "jax-plan-donation", "--advise",
                       "--donation-report=json", "-o", "/dev/null")
    assert code == 0
    (doc,) = _json_docs(err)
    (record,) = doc["advice"]
    assert validate_advice(record) == []
    assert (record["schema"], record["version"]) == (ADVICE_SCHEMA_NAME, ADVICE_VERSION)
    assert (record["function"], record["front_end"], record["measured"]) == (
        "main", "jax-donate-opt", False)
    assert record["ordering"] == doc["functions"][0]["ordering"]
    assert record["together_bytes"] == 16
    grads, count = record["suggestions"]
    assert grads == {"path": "grads", "leaf": 1, "action": "donate", "donated": False,
                     "bytes": 16, "bytes_saved": 16, "verified": False, "result": 1,
                     "reason": "it would host result 1 without a copy", "location": None}
    assert (count["path"], count["action"], count["bytes_saved"], count["verified"]) == (
        "count", "none", 0, False)
    assert count["donated"] is True and count["reason"].startswith("no result has its size")
    assert all(type(s["bytes_saved"]) is int for s in record["suggestions"])
    # json=FILE: the same document in the file, the text advice still on stderr
    target = tmp_path / "report.json"
    code, _, err = run(ADVISE_INPUT, "-p", "jax-plan-donation", "--advise",
                       f"--donation-report=json={target}", "-o", "/dev/null")
    assert code == 0 and "advice for @main" in err and "{" not in err
    assert _json_docs(target.read_text()) == [doc]
    # without a donation pass: no plan to report, the advice all the same
    code, _, err = run(ADVISE_INPUT, "--advise", "--donation-report=json", "-o", "/dev/null")
    assert code == 0
    (bare,) = _json_docs(err)
    assert bare["functions"] == [] and bare["note"].startswith(
        "nothing to report: the pipeline has no donation pass")
    assert [s["path"] for s in bare["advice"][0]["suggestions"]] == ["grads", "count"]


def test_the_json_advice_is_the_text_advice_on_the_example() -> None:
    code, _, err = run(EXAMPLE, "-p", "jax-plan-donation", "--advise",
                       "--donation-report=json", "-o", "/dev/null")
    assert code == 0
    (doc,) = _json_docs(err)
    (record,) = doc["advice"]
    assert validate_advice(record) == []
    text_rows = [line.split()[:3] for line in _advice_lines(err) if "(%arg" in line]
    assert [[f"{s['path']}", s["action"]] for s in record["suggestions"]] == [
        [row[0], row[2]] for row in text_rows]
    for s in record["suggestions"]:
        assert s["verified"] is False and s["reason"] in err
        if s["action"] == "reorder":  # the blocking read's source line
            assert s["location"] is not None and s["location"].startswith(
                "examples/train_step.py:")
            assert s["bytes_saved"] == s["bytes"] > 0


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
    code, _, err = run(ADVISE_INPUT, f"--donation-report=html={page}", "--advise")
    assert code == 0 and "advice for @main" in err
    text = page.read_text()
    assert "Nothing to report: the pipeline has no donation pass" in text
    assert "<h3>Advice</h3>" in text and "<td>grads</td><td>donate</td>" in text


@pytest.mark.parametrize("advise", [True, False], ids=["advise", "plain"])
def test_driver_page_renders_in_headless_chromium(advise: bool, tmp_path: Path) -> None:
    """The page ``--donation-report=html=FILE`` writes, opened in a real browser: its DOM
    carries every donor's name and the source lines of their reads, and its screenshot is a
    drawing (strips and tables), not a blank page."""
    binary = chromium()
    page = tmp_path / "step.html"
    code, _, _ = run(EXAMPLE, "-p", "jax-plan-donation", f"--donation-report=html={page}",
                     *(["--advise"] if advise else []), "-o", "/dev/null")
    assert code == 0
    dom = run_chromium(binary, "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr.decode()[-2000:]
    text = html.unescape(dom.stdout.decode())
    _, _, json_err = run(EXAMPLE, "-p", "jax-plan-donation", "--donation-report=json")
    (doc,) = _json_docs(json_err)
    for leaf in doc["functions"][0]["leaves"]:
        assert f">{leaf['path']}<" in text, leaf["path"]  # the strip's label
    for line in ("examples/train_step.py:46:20", "examples/train_step.py:56:35"):
        assert line in text, line  # the reads' source lines (hover titles)
    assert "Donations of @main" in text and "n/a: not measured" in text
    assert ("<h3>Advice</h3>" in text) is advise
    if advise:
        assert "params['w2']</td><td>reorder</td>" in text
    shot = tmp_path / "step.png"
    out = run_chromium(binary, f"--screenshot={shot}", "--window-size=1100,1700",
                       page.as_uri())
    assert shot.exists(), out.stderr.decode()[-2000:]
    pixels = screenshot_pixels(shot).astype(int)
    assert pixels.shape == (1700, 1100, 3)
    colours = {tuple(p) for p in pixels.reshape(-1, 3)[::7].tolist()}
    assert len(colours) > 20, len(colours)  # text, strips, marks: more than a background
    inked = (abs(pixels - 255).sum(axis=-1) > 60).mean()
    assert 0.01 < inked < 0.9, inked
    # the strips are drawn: 13 copy-free writes in green, 3 blocked pairs in red
    for colour, least in ((COLORS["copy-free"], 2000), (COLORS["blocked write"], 200)):
        rgb = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
        painted = int((abs(pixels - rgb).sum(axis=-1) < 30).sum())
        assert painted > least, (colour, painted)


SPLIT = """module @jit_first {
  func.func public @first(%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32} loc("p"), %arg1: tensor<4xf32> loc("g")) -> (tensor<4xf32>, tensor<4xf32>) {
    %0 = stablehlo.subtract %arg0, %arg1 : tensor<4xf32> loc("a.py":3:8)
    %1 = stablehlo.add %arg1, %arg1 : tensor<4xf32> loc("a.py":4:8)
    return %0, %1 : tensor<4xf32>, tensor<4xf32>
  }
}
// -----
module @jit_second {
  func.func public @second(%arg0: tensor<8xf32> {jax.buffer_donor = true} loc("state")) -> tensor<8xf32> {
    %0 = stablehlo.negate %arg0 : tensor<8xf32> loc("b.py":7:8)
    return %0 : tensor<8xf32>
  }
}
// -----
module @jit_broken {
  func.func public @broken(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    return %arg0 : tensor<4xf32
  }
}
// -----
module @jit_third {
  func.func public @third(%arg0: tensor<4xf32> loc("x")) -> tensor<4xf32> {
    %0 = stablehlo.negate %arg0 : tensor<4xf32> loc("c.py":9:8)
    return %0 : tensor<4xf32>
  }
}
"""


@pytest.mark.parametrize("advise", [True, False], ids=["advise", "plain"])
def test_a_split_input_gets_one_page_with_a_section_per_chunk(advise: bool,
                                                               tmp_path: Path) -> None:
    source = tmp_path / "split.mlir"
    source.write_text(SPLIT)
    page = tmp_path / "split.html"
    page.write_text("stale")
    code, out, err = run(source, "--split-input-file", "-p", "jax-plan-donation",
                         f"--donation-report=html={page}", *(["--advise"] if advise else []))
    assert code == 1 and "split.mlir:19:3: error: " in err  # the broken chunk, on stderr
    assert out.count("// -----") == 3
    text = page.read_text()
    assert "stale" not in text
    assert text.startswith("<!doctype html>") and text.rstrip().endswith("</html>")
    for tag in ("<!doctype", "<html", "<head>", "<body>", "</body>", "</html>"):
        assert text.count(tag) == 1, tag
    headings = re.findall(r"<h2>(Input chunk [^<]*)</h2>", text)
    assert headings == [f"Input chunk {n} of 4, from line {line}"
                        for n, line in ((1, 1), (2, 8), (3, 15), (4, 21))]
    sections = text.split("<section class=\"chunk\">")[1:]
    assert len(sections) == 4 and text.count("</section>") == 4
    assert "Donations of @first" in sections[0] and "data-path=\"p\"" in sections[0]
    assert "Donations of @second" in sections[1] and "data-path=\"state\"" in sections[1]
    assert "the chunk failed (its error is on stderr)" in sections[2]
    assert "Nothing to report: no function has donated arguments" in sections[3]
    assert ("Donations of @third" in sections[3]) is advise  # x could host its result
    assert ("<h4>Advice</h4>" in sections[0]) is advise
    ids = re.findall(r'<svg id="([^"]*)"', text)
    assert len(ids) == len(set(ids)) == (3 if advise else 2)
    # a split input without html: the JSON report stays one document per chunk
    code, _, err = run(source, "--split-input-file", "-p", "jax-plan-donation",
                       "--donation-report=json", *(["--advise"] if advise else []))
    docs = _json_docs(err)
    assert [[f["function"] for f in d["functions"]] for d in docs] == [["first"], ["second"],
                                                                         []]
    assert all(("advice" in d) is advise for d in docs)
