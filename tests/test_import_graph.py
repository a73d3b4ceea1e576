"""No import cycles between this package's modules, nor between its folders (imports inside
functions count too: a lazy import hides a cycle from the interpreter, not from the design).

Folders are the package's subpackages (``analysis``, ``adapters``, ``opt``, ``xdsl_plugin``,
``dropin``, ``oracle``, ``tools``, ``dialects``) and ``root`` for the modules at the package's
root; the package's ``__init__`` and ``testing`` (public names re-exported from ``dropin``) are
its facade, not folders of the design."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "jax_use_donated"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    out = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    for path in (ROOT / "dialects").rglob("*.py"):  # installed as jax_use_donated.dialects
        parts = path.relative_to(ROOT).with_suffix("").parts
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        out[".".join(("jax_use_donated", *parts))] = path
    return out


def _imports(path: Path, name: str, known: set[str]) -> set[str]:
    tree = ast.parse(path.read_text())
    is_package = path.name == "__init__.py"
    found: set[str] = set()

    def type_checking(node: ast.If) -> bool:
        return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and type_checking(child):
                continue
            targets: list[str] = []
            if isinstance(child, ast.Import):
                targets = [a.name for a in child.names]
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = name if is_package else name.rsplit(".", 1)[0]
                    for _ in range(child.level - 1):
                        anchor = anchor.rsplit(".", 1)[0]
                    base = f"{anchor}.{base}" if base else anchor
                targets = [base] + [f"{base}.{a.name}" for a in child.names]
            for t in targets:
                while t and t not in known:
                    t = t.rsplit(".", 1)[0] if "." in t else ""
                if t and t != name:
                    found.add(t)
            visit(child)

    visit(tree)
    return found


def _module_graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    graph = {m: _imports(p, m, known) for m, p in modules.items()}
    # A package importing its own submodules (re-exports) is not a cycle of the design.
    for m in graph:
        graph[m] = {t for t in graph[m] if not (t.startswith(m + ".") or m.startswith(t + "."))}
    return graph


FACADE = frozenset({"jax_use_donated.testing"})
"""Root modules that only re-export public names (like the package's ``__init__``)."""


def _folder(module: str) -> str | None:
    """``jax_use_donated.analysis.plan`` -> ``analysis``; a root module -> ``root``; the
    package itself (the facade) -> ``None``."""
    parts = module.split(".")
    if len(parts) == 1 or module in FACADE:
        return None
    sub = parts[1]
    return sub if (PACKAGE / sub).is_dir() else "root"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    cycles: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def dfs(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                cycles.append([*stack[stack.index(t):], t])
            elif t not in state:
                dfs(t)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            dfs(m)
    return cycles


def test_no_import_cycles() -> None:
    cycles = _cycles(_module_graph())
    assert cycles == [], "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_no_import_cycles_between_folders() -> None:
    folders: dict[str, set[str]] = {}
    for m, targets in _module_graph().items():
        a = _folder(m)
        if a is None:
            continue
        edges = folders.setdefault(a, set())
        for t in targets:
            b = _folder(t)
            if b is not None and b != a:
                edges.add(b)
    assert {"analysis", "adapters", "opt", "xdsl_plugin", "dropin", "root"} <= set(folders)
    cycles = _cycles(folders)
    assert cycles == [], "folder cycles: " + "; ".join(" -> ".join(c) for c in cycles)
    # the rules know no front end, and no IR library's adapter
    assert folders["analysis"] == set(), folders["analysis"]


def test_few_modules_at_the_root() -> None:
    root = sorted(p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py")
    assert root == ["diagnostics.py", "planning.py", "testing.py"], root


def test_the_analysis_core_imports_no_ir_library() -> None:
    """``analysis/`` (the rules) imports neither xDSL nor JAX nor jaxlib, anywhere in a module."""
    import ast

    banned = ("xdsl", "jax", "jaxlib", "mlir", "numpy")
    found = []
    for path in sorted((PACKAGE / "analysis").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                     else [])
            found += [f"{path.name}: {n}" for n in names if n.split(".")[0] in banned]
    assert found == []


def test_the_text_routes_child_loads_no_jaxlib() -> None:
    """The text route's child (forked before the driver's imports) reads and plans the module
    without jaxlib or numpy: loading them there cost 0.18 s of CPU per ``jax-donate-opt`` run
    (the bindings route's front end, :mod:`.opt.fronts`, imports jaxlib; the child's is
    :mod:`.opt.text_front`)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from jax_use_donated.opt import text_route\n"
        # what text_route._planner and text_route.plan_text import when they run
        "from jax_use_donated.adapters.jax_text import TextModuleAdapter, read_module\n"
        "from jax_use_donated.analysis.report import ReportStyle, ReportedPlan, render\n"
        "from jax_use_donated.opt.text_front import TextFront\n"
        "from jax_use_donated.planning import PlanOptions, plan_functions\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('jaxlib', 'jax', 'numpy')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]", done.stdout
