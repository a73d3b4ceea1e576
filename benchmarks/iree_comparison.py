"""IREE as a second executor: JAX's greedy ``tf.aliasing_output`` against our pairing.

IREE turns ``tf.aliasing_output = k`` into a forced in-place result, so a pairing that
overwrites a buffer still being read computes wrong numbers. For every single-device program of
:mod:`benchmarks.catalogue` (at ``f32[n,n]``, default ``n=16``) and the oracle's extra cases
(swap ``(b, a)``, fan-out ``(a+1, 2*a)``), IREE runs (1) JAX's own StableHLO, (2) the module
after ``jax-plan-donation`` (alias mode: pairs safe under XLA's data-dependence rule) and
(3) after the pass with ``fusion-safe=true`` (pairs that stay safe when IREE fuses producers
into the in-place kernel, ``jax_use_donated.analysis.fusion``); each is compared with plain JAX.

    python benchmarks/iree_comparison.py [--n 16]

Needs the ``[oracle]`` extra (iree-base-compiler, iree-base-runtime). Writes
``benchmarks/results/iree_comparison.md``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.catalogue import SINGLE  # noqa: E402
from jax_use_donated.oracle.iree_exec import compare  # noqa: E402
from jax_use_donated.oracle.programs import PROGRAMS  # noqa: E402

EXTRA = ("swap (b, a)", "fan-out (a+1, 2a)")


def _yes(ok: bool) -> str:
    return "yes" if ok else "**no**"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=int, default=16, help="square operand size")
    parser.add_argument("--out", type=Path,
                        default=ROOT / "benchmarks/results/iree_comparison.md")
    args = parser.parse_args()

    cases = [(p.name, p.fun, p.args(args.n), p.donate_argnums) for p in SINGLE]
    cases += [(p.name, p.fun, p.inputs(args.n), p.donate) for p in PROGRAMS if p.name in EXTRA]
    rows = [
        f"IREE 3.13 (llvm-cpu), operands f32[{args.n},{args.n}]; reference: plain `jax.jit`.",
        "",
        "Each cell: correct numbers? (donors aliased to a result).",
        "",
        "| program | JAX greedy | ours, alias mode (XLA rule) | ours, alias mode `fusion-safe=true` |",
        "|---|---|---|---|",
    ]
    wrong_ours = wrong_alias = wrong_greedy = 0
    for name, fun, inputs, donate in cases:
        try:
            r = compare(name, fun, inputs, donate)
        except Exception as err:  # an IREE compile failure is reported, not hidden
            rows.append(f"| {name} | error | error | error: {str(err).splitlines()[0][:120]} |")
            wrong_ours += 1
            continue
        wrong_ours += not r.fusion_safe_correct
        wrong_alias += not r.ours_correct
        wrong_greedy += not r.greedy_correct
        rows.append(f"| {name} | {_yes(r.greedy_correct)} ({r.greedy_pairs}) | "
                    f"{_yes(r.ours_correct)} ({r.alias_pairs}) | "
                    f"{_yes(r.fusion_safe_correct)} ({r.fusion_safe_pairs}) |")
    rows += ["", f"Wrong numbers: JAX greedy {wrong_greedy} of {len(cases)}, ours in alias mode "
                 f"{wrong_alias}, ours with `fusion-safe=true` {wrong_ours}."]
    table = "\n".join(rows) + "\n"
    print(table)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("# IREE: JAX's greedy aliasing vs ours\n\n" + table)
    print(f"wrote {args.out}")
    return 1 if wrong_ours else 0


if __name__ == "__main__":
    sys.exit(main())
