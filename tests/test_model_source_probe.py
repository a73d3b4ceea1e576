"""The model-source benchmark runs, and its two models (bindings, text) are equal."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.model_source_probe import probe


def test_probe_builds_equal_models_both_ways() -> None:
    ops, lines, walk, read, plan = probe(3, reps=1)  # raises when the models differ
    assert lines > ops > 100  # duplicates (40%) are merged while walking
    assert walk > 0 and read > 0 and plan > 0
