"""JAX's own jit tests, run with ``jax.jit`` replaced by ``jax_use_donated.jit``.

The outside check of the drop-in: every test that passes with plain JAX must pass with the
drop-in. JAX's tests are not in the registry's sdist and are never vendored: pass a checkout of
JAX's repository at the tag of the installed version (``jax-vX.Y.Z``)::

    git clone --depth 1 -b jax-v0.10.2 https://github.com/jax-ml/jax /tmp/jax
    pip install absl-py cloudpickle portpicker filelock flatbuffers pytest-xdist
    python benchmarks/jax_test_suite.py --jax-repo /tmp/jax tests/api_test.py tests/pjit_test.py

Each file runs twice, in one invocation each of pytest (``JUD_JAX_SUITE=plain`` and
``replace``, see ``jax_use_donated/tools/jax_suite_plugin.py``), with 8 host devices. The
script prints per file the counts side by side and every test that passes plain and fails with
the drop-in, and exits 1 when there is one.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

PLUGIN = "jax_use_donated.tools.jax_suite_plugin"


def outcomes(report: Path) -> dict[str, str]:
    """Test id -> ``passed``, ``failed``, ``error`` or ``skipped`` from a JUnit XML report."""
    out: dict[str, str] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        status = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                status = {"failure": "failed"}.get(child.tag, child.tag)
        out[name] = status
    return out


def node_id(test_file: str, name: str) -> str:
    """``tests.api_test.JitTest::test_x`` (JUnit) -> ``tests/api_test.py::JitTest::test_x``."""
    classname, _, test = name.partition("::")
    return f"{test_file}::{classname.rsplit('.', 1)[-1]}::{test}"


def run(repo: Path, test_file: str, mode: str, workers: int, extra: list[str],
        timeout: int, only: list[str] | None = None) -> dict[str, str]:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.xml"
        env = {**os.environ, "JUD_JAX_SUITE": mode,
               "XLA_FLAGS": os.environ.get("XLA_FLAGS",
                                           "--xla_force_host_platform_device_count=8")}
        targets = [node_id(test_file, t) for t in only] if only is not None else [test_file]
        cmd = [sys.executable, "-m", "pytest", "-p", PLUGIN, *targets, "-q",
               f"--junitxml={report}", "-o", "junit_family=xunit1", *extra]
        if workers > 1:
            cmd += ["-n", str(workers)]
        subprocess.run(cmd, cwd=repo, env=env, timeout=timeout, check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not report.exists():
            raise RuntimeError(f"pytest wrote no report for {test_file} ({mode})")
        return outcomes(report)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--jax-repo", type=Path, required=True,
                        help="JAX checkout at the installed version's tag")
    parser.add_argument("files", nargs="*", default=["tests/api_test.py", "tests/pjit_test.py",
                                                       "tests/layout_test.py"])
    parser.add_argument("-n", "--workers", type=int, default=1, help="pytest-xdist workers")
    parser.add_argument("--timeout", type=int, default=7200)
    parser.add_argument("--pytest-args", default="", help="extra pytest arguments")
    parser.add_argument("--plain-only-where-failing", action="store_true",
                        help="run the drop-in first and plain JAX only on the tests that did not "
                             "pass with it (half the time; 'passed plain' then counts those only)")
    args = parser.parse_args(argv)
    extra = args.pytest_args.split()
    broken: list[str] = []
    print("| file | tests | passed plain | passed drop-in | pass plain, fail drop-in |")
    print("|---|---|---|---|---|", flush=True)
    for f in args.files:
        ours = run(args.jax_repo, f, "replace", args.workers, extra, args.timeout)
        if args.plain_only_where_failing:
            failing = sorted(t for t, s in ours.items() if s not in ("passed", "skipped"))
            plain = (run(args.jax_repo, f, "plain", args.workers, extra, args.timeout,
                         only=failing) if failing else {})
            plain_passed = f"{len(ours) - len(failing)} + {sum(s == 'passed' for s in plain.values())}"
        else:
            plain = run(args.jax_repo, f, "plain", args.workers, extra, args.timeout)
            plain_passed = str(sum(s == "passed" for s in plain.values()))
        regressions = sorted(t for t, s in plain.items()
                             if s == "passed" and ours.get(t, "missing") != "passed")
        broken += [f"{t} ({ours.get(t, 'missing')})" for t in regressions]
        print(f"| {f} | {len(ours)} | {plain_passed} | "
              f"{sum(s == 'passed' for s in ours.values())} | {len(regressions)} |", flush=True)
        for t in regressions:
            print(f"REGRESSION {f}: {t} ({ours.get(t, 'missing')})", flush=True)
    return 1 if broken else 0


if __name__ == "__main__":
    raise SystemExit(main())
