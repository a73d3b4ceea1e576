"""The README is what it says: its example is ``examples/readme.py`` verbatim, the output it shows
is what that example prints, it stays short, and every page it links exists."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def _block_after(marker: str) -> str:
    """The fenced block that follows ``marker`` in the README."""
    rest = README[README.index(marker):]
    match = re.search(r"```[a-z]*\n(.*?)\n```", rest, re.S)
    assert match is not None, marker
    return match.group(1)


def test_the_example_is_the_bundled_file() -> None:
    assert _block_after("<!-- readme-example: examples/readme.py -->") == (
        ROOT / "examples" / "readme.py").read_text().rstrip()


def test_the_output_shown_is_what_the_example_prints() -> None:
    done = subprocess.run([sys.executable, "examples/readme.py"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    printed = done.stdout.replace(f"{ROOT}/", "").rstrip()
    assert printed == _block_after("<!-- readme-output -->")


def test_short_with_the_two_commands_first_and_live_links() -> None:
    lines = README.splitlines()
    assert len(lines) < 150
    commands = [i for i, line in enumerate(lines) if line.startswith("python3 -m venv .venv")]
    assert len(commands) == 2 and commands[1] < 25, "the two set-up commands on the first screen"
    assert lines[commands[1] - 2] == "<!-- test-command -->"
    for target in re.findall(r"\]\(([^)#]+)\)", README):
        assert (ROOT / target).exists(), target
