"""The ``jax`` frontend and target: JAX's MLIR text read and printed without changing its meaning.

Registered under their own name (``xdsl-opt -f jax -t jax FILE``; the defaults of
``jax-donate-opt``), next to xDSL's ``mlir`` frontend and target, which stay as upstream ships
them. :class:`JaxFrontend` reads with :class:`~jax_use_donated.xdsl_plugin.parser_printer.JaxTextParser`
(location ranges, ``#loc`` aliases defined after use, hex-float dense constants, ...) and
:class:`JaxTarget` prints with :class:`~jax_use_donated.xdsl_plugin.parser_printer.JaxTextPrinter`; see
docs/xdsl_bugs.md for what xDSL's own reader and printer do with the same text.
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.targets.mlir import MLIRTarget
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.utils.frontend import Frontend
from xdsl.utils.mlir_lexer import MLIRTokenKind

from jax_use_donated.diagnostics import note_input_name
from jax_use_donated.xdsl_plugin.options import KebabOptions, option
from jax_use_donated.xdsl_plugin.parser_printer import JaxTextParser, JaxTextPrinter

NAME = "jax"


def nesting_too_deep(doing: str) -> str:
    """The message for IR nested deeper than the Python recursion limit allows."""
    return (f"nesting too deep: the IR exceeds the limit of {sys.getrecursionlimit():,} "
            f"Python frames while {doing}")


@dataclass(frozen=True)
class JaxFrontend(KebabOptions, Frontend):
    """JAX's MLIR text (pretty or generic, with debug locations), read bit-exactly."""

    name = NAME

    no_implicit_module: bool = option(False, "the input must be one builtin.module")

    def parse(self, ctx: Context, input: IO[bytes], input_name: str = "input") -> ModuleOp:
        data = input.read()
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as err:
            line = data.count(b"\n", 0, err.start) + 1
            col = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
            raise DiagnosticException(
                f"{input_name}:{line}:{col}: invalid UTF-8 byte 0x{data[err.start]:02X}: "
                "MLIR text must be UTF-8") from None
        note_input_name(input_name)
        parser = JaxTextParser(ctx, data, input_name)
        try:
            return parser.parse_module(not self.no_implicit_module)
        except RecursionError:
            token = parser._current_token  # pyright: ignore[reportPrivateUsage]
            span = token.span
            if token.kind == MLIRTokenKind.EOF:
                span = dataclasses.replace(span, start=max(0, span.start - 1))
            raise ParseError(span, nesting_too_deep("reading")) from None


@dataclass(frozen=True)
class JaxTarget(KebabOptions, MLIRTarget):
    """MLIR text as jaxlib prints it (hex non-finite floats, declarations with their
    attributes, location ranges) with the ``dialect_resources`` section."""

    name = NAME

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
