"""JAX's own jit tests, run with ``jax.jit`` replaced by ``jax_use_donated.jit``: the former
name of ``benchmarks/library_suites.py jax`` (``--jax-repo`` is its ``--checkout``; every other
option is passed on). JAX's tests are not in the registry's sdist and are never vendored: pass
a checkout of JAX's repository at the tag of the installed version (``jax-vX.Y.Z``)::

    pip install absl-py cloudpickle portpicker filelock flatbuffers pytest-xdist
    python benchmarks/jax_test_suite.py --jax-repo /tmp/jax tests/api_test.py tests/pjit_test.py
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import library_suites


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0],
                                     add_help=False)
    parser.add_argument("--jax-repo", type=Path,
                        help="JAX checkout at the installed version's tag")
    known, rest = parser.parse_known_args(argv)
    checkout = ["--checkout", str(known.jax_repo)] if known.jax_repo is not None else []
    return library_suites.main(["jax", *checkout, *rest])


if __name__ == "__main__":
    raise SystemExit(main())
