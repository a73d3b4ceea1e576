"""The differential oracle for ``jax-donate-opt``: run a module through the driver in one
configuration and check the output against the input with jaxlib and XLA.

For every configuration (:data:`CONFIGS`) the driver either

* exits 0, and its output parses and verifies in jaxlib's MLIR, compiles with XLA and computes
  bitwise the same outputs as the input module on the same inputs (the results a
  ``remove-matched-outputs`` run dropped excepted), aliases only donated arguments and, in
  alias mode, has no more XLA copies than the input (except with ``keep-unpaired-donors``,
  which hands unpaired donors back to XLA's size-only matching); or
* exits 1 with an MLIR-style ``error:`` diagnostic and no traceback, which only the
  configurations that may refuse (``strict``, ``keep-existing-aliases``) are allowed to do.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from jaxlib.mlir import ir

from jax_use_donated.opt.driver import main as driver_main
from jax_use_donated.oracle.reference import arrays_match
from tests.fuzz.stablehlo_modules import ModuleCase
from tests.fuzz.xla_exec import (
    MATERIALIZE,
    dict_attrs,
    parse_in_jaxlib,
    run_text,
    strip_materialize,
)


@dataclass(frozen=True)
class Config:
    options: str
    """Pass options inside ``{...}`` (empty for the defaults)."""
    may_refuse: bool = False

    @property
    def materialize(self) -> bool:
        return "mode=materialize" in self.options

    @property
    def pipeline(self) -> str:
        name = "jax-plan-donation"
        return f"{name}{{{self.options}}}" if self.options else name


CONFIGS: tuple[Config, ...] = (
    Config(""),
    Config("mode=alias keep-unpaired-donors=true"),
    Config("keep-existing-aliases=true", may_refuse=True),
    Config("strict=true", may_refuse=True),
    Config("mode=materialize"),
    Config("mode=materialize keep-unpaired-donors=true"),
    Config("mode=materialize remove-matched-outputs=true"),
)

_TRACEBACK = re.compile(r"Traceback \(most recent call last\)|^\s+File \".*\", line \d+",
                        re.M)


@dataclass
class DriverRun:
    code: int
    stdout: str
    stderr: str


def run_driver(args: list[str], text: str | bytes, name: str = "input.mlir") -> DriverRun:
    """``jax-donate-opt ARGS input`` in-process, input from a temporary file called ``name``
    (run from its directory, so diagnostics say ``name``), output to another file; returns the
    exit code, the output text and stderr."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / name
        dst = Path(tmp) / "output.mlir"
        src.write_bytes(text.encode() if isinstance(text, str) else text)
        out, err = io.StringIO(), io.StringIO()
        cwd = os.getcwd()
        os.chdir(tmp)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = driver_main([name, *args, "-o", str(dst)])
        finally:
            os.chdir(cwd)
        written = dst.read_text() if dst.exists() else ""
        return DriverRun(code, written + out.getvalue(), err.getvalue())


def assert_clean_failure(run: DriverRun, context: str) -> None:
    """Exit 1 with an ``error:`` diagnostic and no Python traceback."""
    assert run.code == 1, f"exit {run.code}, expected 1\nstderr: {run.stderr}{context}"
    assert "error:" in run.stderr, f"no error diagnostic: {run.stderr!r}{context}"
    assert not _TRACEBACK.search(run.stderr), f"traceback in stderr:\n{run.stderr}{context}"


def check_config(case: ModuleCase, config: Config, reference: list[np.ndarray],
                 reference_copies: int, generic_output: bool) -> str:
    """Run one configuration (see the module docstring); returns ``"ok"`` or ``"refused"``."""
    args = ["-p", config.pipeline]
    if generic_output or config.materialize:
        args.append("--print-op-generic")
    run = run_driver(args, case.text)
    where = f"\nconfig: {config.pipeline}\n{case.describe()}"
    if run.code != 0:
        assert config.may_refuse, f"driver failed:\n{run.stderr}{where}"
        assert_clean_failure(run, where)
        return "refused"
    assert not _TRACEBACK.search(run.stderr), f"traceback:\n{run.stderr}{where}"
    out_text = run.stdout
    where += f"\noutput:\n{out_text}"
    parse_in_jaxlib(out_text, allow_unregistered=config.materialize)
    kept = list(range(len(reference)))
    if config.materialize:
        if "remove-matched-outputs=true" in config.options:
            kept = _kept_results(case, out_text, len(reference))
        out_text = strip_materialize(out_text)
        assert MATERIALIZE not in out_text
    run_out = run_text(out_text, case.inputs())
    assert len(run_out.outputs) == len(kept), f"{len(run_out.outputs)} outputs{where}"
    for got, k in zip(run_out.outputs, kept, strict=True):
        want = reference[k]
        same = arrays_match(got, want, exact=case.spec.exact, rtol=1e-3, atol=1e-3,
                            approximate_integers=True)
        assert same, f"result {k}: {got} != {want}{where}"
    donated = {i for i, d in enumerate(case.donations) if d != "-"}
    assert set(run_out.alias) <= donated, f"aliases {run_out.alias} not donated{where}"
    assert [i for i, d in enumerate(run_out.deleted) if d] == sorted(run_out.alias), where
    if not config.materialize and "keep-unpaired-donors" not in config.options:
        # (keep-unpaired-donors hands the unpaired donors back to XLA's size-only matching,
        # which may add copies: not a promise of that option)
        assert run_out.copies <= reference_copies, (
            f"{run_out.copies} copies > input's {reference_copies}{where}")
    return "ok"


def _kept_results(case: ModuleCase, out_text: str, n_results: int) -> list[int]:
    """Which of the input's results the output still returns after remove-matched-outputs:
    the ones not materialized into a donor (read from the pass's own report of removed
    results: the output function's result count and the input's aliasing)."""
    module, ctx = parse_in_jaxlib(out_text, allow_unregistered=True)
    with ctx:
        main = next(op for op in module.body.operations if op.operation.name == "func.func"
                    and ir.StringAttr(op.attributes["sym_name"]).value == "main")
        n_out = len(ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
                    .results)
        removed = n_results - n_out
        assert removed >= 0
        # materialized results were removed; their indices are recorded as the
        # jax.result_info / order of the remaining results: recover them by position of the
        # materialize ops in the printed input order
        names = dict_attrs(main, "res_attrs")
    infos = [str(d["jax.result_info"]) if "jax.result_info" in d else None for d in names]
    ref_infos = _result_infos(case.text, n_results)
    if len(infos) == n_out and all(i is not None for i in infos) \
            and len(set(ref_infos)) == len(ref_infos):
        return [ref_infos.index(i) for i in infos]
    assert removed == 0, "cannot map the remaining results back to the input's"
    return list(range(n_results))


def _result_infos(text: str, n_results: int) -> list[str | None]:
    module, ctx = parse_in_jaxlib(text)
    with ctx:
        main = next(op for op in module.body.operations if op.operation.name == "func.func"
                    and ir.StringAttr(op.attributes["sym_name"]).value == "main")
        if "res_attrs" not in main.attributes:
            return [None] * n_results
        return [str(d["jax.result_info"]) if "jax.result_info" in d else None
                for d in dict_attrs(main, "res_attrs")]
