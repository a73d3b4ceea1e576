"""``assert_copy_free``: a train step's donations stay copy-free (public as
:func:`jax_use_donated.testing.assert_copy_free`).

::

    import jax_use_donated.testing as judt

    def test_train_step_reuses_every_donated_buffer():
        model, opt_state, batch = make_state()
        judt.assert_copy_free(train_step, model, opt_state, batch)

``train_step`` is any jitted callable (``jud.jit``, ``jax.jit``, ``nnx.jit``,
``eqx.filter_jit``, a ``functools.wraps`` wrapper of one). Nothing runs: the step is lowered as
the drop-in lowers it (a ``jax.jit`` or a library's jit as the global switch would) and compiled
with JAX's cached compile, so the arguments are never donated (consumed) and a later call of
the step reuses the executable.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from jax_use_donated.dropin import api
from jax_use_donated.dropin.records import CallPlan, LeafDonation


def assert_copy_free(step: Any, *args: Any, allow: Iterable[str] = (),
                     only_no_copies: bool = False, **kwargs: Any) -> CallPlan:
    """Fail (``AssertionError``, the :func:`jax_use_donated.explain` table as its message)
    unless every donated leaf of ``step(*args, **kwargs)`` hosts an output copy-free in the
    compiled executable; return the measured :class:`~jax_use_donated.CallPlan`.

    ``allow``: leaves that may fall short, by the user's path (``"model.l1.bias"``) or JAX's
    (``"dynamic_donate['rest'][3]"``); a name that matches no donated leaf is a
    ``ValueError`` (a typo would pass silently). ``only_no_copies=True`` asks only that XLA
    copies no donor: leaves left undonated (nothing can host them) pass. A step whose
    donations the planner could not analyse (it keeps JAX's pairing) fails::

        assert_copy_free(step, params, opt_state, batch, allow=("opt_state[0].count",))
    """
    allowed = set(allow)
    plan = api.plan(step, *args, **kwargs)
    unknown = allowed - {name for x in plan.donations
                         for name in (x.path, x.text, x.jax_path)}
    if unknown:
        raise ValueError(f"allow names no donated leaf of {plan.function}: "
                         f"{', '.join(sorted(unknown))} (donated: "
                         f"{', '.join(x.path for x in plan.donations) or 'none'})")
    failing = [x for x in plan.donations
               if not ({x.path, x.text, x.jax_path} & allowed)
               and not _passes(x, only_no_copies)]
    if plan.fallback_reason is None and not failing:
        return plan
    why = (f"the planner keeps JAX's pairing: {plan.fallback_reason}"
           if plan.fallback_reason is not None else
           f"{len(failing)} donated leaves {'copied by XLA' if only_no_copies else 'not reused copy-free'}: "
           + ", ".join(f"{x.text} ({_outcome(x)})" for x in failing))
    report = api.explain(step, *args, **kwargs)
    raise AssertionError(f"{plan.function}: {why}\n\n{report}")


def _passes(x: LeafDonation, only_no_copies: bool) -> bool:
    outcome = x.outcome
    if only_no_copies:
        return outcome != "copied"
    return outcome == "copy-free"


def _outcome(x: LeafDonation) -> str:
    if x.measured is not None:
        return x.measured
    return f"{x.outcome or x.status}, predicted: not measured"


__all__ = ["assert_copy_free"]
