"""The bundled example is what its generator produces today."""

from __future__ import annotations

import difflib
import os
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
BUNDLED = EXAMPLES / "train_step.mlir"
SCRIPT = EXAMPLES / "train_step.py"
REGENERATE = "regenerate it with `python examples/train_step.py`"


def test_bundled_train_step_matches_its_generator(tmp_path: Path) -> None:
    """``examples/train_step.mlir`` equals a fresh ``python examples/train_step.py``: every
    cited ``train_step.py:LINE:COL`` is the read it names (an edit of the script that moves
    its lines fails here until the file is regenerated)."""
    bundled = BUNDLED.read_text()
    generated_with = re.search(r"\(jax ([^)]+)\)", bundled.splitlines()[0])
    assert generated_with is not None, "the bundled file lost its generator header"
    if generated_with.group(1) != version("jax"):
        pytest.skip(f"examples/train_step.mlir was generated with jax {generated_with[1]}; "
                    f"jax {version('jax')} lowers differently")
    out = tmp_path / "train_step.mlir"
    proc = subprocess.run([sys.executable, str(SCRIPT), "-o", str(out)],
                          env={**os.environ, "JAX_PLATFORMS": "cpu"}, capture_output=True,
                          text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr
    fresh = out.read_text()
    diff = list(difflib.unified_diff(bundled.splitlines(), fresh.splitlines(),
                                     "examples/train_step.mlir (bundled)", "generated", n=0,
                                     lineterm=""))
    assert not diff, f"the bundled example drifted from its generator; {REGENERATE}:\n" + \
        "\n".join(diff[:40])


def test_cited_source_lines_exist() -> None:
    """Independent of the JAX version: every location the example cites lies inside
    ``examples/train_step.py`` and spans source text (not blank columns)."""
    source = SCRIPT.read_text().splitlines()
    cited = re.findall(r'"examples/train_step\.py":(\d+):(\d+) to (\d*):(\d+)',
                       BUNDLED.read_text())
    assert cited
    for line, col, end_line, end_col in cited:
        text = source[int(line) - 1]
        if not end_line or end_line == line:
            snippet = text[int(col):int(end_col)]
            assert snippet.strip() and len(snippet) == int(end_col) - int(col), \
                f"train_step.py:{line}:{col} to :{end_col} is not source text; {REGENERATE}"
