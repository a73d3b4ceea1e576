"""Replay the failures a jit campaign logged, on this checkout.

``python -m tests.fuzz.campaign jit ... --failures F`` writes each failing program as
``ProgramSpec.describe()`` text; this reads them back (:func:`parse_spec`) and runs each through
the same oracle, printing what the log said and what happens now. Run it from a worktree of
another commit to tell a regression from a finding that was already there::

    python -m tests.fuzz.replay fuzz_failures.txt
    git worktree add /tmp/old <commit> && cd /tmp/old && python -m tests.fuzz.replay F

The input seed is not logged, so programs run on seed 1; copies and temp bytes do not depend
on the values.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import warnings
from pathlib import Path

from tests.fuzz.jax_programs import ProgramSpec, Step, TypeSpec

STEP_KINDS = sorted(
    ("unary", "binary", "select", "convert", "reshape", "transpose", "dot", "reduce_center",
     "dus", "scatter", "fori", "while", "scan", "cond", "call"),
    key=len, reverse=True)
"""``Step.kind`` values (longest first: a described step is ``kind`` then ``repr(param)``)."""

_TYPE = re.compile(r"(float32|float16|int32)\[([\d, ]*)\]")


def _types(text: str) -> tuple[TypeSpec, ...]:
    return tuple(TypeSpec(tuple(int(d) for d in m.group(2).split(",") if d.strip()), m.group(1))
                 for m in _TYPE.finditer(text))


def parse_spec(text: str) -> ProgramSpec:
    """The :class:`ProgramSpec` whose ``describe()`` is ``text`` (seed 1).

    ``  v4: int32[4], v5: int32[4] = cond'mix'(v0, v1, v1)`` becomes
    ``Step("cond", (0, 1, 1), "mix", (int32[4], int32[4]))``.
    """
    lines = text.splitlines()

    def field(prefix: str) -> str:
        return next(line[len(prefix):] for line in lines if line.startswith(prefix))

    steps: list[Step] = []
    for line in lines:
        if not line.startswith("  v"):
            continue
        lhs, rhs = line.strip().split(" = ", 1)
        kind = next(k for k in STEP_KINDS if rhs.startswith(k))
        rest = rhs[len(kind):]
        open_args = rest.rindex("(")
        param = ast.literal_eval(rest[:open_args]) if rest[:open_args] else None
        args = tuple(int(a.strip()[1:]) for a in rest[open_args + 1:-1].split(",") if a.strip())
        steps.append(Step(kind, args, param, _types(lhs)))
    shardings = field("shardings: ")
    return ProgramSpec(
        _types(field("inputs: ")), tuple(ast.literal_eval(field("args: "))), tuple(steps),
        ast.literal_eval(field("output: ")), ast.literal_eval(field("donate_argnums: ")),
        seed=1, shardings=None if shardings == "None" else ast.literal_eval(shardings))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("failures", type=Path, help="a jit campaign's --failures file")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")

    import jax_use_donated
    from tests.fuzz.jit_oracle import Stats, check_program

    chunks = args.failures.read_text().split("===== failure ")[1:]
    still = 0
    for chunk in chunks:
        number, logged = chunk.split("\n", 2)[:2]
        try:
            check_program(parse_spec(chunk), jax_use_donated.jit, Stats())
            now = "passes"
        except AssertionError as err:
            now = str(err).splitlines()[0]
            still += 1
        print(f"failure {number}: logged '{logged}', now '{now}'", flush=True)
    print(f"{still} of {len(chunks)} still fail")
    return 0


if __name__ == "__main__":
    sys.exit(main())
