"""No import cycles between this package's modules (imports inside functions count too: a
lazy import hides a cycle from the interpreter, not from the design)."""

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


def test_no_import_cycles() -> None:
    modules = _modules()
    known = set(modules)
    graph = {m: _imports(p, m, known) for m, p in modules.items()}
    # A package importing its own submodules (re-exports) is not a cycle of the design.
    for m in graph:
        graph[m] = {t for t in graph[m] if not (t.startswith(m + ".") or m.startswith(t + "."))}
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
    assert cycles == [], "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)
