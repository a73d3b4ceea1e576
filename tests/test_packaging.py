"""The distribution claims only its own import name: ``dialects/`` installs as
``jax_use_donated.dialects`` (``package-dir`` mapping), and the package list names every
package folder."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _declared() -> tuple[list[str], dict[str, str]]:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    return setuptools["packages"], setuptools.get("package-dir", {})


def test_the_package_list_names_every_package_folder() -> None:
    packages, mapping = _declared()
    found = set()
    for init in ROOT.glob("jax_use_donated/**/__init__.py"):
        found.add(".".join(init.parent.relative_to(ROOT).parts))
    for init in ROOT.glob("dialects/**/__init__.py"):
        found.add(".".join(("jax_use_donated", *init.parent.relative_to(ROOT).parts)))
    assert sorted(packages) == sorted(found)
    assert mapping == {"jax_use_donated.dialects": "dialects"}


def test_dialects_import_under_the_package_namespace_only() -> None:
    spec = importlib.util.find_spec("jax_use_donated.dialects")
    assert spec is not None and spec.origin is not None
    assert Path(spec.origin).resolve() == ROOT / "dialects" / "__init__.py"
    from jax_use_donated.dialects.stablehlo import StableHLO

    assert StableHLO.name == "stablehlo"


def test_no_source_file_imports_the_bare_dialects_name() -> None:
    offenders = []
    for path in ROOT.glob("**/*.py"):
        if ".venv" in path.parts or "build" in path.parts:
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            stripped = line.strip()
            if stripped.startswith(("from dialects", "import dialects")):
                offenders.append(f"{path.relative_to(ROOT)}:{n}")
    assert offenders == []
