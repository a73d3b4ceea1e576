"""The ``xdsl.universe`` entry point: what this package adds to ``xdsl-opt``, and nothing more.

* dialects ``stablehlo``, ``chlo``, ``sdy`` (from ``jax_use_donated.dialects``, the repository's
  ``dialects/`` folder), registered lazily: a factory imports its module only when a parsed op
  needs the dialect, and a dialect whose module is absent is not offered at all;
* passes ``jax-plan-donation``, ``jax-verify-donation``, ``jax-reuse-donated-destinations``;
* the frontend and target ``jax`` (JAX's text read and printed bit-exactly:
  ``xdsl-opt -f jax -t jax FILE``).

Every name is new: xDSL's own passes (its ``jax-use-donated-arguments`` included), frontends
and targets are left as upstream ships them (``Universe.get_multiverse()`` raises on a
duplicate name). Factories import lazily, so loading this entry point costs almost nothing.

Nothing of xDSL is patched: in an ``xdsl-opt`` process our passes print their warnings
MLIR-style themselves (:func:`jax_use_donated.diagnostics.emit`).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from pathlib import Path

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe
from xdsl.utils.frontend import Frontend
from xdsl.utils.target import Target

PLAN_PASS = "jax-plan-donation"
VERIFY_PASS = "jax-verify-donation"
DESTINATIONS_PASS = "jax-reuse-donated-destinations"
TEXT_FORMAT = "jax"
"""The name of our frontend and target."""
DIALECT_NAMES = ("stablehlo", "chlo", "sdy")


def _plan_pass() -> type[ModulePass]:
    from jax_use_donated.xdsl_plugin.plan_donation import JaxPlanDonation

    return JaxPlanDonation


def _verify_pass() -> type[ModulePass]:
    from jax_use_donated.xdsl_plugin.plan_donation import JaxVerifyDonation

    return JaxVerifyDonation


def _destinations_pass() -> type[ModulePass]:
    from jax_use_donated.xdsl_plugin.reuse_donated_destinations import (
        JaxReuseDonatedDestinations,
    )

    return JaxReuseDonatedDestinations


def _jax_frontend() -> type[Frontend]:
    from jax_use_donated.xdsl_plugin.frontend import JaxFrontend

    return JaxFrontend


def _jax_target() -> type[Target]:
    from jax_use_donated.xdsl_plugin.frontend import JaxTarget

    return JaxTarget


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


UNIVERSE = Universe(
    all_dialects=available_dialects(),
    all_passes={
        PLAN_PASS: _plan_pass,
        VERIFY_PASS: _verify_pass,
        DESTINATIONS_PASS: _destinations_pass,
    },
    all_frontends={TEXT_FORMAT: _jax_frontend},
    all_targets={TEXT_FORMAT: _jax_target},
)
