"""JAX's, Flax's and Equinox's own tests, plain and with the donation planner switched on.

The outside check of the drop-in and the global switch: every test that passes plain must pass
switched on. The libraries' tests are not in their registry packages and are never vendored:
pass a checkout of the library's repository at the tag of the installed version. Each test
file runs twice, one pytest process each, with ``jax_use_donated.tools.suite_plugin`` loaded
(``JUD_SUITE=plain``, then ``replace``: ``jax.jit`` is the drop-in, or ``install``:
``jud.install()`` plans every jit, ``nnx.jit`` and ``eqx.filter_jit`` included)::

    python benchmarks/library_suites.py jax --checkout /tmp/jax-0.11.0 --label jax-v0.11.0
    python benchmarks/library_suites.py flax-nnx --checkout /tmp/flax-0.12.7 --label v0.12.7
    python benchmarks/library_suites.py equinox --checkout /tmp/equinox-0.13.8 \\
        --output benchmarks/results/suite_equinox.md

It prints (and with ``--output`` writes) the counts side by side, every test that passes plain
and not switched on (with the first line of its failure), the ``DonationWarning`` texts the
suite met, and how much the planner did (lowerings planned, donated leaves reused); exit status
1 when a test regressed, or when a file ran no test (a collection error, such as a missing test
dependency). Switched on, ``DonationWarning`` is recorded, not turned into an error by the
suite's filters (``--warnings``); the tests that met one are then rerun under the suite's own
filters, and those that fail there are listed as tripping over it.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

PLUGIN = "jax_use_donated.tools.suite_plugin"
REPO = Path(__file__).resolve().parent.parent
OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")


@dataclass(frozen=True)
class Suite:
    """A library's test files and how the planner is switched on for them."""

    files: tuple[str, ...]
    switch: str
    """``replace`` (``jax.jit`` is the drop-in) or ``install`` (``jud.install()``)."""
    env: dict[str, str] = field(default_factory=dict)
    """Environment defaults (the caller's environment wins)."""
    packages: tuple[str, ...] = ("jax", "jaxlib")
    """Versions reported with the results."""


SUITES: dict[str, Suite] = {
    "jax": Suite(("tests/api_test.py", "tests/pjit_test.py", "tests/layout_test.py"),
                 "replace", {"XLA_FLAGS": "--xla_force_host_platform_device_count=8"}),
    "flax-nnx": Suite(("tests/nnx/transforms_test.py",), "install",
                      packages=("jax", "jaxlib", "flax", "optax")),
    "equinox": Suite(("tests/test_jit.py",), "install",
                     packages=("jax", "jaxlib", "equinox", "jaxtyping")),
}


# --------------------------------------------------------------------------------------------
# What one pytest run says

_SUMMARY = re.compile(r"^=*\s*((?:\d+ [a-z]+(?: [a-z]+)?(?:, )?)+) in ([0-9.]+)s\b",
                      re.MULTILINE)
_PLURALS = {"errors": "error", "warnings": "warnings", "warning": "warnings"}


def parse_summary(text: str) -> dict[str, int] | None:
    """Counts from pytest's final summary line (``3 failed, 517 passed, 2 skipped in 12.3s``,
    with or without ``=`` rules), keyed by singular outcome (``error``, ``passed``, ...),
    ``warnings`` and ``subtests passed`` (Python 3.12's ``subTest`` under pytest 9); ``None`` when the output has no such line (pytest crashed)."""
    matches = list(_SUMMARY.finditer(text))
    if not matches:
        return {} if re.search(r"^=*\s*no tests ran in ", text, re.MULTILINE) else None
    counts: dict[str, int] = {}
    for part in matches[-1].group(1).split(", "):
        n, word = part.split(" ", 1)
        counts[_PLURALS.get(word, word)] = int(n)
    return counts


@dataclass
class Run:
    """One pytest process over one file."""

    outcomes: dict[str, str]
    """Test id -> outcome (one of :data:`OUTCOMES`), from the plugin's log."""
    messages: dict[str, str]
    """Test id -> first line of its failure."""
    summary: dict[str, int] | None
    """pytest's own summary line (a cross-check of :attr:`outcomes`)."""
    seconds: float
    returncode: int
    warnings: list[tuple[str, str]] = field(default_factory=list)
    """``(test id, message)`` per ``DonationWarning`` the suite met."""
    plans: list[dict[str, object]] = field(default_factory=list)
    """The plugin's per-test planner counts."""
    output: str = ""

    def count(self, outcome: str) -> int:
        return sum(o == outcome for o in self.outcomes.values())

    def consistent(self) -> bool:
        """The log's counts equal pytest's summary (no test went unlogged)."""
        if self.summary is None:
            return False
        return all(self.summary.get(o, 0) == self.count(o) for o in OUTCOMES)


def read_log(path: Path) -> tuple[dict[str, str], dict[str, str], list[tuple[str, str]],
                                  list[dict[str, object]]]:
    """The plugin's JSON-lines log: outcomes, failure lines, warnings, planner counts."""
    outcomes: dict[str, str] = {}
    messages: dict[str, str] = {}
    warns: list[tuple[str, str]] = []
    plans: list[dict[str, object]] = []
    if not path.exists():
        return outcomes, messages, warns, plans
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if entry["kind"] == "outcome":
            outcomes[entry["nodeid"]] = entry["outcome"]
            if entry.get("message"):
                messages[entry["nodeid"]] = entry["message"]
        elif entry["kind"] == "warning":
            warns.append((entry["nodeid"], entry["message"]))
        elif entry["kind"] == "plans":
            plans.append(entry)
    return outcomes, messages, warns, plans


def pytest_command(targets: list[str], workers: int, extra: list[str]) -> list[str]:
    """The pytest command line for one run (the plugin loaded, no cache written into the
    library's checkout)."""
    cmd = [sys.executable, "-m", "pytest", "-p", PLUGIN, "-p", "no:cacheprovider", "-q",
           *targets, *extra]
    if workers > 1:
        cmd += ["-n", str(workers)]
    return cmd


def run(checkout: Path, targets: list[str], mode: str, *, suite: Suite, workers: int = 1,
        extra: list[str] | None = None, warnings: str = "record", timeout: int = 7200,
        keep: Path | None = None) -> Run:
    """Run pytest over ``targets`` (files or test ids) in ``checkout`` under ``mode``."""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "log.jsonl"
        env = {**suite.env, **os.environ, "JUD_SUITE": mode, "JUD_SUITE_WARNINGS": warnings,
               "JUD_SUITE_LOG": str(log)}
        env.pop("JUD_JAX_SUITE", None)
        start = time.perf_counter()
        try:
            proc = subprocess.run(pytest_command(targets, workers, extra or []), cwd=checkout,
                                  env=env, timeout=timeout, check=False, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            output, rc = proc.stdout, proc.returncode
        except subprocess.TimeoutExpired as e:
            out = e.stdout or ""
            output = (out.decode(errors="replace") if isinstance(out, bytes) else out)
            output, rc = output + f"\n[timed out after {timeout} s]\n", -1
        seconds = time.perf_counter() - start
        outcomes, messages, warns, plans = read_log(log)
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", targets[0] if len(targets) == 1 else
                      f"{targets[0]}+{len(targets) - 1}")
        (keep / f"{name}.{mode}.out").write_text(output, encoding="utf-8")
    return Run(outcomes, messages, parse_summary(output), seconds, rc, warns, plans, output)


# --------------------------------------------------------------------------------------------
# Side by side


@dataclass
class FileResult:
    file: str
    plain: Run
    switched: Run
    plain_subset: bool = False
    """Plain ran only on the tests that did not pass switched on."""
    strict: Run | None = None
    """The tests that met a ``DonationWarning`` and passed, rerun switched on under the
    suite's own warning filters (``None``: not rerun)."""

    def regressions(self) -> list[str]:
        """Tests that pass plain and not switched on."""
        return sorted(t for t, o in self.plain.outcomes.items()
                      if o == "passed" and self.switched.outcomes.get(t, "missing") != "passed")

    def tripped(self) -> list[str]:
        """Tests that pass plain and switched on, and fail switched on under the suite's own
        warning filters: they trip over a ``DonationWarning``."""
        if self.strict is None:
            return []
        return sorted(t for t, o in self.strict.outcomes.items()
                      if o != "passed" and self.plain.outcomes.get(t, "passed") == "passed")

    def fixes(self) -> list[str]:
        """Tests that pass switched on and fail plain."""
        return sorted(t for t, o in self.switched.outcomes.items()
                      if o == "passed" and self.plain.outcomes.get(t) in ("failed", "error"))


def _cell(r: FileResult, outcome: str) -> str:
    plain = r.plain.count(outcome)
    if r.plain_subset:
        untouched = sum(o == outcome for t, o in r.switched.outcomes.items()
                        if t not in r.plain.outcomes)
        plain += untouched
    return f"{plain} / {r.switched.count(outcome)}"


def table(results: list[FileResult], switch: str) -> list[str]:
    """The side-by-side counts, one markdown row per file."""
    rows = [f"| file | tests | passed (plain / {switch}) | failed | error | skipped | "
            "xfailed | xpassed | time s (plain / " + switch + ") | pass plain, not " + switch
            + " |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        n = len(set(r.plain.outcomes) | set(r.switched.outcomes))
        cells = " | ".join(_cell(r, o) for o in OUTCOMES)
        rows.append(f"| {r.file} | {n} | {cells} | {r.plain.seconds:.0f} / "
                    f"{r.switched.seconds:.0f} | {len(r.regressions())} |")
    return rows


def planner_activity(runs: list[Run]) -> str:
    """One sentence: how much the switched-on runs planned."""
    plans = [p for r in runs for p in r.plans]

    def total(key: str) -> int:
        return sum(int(str(p.get(key, 0))) for p in plans)

    return (f"Planner activity switched on: {len(plans)} tests planned {total('lowerings')} "
            f"lowerings with donated arguments; {total('donated')} donated leaves, "
            f"{total('reused')} reused by the plan; {total('fallbacks')} lowerings kept "
            "JAX's pairing (fallback).")


def warning_lines(runs: list[Run], limit: int = 20) -> list[str]:
    """Each distinct ``DonationWarning`` text the suite met, with its count and first tests."""
    by_text: dict[str, list[str]] = collections.defaultdict(list)
    for r in runs:
        for test, message in r.warnings:
            by_text[message].append(test)
    lines = []
    for message, tests in sorted(by_text.items(), key=lambda kv: -len(kv[1]))[:limit]:
        first = ", ".join(sorted(set(tests))[:3])
        lines.append(f"- {len(tests)}x `{message}` ({first})")
    return lines


def versions(packages: tuple[str, ...]) -> str:
    parts = [f"Python {platform.python_version()}"]
    for p in packages:
        try:
            parts.append(f"{p} {metadata.version(p)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{p} (not installed)")
    return ", ".join(parts)


CODE_PATHS = ("jax_use_donated", "dialects", "benchmarks/library_suites.py", "pyproject.toml")
"""What the results depend on (edits to docs or results do not make a run "uncommitted")."""


def our_commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, text=True,
                              capture_output=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--",
                                *CODE_PATHS], cwd=REPO, text=True, capture_output=True,
                               check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" (uncommitted changes)" if dirty.strip() else "")


def report(name: str, suite: Suite, switch: str, label: str, command: str,
           results: list[FileResult], warnings: str) -> list[str]:
    """The markdown report of one suite."""
    switched = [r.switched for r in results]
    lines = [f"# {name} suite ({label}): plain and with the planner on ({switch})", "",
             f"`{command}`", "",
             f"{versions(suite.packages)}; jax-use-donated {our_commit()}; "
             f"`XLA_FLAGS={os.environ.get('XLA_FLAGS', suite.env.get('XLA_FLAGS', ''))}`; "
             f"DonationWarning filter: {warnings}. Cells: plain / {switch}.", "",
             *table(results, switch), ""]
    for r in results:
        for run_, what in ((r.plain, "plain"), (r.switched, switch)):
            if not run_.consistent():
                lines.append(f"Note: {r.file} ({what}): the plugin's log ({len(run_.outcomes)} "
                             f"tests) and pytest's summary ({run_.summary}) disagree "
                             f"(exit status {run_.returncode}).")
    broken = [(r, t) for r in results for t in r.regressions()]
    lines.append(f"Tests that pass plain and not with the planner on: {len(broken)}.")
    for r, t in broken:
        lines.append(f"- `{t}` ({r.switched.outcomes.get(t, 'missing')}): "
                     f"{r.switched.messages.get(t, '')}")
    tripped = [(r, t) for r in results for t in r.tripped()]
    rechecked = sum(len(r.strict.outcomes) for r in results if r.strict is not None)
    if warnings != "suite":
        lines.append(f"Tests that fail only under the suite's own warning filters (the tests "
                     f"that met a DonationWarning, {rechecked}, rerun with "
                     f"`JUD_SUITE_WARNINGS=suite`): {len(tripped)}.")
    for r, t in tripped:
        assert r.strict is not None
        lines.append(f"- `{t}` ({r.strict.outcomes[t]}): {r.strict.messages.get(t, '')}")
    fixed = [t for r in results for t in r.fixes()]
    if fixed:
        lines.append(f"Tests that fail plain and pass with the planner on: {len(fixed)} "
                     f"({', '.join(f'`{t}`' for t in fixed[:5])}).")
    lines += ["", planner_activity(switched)]
    warns = warning_lines(switched)
    lines.append(f"DonationWarnings met: {sum(len(r.warnings) for r in switched)}"
                 + (":" if warns else "."))
    lines += warns
    return lines


def run_file(checkout: Path, test_file: str, switch: str, *, suite: Suite, workers: int = 1,
             extra: list[str] | None = None, warnings: str = "record", timeout: int = 7200,
             keep: Path | None = None, plain_only_where_failing: bool = False) -> FileResult:
    """One file switched on, then plain (on every test, or on those that did not pass switched
    on), then the tests that met a ``DonationWarning`` under the suite's own filters."""

    def go(targets: list[str], mode: str, filters: str = warnings) -> Run:
        return run(checkout, targets, mode, suite=suite, workers=workers, extra=extra,
                   warnings=filters, timeout=timeout, keep=keep)

    switched = go([test_file], switch)
    if plain_only_where_failing:
        failing = sorted(t for t, o in switched.outcomes.items() if o != "passed")
        plain = go(failing, "plain") if failing else Run({}, {}, {}, 0.0, 0)
    else:
        plain = go([test_file], "plain")
    warned = sorted({t for t, _ in switched.warnings if switched.outcomes.get(t) == "passed"})
    strict = go(warned, switch, "suite") if warned and warnings != "suite" else None
    return FileResult(test_file, plain, switched, plain_only_where_failing, strict)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("suite", choices=sorted(SUITES))
    parser.add_argument("--checkout", type=Path, required=True,
                        help="the library's repository at the installed version's tag")
    parser.add_argument("files", nargs="*", help="test files (default: the suite's)")
    parser.add_argument("--label", default="", help="the checkout's tag, for the report")
    parser.add_argument("--switch", choices=("replace", "install"),
                        help="how the planner is switched on (default: the suite's)")
    parser.add_argument("--warnings", choices=("record", "ignore", "suite"), default="record",
                        help="DonationWarning filter (see the plugin)")
    parser.add_argument("-n", "--workers", type=int, default=1, help="pytest-xdist workers")
    parser.add_argument("--timeout", type=int, default=7200, help="seconds per pytest run")
    parser.add_argument("--pytest-args", default="", help="extra pytest arguments")
    parser.add_argument("--plain-only-where-failing", action="store_true",
                        help="run plain only on the tests that did not pass switched on")
    parser.add_argument("--output", type=Path, help="write the markdown report here")
    parser.add_argument("--keep", type=Path, help="keep each run's pytest output here")
    args = parser.parse_args(argv)
    suite = SUITES[args.suite]
    checkout = args.checkout.resolve()
    switch = args.switch or suite.switch
    results: list[FileResult] = []
    for f in args.files or list(suite.files):
        results.append(run_file(
            checkout, f, switch, suite=suite, workers=args.workers,
            extra=args.pytest_args.split(), warnings=args.warnings, timeout=args.timeout,
            keep=args.keep, plain_only_where_failing=args.plain_only_where_failing))
        print(table(results, switch)[-1], flush=True)
    command = "python " + " ".join([os.path.relpath(__file__, REPO), *(argv or sys.argv[1:])])
    text = "\n".join(report(args.suite, suite, switch, args.label or str(args.checkout),
                            command, results, args.warnings)) + "\n"
    print(text)
    if args.output is not None:
        args.output.write_text(text, encoding="utf-8")
    # A file that ran no test, or whose counts disagree with pytest's, gives no verdict: a
    # collection error (a missing test dependency) must not read as "0 regressions".
    silent = [r.file for r in results if not r.plain.outcomes or not r.plain.consistent()
              or not r.switched.consistent()]
    if silent:
        print(f"error: no verdict for {', '.join(silent)}: no test ran, or pytest's summary "
              "disagrees with the plugin's log (see the notes above)", file=sys.stderr)
        return 1
    return 1 if any(r.regressions() for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
