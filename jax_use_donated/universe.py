"""The ``xdsl.universe`` entry point: our dialects and passes for ``xdsl-opt``.

Dialects (``stablehlo``, ``chlo``, ``sdy`` from ``jax_use_donated.dialects``, the repository's ``dialects/`` folder) are
registered lazily: a factory imports its module only when a parsed op needs the dialect, and a
dialect whose module is absent is not offered at all.

``jax-use-donated-arguments`` is deliberately *not* listed in :data:`UNIVERSE`: xDSL's own
universe already defines a pass of that name and ``Universe.get_multiverse()`` raises on
duplicate names. ``get_multiverse`` loads every entry point before it merges their names, so
loading this module replaces the factory in ``xdsl.universe.XDSL_UNIVERSE.all_passes`` with
ours; plain ``xdsl-opt -p jax-use-donated-arguments`` then runs this project's pass (a superset
of the upstream options: ``remove_matched_outputs`` keeps its meaning in ``mode=materialize``).
The ``mlir`` frontend and target are replaced the same way (see :func:`install_overrides`).

In an ``xdsl-opt`` process (and only there: library users of :mod:`jax_use_donated.jit_hook`
keep getting :class:`~jax_use_donated.diagnostics.DonationWarning` through :mod:`warnings`),
donation warnings are printed MLIR-style to stderr, ``file:line:col: warning: ...``, as
``jax-donate-opt`` prints them (see :func:`install_xdsl_opt_diagnostics`).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import XDSL_UNIVERSE, Universe
from xdsl.utils.frontend import Frontend
from xdsl.utils.target import Target
from xdsl.xdsl_opt_main import xDSLOptMain

PASS_NAME = "jax-use-donated-arguments"
VERIFY_PASS_NAME = "jax-verify-donation"
DIALECT_NAMES = ("stablehlo", "chlo", "sdy")


def _use_donated_pass() -> type[ModulePass]:
    from jax_use_donated.transforms.use_donated_arguments import JaxUseDonatedArguments

    return JaxUseDonatedArguments


def _verify_donation_pass() -> type[ModulePass]:
    from jax_use_donated.transforms.use_donated_arguments import JaxVerifyDonation

    return JaxVerifyDonation


def _dialect_module_exists(name: str) -> bool:
    """Whether ``dialects/<name>`` exists, without importing (executing) anything."""
    spec = importlib.util.find_spec("jax_use_donated.dialects")
    if spec is None or not spec.submodule_search_locations:
        return False
    for location in spec.submodule_search_locations:
        base = Path(location)
        if (base / f"{name}.py").is_file() or (base / name / "__init__.py").is_file():
            return True
    return False


def load_dialect(name: str) -> Dialect:
    """The :class:`Dialect` named ``name`` defined in ``jax_use_donated.dialects.<name>``."""
    module = importlib.import_module(f"jax_use_donated.dialects.{name}")
    for value in vars(module).values():
        if isinstance(value, Dialect) and value.name == name:
            return value
    raise ImportError(f"module jax_use_donated.dialects.{name} defines no Dialect named '{name}'")


def _dialect_factory(name: str) -> Callable[[], Dialect]:
    return lambda: load_dialect(name)


def available_dialects() -> dict[str, Callable[[], Dialect]]:
    """Lazy factories for the dialects whose modules exist."""
    return {n: _dialect_factory(n) for n in DIALECT_NAMES if _dialect_module_exists(n)}


def _jax_mlir_frontend() -> type[Frontend]:
    from jax_use_donated.driver import JaxMLIRFrontend

    return JaxMLIRFrontend


def _jax_mlir_target() -> type[Target]:
    from jax_use_donated.driver import JaxMLIRTarget

    return JaxMLIRTarget


def install_overrides() -> None:
    """Make xDSL's universe resolve ``jax-use-donated-arguments`` to our pass, and its ``mlir``
    frontend and target to :class:`jax_use_donated.ir_text.JaxTextParser` and
    :class:`~jax_use_donated.ir_text.JaxTextPrinter`.

    The frontend matters as much as the pass: xDSL's own parser reads JAX's hex-float constants
    (``dense<0xFF800000>``, i.e. ``-inf``) as the integer 4286578688, so ``xdsl-opt -p
    jax-use-donated-arguments`` on JAX text would silently print a different program. Our
    parser accepts everything xDSL's does, plus JAX's location syntax; our printer keeps the
    argument attributes of ``func.func`` declarations (``jax.buffer_donor``), which xDSL's
    drops, and the ``dialect_resources`` section."""
    XDSL_UNIVERSE.all_passes[PASS_NAME] = _use_donated_pass
    XDSL_UNIVERSE.all_frontends["mlir"] = _jax_mlir_frontend
    XDSL_UNIVERSE.all_targets["mlir"] = _jax_mlir_target


def _running_xdsl_opt() -> bool:
    """Whether this process is ``xdsl-opt`` (the console script or ``python -m``)."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and getattr(spec, "name", None) == "xdsl.tools.xdsl_opt":
        return True
    return bool(sys.argv) and Path(sys.argv[0]).name in ("xdsl-opt", "xdsl_opt.py")


def install_xdsl_opt_diagnostics() -> None:
    """Print donation warnings of ``xdsl-opt`` runs MLIR-style on stderr::

        before: .../warnings.py: DonationWarning: -: warning: donated argument ...
        after:  input.mlir: warning: donated argument ...   (file:line:col where known)

    Wraps ``xDSLOptMain.apply_passes`` so that the passes run inside a
    :func:`~jax_use_donated.diagnostics.collect_diagnostics` sink and its diagnostics are
    printed after them, located at the input's name where the IR has no location (as
    ``jax-donate-opt`` does). Idempotent."""
    original = xDSLOptMain.apply_passes
    if getattr(original, "_prints_donation_diagnostics", False):
        return
    from jax_use_donated.diagnostics import collect_diagnostics

    def apply_passes(self: xDSLOptMain, prog: ModuleOp) -> None:
        with collect_diagnostics() as sink:
            try:
                original(self, prog)
            finally:
                sys.stdout.flush()
                name = self.args.input_file or "<stdin>"
                for diagnostic in sink.diagnostics:
                    print(diagnostic.format(name), file=sys.stderr)
                sys.stderr.flush()

    apply_passes._prints_donation_diagnostics = True  # type: ignore[attr-defined]
    xDSLOptMain.apply_passes = apply_passes


install_overrides()
if _running_xdsl_opt():
    install_xdsl_opt_diagnostics()

UNIVERSE = Universe(
    all_dialects=available_dialects(),
    all_passes={VERIFY_PASS_NAME: _verify_donation_pass},
)


def _reuse_destinations_pass() -> type[ModulePass]:
    from jax_use_donated.transforms.reuse_donated_destinations import (
        JaxReuseDonatedDestinations,
    )

    return JaxReuseDonatedDestinations


# Destination-passing rewrite for linalg IR (issue 5).
UNIVERSE.all_passes["jax-reuse-donated-destinations"] = _reuse_destinations_pass
