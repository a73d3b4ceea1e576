"""xDSL's own FileCheck tests of its ``jax-use-donated-arguments`` pass, taken at test time from
the registry's sdist of the installed xdsl version (never vendored): the files
``tests/filecheck/transforms/jax-use-donated-arguments*.mlir`` and xDSL's ``lit.cfg``."""

from __future__ import annotations

import subprocess
import sys
import tarfile
from importlib.metadata import version
from pathlib import Path

UPSTREAM_TESTS = "tests/filecheck/transforms/jax-use-donated-arguments"


class SdistUnavailable(Exception):
    """The sdist could not be downloaded (no network, no such version on the index)."""


def download_upstream_tests(workdir: Path) -> list[Path]:
    """Download the xdsl sdist into ``workdir`` and extract the upstream tests of the pass
    (and ``tests/filecheck/lit.cfg``); returns the ``.mlir`` files, sorted. Raises
    :class:`SdistUnavailable` when the download fails."""
    xdsl_version = version("xdsl")
    download = workdir / "sdist"
    download.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps",
         "--disable-pip-version-check", "-d", str(download), f"xdsl=={xdsl_version}"],
        capture_output=True, text=True, timeout=600, check=False)
    archives = sorted(download.glob("xdsl-*.tar.gz"))
    if proc.returncode != 0 or not archives:
        reason = (proc.stderr.strip().splitlines() or ["no archive"])[-1]
        raise SdistUnavailable(f"could not download the xdsl {xdsl_version} sdist from the "
                               f"package index (no network?): {reason}")
    root = workdir / "src"
    with tarfile.open(archives[0]) as sdist:
        wanted = [m for m in sdist.getmembers() if m.isfile() and (
            m.name.endswith("/tests/filecheck/lit.cfg")
            or (f"/{UPSTREAM_TESTS}" in m.name and m.name.endswith(".mlir")))]
        sdist.extractall(root, members=wanted, filter="data")
    tests = sorted(root.glob(f"*/{UPSTREAM_TESTS}*.mlir"))
    assert tests, f"the xdsl {xdsl_version} sdist has no {UPSTREAM_TESTS}*.mlir"
    assert len(list(root.glob("*/tests/filecheck/lit.cfg"))) == 1
    return tests


def split_functions(path: Path) -> list[tuple[str, str]]:
    """``(name, module text)`` for each top-level ``func.func`` of an upstream test file (and of
    each ``// -----`` chunk), each alone in a module printed in generic form, so that one
    function the pass refuses does not hide the others."""
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.dialects.func import FuncOp

    from jax_use_donated.oracle.harness import xdsl_context
    from jax_use_donated.xdsl_plugin.parser_printer import parse_module, print_module

    found: list[tuple[str, str]] = []
    for chunk in path.read_text().split("// -----"):
        module = parse_module(xdsl_context(), chunk)
        for op in list(module.ops):
            if isinstance(op, FuncOp):
                op.detach()
                found.append((op.sym_name.data, print_module(ModuleOp([op]), generic=True)))
    return found
