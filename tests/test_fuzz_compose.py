"""Differential fuzzing of compositions: transforms and nested jits, drop-in and plain, at
random depths with random donation at each level, against ``jax.jit`` everywhere
(:mod:`tests.fuzz.compositions`).

Profiles: CI (default) 300 derandomized compositions; ``JUD_FUZZ_PROFILE=long`` 10,000 with
random seeds; ``JUD_FUZZ_COMPOSE_EXAMPLES=N`` overrides. The long campaign with figures:
``python -m tests.fuzz.campaign compose --examples 10000 --seed 1``.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings

from tests.fuzz.compositions import Composition, Layer, check_composition, compositions

LONG = os.environ.get("JUD_FUZZ_PROFILE", "ci") == "long"
EXAMPLES = int(os.environ.get("JUD_FUZZ_COMPOSE_EXAMPLES", 10_000 if LONG else 300))


@pytest.fixture(autouse=True)
def _quiet_donation_warnings() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=not LONG,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(compositions())
def test_compositions_match_jax_jit(comp: Composition) -> None:
    check_composition(comp)


@pytest.mark.parametrize("comp", [
    # The reported bug: jit(grad(jit f)) returned f, not its derivative.
    Composition("same", (Layer("dropin"), Layer("grad"), Layer("dropin")), (4,)),
    Composition("trig", (Layer("dropin", (0,)), Layer("jacrev"), Layer("dropin", (0, 1))),
                (3, 4)),
    Composition("swap", (Layer("dropin", (0, 1)), Layer("dropin", (0, 1))), (4,)),
    Composition("mix", (Layer("jit", (0,)), Layer("vmap"), Layer("dropin", (1,))), (3, 4)),
    Composition("swap", (Layer("dropin", (0, 1)), Layer("scan"), Layer("custom_vjp"),
                         Layer("grad"), Layer("dropin", (0, 1))), (4,)),
    Composition("reduce", (Layer("dropin"), Layer("grad"), Layer("dropin", (0, 1))), (2, 3),
                eager_top=True),
], ids=lambda c: c.describe())
def test_known_compositions(comp: Composition) -> None:
    check_composition(comp)
