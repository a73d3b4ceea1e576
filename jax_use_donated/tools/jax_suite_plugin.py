"""A pytest plugin that runs a test suite with ``jax.jit`` replaced by
``jax_use_donated.jit`` (``JUD_JAX_SUITE=replace``), or unchanged (``plain``), for
``benchmarks/jax_test_suite.py``: JAX's own tests are the outside check of the drop-in.

``pytest -p jax_use_donated.tools.jax_suite_plugin tests/api_test.py``. The replacement happens
in ``pytest_configure``, before test modules are collected, so ``from jax import jit`` in a
test module binds the drop-in.
"""

from __future__ import annotations

import os
from typing import Any


def pytest_configure(config: Any) -> None:
    mode = os.environ.get("JUD_JAX_SUITE", "plain")
    if mode == "plain":
        return
    if mode != "replace":
        raise ValueError(f"JUD_JAX_SUITE must be 'plain' or 'replace', not {mode!r}")
    import jax

    import jax_use_donated

    jax.jit = jax_use_donated.jit
    # The planner's warnings are true (XLA copies there) but JAX's test configuration turns
    # every warning into an error; tests that check donation warnings still see them
    # (``assertWarns`` records everything).
    if os.environ.get("JUD_JAX_SUITE_WARNINGS", "ignore") == "ignore":
        config.addinivalue_line("filterwarnings", "ignore::jax_use_donated.DonationWarning")


def pytest_report_header(config: Any) -> str:
    return f"jax_use_donated suite plugin: JUD_JAX_SUITE={os.environ.get('JUD_JAX_SUITE', 'plain')}"
