"""Round trip of real JAX text through our xDSL dialects, judged by jaxlib.

``roundtrip(text)``: jaxlib parses the text (reference print) -> xDSL parses it with all
three dialects registered and unregistered ops refused (``jax_use_donated.xdsl_plugin.parser_printer``) ->
verify -> print -> jaxlib parses our print -> its print must equal the reference print.
Comparing two jaxlib prints normalises SSA names and attribute order; locations are
printed by us and parsed by jaxlib but not compared (xDSL keeps only a range's start).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Dialect


@dataclass(frozen=True)
class RoundTrip:
    """Outcome of one round trip: ``stage`` is ``ok`` or where it failed."""

    stage: str
    message: str = ""
    ops: int = 0
    printed: str = ""
    """Our print of the module (set when the round trip got that far)."""

    @property
    def ok(self) -> bool:
        return self.stage == "ok"


@cache
def our_dialects() -> tuple[Dialect, ...]:
    """StableHLO, CHLO and Shardy (from ``dialects``) plus xDSL's builtin and func."""
    from xdsl.dialects.builtin import Builtin
    from xdsl.dialects.func import Func

    from jax_use_donated import dialects

    loaded: list[Dialect] = [Builtin, Func]
    for name, factory in dialects.get_all_dialects().items():
        if name in ("builtin", "func"):
            continue
        loaded.append(factory if isinstance(factory, Dialect) else factory())
    return tuple(loaded)


def make_context() -> Context:
    ctx = Context(allow_unregistered=False)
    for d in our_dialects():
        ctx.load_dialect(d)
    return ctx


@cache
def _jax_context() -> Any:  # jaxlib's ir.Context
    from jax._src.interpreters import mlir

    return mlir.make_ir_context()


def jaxlib_module(text: str) -> Any:  # jaxlib's ir.Module
    from jax._src.lib.mlir import ir  # pyright: ignore[reportPrivateImportUsage]

    return ir.Module.parse(text, context=_jax_context())


def jaxlib_print(text: str, generic: bool = False, debug_info: bool = False) -> str:
    module = jaxlib_module(text)
    return module.operation.get_asm(print_generic_op_form=generic, enable_debug_info=debug_info)


def parse(text: str, ctx: Context | None = None) -> ModuleOp:
    from jax_use_donated.xdsl_plugin.parser_printer import parse_module

    return parse_module(ctx or make_context(), text)


def print_text(module: ModuleOp, generic: bool = False, debug_info: bool = False) -> str:
    from jax_use_donated.xdsl_plugin.parser_printer import print_module

    return print_module(module, dialects=our_dialects(), generic=generic, debug_info=debug_info)


def count_ops(module: ModuleOp) -> int:
    return sum(1 for _ in module.walk())


def roundtrip(text: str, *, generic: bool = False, debug_info: bool = False) -> RoundTrip:
    """Round trip ``text`` (pretty or generic); print generic when ``generic``."""
    try:
        reference = jaxlib_print(text)
    except Exception as exc:
        return RoundTrip("jaxlib-reference", str(exc))
    try:
        module = parse(text)
    except Exception as exc:
        return RoundTrip("xdsl-parse", f"{type(exc).__name__}: {exc}")
    try:
        module.verify()
    except Exception as exc:
        return RoundTrip("xdsl-verify", f"{type(exc).__name__}: {exc}")
    try:
        printed = print_text(module, generic=generic, debug_info=debug_info)
    except Exception as exc:
        return RoundTrip("xdsl-print", f"{type(exc).__name__}: {exc}")
    try:
        again = jaxlib_print(printed)
    except Exception as exc:
        return RoundTrip("jaxlib-reparse", f"{exc}\n--- our print ---\n{printed}", printed=printed)
    if again != reference:
        import difflib

        diff = "\n".join(
            difflib.unified_diff(
                reference.splitlines(),
                again.splitlines(),
                "jaxlib(original)",
                "jaxlib(ours)",
                lineterm="",
                n=1,
            )
        )
        return RoundTrip("compare", diff, printed=printed)
    return RoundTrip("ok", ops=count_ops(module), printed=printed)


_SOURCE_LOC = re.compile(r'"([^"]+)":(\d+):(\d+)')


def source_locations(text: str) -> set[tuple[str, int, int]]:
    """The ``"file":line:col`` locations a text mentions (range ends ignored)."""
    return {(f, int(line), int(col)) for f, line, col in _SOURCE_LOC.findall(text)}
