"""Run ``xdsl-opt`` or list xDSL's registered names, optionally as if this package's
``xdsl.universe`` entry point were not installed (for tests/test_xdsl_plugin.py).

    python tests/xdsl_probe.py [--without-plugin] names
    python tests/xdsl_probe.py [--without-plugin] opt XDSL-OPT-ARGS...

``names`` prints, as JSON, every registered dialect, pass, frontend and target with the
module and name of its factory, and whether ``jax_use_donated`` was imported. ``--without-plugin`` hides the entry points of this
distribution from :func:`importlib.metadata.entry_points` before xDSL reads them, so nothing
of ``jax_use_donated`` is imported.
"""

from __future__ import annotations

import importlib.metadata
import json
import runpy
import sys
from typing import Any

PLUGIN_PREFIX = "jax_use_donated"


def hide_plugin() -> None:
    """Make :func:`importlib.metadata.entry_points` skip this package's entry points."""
    original = importlib.metadata.entry_points

    def entry_points(**params: Any) -> importlib.metadata.EntryPoints:
        found = original(**params)
        return importlib.metadata.EntryPoints(
            ep for ep in found if not ep.value.startswith(PLUGIN_PREFIX))

    importlib.metadata.entry_points = entry_points  # type: ignore[assignment]


def names() -> dict[str, dict[str, str]]:
    from xdsl.universe import Universe

    multiverse = Universe.get_multiverse()
    kinds = {"dialects": multiverse.all_dialects, "passes": multiverse.all_passes,
             "frontends": multiverse.all_frontends, "targets": multiverse.all_targets}
    return {kind: {name: f"{factory.__module__}:{factory.__qualname__}"
                   for name, factory in table.items()}
            for kind, table in kinds.items()}


def main(argv: list[str]) -> None:
    if argv and argv[0] == "--without-plugin":
        hide_plugin()
        argv = argv[1:]
    command, rest = argv[0], argv[1:]
    if command == "names":
        found = names()
        print(json.dumps({"names": found, "plugin_imported": PLUGIN_PREFIX in sys.modules},
                         indent=1, sort_keys=True))
    elif command == "opt":
        sys.argv = ["xdsl-opt", *rest]
        runpy.run_module("xdsl.tools.xdsl_opt", run_name="__main__", alter_sys=True)
    else:
        raise SystemExit(f"unknown command {command!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
