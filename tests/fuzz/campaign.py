"""A long fuzz campaign that logs progress and keeps going past failures.

``pytest`` with ``JUD_FUZZ_PROFILE=long`` stops at the first failure and reports only at the
end; this runner is for recording figures (``docs/reliability.md``): it generates programs
with hypothesis (generation phase only: no shrinking), runs each through the oracle, prints the
running summary every ``--every`` programs and writes every failing program's description to
``--failures``::

    python -m tests.fuzz.campaign jit --examples 10000 --seed 1
    python -m tests.fuzz.campaign pass --examples 1000 --seed 1
    python -m tests.fuzz.campaign compose --examples 10000 --seed 1
    python -m tests.fuzz.campaign materialize --examples 1000 --seed 1
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections import Counter
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("target", choices=("jit", "pass", "compose", "materialize"))
    parser.add_argument("--examples", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--every", type=int, default=100)
    parser.add_argument("--failures", type=Path, default=Path("fuzz_failures.txt"))
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")

    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    import jax_use_donated
    from tests.fuzz.compositions import Composition, check_composition, compositions
    from tests.fuzz.jax_programs import ProgramSpec, programs
    from tests.fuzz.jit_oracle import STATS, check_program
    from tests.fuzz.materialize_oracle import MATERIALIZE_CONFIGS, check_materialize_config
    from tests.fuzz.pass_oracle import CONFIGS, check_config
    from tests.fuzz.stablehlo_modules import ModuleCase, stablehlo_modules
    from tests.fuzz.xla_exec import run_text

    failures: list[str] = []
    outcomes: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    start = time.monotonic()
    count = [0]

    def progress() -> None:
        count[0] += 1
        if count[0] % args.every == 0 or count[0] == args.examples:
            detail = STATS.summary() if args.target == "jit" else dict(outcomes)
            print(f"[{time.monotonic() - start:7.0f}s] {count[0]} examples, "
                  f"{len(failures)} failures; {detail}", flush=True)

    def record(err: BaseException) -> None:
        failures.append(str(err))
        with args.failures.open("a") as f:
            f.write(f"===== failure {len(failures)}\n{err}\n")

    settings_ = settings(max_examples=args.examples, deadline=None, database=None,
                         phases=[Phase.generate],
                         suppress_health_check=[HealthCheck.too_slow,
                                                HealthCheck.data_too_large,
                                                HealthCheck.large_base_example])

    if args.target == "jit":
        @settings_
        @given(programs())
        def campaign(spec: ProgramSpec) -> None:
            try:
                check_program(spec, jax_use_donated.jit)
            except AssertionError as err:
                record(err)
            progress()
    elif args.target == "compose":
        @settings_
        @given(compositions())
        def campaign(comp: Composition) -> None:
            try:
                check_composition(comp)
                outcomes["ok"] += 1
            except AssertionError as err:
                outcomes["FAILED"] += 1
                record(err)
            kinds.update(layer.kind for layer in comp.layers)
            outcomes["eager top"] += comp.eager_top
            progress()
    elif args.target == "materialize":
        @settings_
        @given(stablehlo_modules())
        def campaign(case: ModuleCase) -> None:
            reference = run_text(case.text, case.inputs())
            for config in MATERIALIZE_CONFIGS:
                try:
                    result = check_materialize_config(case, config, reference.outputs)
                    outcomes[f"{config.options}: {result.outcome}"] += 1
                except AssertionError as err:
                    outcomes["FAILED"] += 1
                    record(err)
            progress()
    else:
        @settings_
        @given(stablehlo_modules())
        def campaign(case: ModuleCase) -> None:
            try:
                reference = run_text(case.text, case.inputs())
                for i, config in enumerate(CONFIGS):
                    outcome = check_config(case, config, reference.outputs, reference.copies,
                                           generic_output=bool(i % 2))
                    outcomes[f"{config.options or '(defaults)'}: {outcome}"] += 1
            except AssertionError as err:
                outcomes["FAILED"] += 1
                record(err)
            progress()

    hypothesis_seed(args.seed)(campaign)()
    if args.target == "compose":
        print(f"layers drawn: {dict(sorted(kinds.items()))}", flush=True)
    print(f"done: {count[0]} examples in {time.monotonic() - start:.0f}s, "
          f"{len(failures)} failures", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
