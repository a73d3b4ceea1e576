"""A real headless Chromium for the tests that render HTML pages (``tests/test_picture.py``: the
drop-in's ``CallPlan.to_html()``; ``tests/test_driver_advice.py``: ``jax-donate-opt
--donation-report=html=FILE``): find it (else skip, saying why), run it on a page (DOM dump,
screenshot), read a screenshot's pixels."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run")


def chromium() -> str:
    """The browser's path on ``PATH``; skips the test (with the reason) where there is none."""
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("no headless Chromium on PATH (looked for " + ", ".join(CHROMIUM_NAMES)
                + "); .ci/run installs the Debian package 'chromium' where it is missing")


def run_chromium(binary: str, *args: str) -> subprocess.CompletedProcess[bytes]:
    """``binary`` headless with ``args`` (``--dump-dom URL``, ``--screenshot=PNG URL``), in a
    fresh profile, nothing fetched in the background."""
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, timeout=180, check=False)


def screenshot_pixels(png: Path) -> Any:
    """The RGB pixels of a screenshot, ``uint8`` of shape ``(height, width, 3)`` (read with
    matplotlib, which the tests that draw already need)."""
    import numpy as np
    from matplotlib.image import imread

    pixels = np.asarray(imread(png))[..., :3]
    if pixels.dtype != np.uint8:
        pixels = (pixels * 255).round().astype(np.uint8)
    return pixels
