"""Coverage-guided fuzzing of ``jax-donate-opt`` (not part of CI).

Feeds mutated MLIR text to the driver in-process (``jax_use_donated.opt.driver.main`` with
``-p jax-plan-donation``, on a rotating pass configuration) and records every input
that makes it misbehave: exit status 2 (an internal error: an exception that is not a
diagnostic), a Python traceback in its output, or exit 1 without an ``error:`` diagnostic.
Findings are deduplicated by their first diagnostic line and written, one input file each,
under ``--findings``; a JSON summary (iterations, distinct findings, time) goes to
``--summary``.

Engines:

* ``atheris`` (libFuzzer; ``pip install atheris``; Python 3.11 wheels exist): coverage of
  ``jax_use_donated``, ``dialects`` and xDSL's parser and printer guides the mutations;
* ``trace`` (no dependency): a built-in coverage-feedback loop: ``sys.settrace`` line coverage
  of the same modules; an input that reaches a new line joins the corpus; mutations are byte
  flips, cuts, duplications, splices and insertions of MLIR tokens.

Seeds: ``tests/hostile/*.mlir`` and the JAX-lowered corpus ``tests/corpus/.cache/*.mlir``.

Usage::

    python benchmarks/fuzz_driver.py --engine atheris --runs 20000
    python benchmarks/fuzz_driver.py --engine trace --seconds 600
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
INSTRUMENTED = ("jax_use_donated", "xdsl.parser", "xdsl.printer", "xdsl.utils",
                "xdsl.xdsl_opt_main", "xdsl.dialects.builtin", "xdsl.dialects.func")
CONFIGS = (
    "jax-plan-donation",
    "jax-plan-donation{mode=materialize}",
    "jax-plan-donation{keep-existing-aliases=true}",
    "jax-plan-donation{mode=materialize remove-matched-outputs=true}",
    "jax-plan-donation{strict=true keep-unpaired-donors=true}",
    "jax-verify-donation",
)
TOKENS = (b"{", b"}", b"(", b")", b"[", b"]", b"<", b">", b"%0", b"%arg0", b" : ", b", ",
          b"loc(#loc1)", b"#loc1 = loc(\"f.py\":1:2 to :5)\n", b"tf.aliasing_output = 0 : i32",
          b"tf.aliasing_output = 7 : i32", b"jax.buffer_donor = true", b"dense<0x7FC00000>",
          b"dense_resource<blob>", b"\"", b"#", b"^bb1:", b"\n// -----\n", b"func.call @main",
          b"stablehlo.while", b"tensor<?xf32>", b"!stablehlo.token", b"tuple<tensor<4xf32>>",
          b"-> (tensor<4xf32>, tensor<4xf32>)", b"\xff", b"\x00")


class Campaign:
    """Runs one input through the driver and keeps the findings."""

    def __init__(self, findings_dir: Path) -> None:
        from jax_use_donated.opt.driver import main

        self.main = main
        self.findings_dir = findings_dir
        self.findings: dict[str, str] = {}
        self.iterations = 0
        self.exit_codes: dict[int, int] = {}
        self.tmp = Path(tempfile.mkdtemp(prefix="fuzz_driver_", dir="/dev/shm"
                                         if os.path.isdir("/dev/shm") else None))

    def run(self, data: bytes) -> None:
        self.iterations += 1
        config = CONFIGS[self.iterations % len(CONFIGS)]
        path = self.tmp / "input.mlir"
        path.write_bytes(data)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = self.main([str(path), "-p", config, "-o", str(self.tmp / "out.mlir")])
            except BaseException as e:  # main must never raise
                code = -1
                print(f"main raised {type(e).__name__}: {e}", file=err)
        self.exit_codes[code] = self.exit_codes.get(code, 0) + 1
        stderr = err.getvalue()
        bad = (code not in (0, 1) or "Traceback (most recent call last)" in stderr
               or (code == 1 and "error:" not in stderr))
        if bad:
            first = next((ln for ln in stderr.splitlines() if ln.strip()), f"exit {code}")
            key = f"exit {code}: " + first.split("error:", 1)[-1].strip()[:160]
            if key not in self.findings:
                digest = hashlib.sha1(data).hexdigest()[:12]
                name = f"finding-{len(self.findings):03d}-{digest}.mlir"
                (self.findings_dir / name).write_bytes(data)
                (self.findings_dir / (name + ".txt")).write_text(
                    f"config: {config}\nexit: {code}\n{stderr}")
                self.findings[key] = name

    def summary(self, engine: str, seconds: float) -> dict[str, Any]:
        return {"engine": engine, "iterations": self.iterations, "seconds": round(seconds, 1),
                "exit_codes": {str(k): v for k, v in sorted(self.exit_codes.items())},
                "findings": self.findings}


def seeds() -> list[bytes]:
    files = sorted((ROOT / "tests" / "hostile").glob("*.mlir"))
    corpus = sorted((ROOT / "tests" / "corpus" / ".cache").glob("*.mlir"))
    files += [p for p in corpus if p.stat().st_size < 6000]
    return [p.read_bytes() for p in files]


def mutate(data: bytes, rng: random.Random, pool: list[bytes]) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        kind = rng.choice(("cut", "flip", "dup", "insert", "insert", "splice"))
        i = rng.randrange(len(buf) + 1)
        if kind == "cut" and buf:
            del buf[i:i + rng.randint(1, 64)]
        elif kind == "flip" and buf:
            buf[min(i, len(buf) - 1)] = rng.randrange(256)
        elif kind == "dup" and buf:
            j = rng.randrange(len(buf))
            buf[i:i] = buf[j:j + rng.randint(1, 80)]
        elif kind == "insert":
            buf[i:i] = rng.choice(TOKENS)
        else:
            other = rng.choice(pool)
            j = rng.randrange(len(other) + 1)
            buf[i:] = other[j:j + rng.randint(1, 400)] + buf[i:i + rng.randint(0, 400)]
    return bytes(buf)


def run_trace(campaign: Campaign, seconds: float, runs: int, seed: int) -> None:
    """The dependency-free engine: line coverage by ``sys.settrace`` guides the corpus."""
    prefixes = tuple(str(ROOT / p) for p in ("jax_use_donated", "dialects"))
    import xdsl

    prefixes += (os.path.dirname(xdsl.__file__),)
    seen: set[tuple[str, int]] = set()
    current: set[tuple[str, int]] = set()

    def tracer(frame: Any, event: str, arg: Any) -> Callable[..., Any] | None:
        filename = frame.f_code.co_filename
        if not filename.startswith(prefixes):
            return None
        if event == "line":
            current.add((filename, frame.f_lineno))
        return tracer

    rng = random.Random(seed)
    corpus = seeds()
    pending = list(corpus)  # every seed once as it is, then mutations
    start = time.monotonic()
    while time.monotonic() - start < seconds and campaign.iterations < runs:
        data = pending.pop() if pending else mutate(rng.choice(corpus), rng, corpus)
        current.clear()
        sys.settrace(tracer)
        try:
            campaign.run(data)
        finally:
            sys.settrace(None)
        new = current - seen
        if new:
            seen |= new
            corpus.append(data)
    print(f"trace engine: {len(seen)} lines covered, corpus {len(corpus)}", file=sys.stderr)


def run_atheris(campaign: Campaign, seconds: float, runs: int, seed: int,
                summary: Callable[[], None], artifacts: Path) -> None:
    import atheris

    corpus_dir = Path(tempfile.mkdtemp(prefix="fuzz_driver_corpus_"))
    for i, data in enumerate(seeds()):
        (corpus_dir / f"seed{i:03d}.mlir").write_bytes(data)

    def one_input(data: bytes) -> None:
        campaign.run(data)
        if campaign.iterations % 200 == 0:
            summary()  # libFuzzer's own exit (-max_total_time) skips Python's atexit
        if campaign.iterations >= runs:
            summary()
            os._exit(0)

    args = [sys.argv[0], str(corpus_dir), f"-max_total_time={int(seconds)}", f"-seed={seed}",
            "-max_len=20000", "-timeout=60", "-rss_limit_mb=8192", "-print_final_stats=1",
            f"-artifact_prefix={artifacts}/"]
    atheris.Setup(args, one_input)
    atheris.Fuzz()


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--engine", choices=("atheris", "trace"), default="atheris")
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--runs", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--findings", type=Path, default=ROOT / "benchmarks" / "results" /
                        "fuzz_driver_findings")
    parser.add_argument("--summary", type=Path, default=ROOT / "benchmarks" / "results" /
                        "fuzz_driver_summary.json")
    args = parser.parse_args()
    args.findings.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(ROOT))
    if args.engine == "atheris":
        import atheris

        with atheris.instrument_imports(  # pyright: ignore[reportAttributeAccessIssue]
                include=list(INSTRUMENTED)):
            campaign = Campaign(args.findings)
    else:
        campaign = Campaign(args.findings)
    start = time.monotonic()

    def write_summary() -> None:
        result = campaign.summary(args.engine, time.monotonic() - start)
        args.summary.write_text(json.dumps(result, indent=2) + "\n")

    import atexit

    atexit.register(write_summary)
    if args.engine == "atheris":
        run_atheris(campaign, args.seconds, args.runs, args.seed, write_summary, args.findings)
    else:
        run_trace(campaign, args.seconds, args.runs, args.seed)
    write_summary()
    print(args.summary.read_text(), file=sys.__stderr__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
