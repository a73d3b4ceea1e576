"""The former name of :mod:`jax_use_donated.tools.suite_plugin` (``JUD_JAX_SUITE=plain|replace``
is still read): ``pytest -p jax_use_donated.tools.jax_suite_plugin tests/api_test.py``."""

from __future__ import annotations

from jax_use_donated.tools.suite_plugin import (
    pytest_configure,
    pytest_report_header,
    pytest_runtest_logreport,
    pytest_runtest_teardown,
    pytest_warning_recorded,
)

__all__ = [
    "pytest_configure",
    "pytest_report_header",
    "pytest_runtest_logreport",
    "pytest_runtest_teardown",
    "pytest_warning_recorded",
]
