"""``jax-donate-opt``: ``xdsl-opt`` with this project's dialects, passes and JAX text reader.

Everything ``xdsl-opt`` accepts works (``-p``, ``--split-input-file``, ``--verify-diagnostics``,
``--allow-unregistered-dialect``, ``-o``, ...), plus:

* input is read with :class:`jax_use_donated.ir_text.JaxTextParser` (location ranges, trailing
  ``#loc`` aliases, hex-float dense constants);
* donation warnings are printed MLIR-style to stderr (``file:line:col: warning: ...``);
* ``--donation-report`` prints a per-donor table to stderr;
* unregistered ops are allowed automatically while no StableHLO dialect is installed; once it
  is, only with ``--allow-unregistered-dialect``;
* errors exit non-zero with a diagnostic and never a Python traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.targets.mlir import MLIRTarget
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.utils.frontend import Frontend
from xdsl.utils.target import Target
from xdsl.xdsl_opt_main import xDSLOptMain

from jax_use_donated.analysis.model import FunctionModel
from jax_use_donated.analysis.plan import DonationPlan
from jax_use_donated.diagnostics import collect_diagnostics
from jax_use_donated.ir_text import JaxTextParser, JaxTextPrinter
from jax_use_donated.transforms.use_donated_arguments import record_plans
from jax_use_donated.universe import (
    PASS_NAME,
    VERIFY_PASS_NAME,
    _use_donated_pass,  # pyright: ignore[reportPrivateUsage]
    _verify_donation_pass,  # pyright: ignore[reportPrivateUsage]
    available_dialects,
)


@dataclass(frozen=True)
class JaxMLIRFrontend(Frontend):
    """The ``mlir`` frontend, reading with :class:`JaxTextParser`."""

    name = "mlir"

    no_implicit_module: bool = False

    def parse(self, ctx: Context, input: IO[bytes], input_name: str = "input") -> ModuleOp:
        data = input.read()
        if isinstance(data, bytes):
            try:
                data.decode("utf-8")
            except UnicodeDecodeError as err:
                line = data.count(b"\n", 0, err.start) + 1
                col = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
                raise DiagnosticException(
                    f"{input_name}:{line}:{col}: invalid UTF-8 byte 0x{data[err.start]:02X}: "
                    "MLIR text must be UTF-8") from None
        return JaxTextParser(ctx, data, input_name).parse_module(
            not self.no_implicit_module)


def _jax_frontend() -> type[Frontend]:
    return JaxMLIRFrontend


@dataclass(frozen=True)
class JaxMLIRTarget(MLIRTarget):
    """The ``mlir`` target, printing with :class:`JaxTextPrinter` (hex non-finite floats as
    MLIR prints them) and the ``dialect_resources`` section."""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        if self.syntax_highlight:
            super().emit(ctx, module, output)
            return
        printer = JaxTextPrinter(
            stream=output,
            print_generic_format=self.print_generic_format,
            print_properties_as_attributes=self.print_properties_as_attributes,
            print_debuginfo=self.print_debuginfo,
        )
        printer.print_op(module)
        printer.print_metadata(ctx.loaded_dialects)
        print("\n", file=output)


def _jax_target() -> type[Target]:
    return JaxMLIRTarget


def format_bytes(n: int | None) -> str:
    """``512 B``, ``16.0 KiB``; ``?`` for dynamic shapes."""
    if n is None:
        return "?"
    if n < 1024:
        return f"{n} B"
    size = float(n)
    for unit in ("KiB", "MiB", "GiB"):
        size /= 1024
        if size < 1024 or unit == "GiB":
            return f"{size:.1f} {unit}"
    return f"{size:.1f} GiB"


def donation_report(plans: Sequence[tuple[FunctionModel, DonationPlan]]) -> str:
    """A readable per-donor table: argument, type, bytes, JAX's pairing, ours, reason."""
    lines: list[str] = []
    for fn, plan in plans:
        header = ("argument", "type", "bytes", "jax", "ours", "reason")
        rows: list[tuple[str, ...]] = []
        for v in plan.verdicts:
            arg = v.arg
            jax = "-" if v.jax_result is None else f"result {v.jax_result}"
            if arg.donation.alias_index is not None:
                jax = f"result {arg.donation.alias_index}"
            ours = "-" if v.result is None else f"result {v.result}"
            nbytes = arg.tensor.nbytes if arg.tensor is not None else None
            reason = v.reason.value + (" (unused)" if v.unused else "")
            rows.append((f"{arg.display_name} (%arg{arg.index})", arg.type_text,
                         format_bytes(nbytes), jax, ours, reason))
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        fmt = "  ".join(f"{{:<{w}}}" for w in widths)
        ours_bytes = plan.aliased_bytes(fn)
        jax_pairs = {a.index: a.donation.alias_index for a in fn.donors
                     if a.donation.alias_index is not None} or plan.jax_pairs
        jax_bytes = 0
        for d in jax_pairs:
            tensor = fn.args[d].tensor
            jax_bytes += (tensor.nbytes or 0) if tensor is not None else 0
        lines.append(f"donation report for @{fn.name} ({plan.ordering} ordering): "
                     f"{len(plan.pairs)}/{len(plan.verdicts)} donors reused, "
                     f"{format_bytes(ours_bytes)} aliased (input pairing: "
                     f"{format_bytes(jax_bytes)}, not checked for safety)")
        lines.append(fmt.format(*header).rstrip())
        lines.extend(fmt.format(*r).rstrip() for r in rows)
        for v in plan.unpaired:
            lines.append(f"  {v.arg.display_name}: {v.message}")
    return "\n".join(lines) + ("\n" if lines else "")


class JaxDonateOptMain(xDSLOptMain):
    """``xDSLOptMain`` with our dialects, passes, frontend and diagnostics."""

    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        registered = set(self.ctx.registered_dialect_names)
        for name, factory in available_dialects().items():
            if name not in registered:
                self.ctx.register_dialect(name, factory)

    def register_all_frontends(self) -> None:
        super().register_all_frontends()
        self.available_frontends["mlir"] = _jax_frontend

    def register_all_targets(self) -> None:
        super().register_all_targets()
        self.available_targets["mlir"] = _jax_target

    def register_all_passes(self) -> None:
        super().register_all_passes()
        self.register_pass(PASS_NAME, _use_donated_pass)
        self.register_pass(VERIFY_PASS_NAME, _verify_donation_pass)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--donation-report", default=False, action="store_true",
            help="print a per-donor table (argument, type, bytes, JAX's pairing, ours, "
                 "reason) to stderr")

    def __init__(self, args: Sequence[str] | None = None) -> None:
        super().__init__(description="xdsl-opt with liveness-aware buffer donation for JAX",
                         args=args)
        if not self.args.allow_unregistered_dialect and \
                "stablehlo" not in self.ctx.registered_dialect_names:
            # Until a StableHLO dialect is installed, JAX's ops can only be read unregistered.
            self.ctx.allow_unregistered = True

    def apply_passes(self, prog: ModuleOp) -> None:
        fallback = self.get_input_name()
        with collect_diagnostics() as sink, record_plans() as plans:
            try:
                super().apply_passes(prog)
            finally:
                sys.stdout.flush()
                for diag in sink.diagnostics:
                    print(diag.format(fallback), file=sys.stderr)
                if self.args.donation_report:
                    sys.stderr.write(donation_report(plans))
                sys.stderr.flush()


def _error_location(err: BaseException) -> str | None:
    anchor = getattr(err, "anchor", None)
    location = getattr(anchor, "location", None)
    if location is None:
        return None
    from jax_use_donated.adapters.xdsl_ir import source_loc

    return source_loc(location).text


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point; returns the exit code (0 ok, 1 diagnosed error, 2 internal)."""
    prog = "jax-donate-opt"
    try:
        JaxDonateOptMain(args=argv).run()
    except SystemExit as exit_:
        code = exit_.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except ParseError as err:
        sys.stdout.flush()
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 1
    except DiagnosticException as err:
        sys.stdout.flush()
        where = _error_location(err)
        print(f"{where or prog}: error: {err}", file=sys.stderr)
        return 1
    except OSError as err:  # unreadable input, unwritable -o
        sys.stdout.flush()
        print(f"{prog}: error: {err.strerror or err}: {err.filename or ''}".rstrip(": "),
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except Exception as err:  # no traceback, ever: report what failed
        sys.stdout.flush()
        kind = type(err).__name__
        print(f"{prog}: error: {kind}: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
