"""Composition and control-flow campaign: the drop-in's per-donor claims against the executable.

Generated programs (:mod:`tests.fuzz.control_flow`) mix ``lax.cond`` / ``lax.switch``,
``while_loop`` / ``fori_loop`` (writing ``.at[].set``), ``lax.scan`` accumulators,
``jax.custom_vjp`` and ``jax.checkpoint`` under ``grad``, nested ``jax.jit``, the library state
machines ``optax.MultiSteps`` and ``optax.apply_if_finite``, and ``jax.shard_map`` over 4 host
devices (run in a child process with ``XLA_FLAGS=--xla_force_host_platform_device_count=4``),
with donated arguments in varied positions and outputs in varied orders. Each program is run
through ``jax_use_donated.jit`` with ``region_analysis`` on (the default) and off; per setting
every claim is checked: ``jud.plan``'s prediction per donated leaf against the executable,
outputs equal to plain ``jax.jit``, no warning saying XLA copies a donor it does not copy, a
footprint no larger than ``jax.jit``'s with the same XLA options. Prints the counts and, per
failing kind, minimal reproducers (greedy shrinking: fewer blocks, slots, donors, no library)::

    python benchmarks/control_flow_campaign.py                        # 60 + 12 sharded
    python benchmarks/control_flow_campaign.py --programs 200 --sharded 40 --seed 2
    python benchmarks/control_flow_campaign.py --programs 10 --sharded 0 --no-shrink
    python benchmarks/control_flow_campaign.py --out benchmarks/results/control_flow_campaign.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fuzz.control_flow import (
    DEVICES,
    TYPES,
    CheckResult,
    Finding,
    Program,
    check_program,
    random_programs,
    shrink,
)

FLAG = f"--xla_force_host_platform_device_count={DEVICES}"
SETTINGS = (True, False)
"""``region_analysis`` of the drop-in: its default, then off."""


@dataclass
class Reproducer:
    kind: str
    region_analysis: bool
    program: Program
    finding: Finding
    programs: int
    """How many campaign programs showed this kind under this setting."""

    def text(self) -> str:
        p = self.program
        args = ", ".join(f"{name}: " + (f"f32{list(TYPES[p.slots[int(name[1:])]])}"
                                         if name.startswith("s") else "pytree")
                         for name in p.arg_names)
        setting = "" if self.region_analysis else ", region_analysis=False"
        return (f"{p.source()}"
                f"# jud.jit(step, donate_argnums={p.donate}{setting}).plan({args})\n"
                f"# -> {self.finding.detail}")

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "region_analysis": self.region_analysis,
                "program": self.program.to_json(), "finding": vars(self.finding),
                "programs": self.programs}

    @staticmethod
    def from_json(data: dict[str, Any]) -> Reproducer:
        return Reproducer(data["kind"], data["region_analysis"],
                          Program.from_json(data["program"]), Finding(**data["finding"]),
                          data["programs"])


@dataclass
class Campaign:
    results: list[CheckResult] = field(default_factory=list)
    reproducers: list[Reproducer] = field(default_factory=list)
    seconds: float = 0.0

    def programs(self, sharded: bool | None = None) -> int:
        return len({(r.program.seed, r.program.sharded) for r in self.results
                    if sharded is None or r.program.sharded == sharded})

    def counts(self, sharded: bool, region: bool) -> Counter[str]:
        """Finding kind -> findings and ``kind (programs)`` -> programs showing it, for one
        scope and setting."""
        out: Counter[str] = Counter()
        for r in self.results:
            if r.program.sharded == sharded and r.region_analysis == region:
                kinds = Counter(f.kind for f in r.findings)
                out.update(kinds)
                out.update(f"{k} (programs)" for k in kinds)
        return out

    def summary(self) -> str:
        lines = [f"programs: {self.programs()} ({self.programs(True)} in shard_map on "
                 f"{DEVICES} host devices), {len(SETTINGS)} settings each, "
                 f"{self.seconds:.0f} s"]
        for sharded in (False, True):
            for region in SETTINGS:
                rs = [r for r in self.results
                      if r.region_analysis == region and r.program.sharded == sharded]
                if not rs:
                    continue
                lines.append(f"{'shard_map' if sharded else 'single device'}, "
                             f"region_analysis={region}: {len(rs)} programs, "
                             f"{sum(r.donors for r in rs)} donated leaves, "
                             f"{sum(not r.findings for r in rs)} with every claim true")
                counts = self.counts(sharded, region)
                for kind in sorted(k for k in counts if not k.endswith(" (programs)")):
                    lines.append(f"  {kind}: {counts[kind]} in "
                                 f"{counts[kind + ' (programs)']} programs")
        fp = [r for r in self.results if r.footprints and not r.program.sharded
              and r.region_analysis]
        saved = sum(r.footprints["drop-in"] < r.footprints["jax.jit default"] for r in fp)
        lines.append(f"single device, drop-in default: footprint below plain jax.jit in "
                     f"{saved} of {len(fp)} programs")
        return "\n".join(lines)

    def markdown(self, argv: list[str]) -> str:
        lines = ["# Control-flow and composition campaign", "",
                 f"Generated by `python benchmarks/control_flow_campaign.py {' '.join(argv)}` "
                 f"({self.seconds:.0f} s). Each program runs through `jax_use_donated.jit` with "
                 "`region_analysis` on (default) and off; a finding is a claim the executable "
                 "contradicts (see the script's docstring).", "", "```",
                 self.summary(), "```", "", "## Minimal reproducers", ""]
        if not self.reproducers:
            lines.append("None: every claim held.")
        for rep in self.reproducers:
            lines += [f"### {rep.kind} (region_analysis={rep.region_analysis}; "
                      f"{rep.programs} programs)", "", "```python", rep.text(), "```", ""]
        return "\n".join(lines) + "\n"

    def to_json(self) -> dict[str, Any]:
        return {"results": [{"program": r.program.to_json(),
                             "region_analysis": r.region_analysis, "donors": r.donors,
                             "findings": [vars(f) for f in r.findings],
                             "seconds": r.seconds, "footprints": r.footprints}
                            for r in self.results],
                "reproducers": [rep.to_json() for rep in self.reproducers]}

    def merge_json(self, data: dict[str, Any]) -> None:
        for r in data["results"]:
            self.results.append(CheckResult(
                Program.from_json(r["program"]), r["region_analysis"], r["donors"],
                [Finding(**f) for f in r["findings"]], r["seconds"], r["footprints"]))
        self.reproducers += [Reproducer.from_json(x) for x in data["reproducers"]]


def _signature(program: Program) -> tuple[Any, ...]:
    """What a shrunk reproducer is made of (reproducers with equal ones are one kind)."""
    return (frozenset(b.kind for b in program.blocks), program.library, program.sharded)


def run(programs: list[Program], shrink_per_kind: int, verbose: bool) -> Campaign:
    """Check every program under both settings, then shrink up to ``shrink_per_kind``
    failing programs per (kind, setting), keeping the distinct minimal ones."""
    campaign = Campaign()
    t0 = time.perf_counter()
    for i, program in enumerate(programs):
        for region in SETTINGS:
            result = check_program(program, region)
            campaign.results.append(result)
            if verbose and result.findings:
                print(f"  [{i}] seed {program.seed} region_analysis={region}: "
                      + ", ".join(sorted({f.kind for f in result.findings})), flush=True)
        if (i + 1) % 10 == 0:
            print(f"[{time.perf_counter() - t0:5.0f} s] {i + 1} programs", flush=True)
    if shrink_per_kind:
        failing: dict[tuple[str, bool], list[Program]] = {}
        for r in campaign.results:
            for kind in dict.fromkeys(f.kind for f in r.findings):
                failing.setdefault((kind, r.region_analysis), []).append(r.program)
        for (kind, region), progs in sorted(failing.items()):
            seen: set[tuple[Any, ...]] = set()
            for program in sorted(progs, key=lambda p: (len(p.blocks), len(p.slots)))[
                    :shrink_per_kind]:
                small, finding = shrink(program, kind, region)
                if _signature(small) in seen:
                    continue
                seen.add(_signature(small))
                campaign.reproducers.append(
                    Reproducer(kind, region, small, finding, len(progs)))
                print(f"shrunk: {kind} (region_analysis={region}): {small.describe()}",
                      flush=True)
    campaign.seconds = time.perf_counter() - t0
    return campaign


def _given(path: Path | None) -> list[Program]:
    if path is None:
        return []
    return [Program.from_json(p) for p in json.loads(path.read_text())]


def sharded_command(count: int, seed: int, shrink_per_kind: int, out: Path,
                    programs: Sequence[Program] = (), verbose: bool = False
                    ) -> tuple[list[str], dict[str, str]]:
    """The command and environment that check ``programs`` (the sharded ones) and ``count``
    random sharded programs in a child process with :data:`FLAG`, writing JSON to ``out``."""
    env = dict(os.environ, XLA_FLAGS=f"{os.environ.get('XLA_FLAGS', '')} {FLAG}".strip())
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", "--programs",
               str(count), "--seed", str(seed), "--shrink-per-kind", str(shrink_per_kind),
               "--json", str(out)] + (["--verbose"] if verbose else [])
    sharded = [p.to_json() for p in programs if p.sharded]
    if sharded:
        given = out.with_suffix(".programs.json")
        given.write_text(json.dumps(sharded))
        command += ["--programs-json", str(given)]
    return command, env


def run_sharded(count: int, seed: int, shrink_per_kind: int, verbose: bool,
                programs: Sequence[Program] = ()) -> dict[str, Any]:
    """The sharded programs in a child process with :data:`FLAG` (JSON back)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "sharded.json"
        command, env = sharded_command(count, seed, shrink_per_kind, out, programs, verbose)
        subprocess.run(command, env=env, check=True)
        return json.loads(out.read_text())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--programs", type=int, default=60, help="single-device programs")
    parser.add_argument("--sharded", type=int, default=12, help="shard_map programs")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--shrink-per-kind", type=int, default=2,
                        help="failing programs shrunk per kind and setting (0: none)")
    parser.add_argument("--no-shrink", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--out", type=Path, default=None, help="markdown report to write")
    parser.add_argument("--json", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--programs-json", type=Path, default=None,
                        help="also these programs (a JSON list of Program.to_json())")
    ns = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    shrink_per_kind = 0 if ns.no_shrink else ns.shrink_per_kind
    if ns.worker:  # the sharded half, in a process with 4 host devices
        import jax

        assert jax.device_count() >= DEVICES, jax.devices()
        campaign = run(_given(ns.programs_json)
                       + list(random_programs(ns.programs, ns.seed, sharded=True)),
                       shrink_per_kind, ns.verbose)
        assert ns.json is not None
        ns.json.write_text(json.dumps(campaign.to_json()))
        return 0
    t0 = time.perf_counter()
    given = [p for p in _given(ns.programs_json) if not p.sharded]
    campaign = run(given + list(random_programs(ns.programs, ns.seed)), shrink_per_kind,
                   ns.verbose)
    if ns.sharded or any(p.sharded for p in _given(ns.programs_json)):
        campaign.merge_json(run_sharded(ns.sharded, ns.seed, shrink_per_kind, ns.verbose,
                                        _given(ns.programs_json)))
    campaign.seconds = time.perf_counter() - t0
    print(campaign.summary())
    for rep in campaign.reproducers:
        print(f"\n--- {rep.kind} (region_analysis={rep.region_analysis}; "
              f"{rep.programs} programs)\n{rep.text()}")
    if ns.out is not None:
        ns.out.write_text(campaign.markdown(sys.argv[1:] if argv is None else argv))
        print(f"wrote {ns.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
