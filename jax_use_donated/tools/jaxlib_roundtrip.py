"""Re-parse MLIR text with jaxlib's own MLIR (``%roundtrip-jaxlib`` in the lit suite).

Proves that what ``jax-donate-opt`` prints is accepted by JAX's MLIR context (StableHLO, CHLO,
Shardy, func registered as in ``jax.jit``): reads a file (or stdin), parses and verifies it with
``jax._src.interpreters.mlir.make_ir_context()`` and prints jaxlib's rendering of it (pretty
form) to stdout. Exit status 1 with jaxlib's message when it does not parse or verify.

Usage: ``python -m jax_use_donated.tools.jaxlib_roundtrip [--allow-unregistered-dialect]
[--generic] [FILE]``
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("input", nargs="?", help="MLIR file (default: stdin)")
    parser.add_argument("--allow-unregistered-dialect", action="store_true",
                        help="accept ops of dialects jaxlib does not register "
                             "(e.g. bufferization)")
    parser.add_argument("--generic", action="store_true", help="print the generic form")
    args = parser.parse_args(argv)
    text = sys.stdin.read() if args.input in (None, "-") else Path(args.input).read_text()
    try:
        from jax._src.interpreters import mlir
        from jax._src.lib.mlir import ir  # pyright: ignore[reportPrivateImportUsage]

        ctx = mlir.make_ir_context()
        ctx.allow_unregistered_dialects = args.allow_unregistered_dialect
        with ctx:
            module = ir.Module.parse(text)
            if not module.operation.verify():
                print("jaxlib-roundtrip: error: module does not verify", file=sys.stderr)
                return 1
            asm = module.operation.get_asm(print_generic_op_form=args.generic,
                                           enable_debug_info=False)
            sys.stdout.write(str(asm))
    except Exception as err:  # jaxlib's MLIRError and friends: report, no traceback
        print(f"jaxlib-roundtrip: error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
