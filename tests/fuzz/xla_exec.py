"""XLA as the campaign's executor: :mod:`jax_use_donated.oracle.xla_exec` (parse and verify
with jaxlib, compile and run with XLA), with the compiled aliasing read by the campaign's own
strict header parser (:func:`tests.fuzz.xla_facts.parse_input_output_alias`, which fails on
nested aliases instead of skipping them).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from jax_use_donated.oracle import xla_exec
from jax_use_donated.oracle.xla_exec import (
    MATERIALIZE,
    JaxlibRejected,
    Run,
    compile_text,
    dict_attrs,
    parse_in_jaxlib,
    strip_materialize,
)
from tests.fuzz.xla_facts import parse_input_output_alias


def run_text(text: str, inputs: Sequence[np.ndarray]) -> Run:
    """Compile ``text`` with XLA and run it once on fresh device copies of ``inputs``."""
    return xla_exec.run_text(text, inputs, read_aliases=parse_input_output_alias)


__all__ = [
    "MATERIALIZE",
    "JaxlibRejected",
    "Run",
    "compile_text",
    "dict_attrs",
    "parse_in_jaxlib",
    "run_text",
    "strip_materialize",
]
