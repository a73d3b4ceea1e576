"""Destination-passing rewrite, proven by execution on every single-device catalogue program.

For each program of :mod:`benchmarks.catalogue` (at ``f32[n,n]``, default ``n=16``) and the
oracle's extra cases: JAX -> StableHLO -> ``stablehlo-legalize-to-linalg`` -> our
``jax-reuse-donated-destinations`` (xDSL) -> ``eliminate-empty-tensors`` +
``one-shot-bufferize`` -> LLVM JIT on numpy arrays. Side by side, without and with our rewrite
(both with ``bufferization.writable`` set): ``memref.alloc`` and ``memref.copy`` counts and
out-of-place operands; then whether every paired donor array held its result after the call
and whether all numbers equal JAX's.

    python benchmarks/dps_oracle.py [--n 16]

Needs the ``[oracle]`` extra (torch-mlir). Writes ``benchmarks/results/dps_oracle.md``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.catalogue import SINGLE  # noqa: E402
from jax_use_donated.oracle.harness import check_program  # noqa: E402
from jax_use_donated.oracle.programs import PROGRAMS  # noqa: E402
from jax_use_donated.oracle.upstream import OracleError  # noqa: E402

EXTRA = ("swap (b, a)", "fan-out (a+1, 2a)")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=int, default=16, help="square operand size")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/dps_oracle.md")
    args = parser.parse_args()

    cases = [(p.name, p.fun, p.args(args.n), p.donate_argnums) for p in SINGLE]
    cases += [(p.name, p.fun, p.inputs(args.n), p.donate) for p in PROGRAMS if p.name in EXTRA]
    rows = [
        f"Operands f32[{args.n},{args.n}]. *before*: linalg from upstream with only "
        "`bufferization.writable` set; *after*: plus `jax-reuse-donated-destinations`.",
        "",
        "| program | destinations moved | allocs before | allocs after | copies before | "
        "copies after | out-of-place before | out-of-place after | donors hosting a result | "
        "in place confirmed | numbers equal JAX | verdict |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    failures = 0
    for name, fun, inputs, donate in cases:
        try:
            r = check_program(name, fun, inputs, donate)
        except OracleError as err:
            reason = str(err).split(":")[-1].strip()
            if "legalize-to-linalg left" in str(err):
                reason = "upstream cannot lower to linalg (" + str(err).split("left ")[-1] + ")"
            rows.append(f"| {name} | - | - | - | - | - | - | - | - | - | - | n/a: {reason} |")
            continue
        failures += not r.ok
        pairs = ", ".join(f"%arg{d}->{k}" for d, k in sorted(r.pairs.items())) or "none"
        in_place = ("yes" if all(r.in_place.values()) else "NO") if r.pairs else "-"
        verdict = "ok" if r.ok else "FAIL: " + "; ".join(r.problems)
        rows.append(f"| {name} | {r.moved_destinations} | {r.allocs_before} | {r.allocs_after} | "
                    f"{r.copies_before} | "
                    f"{r.copies_after} | {r.conflicts_before} | {r.conflicts_after} | {pairs} | "
                    f"{in_place} | {'yes' if r.numbers_equal else 'NO'} | {verdict} |")
    table = "\n".join(rows) + "\n"
    print(table)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("# Destination-passing rewrite, proven by execution\n\n" + table)
    print(f"wrote {args.out}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
