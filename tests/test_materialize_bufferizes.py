"""``jax-plan-donation{mode=materialize}`` output goes through upstream one-shot bufferization
and runs (:mod:`jax_use_donated.oracle.materialize`, upstream MLIR from the ``[oracle]`` extra).

Inputs: every chunk of the lit files that run the pass in materialize mode, xDSL's own test
inputs of ``jax-use-donated-arguments`` (from the registry's xdsl sdist, one function per
module), and the donation catalogue's JAX programs (checked against JAX's numbers). Each
function the pass rewrites must have at most one destination per result, no
``bufferization.writable = false`` on an argument something writes, bufferize, and (where it
legalizes to linalg) compute the input's numbers with each donor holding its result and each
read-only argument unchanged. The fuzzed modules are in ``tests/test_fuzz_pass.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

from jax_use_donated.oracle import upstream_available
from tests.fuzz.pass_oracle import run_driver

if TYPE_CHECKING:
    from jax_use_donated.oracle.materialize import MaterializeCheck
from tests.upstream_xdsl import SdistUnavailable, download_upstream_tests, split_functions

pytestmark = pytest.mark.skipif(
    not upstream_available(),
    reason="upstream MLIR bindings missing: pip install --no-deps torch-mlir==20261001",
)

LIT = Path(__file__).resolve().parent.parent / "lit_tests"
CONFIGS = ("mode=materialize", "mode=materialize keep-unpaired-donors=true",
           "mode=materialize remove-matched-outputs=true")


def _materialize(text: str, options: str) -> tuple[int, str, str]:
    run = run_driver(["-p", f"jax-plan-donation{{{options}}}", "--print-op-generic"], text)
    return run.code, run.stdout, run.stderr


def _rewritten(out: str) -> list[str]:
    from jax_use_donated.oracle.materialize import rewritten_functions

    return rewritten_functions(out)


def check_function(input_text: str, options: str, function: str, out: str,
                   removed_out: str | None = None) -> MaterializeCheck:
    """Check ``function`` of the pass output ``out``: bufferize, and run against the input
    module run as it is (xDSL's ``"test.op"`` replaced by constants on both sides). With
    ``remove-matched-outputs`` the plan is read off the output without it (``removed_out`` is
    that output); its destinations must hold the removed results."""
    from jax_use_donated.oracle import materialize as m

    static = m.check_materialized(out, function)
    assert static.ok, static.problems
    assert static.bufferized
    runnable = m.concretize_test_ops(out)
    inputs = m.random_inputs(runnable, function)
    if inputs is None:
        return static
    try:
        expected = m.reference_outputs(m.concretize_test_ops(input_text), function, inputs)
    except m.upstream.OracleError:
        return static  # the input itself cannot run (unknown ops)
    held: dict[int, np.ndarray] = {}
    if removed_out is not None:
        pairs = m.new_pairs(input_text, removed_out, function)
        held = {d: expected[k] for d, k in pairs.items()}
        expected = [r for k, r in enumerate(expected) if k not in set(pairs.values())]
    report = m.check_materialized(runnable, function, inputs, expected, held=held)
    assert report.ok, report.problems
    return report


def _lit_chunks() -> list[Any]:
    cases = []
    for path in sorted(LIT.glob("*.mlir")):
        text = path.read_text()
        if "mode=materialize" not in text:
            continue
        for i, chunk in enumerate(text.split("// -----")):
            cases.append(pytest.param(chunk, id=f"{path.stem}-{i}"))
    return cases


@pytest.mark.parametrize("options", CONFIGS)
@pytest.mark.parametrize("chunk", _lit_chunks())
def test_lit_inputs_bufferize_and_run(chunk: str, options: str) -> None:
    code, out, err = _materialize(chunk, options)
    if code != 0:
        # Only the refusal the lit file pins (a call that uses a result to be removed).
        assert "remove-matched-outputs" in options and "this call uses it" in err, err
        return
    removed_out = _materialize(chunk, options.replace(" remove-matched-outputs=true", ""))[1] \
        if "remove-matched-outputs" in options else None
    rewritten = _rewritten(out)
    for function in rewritten:
        check_function(chunk, options, function, out, removed_out)


def test_lit_inputs_are_rewritten_and_run() -> None:
    """The lit chunks are not vacuous: every function the pass rewrites runs, except the one
    with a ``!stablehlo.token`` argument (no array to pass)."""
    rewritten, executed = set(), set()
    for param in _lit_chunks():
        chunk = param.values[0]
        code, out, _ = _materialize(chunk, "mode=materialize")
        if code != 0:
            continue
        for function in _rewritten(out):
            rewritten.add((param.id, function))
            if check_function(chunk, "mode=materialize", function, out).executed:
                executed.add((param.id, function))
    assert len(rewritten) >= 18, rewritten
    assert {f for _, f in rewritten - executed} == {"repeated_alias"}, rewritten - executed


# ------------------------------------------------------------- xDSL's own test inputs


@pytest.fixture(scope="module")
def upstream_functions(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, str]]:
    try:
        files = download_upstream_tests(tmp_path_factory.mktemp("xdsl-sdist"))
    except SdistUnavailable as err:
        pytest.skip(str(err))
    return [f for path in files for f in split_functions(path)]


def test_xdsl_upstream_inputs_bufferize_and_run(upstream_functions: list[tuple[str, str]]
                                                ) -> None:
    """Every function of xDSL's ``jax-use-donated-arguments*.mlir`` (7 in xdsl 0.75,
    ``@dont_double_buffer`` among them), in each configuration: rewritten, bufferized, run with
    ``"test.op"`` replaced by constants."""

    names = {name for name, _ in upstream_functions}
    assert "dont_double_buffer" in names, names
    runs = executed = 0
    for name, text in upstream_functions:
        for options in CONFIGS:
            code, out, err = _materialize(text, options)
            assert code == 0, f"@{name} {options}: {err}"
            assert name in _rewritten(out), f"@{name} {options}: not rewritten\n{out}"
            removed = (_materialize(text, options.replace(" remove-matched-outputs=true", ""))
                       [1] if "remove-matched-outputs" in options else None)
            report = check_function(text, options, name, out, removed)
            runs += 1
            executed += report.executed
    assert runs == len(upstream_functions) * len(CONFIGS)
    assert executed == runs, f"{executed} of {runs} ran"


def test_dont_double_buffer_keeps_the_inputs_destinations(
        upstream_functions: list[tuple[str, str]]) -> None:
    """xDSL's ``@dont_double_buffer`` already materializes both results into ``%arg0`` and
    ``%arg1``: nothing more is materialized, both stay writable, the donor ``%arg2`` is left
    alone (was: result 0 materialized into ``%arg0`` and ``%arg2``, ``%arg0`` and ``%arg1``
    read-only, and one-shot bufferization failed with "would write to read-only buffer")."""
    from jax_use_donated.oracle import materialize as m

    text = dict(upstream_functions)["dont_double_buffer"]
    code, out, err = _materialize(text, "mode=materialize")
    assert code == 0, err
    assert out.count(m.MATERIALIZE) == 2, out
    report = m.check_materialized(out, "dont_double_buffer")
    assert report.ok and report.bufferized, report.problems
    assert report.destinations == {0: 0, 1: 1}
    assert report.writable == {0, 1} and report.read_only == {2}
    assert "every result of its type already has a destination in the input" in err


# ------------------------------------------------------------------ JAX programs


def _jax_programs() -> list[Any]:
    from benchmarks.catalogue import SINGLE
    from jax_use_donated.oracle.programs import PROGRAMS

    cases = [pytest.param(p.fun, p.args(8), p.donate_argnums, id=p.name) for p in SINGLE]
    cases += [pytest.param(p.fun, p.inputs(), p.donate, id=p.name) for p in PROGRAMS]
    return cases


@pytest.mark.parametrize("options", CONFIGS[:2])
@pytest.mark.parametrize(("fun", "args", "donate"), _jax_programs())
def test_jax_programs_compute_jax_numbers(fun: Any, args: Any, donate: Any, options: str
                                          ) -> None:
    from jax_use_donated.oracle import materialize as m
    from jax_use_donated.oracle.reference import jax_reference

    reference = jax_reference(fun, args, donate)
    code, out, err = _materialize(reference.stablehlo_text, options)
    assert code == 0, err
    report = m.check_materialized(out, "main", reference.leaves, reference.expected,
                                  rtol=1e-4, atol=1e-5)
    assert report.ok, report.problems
    # stablehlo-legalize-to-linalg has no pattern for loops: those only bufferize.
    assert report.executed or "stablehlo.while" in str(report.not_run), report.not_run


# ---------------------------------------------------------- the oracle can fail


BROKEN = """\
func.func @f(%a: tensor<4xf32> {bufferization.writable = false},
             %b: tensor<4xf32> {bufferization.writable = true}) -> tensor<4xf32> {
  %0 = "test.op"() : () -> tensor<4xf32>
  %1 = bufferization.materialize_in_destination %0 in %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = bufferization.materialize_in_destination %1 in %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %2 : tensor<4xf32>
}
"""


def test_the_check_finds_what_the_old_rewrite_did() -> None:
    """The output the pass used to give on ``@dont_double_buffer``: one result in two
    destinations, a read-only argument written; bufferization refuses it."""
    from jax_use_donated.oracle import materialize as m

    report = m.check_materialized(BROKEN, "f")
    assert not report.bufferized
    text = "\n".join(report.problems)
    assert "result 0 is materialized into 2 arguments: %arg1, %arg0" in text
    assert "%arg0 is written by a bufferization.materialize_in_destination but marked" in text
    assert "would write to read-only buffer" in text


def test_the_check_finds_wrong_numbers_and_clobbered_inputs() -> None:
    from jax_use_donated.oracle import materialize as m

    text = """\
func.func @g(%a: tensor<4xf32> {bufferization.writable = false},
             %b: tensor<4xf32> {bufferization.writable = true}) -> tensor<4xf32> {
  %0 = "stablehlo.add"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = bufferization.materialize_in_destination %0 in %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %1 : tensor<4xf32>
}
"""
    a, b = np.arange(4, dtype=np.float32), np.ones(4, np.float32)
    good = m.check_materialized(text, "g", [a, b], [a + a])
    assert good.ok and good.executed, good.problems
    wrong = m.check_materialized(text, "g", [a, b], [a * 3])
    assert any("result 0 differs" in p for p in wrong.problems), wrong.problems
    # Marking the written argument read-only and the donor's hosting result as another:
    clobber = text.replace("%0 in %b", "%0 in %a").replace(
        "{bufferization.writable = false}", "{bufferization.writable = true}", 1)
    lying = clobber.replace("%a: tensor<4xf32> {bufferization.writable = true}",
                            "%a: tensor<4xf32>")
    report = m.check_materialized(lying, "g", [a, b], [a + a], held={1: a + a})
    assert any("%arg1 does not hold" in p for p in report.problems), report.problems
