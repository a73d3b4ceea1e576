"""``jax-donate-opt``: exit codes, MLIR-style diagnostics, the donation report, no tracebacks."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from jax_use_donated.opt.driver import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "train_step.mlir"

SWAP = """
func.func public @main(%a: tensor<4xf32> {tf.aliasing_output = 0 : i32} loc("a"),
                       %b: tensor<4xf32> {tf.aliasing_output = 1 : i32} loc("b"),
                       %u: tensor<8xf32> {jax.buffer_donor = true} loc("unused"))
    -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.multiply %b, %b : tensor<4xf32> loc("f.py":3:4)
  %1 = stablehlo.add %a, %a : tensor<4xf32> loc("f.py":4:4)
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
"""


def run(tmp_path: Path, text: str, *args: str) -> tuple[int, str]:
    src = tmp_path / "input.mlir"
    src.write_text(text)
    out = tmp_path / "out.mlir"
    code = main([str(src), "-o", str(out), *args])
    return code, out.read_text() if out.exists() else ""


def test_rewrites_and_prints_warnings_and_report(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(tmp_path, SWAP, "-p", "jax-plan-donation", "--donation-report")
    err = capsys.readouterr().err
    assert code == 0
    assert "%a: tensor<4xf32> {tf.aliasing_output = 1 : i32}" in out
    assert "%b: tensor<4xf32> {tf.aliasing_output = 0 : i32}" in out
    assert (f"{tmp_path / 'input.mlir'}: warning: donated argument 'unused' (%arg2: "
            "tensor<8xf32>) is not reused: no result has type tensor<8xf32>; it is never read"
            ) in err
    report = err[err.index("donation report"):].splitlines()
    assert report[0] == "donation report for @main: 2/3 donors reused without a copy, 32 B of 64 B"
    assert report[1] == ("  ordering: XLA's default copy insertion (a donor's other reads must "
                         "feed the write)")
    assert report[2] == ("  jax.jit's pairing: 2/3 donors, 32 B, 0 without a copy (0 B): 2 "
                         "overwrite a buffer still read, which XLA copies")
    assert report[3].split() == ["argument", "type", "bytes", "jax.jit", "planned", "reason"]
    assert report[4].split() == ["a", "(%arg0)", "tensor<4xf32>", "16", "B", "result", "0",
                                 "(copy)", "result", "1", "paired"]
    assert report[6].split()[-2:] == ["no-compatible-result", "(unused)"]
    assert report[7:] == ["1 donor not reused: the warning above says why"]
    assert err.count("is not reused") == 1  # said once: in the warning, not in the report


@pytest.mark.parametrize(
    ("text", "args", "message"),
    [
        (SWAP.replace("jax.buffer_donor = true", "jax.buffer_donor = 2 : i32"),
         ["-p", "jax-plan-donation"],
         "'jax.buffer_donor' must be a boolean (true or false), got 2"),
        (SWAP, ["-p", "jax-plan-donation{strict=true}"], "strict donation"),
        (SWAP, ["-p", "jax-plan-donation{mode=wrong}"], "unknown mode 'wrong'"),
        (SWAP, ["-p", "jax-plan-donation{nope=1}"], "unknown option 'nope'; options: mode, "),
        (SWAP, ["-p", "no-such-pass"], "no-such-pass"),
        ("func.func @f( {", [], "error"),
        (SWAP.replace("stablehlo.multiply", "mystery.multiply"), [], "is not registered"),
    ],
)
def test_errors_exit_nonzero_without_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               text: str, args: list[str], message: str) -> None:
    code, _ = run(tmp_path, text, *args)
    captured = capsys.readouterr()
    assert code != 0
    assert message in captured.err
    assert "Traceback" not in captured.err + captured.out


def test_missing_input_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "absent.mlir")]) != 0
    err = capsys.readouterr().err
    assert "absent.mlir" in err and "Traceback" not in err


def test_verify_diagnostics_prints_our_errors_and_exits_zero(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = SWAP.replace('tf.aliasing_output = 1 : i32} loc("b")',
                       'tf.aliasing_output = 0 : i32} loc("b")')
    code, _ = run(tmp_path, bad, "-p", "jax-plan-donation", "--verify-diagnostics")
    out = capsys.readouterr().out
    assert code == 0
    assert "arguments 'a' (%arg0) and 'b' (%arg1) of @main both alias result 0" in out


def test_hex_floats_pass_through_unchanged(tmp_path: Path) -> None:
    text = """
    func.func public @main(%x: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
      %cst = stablehlo.constant dense<0xFF800000> : tensor<4xf32>
      %0 = stablehlo.maximum %x, %cst : tensor<4xf32>
      return %0 : tensor<4xf32>
    }
    """
    code, out = run(tmp_path, text, "-p", "jax-plan-donation")
    assert code == 0
    assert "dense<0xFF800000> : tensor<4xf32>" in out
    assert "e+09" not in out


def test_example_train_step(capsys: pytest.CaptureFixture[str]) -> None:
    """The README's main command on the bundled JAX train step."""
    assert main([str(EXAMPLE), "-p", "jax-plan-donation", "--donation-report"]) == 0
    captured = capsys.readouterr()
    assert "func.func public @main" in captured.out
    assert "tf.aliasing_output" in captured.out
    assert "donation report for @main" in captured.err
    # The second layer's weights are still read by the backward pass of the first layer, which
    # is no ancestor of their update: no copy-free reuse, and the warning says where.
    assert re.search(r"examples/train_step\.py:\d+:\d+: warning: donated argument "
                     r"'params\['w2'\]' \(%arg14: tensor<64x64xf32>\) is not reused",
                     captured.err)
    assert "opt_state['mu']['w1'] (%arg3)" in captured.err


def test_console_script_has_no_traceback(tmp_path: Path) -> None:
    """A real process: the installed console script, with an error."""
    src = tmp_path / "bad.mlir"
    src.write_text(SWAP.replace("tf.aliasing_output = 1 : i32", "tf.aliasing_output = 7 : i32"))
    exe = Path(sys.executable).with_name("jax-donate-opt")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "jax_use_donated.opt.driver"]
    proc = subprocess.run([*cmd, str(src), "-p", "jax-plan-donation"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 1
    assert "'tf.aliasing_output = 7' is out of range" in proc.stderr
    assert "Traceback" not in proc.stderr


def _xdsl_opt() -> list[str]:
    exe = Path(sys.executable).with_name("xdsl-opt")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "xdsl.tools.xdsl_opt"]


def test_xdsl_opt_prints_donation_warnings_mlir_style(tmp_path: Path) -> None:
    """Plain ``xdsl-opt -f jax`` prints our warnings as ``jax-donate-opt`` does (located at the
    input where the IR has no location), not as Python ``DonationWarning`` lines; after xDSL's
    ``mlir`` frontend, which records no input name, the input named on the command line (as
    xDSL names stdin: ``stdin``)."""
    src = tmp_path / "swap.mlir"
    src.write_text(SWAP)
    warning = ("warning: donated argument 'unused' (%arg2: tensor<8xf32>) is not reused: no "
               "result has type tensor<8xf32>; it is never read\n")
    proc = subprocess.run([*_xdsl_opt(), "-f", "jax", str(src), "-p", "jax-plan-donation"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == f"{src}: {warning}"
    assert "%a: tensor<4xf32> {tf.aliasing_output = 1 : i32}" in proc.stdout
    piped = subprocess.run([*_xdsl_opt(), "-f", "jax", "-p", "jax-plan-donation"], input=SWAP,
                           capture_output=True, text=True, timeout=120, check=False)
    assert piped.stderr == f"stdin: {warning}", piped.stderr
    plain = subprocess.run([*_xdsl_opt(), str(src), "-p", "jax-plan-donation"],
                           capture_output=True, text=True, timeout=120, check=False)
    assert plain.returncode == 0 and plain.stderr == f"{src}: {warning}", plain.stderr
    plain_piped = subprocess.run([*_xdsl_opt(), "-p", "jax-plan-donation"], input=SWAP,
                                 capture_output=True, text=True, timeout=120, check=False)
    assert plain_piped.stderr == f"stdin: {warning}", plain_piped.stderr


def test_library_users_keep_python_warnings() -> None:
    """Outside ``xdsl-opt`` (here: pytest, and any importer of the universe), the pass reports
    through :mod:`warnings` as :class:`DonationWarning`; xDSL's driver and lexer are untouched."""
    import warnings

    from xdsl.context import Context
    from xdsl.dialects.builtin import Builtin
    from xdsl.dialects.func import Func
    from xdsl.utils.mlir_lexer import MLIRLexer
    from xdsl.xdsl_opt_main import xDSLOptMain

    from jax_use_donated.diagnostics import DonationWarning
    from jax_use_donated.xdsl_plugin.parser_printer import _JaxLexer, parse_module  # pyright: ignore[reportPrivateUsage]
    from jax_use_donated.xdsl_plugin.plan_donation import JaxPlanDonation
    from jax_use_donated.xdsl_plugin.universe import available_dialects

    assert xDSLOptMain.apply_passes.__module__ == "xdsl.xdsl_opt_main"
    ours = _JaxLexer._unescaped_characters_regex  # pyright: ignore[reportPrivateUsage]
    assert MLIRLexer._unescaped_characters_regex is not ours  # pyright: ignore[reportPrivateUsage]
    ctx = Context(allow_unregistered=True)
    for name, factory in available_dialects().items():
        ctx.register_dialect(name, factory)
    ctx.load_dialect(Builtin)
    ctx.load_dialect(Func)
    module = parse_module(ctx, SWAP)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        JaxPlanDonation().apply(ctx, module)
    ours = [w for w in caught if issubclass(w.category, DonationWarning)]
    assert len(ours) == 1 and "donated argument 'unused'" in str(ours[0].message)


@pytest.mark.parametrize(("pipeline", "message"), [
    ("jax-plan-donation{", "Expected argument name here"),  # was a traceback
    ("jax-plan-donation{nope=1}", "jax-plan-donation: unknown option 'nope'; options: mode, "
                                  "keep-unpaired-donors, keep-existing-aliases, strict, "),
    ("jax-plan-donation{strict=1}", "option 'strict' takes true or false"),
    ("jax-plan-donation{mode=inplace}", "unknown mode 'inplace'; expected one of alias, "
                                        "materialize"),
    ("no-such-pass", "Unrecognized passes: ['no-such-pass']"),
])
def test_bad_pipelines_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        pipeline: str, message: str) -> None:
    """A ``-p`` that does not parse is the user's error (exit 1, the tool's name: no input
    has been read), not an internal one (exit 2)."""
    code, _ = run(tmp_path, SWAP, "-p", pipeline)
    err = capsys.readouterr().err
    assert code == 1, err
    assert err.startswith("jax-donate-opt: error: ") and message in err, err
    assert "Traceback" not in err


def test_any_file_extension_is_mlir_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """As ``mlir-opt``: ``model.txt`` is MLIR text (xDSL: ``ValueError``, exit 2)."""
    src = tmp_path / "model.txt"
    src.write_text(SWAP)
    assert main([str(src), "-p", "jax-plan-donation"]) == 0
    captured = capsys.readouterr()
    assert "%a: tensor<4xf32> {tf.aliasing_output = 1 : i32}" in captured.out
    assert f"{src}: warning: donated argument 'unused'" in captured.err


# ------------------------------------------------------------------- the driver's surface


def test_version_names_every_component(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    assert main(["--version"]) == 0
    out = capsys.readouterr().out
    assert out == (f"jax-donate-opt (jax-use-donated {version('jax-use-donated')}): "
                   f"jax {version('jax')}, jaxlib {version('jaxlib')}, "
                   f"xdsl {version('xdsl')}\n")


def test_help_lists_our_passes_first_with_their_options(
        capsys: pytest.CaptureFixture[str]) -> None:
    """``--help`` names our passes, each option with its default and meaning, and no longer
    the ~100 names of xDSL's passes (``--help-passes`` lists those, after ours)."""
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    ours = out[out.index("jax-use-donated passes"):]
    for line in ("  jax-plan-donation: Reuse donated argument buffers for results, only after "
                 "their last read.",
                 "    strict=false", "    mode=alias", "    keep-unpaired-donors=false",
                 "  jax-verify-donation: ", "    ordering=dataflow",
                 "  jax-reuse-donated-destinations: ", "    temporaries=true"):
        assert line in ours, line
    assert "canonicalize" not in out and "jax-use-donated-arguments" not in out

    assert main(["--help-passes"]) == 0
    listing = capsys.readouterr().out
    assert listing.startswith("jax-use-donated passes")
    assert listing.index("    fusion-safe=false") < listing.index("xDSL passes (")
    xdsl_part = listing[listing.index("xDSL passes ("):]
    assert "canonicalize" in xdsl_part and "jax-use-donated-arguments" in xdsl_part
    assert "jax-plan-donation" not in xdsl_part


def test_upstream_pass_keeps_its_name_and_behaviour(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """``-p jax-use-donated-arguments`` is xDSL's pass: JAX's pairing materialized as given,
    no warning, none of our options."""
    code, out = run(tmp_path, SWAP, "-p", "jax-use-donated-arguments")
    err = capsys.readouterr().err
    assert code == 0 and err == ""
    assert "bufferization.materialize_in_destination %0 in %a" in out
    assert "tf.aliasing_output" not in out
    code, _ = run(tmp_path, SWAP, "-p", "jax-use-donated-arguments{mode=alias}")
    assert code == 1 and 'Provided arguments ["mode"] not found' in capsys.readouterr().err


def test_mlir_frontend_and_target_are_xdsls(tmp_path: Path) -> None:
    """``-f mlir -t mlir`` are xDSL's own reader and printer, bugs included (hex floats read
    as integers); the default ``jax`` keeps the bits."""
    text = ('"test.op"() {value = dense<0xFF800000> : tensor<2xf32>} : () -> ()\n')
    code, ours = run(tmp_path, text)
    assert code == 0 and "dense<0xFF800000> : tensor<2xf32>" in ours
    code, xdsl = run(tmp_path, text, "-f", "mlir", "-t", "mlir")
    assert code == 0 and "dense<4.28657869e+09> : tensor<2xf32>" in xdsl


@pytest.mark.parametrize(("text", "args", "line"), [
    (SWAP, ["--donation-report"],
     "donation report: nothing to report: the pipeline has no donation pass "
     "(jax-plan-donation, jax-verify-donation, jax-reuse-donated-destinations)\n"),
    (SWAP, ["-p", "canonicalize", "--donation-report"],
     "donation report: nothing to report: the pipeline has no donation pass "
     "(jax-plan-donation, jax-verify-donation, jax-reuse-donated-destinations)\n"),
    ("", ["-p", "jax-plan-donation", "--donation-report"],
     "donation report for {input}: nothing to report: no function has donated arguments "
     "(jax.buffer_donor or tf.aliasing_output; jax.jit marks none where it found no output "
     "for a donated argument)\n"),
    (SWAP.replace("{jax.buffer_donor = true}", "").replace(
        "{tf.aliasing_output = 0 : i32}", "").replace("{tf.aliasing_output = 1 : i32}", ""),
     ["-p", "jax-verify-donation", "--donation-report"],
     "donation report for {input}: nothing to report: no function has donated arguments "
     "(jax.buffer_donor or tf.aliasing_output; jax.jit marks none where it found no output "
     "for a donated argument)\n"),
])
def test_donation_report_says_when_there_is_nothing_to_report(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, args: list[str],
        line: str) -> None:
    code, out = run(tmp_path, text, *args)
    err = capsys.readouterr().err
    assert code == 0 and re.search(r"^(builtin\.)?module\b", out, re.M)  # xDSL's or jaxlib's
    assert err == line.format(input=tmp_path / "input.mlir")


def test_donation_report_stays_quiet_when_the_pass_fails(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An error is reported as the error, not as 'nothing to report'."""
    code, _ = run(tmp_path, SWAP, "-p", "jax-plan-donation{strict}", "--donation-report")
    err = capsys.readouterr().err
    assert code == 1 and "strict donation" in err and "nothing to report" not in err


def test_donation_report_covers_destination_reuse(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    linalg = """
    func.func @chain(%a: tensor<4xf32> {jax.buffer_donor = true}, %b: tensor<4xf32>)
        -> tensor<4xf32> {
      %e = tensor.empty() : tensor<4xf32>
      %r = linalg.add ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>)
          -> tensor<4xf32>
      func.return %r : tensor<4xf32>
    }
    """
    code, out = run(tmp_path, linalg, "-p", "jax-reuse-donated-destinations",
                    "--donation-report")
    err = capsys.readouterr().err
    assert code == 0 and "outs(%a : tensor<4xf32>)" in out
    assert err.startswith("donation report for @chain: 1/1 donors reused without a copy, 16 B "
                          "of 16 B\n  ordering: block order (as after bufferization)\n"), err


@pytest.mark.parametrize("path", ["jaxlib", "xdsl"])
def test_console_script_ends_with_everything_written(tmp_path: Path, path: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The command ends without teardown (``console_main``): the module (larger than a pipe's
    buffer) on stdout or in ``-o``'s file, and the warnings and report on stderr, are exactly
    what :func:`main` writes in process."""
    from benchmarks.jax_modules import lower

    src = tmp_path / "step.mlir"
    src.write_text(lower(12))
    args = [str(src), "-p", "jax-plan-donation", "--donation-report", f"--path={path}"]
    assert main(args) == 0
    expected = capsys.readouterr()
    assert len(expected.out) > 70_000 and "donation report" in expected.err
    exe = Path(sys.executable).with_name("jax-donate-opt")
    assert exe.exists()
    piped = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=300,
                           check=False)
    assert (piped.returncode, piped.stdout, piped.stderr) == (
        0, expected.out, expected.err)
    out = tmp_path / "out.mlir"
    to_file = subprocess.run([str(exe), *args, "-o", str(out)], capture_output=True, text=True,
                             timeout=300, check=False)
    assert (to_file.returncode, to_file.stdout, to_file.stderr) == (0, "", expected.err)
    assert out.read_text() == expected.out


def _verify_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bool]]:
    """Record every ``Operation.verify`` call on a module or function: (op name, nested)."""
    from xdsl.ir import Operation

    calls: list[tuple[str, bool]] = []
    original = Operation.verify

    def spy(self: Operation, verify_nested_ops: bool = True) -> None:
        if self.name in ("builtin.module", "func.func"):
            calls.append((self.name, verify_nested_ops))
        original(self, verify_nested_ops)

    monkeypatch.setattr(Operation, "verify", spy)
    return calls


@pytest.mark.parametrize(("pipeline", "module_verifies"), [
    ("jax-plan-donation", [True, False]),
    ("jax-verify-donation", [True, False]),
    ("jax-plan-donation{mode=materialize}", [True, True]),
    ("jax-plan-donation,canonicalize", [True, False, True]),
])
def test_after_a_signature_only_pass_only_the_signatures_are_verified_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pipeline: str,
        module_verifies: list[bool]) -> None:
    """The input is verified whole; after a pass that changes only argument attributes just
    the module and its functions are, without their bodies (verified already); after any
    other pass everything again, as ``xdsl-opt`` does (``True``: with nested ops)."""
    calls = _verify_calls(monkeypatch)
    safe = SWAP.replace("tf.aliasing_output = 0", "tf.aliasing_output = 9").replace(
        "tf.aliasing_output = 1", "tf.aliasing_output = 0").replace(
        "tf.aliasing_output = 9", "tf.aliasing_output = 1")
    code, _ = run(tmp_path, safe, "-p", pipeline, "--path=xdsl")
    assert code == 0
    assert [nested for name, nested in calls if name == "builtin.module"] == module_verifies
    if module_verifies[-1] is False:
        assert calls[-2:] == [("builtin.module", False), ("func.func", False)]


def test_signature_verification_catches_a_broken_signature() -> None:
    from xdsl.dialects.builtin import ArrayAttr, IntegerAttr
    from xdsl.utils.exceptions import VerifyException

    from jax_use_donated.opt.driver import JaxDonateOptMain, verify_signatures
    from jax_use_donated.xdsl_plugin.parser_printer import parse_module

    module = parse_module(JaxDonateOptMain(args=[]).ctx, SWAP)
    verify_signatures(module)
    func = next(op for op in module.walk() if op.name == "func.func")
    func.properties["arg_attrs"] = ArrayAttr([IntegerAttr(1, 32)] * 3)  # not dictionaries
    with pytest.raises(VerifyException):
        verify_signatures(module)


def test_plain_tensor_types_are_read_once_and_shared() -> None:
    """The parser reads each plain tensor type's text once: the same object for every op that
    spells it; other types (encodings, complex elements) and unknown element types go to
    xDSL's type parser, which reports the latter as before."""
    from xdsl.utils.exceptions import ParseError

    from jax_use_donated.opt.driver import JaxDonateOptMain
    from jax_use_donated.xdsl_plugin.parser_printer import parse_module

    ctx = JaxDonateOptMain(args=[]).ctx
    text = SWAP.replace("return %0, %1",
                        "%2 = stablehlo.complex %0, %1 : tensor<4xcomplex<f32>>\n"
                        "  %3 = stablehlo.complex %0, %1 : tensor<4xcomplex<f32>>\n"
                        "  return %0, %1")
    module = parse_module(ctx, text)
    ops = [op for op in module.walk() if op.name.startswith("stablehlo.")]
    assert ops[0].results[0].type is ops[1].results[0].type  # tensor<4xf32>, read once
    assert ops[2].results[0].type == ops[3].results[0].type
    assert str(ops[2].results[0].type) == "tensor<4xcomplex<f32>>"
    with pytest.raises(ParseError, match="foo"):
        parse_module(ctx, SWAP.replace("%1 = stablehlo.add %a, %a : tensor<4xf32>",
                                       "%1 = stablehlo.add %a, %a : tensor<4xfoo>"))
