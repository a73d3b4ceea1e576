"""One switch for every jit: ``install()`` / ``uninstall()`` and ``with enabled():``.

Inside the switch every lowering JAX performs for a jit with donated arguments, from
``jax.jit``, ``pjit``, ``nnx.jit``, ``eqx.filter_jit`` or library code, is planned by liveness,
with the planner's diagnostics. The switch is a JAX config state (``jax_use_donated_planner``)
that JAX includes in its jit and trace cache keys, so executables compiled outside the switch
are not reused inside it, nor the other way round. A :func:`~jax_use_donated.jit` object keeps
its own options, switch or not::

    with jax_use_donated.enabled(strict=False):
        state = nnx_train_step(model, optimizer, batch)   # any library's jit
    jax_use_donated.recent_plans()[-1].pairs_by_path
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import jax

from jax_use_donated.dropin import jax_internals, planner
from jax_use_donated.dropin.options import OptionsError, PlannerOptions


def _options_text(strict: bool, keep_unpaired_donors: bool, verify_executable: bool,
                  warn: bool, region_analysis: bool) -> str:
    reason = planner.ensure_installed()
    if reason is not None:
        raise RuntimeError(f"jax_use_donated cannot plan jit lowerings: {reason}")
    return PlannerOptions(strict=strict, keep_unpaired_donors=keep_unpaired_donors,
                          verify_executable=verify_executable, warn=warn,
                          region_analysis=region_analysis).encode()


def install(*, strict: bool = False, keep_unpaired_donors: bool = False,
            verify_executable: bool = False, warn: bool = True,
            region_analysis: bool = PlannerOptions.region_analysis) -> None:
    """Plan every jit lowering from now on, in every thread (options as for
    :func:`~jax_use_donated.jit`). Raises ``RuntimeError`` when JAX's internals are not the
    ones the planner knows."""
    text = _options_text(strict, keep_unpaired_donors, verify_executable, warn, region_analysis)
    jax.config.update(jax_internals.STATE_NAME, text)


def uninstall() -> None:
    """Stop planning jit lowerings (a :func:`~jax_use_donated.jit` object keeps planning)."""
    jax_internals.planner_state()  # defines the option if this is the first use
    jax.config.update(jax_internals.STATE_NAME, "")


@contextlib.contextmanager
def enabled(*, strict: bool = False, keep_unpaired_donors: bool = False,
            verify_executable: bool = False, warn: bool = True,
            region_analysis: bool = PlannerOptions.region_analysis) -> Iterator[None]:
    """Plan every jit lowering inside the block, in this thread (a thread-local JAX config
    context, like ``jax.enable_x64``)."""
    text = _options_text(strict, keep_unpaired_donors, verify_executable, warn, region_analysis)
    with jax_internals.planner_state()(text):
        yield


def installed() -> PlannerOptions | None:
    """The options the switch plans with here and now, or ``None`` when it is off."""
    text = jax_internals.planner_state().value
    if not text:
        return None
    try:
        return PlannerOptions.decode(text)
    except OptionsError:
        return None
