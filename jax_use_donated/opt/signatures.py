"""Rewritten signature lines spliced into a module's text that jaxlib printed before the
rewrite: both routes of the jaxlib path (:mod:`.text_route`, :mod:`.print_ahead`) change only
argument attributes of the planned functions, and those print on one line per function, its
signature, so the text printed before the plan only needs those lines replaced::

    // printed before the rewrite
      func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32}) -> ... {
    // after set_arg_donations on @main: the same line with the new dictionary
      func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 1 : i32}) -> ... {

:class:`Splicer` records the functions' argument dictionaries before the rewrite; given the
text (before or after the rewrite) it finds each signature line and checks that it rebuilds
it byte for byte (:class:`SignatureBuilder`, else the line is printed alone,
:func:`signature_line`); after the rewrite :meth:`Splicer.splice` puts the new lines in. The
output is what jaxlib prints for the rewritten module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def signature_line(func: Any) -> str:
    """The first line jaxlib prints for ``func`` (a ``func.func`` with a body): its signature
    up to the body's ``{``, without locations (printed from a body-less copy: same
    attributes, an empty entry block of the argument types)."""
    from jaxlib.mlir import ir

    op = func.operation
    with op.context, ir.Location.unknown():
        attrs = {name: op.attributes[name] for name in op.attributes}
        copy = ir.Operation.create("func.func", attributes=attrs, regions=1)
        inputs = ir.FunctionType(attrs["function_type"].value).inputs
        copy.regions[0].blocks.append(*inputs)
        text = str(copy.get_asm(enable_debug_info=False, assume_verified=True))
    return text.split("\n", 1)[0]


def arg_dicts(func: Any) -> list[str] | None:
    """``func``'s argument attribute dictionaries as jaxlib prints them (``{}`` for none);
    ``None`` without ``arg_attrs``."""
    op = func.operation
    if "arg_attrs" not in op.attributes:
        return None
    attrs = op.attributes["arg_attrs"]
    return [str(attrs[i]) for i in range(len(attrs))]


def signature_span(text: str, name: str) -> tuple[int, int] | None:
    """Where ``@name``'s signature line lies in jaxlib's ``text`` of a module (``func.func
    ... @name(...) ... {``, without its indentation); ``None`` unless found exactly once."""
    found: list[tuple[int, int]] = []
    needle = f" @{name}("
    at = text.find(needle)
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        prefix = text[start:at]
        first = start + len(prefix) - len(prefix.lstrip(" "))
        if text.startswith("func.func ", first):
            end = text.find("\n", at)
            found.append((first, end if end >= 0 else len(text)))
        at = text.find(needle, at + 1)
    return found[0] if len(found) == 1 else None


class SignatureBuilder:
    """A function's signature line rebuilt from its argument dictionaries as jaxlib prints
    them one by one: ``head %arg0: T0 {d0}, %arg1: T1, ... tail`` (an empty dictionary is
    not printed). Made only where it rebuilds the line jaxlib printed, byte for byte
    (:meth:`check`); 20 ms instead of 75 ms for :func:`signature_line` on a train step's
    8,700 arguments.

    Before: ``func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32}) -> ...``;
    after a rewrite of ``arg_attrs``: the same line with ``{tf.aliasing_output = 1 : i32}``."""

    def __init__(self, head: str, args: list[str], tail: str) -> None:
        self.head, self.args, self.tail = head, args, tail

    def build(self, dicts: list[str]) -> str:
        parts = [a if d == "{}" else f"{a} {d}" for a, d in zip(self.args, dicts, strict=True)]
        return self.head + ", ".join(parts) + self.tail

    @classmethod
    def check(cls, func: Any, line: str, dicts: list[str]) -> SignatureBuilder | None:
        """A builder for ``func``, whose signature line was ``line`` when its argument
        dictionaries were ``dicts``, or ``None`` where it would not rebuild ``line``."""
        from jax_use_donated.adapters.jaxlib_ir import symbol_name

        try:
            op = func.operation
            block = op.regions[0].blocks[0]
            types: dict[Any, str] = {}
            args = []
            for i, arg in enumerate(block.arguments):
                t = arg.type
                text = types.get(t)
                if text is None:
                    text = types[t] = str(t)
                args.append(f"%arg{i}: {text}")
            name = symbol_name(op)
            start = line.find(f"@{name}(")
            if start < 0 or len(dicts) != len(args):
                return None
            head = line[:start + len(name) + 2]
            joined = cls(head, args, "").build(dicts)
            if not line.startswith(joined):
                return None
            builder = cls(head, args, line[len(joined):])
            return builder if builder.build(dicts) == line else None
        except Exception:  # then signature_line prints it
            return None


class Splicer:
    """The signature lines of ``functions`` (name -> jaxlib ``func.func``), recorded before
    a rewrite of their argument attributes, spliced into a text of the module printed
    before that rewrite.

    ``splicer = Splicer(functions)`` before the rewrite; :meth:`locate` in the text (before
    or after the rewrite); after it, ``splicer.splice(text)`` is the rewritten module's text.
    """

    def __init__(self, functions: Mapping[str, Any]) -> None:
        self.functions = dict(functions)
        self.before = {name: arg_dicts(f) for name, f in self.functions.items()}
        self.spans: dict[str, tuple[int, int]] = {}
        self.builders: dict[str, SignatureBuilder | None] = {}

    def locate(self, text: str, names: Iterable[str] | None = None) -> bool:
        """Find the signature lines of ``names`` (default: all) in ``text``; whether each
        is there exactly once."""
        found = True
        for name in self.functions if names is None else names:
            if name in self.spans:
                continue
            span = signature_span(text, name)
            if span is None:
                found = False
                continue
            self.spans[name] = span
            dicts = self.before[name]
            self.builders[name] = (SignatureBuilder.check(self.functions[name],
                                                          text[span[0]:span[1]], dicts)
                                   if dicts is not None else None)
        return found

    def changed(self) -> list[str]:
        """The functions whose argument dictionaries differ from the recorded ones."""
        return [name for name, f in self.functions.items()
                if arg_dicts(f) != self.before[name]]

    def splice(self, text: str, names: Iterable[str]) -> str:
        """``text`` (printed before the rewrite, :meth:`locate` d) with the signature lines of
        ``names`` as they print now."""
        edits: list[tuple[int, int, str]] = []
        for name in names:
            func, builder = self.functions[name], self.builders.get(name)
            dicts = arg_dicts(func) if builder is not None else None
            line = (builder.build(dicts) if builder is not None and dicts is not None
                    else signature_line(func))
            edits.append((*self.spans[name], line))
        for start, end, line in sorted(edits, reverse=True):
            text = text[:start] + line + text[end:]
        return text
