"""``jax-donate-opt``: exit codes, MLIR-style diagnostics, the donation report, no tracebacks."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from jax_use_donated.driver import main

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
    code, out = run(tmp_path, SWAP, "-p", "jax-use-donated-arguments", "--donation-report")
    err = capsys.readouterr().err
    assert code == 0
    assert "%a: tensor<4xf32> {tf.aliasing_output = 1 : i32}" in out
    assert "%b: tensor<4xf32> {tf.aliasing_output = 0 : i32}" in out
    assert (f"{tmp_path / 'input.mlir'}: warning: donated argument 'unused' (%arg2: "
            "tensor<8xf32>) is not reused: no result has type tensor<8xf32>; it is never read"
            ) in err
    report = err[err.index("donation report"):].splitlines()
    assert report[0].startswith("donation report for @main (dataflow ordering): 2/3 donors "
                                "reused, 32 B aliased")
    assert report[1].split() == ["argument", "type", "bytes", "jax", "ours", "reason"]
    assert report[2].split() == ["a", "(%arg0)", "tensor<4xf32>", "16", "B", "result", "0",
                                 "result", "1", "paired"]
    assert report[4].split()[-2:] == ["no-compatible-result", "(unused)"]


@pytest.mark.parametrize(
    ("text", "args", "message"),
    [
        (SWAP.replace("jax.buffer_donor = true", "jax.buffer_donor = 2 : i32"),
         ["-p", "jax-use-donated-arguments"],
         "'jax.buffer_donor' must be a boolean (true or false), got 2"),
        (SWAP, ["-p", "jax-use-donated-arguments{strict=true}"], "strict donation"),
        (SWAP, ["-p", "jax-use-donated-arguments{mode=wrong}"], "unknown mode 'wrong'"),
        (SWAP, ["-p", "jax-use-donated-arguments{nope=1}"], "not found in expected arguments"),
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
    code, _ = run(tmp_path, bad, "-p", "jax-use-donated-arguments", "--verify-diagnostics")
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
    code, out = run(tmp_path, text, "-p", "jax-use-donated-arguments")
    assert code == 0
    assert "dense<0xFF800000> : tensor<4xf32>" in out
    assert "e+09" not in out


def test_example_train_step(capsys: pytest.CaptureFixture[str]) -> None:
    """The README's main command on the bundled JAX train step."""
    assert main([str(EXAMPLE), "-p", "jax-use-donated-arguments", "--donation-report"]) == 0
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
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "jax_use_donated.driver"]
    proc = subprocess.run([*cmd, str(src), "-p", "jax-use-donated-arguments"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 1
    assert "'tf.aliasing_output = 7' is out of range" in proc.stderr
    assert "Traceback" not in proc.stderr


def _xdsl_opt() -> list[str]:
    exe = Path(sys.executable).with_name("xdsl-opt")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "xdsl.tools.xdsl_opt"]


def test_xdsl_opt_prints_donation_warnings_mlir_style(tmp_path: Path) -> None:
    """Plain ``xdsl-opt`` prints our warnings as ``jax-donate-opt`` does (located at the input
    where the IR has no location), not as Python ``DonationWarning`` lines."""
    src = tmp_path / "swap.mlir"
    src.write_text(SWAP)
    proc = subprocess.run([*_xdsl_opt(), str(src), "-p", "jax-use-donated-arguments"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (f"{src}: warning: donated argument 'unused' (%arg2: tensor<8xf32>) "
                           "is not reused: no result has type tensor<8xf32>; it is never read\n")
    assert "%a: tensor<4xf32> {tf.aliasing_output = 1 : i32}" in proc.stdout
    piped = subprocess.run([*_xdsl_opt(), "-p", "jax-use-donated-arguments"], input=SWAP,
                           capture_output=True, text=True, timeout=120, check=False)
    assert piped.stderr.startswith("<stdin>: warning: donated argument 'unused'"), piped.stderr


def test_library_users_keep_python_warnings() -> None:
    """Outside ``xdsl-opt`` (here: pytest, and any importer of the universe), the pass reports
    through :mod:`warnings` as :class:`DonationWarning`; xDSL's driver class is untouched."""
    import warnings

    from xdsl.context import Context
    from xdsl.dialects.builtin import Builtin
    from xdsl.dialects.func import Func
    from xdsl.xdsl_opt_main import xDSLOptMain

    from jax_use_donated.diagnostics import DonationWarning
    from jax_use_donated.ir_text import parse_module
    from jax_use_donated.transforms.use_donated_arguments import JaxUseDonatedArguments
    from jax_use_donated.universe import available_dialects  # installs the overrides

    assert not getattr(xDSLOptMain.apply_passes, "_prints_donation_diagnostics", False)
    ctx = Context(allow_unregistered=True)
    for name, factory in available_dialects().items():
        ctx.register_dialect(name, factory)
    ctx.load_dialect(Builtin)
    ctx.load_dialect(Func)
    module = parse_module(ctx, SWAP)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        JaxUseDonatedArguments().apply(ctx, module)
    ours = [w for w in caught if issubclass(w.category, DonationWarning)]
    assert len(ours) == 1 and "donated argument 'unused'" in str(ours[0].message)


@pytest.mark.parametrize(("pipeline", "message"), [
    ("jax-use-donated-arguments{", "Expected argument name here"),  # was a traceback
    ("jax-use-donated-arguments{nope=1}", 'Provided arguments ["nope"] not found'),
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
    assert main([str(src), "-p", "jax-use-donated-arguments"]) == 0
    captured = capsys.readouterr()
    assert "%a: tensor<4xf32> {tf.aliasing_output = 1 : i32}" in captured.out
    assert f"{src}: warning: donated argument 'unused'" in captured.err
