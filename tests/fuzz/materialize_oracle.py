"""The bufferization oracle for ``jax-plan-donation{mode=materialize}``: run a module through
the driver in a materialize configuration and prove the output in upstream MLIR
(:func:`jax_use_donated.oracle.materialize.check_materialized`): at most one destination per
result, ``bufferization.writable = false`` only where nothing writes, ``one-shot-bufferize``
succeeds and, where the function legalizes to linalg, the JIT-run output equals the input's
numbers (JAX's, run by XLA), each donor holds the result materialized into it and every
read-only argument is unchanged.

:func:`check_materialize_config` returns ``"executed"``, ``"bufferized"`` (what legalization
left, e.g. ``stablehlo.while``, cannot run: bufferized with ``allow-unknown-ops`` only) or
``"refused"`` (a configuration that may refuse did, cleanly).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from tests.fuzz.pass_oracle import Config, DriverRun, assert_clean_failure, run_driver
from tests.fuzz.stablehlo_modules import ModuleCase

if TYPE_CHECKING:  # the oracle needs the ``[oracle]`` extra: imported where it runs
    from jax_use_donated.oracle.materialize import MaterializeCheck

MATERIALIZE_CONFIGS: tuple[Config, ...] = (
    Config("mode=materialize"),
    Config("mode=materialize keep-unpaired-donors=true"),
    Config("mode=materialize remove-matched-outputs=true"),
    Config("mode=materialize keep-existing-aliases=true", may_refuse=True),
    Config("mode=materialize strict=true", may_refuse=True),
)

STATS: Counter[str] = Counter()
"""Counts over every check: outcomes, and what stopped execution."""


@dataclass
class Materialized:
    """One configuration's outcome (``executed``, ``bufferized``, ``refused``) and check."""

    outcome: str
    check: MaterializeCheck | None = None


def _materialize(case: ModuleCase, options: str) -> tuple[int, str, str]:
    run = run_driver(["-p", f"jax-plan-donation{{{options}}}", "--print-op-generic"],
                     case.text)
    return run.code, run.stdout, run.stderr


def _plan_pairs(case: ModuleCase, options: str) -> dict[int, int]:
    """donor -> result of ``@main``'s plan, read off the output without
    ``remove-matched-outputs`` (:func:`~jax_use_donated.oracle.materialize.new_pairs`)."""
    from jax_use_donated.oracle.materialize import new_pairs

    code, out, err = _materialize(case, options.replace("remove-matched-outputs=true", ""))
    assert code == 0, f"driver failed without remove-matched-outputs:\n{err}"
    return new_pairs(case.text, out, "main")


def check_materialize_config(case: ModuleCase, config: Config, reference: list[np.ndarray]
                             ) -> Materialized:
    """Run one materialize configuration on ``case`` and check it (module docstring);
    ``reference`` holds the input module's results on ``case.inputs()``."""
    from jax_use_donated.oracle.materialize import check_materialized

    code, out, err = _materialize(case, config.options)
    where = f"\nconfig: {config.pipeline}\n{case.describe()}"
    if code != 0:
        assert config.may_refuse, f"driver failed:\n{err}{where}"
        assert_clean_failure(DriverRun(code, out, err), where)
        STATS["refused"] += 1
        return Materialized("refused")
    expected = list(reference)
    held: dict[int, np.ndarray] = {}
    if "remove-matched-outputs=true" in config.options:
        # The plan names the removed results; their donors must hold them after the call.
        pairs = _plan_pairs(case, config.options)
        held = {d: reference[k] for d, k in pairs.items()}
        expected = [r for k, r in enumerate(reference) if k not in set(pairs.values())]
    check = check_materialized(out, "main", case.inputs(), expected, held=held,
                               exact=False, rtol=1e-3, atol=1e-3)
    assert check.ok, ("materialize output fails upstream:\n  " + "\n  ".join(check.problems)
                      + f"{where}\noutput:\n{out}")
    assert check.bufferized
    if check.executed:
        STATS["executed"] += 1
        return Materialized("executed", check)
    STATS["bufferized"] += 1
    STATS[f"not run: {check.not_run}"] += 1
    return Materialized("bufferized", check)
