"""Sharded programs on 4 host devices (Explicit and Auto meshes) and the benchmark's smoke run,
each in a subprocess: the host device count must be set before JAX is imported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _run(args: list[str], timeout: int = 300) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO),
           "XLA_FLAGS": "--xla_force_host_platform_device_count=4"}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          timeout=timeout, cwd=REPO)


def test_sharded_catalogue_programs() -> None:
    r = _run([str(REPO / "tests" / "jit_sharded_check.py")])
    assert r.returncode == 0, r.stdout + r.stderr
    for name in ("swap@explicit", "adam_state_first@auto", "pytree_dict@auto"):
        assert f"ok {name}" in r.stdout
    assert "ok sharding mismatch" in r.stdout
    assert "ok constraint result" in r.stdout


def test_catalogue_benchmark_quick(tmp_path: Path) -> None:
    r = _run([str(REPO / "benchmarks" / "donation_catalogue.py"), "--quick", "--out",
              str(tmp_path)])
    assert r.returncode == 0, r.stdout + r.stderr
    table = (tmp_path / "donation_catalogue.md").read_text()
    assert "| swap |" in table and "| swap@auto |" in table
    assert "ours equals the brute-force optimum footprint on **3/3** programs" in table
    assert "ours <= JAX footprint:  3/3" in r.stdout
