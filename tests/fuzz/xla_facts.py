"""Facts read back from XLA's compiled programs: aliasing, copies, temp bytes.

``input_output_alias`` is read from the HLO module header of ``compiled.as_text()``::

    HloModule jit_f, ..., input_output_alias={ {0}: (1, {}, may-alias), {1}: (0, {}, ...) }

which maps output tuple index ``{0}`` to parameter ``1`` (parameter numbers count only the
arguments JAX kept: see :func:`kept_leaves`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_HEADER_ALIAS = re.compile(r"input_output_alias=\{(.*?)\}, (?:entry_computation_layout|\w+=)")
_ALIAS_ENTRY = re.compile(r"\{([\d,\s]*)\}:\s*\((\d+),\s*\{([\d,\s]*)\},\s*([\w-]+)\)")


def parse_input_output_alias(hlo_text: str) -> dict[int, int]:
    """``{parameter number: output index}`` from an HLO module's header (empty when the
    module aliases nothing). Only top-level (non-nested) output and parameter indices occur
    in JAX programs; anything else raises."""
    header = hlo_text.split("\n", 1)[0]
    if "input_output_alias=" not in header:
        return {}
    m = _HEADER_ALIAS.search(header)
    assert m is not None, f"unparsed input_output_alias in {header!r}"
    pairs: dict[int, int] = {}
    for out_idx, param, param_idx, _kind in _ALIAS_ENTRY.findall(m.group(1)):
        outs = [int(x) for x in out_idx.replace(" ", "").split(",") if x]
        assert len(outs) <= 1 and not param_idx.strip(), f"nested alias in {header!r}"
        assert int(param) not in pairs, f"parameter {param} aliased twice in {header!r}"
        pairs[int(param)] = outs[0] if outs else 0
    return pairs


@dataclass(frozen=True)
class CompiledFacts:
    alias: dict[int, int]
    """parameter number -> output index, from the HLO header."""
    kept: tuple[int, ...]
    """Flat argument leaf index of each parameter number."""
    copies: int
    """Occurrences of `` copy(`` in the optimized HLO."""
    temp_bytes: int

    @property
    def leaf_alias(self) -> dict[int, int]:
        """Flat argument leaf index -> flat output leaf index."""
        return {self.kept[p]: k for p, k in self.alias.items()}


def kept_leaves(compiled: Any, n_leaves: int) -> tuple[int, ...]:
    """Flat argument leaf indices JAX kept as parameters (unused ones are pruned unless
    ``keep_unused=True``), in parameter order."""
    executable = getattr(compiled, "_executable", None)
    kept = getattr(executable, "_kept_var_idx", None)
    if kept is None:
        return tuple(range(n_leaves))
    return tuple(sorted(kept))


def compiled_facts(compiled: Any, n_leaves: int) -> CompiledFacts:
    text = compiled.as_text()
    analysis = compiled.memory_analysis()
    temp = int(getattr(analysis, "temp_size_in_bytes", 0)) if analysis is not None else 0
    return CompiledFacts(parse_input_output_alias(text), kept_leaves(compiled, n_leaves),
                         text.count(" copy("), temp)
