"""The ``xdsl.universe`` entry point only adds: xDSL behaves as upstream ships it with this
package installed (its own FileCheck tests of ``jax-use-donated-arguments`` pass, and its
``mlir`` frontend, target and registered names are the same as without our entry point)."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import pkgutil
import shutil
import subprocess
import sys
from graphlib import TopologicalSorter
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

import jax_use_donated
from jax_use_donated.xdsl_plugin.universe import UNIVERSE
from tests.upstream_xdsl import SdistUnavailable, download_upstream_tests

PROBE = Path(__file__).with_name("xdsl_probe.py")
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    path = BIN / name
    found = str(path) if path.exists() else shutil.which(name)
    assert found is not None, f"{name} is not installed next to {sys.executable}"
    return found


def _env() -> dict[str, str]:
    """This environment's tools (``xdsl-opt``, ``filecheck``) first on ``PATH``."""
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


def test_our_entry_point_is_installed() -> None:
    """Without it every other test here would compare xDSL with itself."""
    values = [ep.value for ep in entry_points(group="xdsl.universe")]
    assert "jax_use_donated.xdsl_plugin.universe:UNIVERSE" in values, values


# ------------------------------------------------- xDSL's own FileCheck tests of its pass


@pytest.fixture(scope="module")
def upstream_filecheck_tests(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """xDSL's ``jax-use-donated-arguments*.mlir`` FileCheck tests (and their ``lit.cfg``),
    extracted from the registry's sdist of the installed xdsl version."""
    try:
        return download_upstream_tests(tmp_path_factory.mktemp("xdsl-sdist"))
    except SdistUnavailable as err:
        pytest.skip(str(err))


def test_xdsl_filecheck_tests_of_its_pass_pass_with_this_package_installed(
        upstream_filecheck_tests: list[Path]) -> None:
    """Their RUN lines, with xDSL's lit configuration, run this environment's ``xdsl-opt``
    (which loads our entry point) and ``filecheck``."""
    proc = subprocess.run([_tool("lit"), "-v", *map(str, upstream_filecheck_tests)],
                          capture_output=True, text=True, timeout=600, check=False,
                          env=_env())
    report = proc.stdout + proc.stderr
    assert proc.returncode == 0, report
    assert f"Passed: {len(upstream_filecheck_tests)}" in report, report


# ------------------------------------------------------- with and without our entry point


def _probe(*args: str, without_plugin: bool, stdin: str | None = None
           ) -> subprocess.CompletedProcess[str]:
    flag = ["--without-plugin"] if without_plugin else []
    return subprocess.run([sys.executable, str(PROBE), *flag, *args], input=stdin,
                          capture_output=True, text=True, timeout=300, check=False,
                          env=_env())


def _names(*, without_plugin: bool) -> dict[str, Any]:
    proc = _probe("names", without_plugin=without_plugin)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_entry_point_adds_names_and_changes_none() -> None:
    upstream, ours = _names(without_plugin=True), _names(without_plugin=False)
    assert not upstream["plugin_imported"] and ours["plugin_imported"]
    added = {"dialects": UNIVERSE.all_dialects, "passes": UNIVERSE.all_passes,
             "frontends": UNIVERSE.all_frontends, "targets": UNIVERSE.all_targets}
    for kind, table in upstream["names"].items():
        with_plugin = ours["names"][kind]
        assert {n: with_plugin[n] for n in table} == table, kind  # same factories
        assert set(with_plugin) - set(table) == set(added[kind]), kind
    assert ours["names"]["passes"]["jax-use-donated-arguments"].startswith("xdsl.")
    assert ours["names"]["frontends"]["mlir"].startswith("xdsl.")
    assert ours["names"]["targets"]["mlir"].startswith("xdsl.")


HEX = """\
func.func @hex() -> tensor<4xf32> {
  %cst = arith.constant dense<0xFF800000> : tensor<4xf32>
  func.return %cst : tensor<4xf32>
}
"""
DONATED = """\
func.func public @main(%a: tensor<4xf32> {jax.buffer_donor = true},
                       %b: tensor<4xf32> {jax.buffer_donor = true})
    -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = arith.mulf %b, %b : tensor<4xf32>
  %1 = arith.addf %a, %a : tensor<4xf32>
  func.return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
"""
RESOURCES = """\
"test.op"() {value = dense_resource<blob> : tensor<2xi32>} : () -> ()
{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000100000002000000"
    }
  }
#-}
"""
JAX_LOCATIONS = """\
func.func @f(%x: tensor<4xf32> loc("x")) -> tensor<4xf32> {
  %0 = arith.negf %x : tensor<4xf32> loc(#loc1)
  func.return %0 : tensor<4xf32>
}
#loc1 = loc("f.py":4:11 to :16)
"""


@pytest.mark.parametrize(("text", "args"), [
    (HEX, ["--print-op-generic"]),  # xDSL's bug, kept: -inf read as the integer 4286578688
    (DONATED, ["-p", "jax-use-donated-arguments{remove_matched_outputs=true}"]),
    (DONATED + "// -----\n" + HEX,
     ["--split-input-file", "-p", "jax-use-donated-arguments,canonicalize", "-t", "mlir"]),
    (RESOURCES, ["--allow-unregistered-dialect", "--print-debuginfo"]),
    (JAX_LOCATIONS, []),  # xDSL refuses locations defined after use: a parse error
], ids=["hex", "upstream-pass", "split", "resources", "jax-locations"])
def test_mlir_frontend_and_target_behave_as_without_the_plugin(
        tmp_path: Path, text: str, args: list[str]) -> None:
    """xDSL's ``mlir`` frontend and target (the defaults of ``xdsl-opt``) and its passes give
    the same output, diagnostics and exit code with our entry point as without it."""
    src = tmp_path / "input.mlir"
    src.write_text(text)
    upstream = _probe("opt", str(src), *args, without_plugin=True)
    ours = _probe("opt", str(src), *args, without_plugin=False)
    assert (ours.returncode, ours.stdout, ours.stderr) == \
        (upstream.returncode, upstream.stdout, upstream.stderr)


def test_the_comparison_can_tell_the_frontends_apart(tmp_path: Path) -> None:
    """The same probe sees our ``jax`` frontend differ from xDSL's on the hex constant."""
    src = tmp_path / "input.mlir"
    src.write_text(HEX)
    xdsl = _probe("opt", str(src), without_plugin=True)
    ours = _probe("opt", "-f", "jax", "-t", "jax", str(src), without_plugin=False)
    assert "dense<4.28657869E+9>" in xdsl.stdout or "dense<4.28657869e+09>" in xdsl.stdout
    assert "dense<0xFF800000> : tensor<4xf32>" in ours.stdout


# ------------------------------------------------------------------------- import cycles


MODULES = {"jax_use_donated"} | {
    m.name for m in pkgutil.walk_packages(jax_use_donated.__path__, "jax_use_donated.")}


def _imports(module: str) -> set[str]:
    """The ``jax_use_donated`` modules ``module`` imports anywhere (function bodies included,
    ``if TYPE_CHECKING:`` blocks excluded)."""
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None, module
    tree = ast.parse(Path(spec.origin).read_text())
    for node in ast.walk(tree):  # drop type-checking-only imports
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            node.body = []
    found: set[str] = set()
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        found.update(n for n in names if n in MODULES)
    return found - {module}


def test_xdsl_facing_modules_have_no_import_cycle() -> None:
    """``driver`` -> ``universe`` -> ``frontend`` / ``transforms`` ... one way only (the
    universe used to import the driver lazily, and the driver the universe)."""
    graph: dict[str, set[str]] = {}
    todo = ["jax_use_donated.opt.driver", "jax_use_donated.xdsl_plugin.universe"]
    while todo:
        module = todo.pop()
        if module not in graph:
            graph[module] = _imports(module)
            todo.extend(graph[module])
    assert "jax_use_donated.opt.driver" not in graph["jax_use_donated.xdsl_plugin.universe"]
    assert {"jax_use_donated.xdsl_plugin.frontend", "jax_use_donated.xdsl_plugin.plan_donation"} <= set(
        graph)
    tuple(TopologicalSorter(graph).static_order())  # raises CycleError on a cycle
