"""Differential fuzzing of the jit hook on 4 host devices, in its own process.

``XLA_FLAGS=--xla_force_host_platform_device_count=4`` must be set before jax is imported, so
``tests/test_fuzz_jit.py`` runs this module as a subprocess::

    python -m tests.fuzz.sharded_worker --examples 40 [--seed N]

Exit status 0 when every program passed :func:`tests.fuzz.jit_oracle.check_program`, 1 with
the failing program (shrunk by hypothesis) on stderr otherwise. The last stdout line is the
campaign summary.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

FLAG = "--xla_force_host_platform_device_count=4"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--examples", type=int, default=40)
    parser.add_argument("--seed", type=int, default=None,
                        help="hypothesis seed (default: derandomized)")
    args = parser.parse_args(argv)
    if FLAG not in os.environ.get("XLA_FLAGS", ""):
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + FLAG).strip()
    import jax

    if len(jax.devices()) < 4:
        print(f"sharded_worker: need 4 devices, have {len(jax.devices())} (XLA_FLAGS set "
              "after jax was imported?)", file=sys.stderr)
        return 2
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hypothesis_seed

    import jax_use_donated
    from tests.fuzz.jax_programs import ProgramSpec, sharded_programs
    from tests.fuzz.jit_oracle import STATS, check_program

    warnings.simplefilter("ignore")

    @settings(max_examples=args.examples, deadline=None, database=None,
              derandomize=args.seed is None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.large_base_example])
    @given(sharded_programs())
    def campaign(spec: ProgramSpec) -> None:
        check_program(spec, jax_use_donated.jit)

    test = campaign if args.seed is None else hypothesis_seed(args.seed)(campaign)
    try:
        test()
    except AssertionError as err:
        print(f"sharded_worker: FAILED\n{err}", file=sys.stderr)
        print(STATS.summary())
        return 1
    print(STATS.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
