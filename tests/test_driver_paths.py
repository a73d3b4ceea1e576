"""``jax-donate-opt``'s two paths agree: the jaxlib path (``--path=auto``/``jaxlib``) against
the xDSL path (``--path=xdsl``) on the corpus, the lit inputs and the hostile inputs.

Same exit code, same stderr byte for byte (warnings, errors, the donation report as text, long
text and JSON), and the
same module: the jaxlib path prints jaxlib's own text, the xDSL path its own spelling of it
(``builtin.module``, ``func.call``, the input's SSA names), so the xDSL output is compared after
jaxlib re-reads and prints it; jaxlib's output is a fixed point of that print. On a failing run
both stdouts are equal. Documented difference (``--path=jaxlib`` only): an input with
``loc("-":L:C)`` locations, which jaxlib's parser makes up for ops without one.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from jax_use_donated.adapters.jax_text import loc_name, loc_text
from jax_use_donated.opt import jaxlib_path
from jax_use_donated.opt.driver import main

ROOT = Path(__file__).resolve().parent.parent
LIT_INPUTS = sorted(p for p in (ROOT / "lit_tests").rglob("*.mlir") if "Output" not in p.parts)
HOSTILE = sorted((ROOT / "tests" / "hostile").glob("*.mlir"))
CONFIGS: list[list[str]] = [
    ["-p", "jax-plan-donation", "--donation-report"],
    ["-p", "jax-plan-donation{xla-fallback keep-unpaired-donors}"],
    ["-p", "jax-plan-donation{strict}"],
    ["-p", "jax-plan-donation{keep-existing-aliases fusion-safe},jax-verify-donation"],
    ["-p", "jax-verify-donation{ordering=program}", "--donation-report"],
    ["-p", "jax-plan-donation{report=verbose}"],
    ["-p", "jax-plan-donation{ordering=xla-cpu-region keep-unpaired-donors},"
           "jax-verify-donation{ordering=xla-cpu-region}", "--donation-report=json"],
]


def run(path: Path | str, *args: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of one in-process driver run (in a subprocess for resource
    blobs, whose names xDSL and jaxlib make unique per process: ``weights_3``)."""
    if "dense_resource" in Path(path).read_text(errors="replace"):
        done = subprocess.run([sys.executable, "-m", "jax_use_donated.opt.driver", str(path), *args],
                              capture_output=True, text=True, check=False)
        return done.returncode, done.stdout, done.stderr
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(path), *args])
    return code, out.getvalue(), err.getvalue()


@cache
def _context() -> object:
    return jaxlib_path.make_context(allow_unregistered=True)


def jaxlib_print(text: str) -> str:
    from jaxlib.mlir import ir

    module = ir.Module.parse(text, context=_context())  # pyright: ignore[reportArgumentType]
    return jaxlib_path.print_module(module)


def assert_same(fast: tuple[int, str, str], slow: tuple[int, str, str]) -> None:
    assert fast[0] == slow[0], (fast, slow)
    assert fast[2] == slow[2]
    if fast[0] != 0 or fast[1] == slow[1]:  # a failure, or the jaxlib path gave up
        assert fast[1] == slow[1]
        return
    assert fast[1] == jaxlib_print(fast[1])
    assert jaxlib_print(slow[1]) == fast[1]


def verbose_path(path: Path | str, *args: str) -> str:
    """``jaxlib`` or ``xdsl``: the path ``--verbose`` says ran."""
    _, _, err = run(path, *args, "--verbose", "-o", "/dev/null")
    line = next(x for x in err.splitlines() if x.startswith("jax-donate-opt: path: "))
    return line.split()[2]


def _ids(paths: list[Path]) -> list[str]:
    return [str(p.relative_to(ROOT)) for p in paths]


@pytest.mark.parametrize("config", CONFIGS, ids=" ".join)
@pytest.mark.parametrize("source", LIT_INPUTS + HOSTILE, ids=_ids(LIT_INPUTS + HOSTILE))
def test_lit_and_hostile_inputs(source: Path, config: list[str]) -> None:
    extra = ["--allow-unregistered-dialect"] if "allow-unregistered" in source.read_text(
        errors="replace") else []
    slow = run(source, *config, *extra, "--path=xdsl")
    assert_same(run(source, *config, *extra), slow)
    if b'loc("-":' not in source.read_bytes():  # the documented difference
        assert_same(run(source, *config, *extra, "--path=jaxlib"), slow)


@cache
def corpus_files(tmp: Path) -> list[Path]:
    from tests.corpus.generate import load_corpus

    texts, _ = load_corpus()
    files: list[Path] = []
    for t in texts:
        f = tmp / f"{t.label}.mlir"
        f.write_text(t.text)
        files.append(f)
    return files


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return corpus_files(tmp_path_factory.mktemp("corpus"))


@pytest.mark.parametrize(("config", "every"), [(CONFIGS[0], 1), (CONFIGS[1], 5), (CONFIGS[3], 5)],
                         ids=lambda x: " ".join(x) if isinstance(x, list) else f"every {x}")
def test_corpus(corpus: list[Path], config: list[str], every: int) -> None:
    """Every corpus text with the plan and its report; every ``every``-th with the others."""
    ran_jaxlib = 0
    corpus = corpus[::every]
    for f in corpus:
        fast, slow = run(f, *config), run(f, *config, "--path=xdsl")
        assert_same(fast, slow)
        ran_jaxlib += fast[0] == 0 and fast[1].startswith("module")  # jaxlib's spelling
    assert ran_jaxlib >= len(corpus) * 3 // 4, (ran_jaxlib, len(corpus))


def test_auto_picks_jaxlib_for_donation_passes(tmp_path: Path) -> None:
    f = ROOT / "examples" / "train_step.mlir"
    assert verbose_path(f, "-p", "jax-plan-donation") == "jaxlib"
    planned = tmp_path / "planned.mlir"
    planned.write_text(run(f, "-p", "jax-plan-donation")[1])
    assert verbose_path(planned, "-p", "jax-verify-donation") == "jaxlib"
    assert verbose_path(f, "-p", "jax-verify-donation") == "xdsl"  # unsafe: xDSL reports it
    assert verbose_path(f, "-p", "jax-plan-donation", "--path=xdsl") == "xdsl"
    assert verbose_path(f) == "xdsl"  # no pass: a round trip of the xDSL dialects
    assert verbose_path(f, "--path=jaxlib") == "jaxlib"
    for xdsl_only in (["-p", "jax-plan-donation{mode=materialize}"],
                      ["-p", "jax-plan-donation", "--print-op-generic"],
                      ["-p", "jax-reuse-donated-destinations"],
                      ["-p", "jax-plan-donation", "-t", "mlir"],
                      ["-p", "jax-plan-donation,canonicalize"]):
        assert verbose_path(f, *xdsl_only) == "xdsl", xdsl_only


def test_auto_keeps_the_users_names_on_xdsl(tmp_path: Path) -> None:
    src = tmp_path / "named.mlir"
    src.write_text("func.func @main(%x: tensor<4xf32> {jax.buffer_donor = true}) -> "
                   "tensor<4xf32> {\n  %y = stablehlo.negate %x : tensor<4xf32>\n"
                   "  func.return %y : tensor<4xf32>\n}\n")
    assert verbose_path(src, "-p", "jax-plan-donation") == "xdsl"
    assert "%x: tensor<4xf32> {tf.aliasing_output = 0 : i32}" in run(
        src, "-p", "jax-plan-donation")[1]
    assert verbose_path(src, "-p", "jax-plan-donation", "--path=jaxlib") == "jaxlib"
    assert "%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32}" in run(
        src, "-p", "jax-plan-donation", "--path=jaxlib")[1]


def test_jaxlib_path_gives_up_on_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f(%a: tensor<4xf32> {jax.buffer_donor = 1 : i32}) -> "
                   "tensor<4xf32> { func.return %a : tensor<4xf32> }\n")
    _, _, err = run(bad, "-p", "jax-plan-donation", "--verbose", "--path=jaxlib")
    assert "path: xdsl (the jaxlib path gave up: @f: argument %arg0: 'jax.buffer_donor' " \
           "must be a boolean" in err
    assert "error: argument %arg0: 'jax.buffer_donor' must be a boolean" in err


def test_forced_jaxlib_refuses_xdsl_only_commands() -> None:
    code, out, err = run(ROOT / "examples" / "train_step.mlir", "--path=jaxlib",
                         "-p", "jax-plan-donation{mode=materialize}")
    assert (code, out) == (1, "")
    assert err == ("jax-donate-opt: error: --path=jaxlib cannot run this command: "
                   "jax-plan-donation{mode=materialize} changes the body (xDSL path)\n")


def test_made_up_locations_are_not_diagnostic_locations(tmp_path: Path) -> None:
    """jaxlib names its buffer ``-``; such locations are unknown, as in xDSL."""
    src = tmp_path / "swap.mlir"
    src.write_text(
        "func.func public @main(%a: tensor<4xf32> {tf.aliasing_output = 0 : i32}) -> "
        "(tensor<4xf32>, tensor<4xf32>) {\n"
        "  %0 = stablehlo.negate %a : tensor<4xf32>\n"
        "  %1 = stablehlo.abs %a : tensor<4xf32>\n"
        "  func.return %0, %1 : tensor<4xf32>, tensor<4xf32>\n}\n")
    fast = run(src, "-p", "jax-plan-donation", "--path=jaxlib")
    assert fast[2].startswith(f"{src}: warning: donated argument (%arg0: tensor<4xf32>)")
    assert "-:" not in fast[2]
    assert_same(fast, run(src, "-p", "jax-plan-donation", "--path=xdsl"))


@pytest.mark.parametrize(("printed", "text", "name"), [
    ('loc("x")', None, "x"),
    ('loc("-":3:5)', None, None),
    ('loc("f.py":3:5)', "f.py:3:5", None),
    ('loc(callsite("f.py":3:5 at "g.py":1:2))', "f.py:3:5", None),
    ('loc("params[\\22w\\22]"("f.py":3:5 to :9))', "f.py:3:5", 'params["w"]'),
    ('loc(fused["a.py":1:2, "b"])', "a.py:1:2", "b"),
    ("loc(unknown)", None, None),
])
def test_location_reading(printed: str, text: str | None, name: str | None) -> None:
    assert loc_text(printed) == text
    assert loc_name(printed) == name


def test_printing_ahead_changes_nothing(corpus: list[Path],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The print done by a forked child while the parent plans (:mod:`.print_ahead`, forced
    here for every size) gives the same exit code, stdout and stderr as printing after the
    plan, on the corpus, the lit inputs and the hostile inputs, with the rewriting configs;
    ``--verbose`` says it printed ahead on most jaxlib runs."""
    from jax_use_donated.opt import print_ahead

    def without_path_line(err: str) -> tuple[str, list[str]]:
        """``--verbose``'s path line (timings differ run to run) and the rest of stderr."""
        lines = err.splitlines(keepends=True)
        (line,) = [x for x in lines if x.startswith("jax-donate-opt: path: ")]
        return line, [x for x in lines if x is not line]

    sources = [*corpus[::2], *LIT_INPUTS, *HOSTILE]
    ahead = jaxlib_runs = 0
    for source in sources:
        for config in (CONFIGS[0], CONFIGS[1]):
            monkeypatch.setattr(print_ahead, "MIN_BYTES", 1 << 40)
            code, out, err = run(source, *config, "--path=auto", "--verbose")
            monkeypatch.setattr(print_ahead, "MIN_BYTES", 0)
            code_ahead, out_ahead, err_ahead = run(source, *config, "--path=auto", "--verbose")
            line, rest = without_path_line(err_ahead)
            assert (code_ahead, out_ahead, rest) == (code, out, without_path_line(err)[1]), \
                source.name
            jaxlib_runs += line.split()[2] == "jaxlib"
            ahead += "printed ahead" in line
    assert jaxlib_runs > 20 and ahead >= jaxlib_runs * 3 // 4, (ahead, jaxlib_runs)


def _parsed(text: str) -> Any:
    return jaxlib_path.parse(text.encode(), ctx=jaxlib_path.make_context())


SIGNATURE_INPUT = """
func.func public @main(%a: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
  %0 = stablehlo.negate %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def test_a_child_that_fails_or_a_missing_signature_means_printing_after() -> None:
    """:meth:`.PrintAhead.text` is ``None`` (the driver prints itself) when the child fails
    or its text does not hold a changed signature exactly once; with the signature found it
    is the rewritten module as jaxlib prints it."""
    from jax_use_donated.adapters.jaxlib_ir import set_arg_donations
    from jax_use_donated.opt import print_ahead

    def donor_functions(module: Any) -> list[Any]:
        return list(jaxlib_path.functions_with_donors(module))

    module = _parsed(SIGNATURE_INPUT)
    funcs = donor_functions(module)
    good = print_ahead.PrintAhead(module, funcs, jaxlib_path.print_verified_module)
    set_arg_donations(funcs[0], {0: 0})
    assert good.text() == jaxlib_path.print_module(module)

    def broken(_: object) -> str:
        raise RuntimeError("the child fails")

    for child_print in (broken, lambda _: "module {\n}\n"):
        module = _parsed(SIGNATURE_INPUT)
        funcs = donor_functions(module)
        ahead = print_ahead.PrintAhead(module, funcs, child_print)
        set_arg_donations(funcs[0], {0: 0})
        assert ahead.text() is None
    module = _parsed(SIGNATURE_INPUT)
    cancelled = print_ahead.PrintAhead(module, donor_functions(module),
                                         jaxlib_path.print_verified_module)
    cancelled.cancel()
    assert cancelled.pid is None


def test_printing_ahead_warns_of_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With JAX's backend started (as in a library user's process) the fork is silent: JAX's
    at-fork warning and Python's multi-threaded-fork warning would reach stderr."""
    import warnings

    import jax

    from jax_use_donated.opt import print_ahead

    assert jax.devices()  # a started backend: JAX's at-fork hook warns from now on

    monkeypatch.setattr(print_ahead, "MIN_BYTES", 0)
    source = tmp_path / "in.mlir"
    source.write_text(SIGNATURE_INPUT)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code, out, err = run(source, "-p", "jax-plan-donation", "--verbose", "--path=jaxlib")
    assert code == 0 and "tf.aliasing_output = 0" in out
    assert [str(w.message) for w in caught] == []
    (line,) = err.splitlines()
    assert "printed ahead" in line
