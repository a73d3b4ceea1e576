"""Build the core's :class:`~jax_use_donated.analysis.model.FunctionModel` from the text that
jaxlib prints (JAX's ``lower(...).as_text()``), without parsing it into any IR.

The jaxlib path of ``jax-donate-opt`` reads its model this way, in a forked child, while the
driver parses, verifies and prints the same bytes with jaxlib (:mod:`jax_use_donated.opt.text_route`):
walking jaxlib's module through its Python bindings costs 10-13 µs per op, reading a line of
text and building its op about 7 µs, and it runs beside jaxlib's parse instead of after it.

The reader knows the one spelling jaxlib prints, not MLIR's grammar: each top-level op of a
function body starts on its own line indented by four spaces; a line that ends with ``{``,
a more indented line, or one starting with ``}``, ``^`` or ``cond {`` continues the op above.
Anything else it does not know (a quoted symbol, a block label in a function body, a result
count that its types do not give, a name used before its definition, an attribute alias)
raises :class:`TextUnsupported`, and the caller reads the model through jaxlib instead. The
caller only trusts a model read here when jaxlib's print of the parsed module equals the input
(:func:`.text_route.run_beside_planner`), so the input is in the spelling this reader is
tested on: ``tests/test_text_route.py`` checks that its model equals
:class:`.jaxlib_ir.ModuleAdapter`'s on the corpus, the lit and hostile inputs and real train
steps.

Example::

    func.func public @main(%arg0: tensor<4xf32> {jax.buffer_donor = true} loc("x")) -> ... {
      %0 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32> loc(#loc3)
      return %0 : tensor<4xf32> loc(#loc)
    } loc(#loc)

becomes ``Arg(0, value 0, tensor<4xf32>, donation=BUFFER_DONOR, loc.name="x")``,
``Op(0, "stablehlo.multiply", operands [0, 0], results [1])`` and ``Result(0, value 1)``, the
same model as :func:`.jaxlib_ir.function_model` builds from the parsed module.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial

from jax_use_donated.analysis.building import (
    CASE,
    MANUAL_COMPUTATION,
    dot_dims,
    element_bits,
    loop_trips,
    placement,
    xla_region,
)
from jax_use_donated.analysis.collectives import combine_all_reduces
from jax_use_donated.analysis.cse import MERGEABLE_OPS, IdenticalOps, merge_identical_ops
from jax_use_donated.analysis.errors import (
    ALIASING_OUTPUT,
    BUFFER_DONOR,
    read_donation,
)
from jax_use_donated.analysis.inline import has_calls, inline_calls
from jax_use_donated.analysis.liveness import CalleeSummaries, short_loop_forwards
from jax_use_donated.analysis.model import (
    LAYOUT_ATTR,
    MEMORY_KIND_ATTR,
    SHARDING_ATTRS,
    Arg,
    Donation,
    DonationKind,
    FunctionModel,
    Op,
    Placement,
    Result,
    SourceLoc,
    TensorInfo,
    ValueId,
    same_value_positions,
)

PARSER_BUFFER = "-"
"""The file name jaxlib's parser puts in the locations it makes up for ops and arguments
that carry none in the text (``loc("-":3:5)``): no location of the input's."""


class TextUnsupported(Exception):
    """The text is not in the spelling this reader knows (the message says where)."""


# --------------------------------------------------------------------------------------------
# Lexical helpers

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_VALUE = re.compile(r"%[\w$.\-]+(?:#\d+)?")
_DEFINED = re.compile(r"(%[\w$.\-]+)(?::(\d+))? = ")
_BLOCK_ARG = re.compile(r"(%[\w$.\-]+): ")
_HEAD = re.compile(r'    (?:(%[\w$.\-]+)(?::(\d+))?((?:, %[\w$.\-]+(?::\d+)?)*) = )?'
                   r'(?:"([\w.$\-]+)"|([\w.$\-]+))')
_SIMPLE_OP = re.compile(
    r'    (%[\w$.\-]+) = ([\w.$\-]+)((?: [^:"]*)?) : ([^":]*)$')
"""A one-line, one-result op without strings or colons but the one before its types (and
its location, ``loc(#loc3)``, at the end of the types)."""
_RESULT_GROUP = re.compile(r"(%[\w$.\-]+)(?::(\d+))?")
_REDUCE_PAIR = re.compile(r"\((%[\w$.\-]+(?:#\d+)?) init: (%[\w$.\-]+(?:#\d+)?)\)")
_LOC_ALIAS = re.compile(r"^(#loc\d*) = loc\((.*)\)$")
_LOC_REF = re.compile(r"#loc\d*")
_TRAILING_LOC = re.compile(r" loc\(#loc\d*\)")
DOT_GENERAL = "stablehlo.dot_general"
_TENSOR = re.compile(r"tensor<((?:(?:\d+|\?)x)*)([^,<>]+(?:<[^<>]*>)?)(, .*)?>")
_ELEMENT_BITS = re.compile(r"(?:i|si|ui|f|bf)(\d+)(?:E\d+M\d+[A-Z]*)?")
_INT_ATTR = re.compile(r"(-?\d+) : (?:i|si|ui)\d+")
_ESCAPE = re.compile(r"\\([0-9A-Fa-f]{2})|\\(.)")
_FILE_LOC = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')
_NAME_HEAD = re.compile(r'"((?:[^"\\]|\\.)*)"(?!:)')

_FUNC_DIALECT = {"call": "func.call", "return": "func.return", "constant": "func.constant",
                 "call_indirect": "func.call_indirect"}
_TERMINATORS = frozenset({"func.return", "stablehlo.return", "sdy.return"})
_CALL_LIKE = frozenset({"stablehlo.custom_call", "func.call"})


def unescape(text: str) -> str:
    """MLIR string literal body -> Python text (``\\22`` is a quote, ``\\\\`` a backslash)."""
    if "\\" not in text:
        return text
    return _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)) if m.group(1) else m.group(2), text)


_TOKENS: dict[str, re.Pattern[str]] = {}


def _tokens(needle: str) -> re.Pattern[str]:
    """Strings, ``->``, brackets and ``needle``: what the scanners below look at (a regular
    expression skips everything else at C speed)."""
    pattern = _TOKENS.get(needle)
    if pattern is None:
        pattern = _TOKENS[needle] = re.compile(
            r'"(?:[^"\\]|\\.)*"|->|[()\[\]{}<>]|' + re.escape(needle))
    return pattern


def split_top_level(text: str, sep: str = ",") -> Iterator[str]:
    """``a, f(b, c), "d, e", t<x, y>`` -> ``a``, `` f(b, c)``, `` "d, e"``, `` t<x, y>``: split at
    ``sep`` outside brackets and strings (the ``>`` of ``->`` closes nothing)."""
    if sep not in text:
        yield text
        return
    depth, start = 0, 0
    for m in _tokens(sep).finditer(text):
        token = m.group(0)
        c = token[0]
        if c in "([<{":
            depth += 1
        elif c in ")]}>":
            depth -= 1
        elif token == sep and depth == 0:
            yield text[start:m.start()]
            start = m.end()
    yield text[start:]


def _find_top_level(text: str, needle: str, start: int = 0) -> int:
    """Index of the first ``needle`` outside brackets and strings from ``start``, or -1."""
    if needle not in text:
        return -1
    depth = 0
    for m in _tokens(needle).finditer(text, start):
        token = m.group(0)
        if token == needle and depth == 0:
            return m.start()
        c = token[0]
        if c in "([<{":
            depth += 1
        elif c in ")]}>":
            depth -= 1
    return -1


def _closing(text: str, start: int) -> int:
    """Index of the bracket closing the one at ``start``."""
    depth = 0
    for m in _tokens("(").finditer(text, start):
        c = m.group(0)[0]
        if c in "([<{":
            depth += 1
        elif c in ")]}>":
            depth -= 1
            if depth == 0:
                return m.start()
    raise TextUnsupported(f"unbalanced brackets in {text[start:start + 60]!r}")


def _no_strings(text: str) -> str:
    return _STRING.sub('""', text) if '"' in text else text


# --------------------------------------------------------------------------------------------
# Types and attributes

_TYPES: dict[str, TensorInfo | None] = {}


def tensor_info(text: str) -> TensorInfo | None:
    """``tensor<4x?xf32>`` -> its :class:`TensorInfo`; ``None`` for any other type. As
    :class:`.jaxlib_ir._TypeTable` reads jaxlib's types; unknown element widths raise
    :class:`TextUnsupported`."""
    try:
        return _TYPES[text]
    except KeyError:
        pass
    info: TensorInfo | None = None
    m = None if text.startswith("tensor<*") else _TENSOR.fullmatch(text)
    if m is not None:
        dims, element = m.group(1), m.group(2)
        shape = tuple(None if d == "?" else int(d) for d in dims.split("x")[:-1])
        info = TensorInfo(text, shape, element, _element_bits(element))
    elif text.startswith("tensor<") and not text.startswith("tensor<*"):
        raise TextUnsupported(f"type {text}")
    _TYPES[text] = info
    return info


def _element_bits(element: str) -> int | None:
    """:func:`.building.element_bits`, for the spellings this reader knows (another element
    type declines the text route)."""
    base = element[8:-1] if element.startswith("complex<") and element.endswith(">") else element
    if base != "index" and (base == "tf32" or _ELEMENT_BITS.fullmatch(base) is None):
        raise TextUnsupported(f"element type {element}")
    return element_bits(element)


_RESULT_TYPES: dict[tuple[str, int, bool], list[TensorInfo | None]] = {}


def result_types(tail: str, count: int, op_name: str) -> list[TensorInfo | None]:
    """The result types an op's trailing type text gives (``(T, T) -> T``, ``T`` for all,
    ``T1, T2`` one each; ``select``'s ``pred type, result type``)."""
    select = op_name == "stablehlo.select"
    key = (tail, count, select)
    cached = _RESULT_TYPES.get(key)
    if cached is not None:
        return cached[:]
    arrow = _find_top_level(tail, " -> ")
    if arrow >= 0:
        out = tail[arrow + 4:]
        if out.startswith("(") and _closing(out, 0) == len(out) - 1:
            out = out[1:-1]
        texts = [t.strip() for t in split_top_level(out)] if out else []
    else:
        texts = [t.strip() for t in split_top_level(tail)]
        if len(texts) != count and count == 1 and select and len(texts) == 2:
            texts = texts[1:]
        elif len(texts) == 1 and count > 1:
            texts = texts * count
    if len(texts) != count:
        raise TextUnsupported(f"{op_name}: {count} results, types {tail!r}")
    types = _RESULT_TYPES[key] = [tensor_info(t) for t in texts]
    return types[:]


def _attr_dict(text: str) -> dict[str, str]:
    """``{a = 1 : i32, b = "x", c}`` -> ``{"a": "1 : i32", "b": '"x"', "c": "unit"}``."""
    inner = text.strip()
    if not (inner.startswith("{") and inner.endswith("}")):
        raise TextUnsupported(f"attribute dictionary {text[:60]!r}")
    out: dict[str, str] = {}
    body = inner[1:-1].strip()
    if not body:
        return out
    for entry in split_top_level(body):
        entry = entry.strip()
        eq = entry.find(" = ")
        name, value = (entry[:eq], entry[eq + 3:]) if eq >= 0 else (entry, "unit")
        if name.startswith('"'):
            name = unescape(name[1:-1])
        out[name] = value
    return out


def _attr_value(text: str) -> object:
    """A donation attribute as :func:`.jaxlib_ir._attr_value` gives it: ``True``/``False``, an
    ``int``, else its text."""
    if text in ("true", "false"):
        return text == "true"
    m = _INT_ATTR.fullmatch(text)
    return int(m.group(1)) if m else text


def _text_attr(d: dict[str, str], name: str) -> str | None:
    value = d.get(name)
    if value is not None and value.startswith('"') and value.endswith('"') \
            and _STRING.fullmatch(value):
        return unescape(value[1:-1])
    return value


def placement_of(d: dict[str, str] | None) -> Placement:
    """Sharding (``mhlo.sharding`` or ``sdy.sharding``), memory kind and layout mode
    (:func:`.building.placement`)."""
    if not d:
        return Placement()
    return placement(partial(_text_attr, d))


# --------------------------------------------------------------------------------------------
# Locations


class Locations:
    """The ``#locN = loc(...)`` aliases of a module, expanded on request to the text jaxlib
    prints for one location alone (``str(ir.Location)``)."""

    def __init__(self, aliases: dict[str, str]) -> None:
        self.aliases = aliases
        self._expanded: dict[str, str] = {}

    def expand(self, body: str, depth: int = 0) -> str:
        """``callsite(#loc3 at #loc4)`` with each alias replaced by its body."""
        if "#loc" not in body:
            return body
        if depth > 100:
            raise TextUnsupported("location aliases nested too deep")

        def sub(m: re.Match[str]) -> str:
            name = m.group(0)
            done = self._expanded.get(name)
            if done is None:
                if name not in self.aliases:
                    raise TextUnsupported(f"location alias {name} is not defined")
                done = self._expanded[name] = self.expand(self.aliases[name], depth + 1)
            return done

        return _LOC_REF.sub(sub, body)

    def printed(self, body: str | None) -> str:
        """``loc(...)`` as jaxlib prints the location alone; ``loc(unknown)`` for none."""
        return f"loc({self.expand(body)})" if body is not None else "loc(unknown)"


def loc_text(printed: str) -> str | None:
    """``file:line:col`` of a printed location as the xDSL adapter reads it (the first file
    location), ``None`` for none or for one jaxlib's parser made up (:data:`PARSER_BUFFER`)."""
    m = _FILE_LOC.search(printed)
    if m is None or m.group(1) == PARSER_BUFFER:
        return None
    return f"{unescape(m.group(1))}:{m.group(2)}:{m.group(3)}"


def loc_name(printed: str) -> str | None:
    """The ``loc("name")`` label as the xDSL adapter reads it: a name location's name, or a
    fused location's first name; ``None`` otherwise."""
    body = printed[4:-1] if printed.startswith("loc(") and printed.endswith(")") else printed
    if body.startswith("fused"):
        inner = body[body.find("[") + 1:]
        for part in split_top_level(inner.rstrip("]")):
            name = loc_name(part.strip())
            if name is not None:
                return name
        return None
    m = _NAME_HEAD.match(body)
    return unescape(m.group(1)) if m else None


class TextOpLocation(SourceLoc):
    """An op's :class:`SourceLoc` whose ``text`` is expanded from the aliases on first use."""

    def __init__(self, locations: Locations, body: str | None) -> None:
        self.__dict__["_locations"] = locations
        self.__dict__["_body"] = body

    @property
    def text(self) -> str | None:  # type: ignore[override]
        if "_text" not in self.__dict__:
            body = self.__dict__["_body"]
            self.__dict__["_text"] = (None if body is None else
                                      loc_text(self.__dict__["_locations"].printed(body)))
        return self.__dict__["_text"]

    def __reduce__(self) -> tuple[type[SourceLoc], tuple[str | None, str | None]]:
        return (SourceLoc, (self.text, self.name))


def _split_loc(text: str) -> tuple[str, str | None]:
    """``op text loc(#loc3)`` -> ``("op text", "#loc3")``; text without a trailing location
    -> ``(text, None)``."""
    if text.endswith(")"):
        k = text.rfind(" loc(")
        if k >= 0 and _closing(text, k + 4) == len(text) - 1:
            return text[:k], text[k + 5:-1]
    return text, None


# --------------------------------------------------------------------------------------------
# Module structure


@dataclass
class TextFunction:
    """One ``func.func`` of the text: its signature, parsed, and its body lines."""

    name: str
    arg_names: list[str]
    arg_types: list[str]
    arg_attrs: list[dict[str, str] | None]
    arg_locs: list[str | None]
    result_types: list[str]
    result_attrs: list[dict[str, str] | None]
    body: list[str] | None
    """``None`` for a declaration."""
    loc: str | None = None

    @property
    def has_donors(self) -> bool:
        return any(d is not None and (BUFFER_DONOR in d or ALIASING_OUTPUT in d)
                   for d in self.arg_attrs)


@dataclass
class TextModule:
    """A module's functions in text order, and its location aliases."""

    functions: dict[str, TextFunction] = field(default_factory=dict)
    locations: Locations = field(default_factory=lambda: Locations({}))
    has_locations: bool = False


_FUNC_HEAD = re.compile(r"  func\.func (?:(?:public|private|nested) )?@([\w$.\-]+)\(")


def read_module(text: str) -> TextModule:
    """The functions of ``text`` (one ``module``, as jaxlib prints it); :class:`TextUnsupported`
    for any other layout."""
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    aliases: dict[str, str] = {}
    module = TextModule(has_locations="loc(" in text)
    i, n = 0, len(lines)

    def alias(line: str) -> None:
        m = _LOC_ALIAS.match(line)
        if m is None:
            raise TextUnsupported(f"alias line {line[:60]!r}")
        aliases[m.group(1)] = m.group(2)

    while i < n and lines[i].startswith("#"):
        alias(lines[i])
        i += 1
    if i >= n or not lines[i].startswith("module") or not lines[i].endswith("{"):
        raise TextUnsupported("the text is not one module")
    i += 1
    while i < n:
        line = lines[i]
        if line.startswith("  func.func "):
            i = _read_function(lines, i, module)
            continue
        if line == "}" or line.startswith("} loc("):
            i += 1
            break
        if line.startswith("  ") and line[2] != " " and not line.endswith("{"):
            i += 1  # another single-line op of the module (sdy.mesh, ...)
            continue
        raise TextUnsupported(f"line {i + 1}: {line[:60]!r}")
    while i < n:
        alias(lines[i])
        i += 1
    module.locations = Locations(aliases)
    return module


def _read_function(lines: list[str], i: int, module: TextModule) -> int:
    """Read the ``func.func`` starting at line ``i`` into ``module``; the next line's index."""
    head = lines[i]
    m = _FUNC_HEAD.match(head)
    if m is None:
        raise TextUnsupported(f"line {i + 1}: function {head[:60]!r}")
    name = m.group(1)
    fn = TextFunction(name, [], [], [], [], [], [], None)
    has_body = head.endswith(" {")
    func_loc = None
    if not (has_body and _fast_signature(head, m.end(), fn)):
        open_paren = m.end() - 1
        close = _closing(head, open_paren)
        args_text = head[open_paren + 1:close]
        rest = head[close + 1:]
        if has_body:
            rest = rest[:-2]
        else:
            rest, func_loc = _split_loc(rest)
        attributes = _find_top_level(rest, " attributes {")
        if attributes >= 0:
            rest = rest[:attributes]
        for entry in split_top_level(args_text) if args_text else ():
            _read_arg(entry.strip(), fn, not has_body)
        _read_results(rest, fn, i)
    if name in module.functions:
        raise TextUnsupported(f"@{name} is defined twice")
    module.functions[name] = fn
    i += 1
    if not has_body:
        fn.loc = func_loc
        return i
    start = i
    n = len(lines)

    while i < n:
        line = lines[i]
        if line.startswith("  }") and (len(line) == 3 or line[3] == " "):
            break
        if line.startswith("  ^") or line.startswith("  func.func"):
            raise TextUnsupported(f"line {i + 1}: @{name} has several blocks")
        i += 1
    if i >= n:
        raise TextUnsupported(f"@{name} has no end")
    fn.body = lines[start:i]
    fn.loc = _split_loc(lines[i][3:])[1] if lines[i] != "  }" else None
    return i + 1


def _read_results(rest: str, fn: TextFunction, i: int) -> None:
    """The ``-> (T {attrs}, ...)`` part of a signature (``rest``: from there on, without the
    body's brace and the ``attributes`` dictionary)."""
    if rest.startswith(" -> "):
        out = rest[4:]
        if out.startswith("(") and _closing(out, 0) == len(out) - 1:
            out = out[1:-1]
        for entry in split_top_level(out) if out else ():
            entry = entry.strip()
            brace = _find_top_level(entry, " {")
            fn.result_types.append(entry if brace < 0 else entry[:brace])
            fn.result_attrs.append(None if brace < 0 else _attr_dict(entry[brace + 1:]))
    elif rest:
        raise TextUnsupported(f"line {i + 1}: @{fn.name}'s signature {rest[:60]!r}")


_FAST_ARG = re.compile(r'(%[\w$.\-]+): (tensor<[^<>,]*>)(?: \{([^{}"<>]*)\})?'
                       r'(?: loc\((#loc\d*|"[^"\\]*")\))?(, |\))')
_FAST_RESULT = re.compile(r'(tensor<[^<>,]*>)(?: \{((?:[^{}"]|"[^"\\]*")*)\})?(, |\) \{$)')
_PLACEMENT_NAMES = (*SHARDING_ATTRS, MEMORY_KIND_ATTR, LAYOUT_ATTR)


def _fast_signature(head: str, start: int, fn: TextFunction) -> bool:
    """Read a signature of plain tensors with string-free argument attributes (a train
    step's) by regular expressions alone, from ``start`` (after ``@name(``); ``False``, with
    ``fn`` untouched, for any other signature."""
    names: list[str] = []
    types: list[str] = []
    attrs: list[dict[str, str] | None] = []
    locs: list[str | None] = []
    pos, n = start, len(head)
    if head.startswith(")", pos):
        pos += 1
    else:
        while True:
            m = _FAST_ARG.match(head, pos)
            if m is None:
                return False
            names.append(m.group(1))
            types.append(m.group(2))
            content = m.group(3)
            if content is None:
                attrs.append(None)
            else:
                d: dict[str, str] = {}
                for entry in content.split(", ") if content else ():
                    key, eq, value = entry.partition(" = ")
                    if key.startswith('"'):
                        return False
                    d[key] = value if eq else "unit"
                attrs.append(d)
            loc = m.group(4)
            locs.append(loc)
            pos = m.end()
            if m.group(5) == ")":
                break
    result_types: list[str] = []
    result_attrs: list[dict[str, str] | None] = []
    if head.startswith(" {", pos) and pos + 2 == n:
        pass
    elif head.startswith(" -> (", pos):
        pos += 5
        while True:
            m = _FAST_RESULT.match(head, pos)
            if m is None:
                return False
            result_types.append(m.group(1))
            content = m.group(2)
            if content is not None and any(p in content for p in _PLACEMENT_NAMES):
                result_attrs.append(_attr_dict("{" + content + "}"))
            else:
                result_attrs.append(None)
            pos = m.end()
            if m.group(3) != ", ":
                break
        if pos != n:
            return False
    else:
        return False
    fn.arg_names, fn.arg_types, fn.arg_attrs, fn.arg_locs = names, types, attrs, locs
    fn.result_types, fn.result_attrs = result_types, result_attrs
    return True


def _read_arg(entry: str, fn: TextFunction, declaration: bool) -> None:
    """One argument of a signature: ``%arg0: T {attrs} loc(...)``, a declaration's ``T {attrs}``."""
    colon = entry.find(": ")
    if declaration and not entry.startswith("%"):
        fn.arg_names.append("")
        rest = entry
    elif not entry.startswith("%") or colon < 0:
        raise TextUnsupported(f"@{fn.name}: argument {entry[:60]!r}")
    else:
        fn.arg_names.append(entry[:colon])
        rest = entry[colon + 2:]
    rest, loc = _split_loc(rest)
    brace = _find_top_level(rest, " {")
    fn.arg_types.append(rest if brace < 0 else rest[:brace])
    fn.arg_attrs.append(None if brace < 0 else _attr_dict(rest[brace + 1:]))
    fn.arg_locs.append(loc)


# --------------------------------------------------------------------------------------------
# Ops


def _cse_key(text: str) -> str:
    """An op's text without its result names and locations, its SSA names renumbered in order
    of appearance outside strings (operands are compared apart, as values)."""
    names: dict[str, str] = {}

    def rename(m: re.Match[str]) -> str:
        return names.setdefault(m.group(0), f"%{len(names)}")

    text = _TRAILING_LOC.sub("", text)
    if '"' not in text:
        return _VALUE.sub(rename, text)
    parts: list[str] = []
    last = 0
    for m in _STRING.finditer(text):
        parts.append(_VALUE.sub(rename, text[last:m.start()]))
        parts.append(m.group(0))
        last = m.end()
    parts.append(_VALUE.sub(rename, text[last:]))
    return "".join(parts)


def _line_key(item: str | tuple[str, str]) -> object:
    """The CSE key of an op being read: :func:`_cse_key` of its text, or, for a one-line op
    read by ``_SIMPLE_OP`` (given as its operand text and its types), those two with every
    SSA name replaced by ``%`` and the location dropped: its operands are compared apart, as
    values, and such an op has no regions, so what is left is its attributes (two merged
    constants of a train step in three: one substitution instead of a renaming)."""
    if isinstance(item, str):
        return _cse_key(item)
    operand_text, tail = item
    return (_VALUE.sub("%", operand_text) if "%" in operand_text else operand_text,
            _TRAILING_LOC.sub("", tail) if " loc(" in tail else tail)


def _op_key(op: Op) -> object:
    """:func:`_cse_key` of a model op read from the text (its ``handle`` is its text)."""
    return _cse_key(op.handle) if isinstance(op.handle, str) else None


class TextModuleAdapter:
    """Builds models of the functions of one :class:`TextModule`, as
    :class:`.jaxlib_ir.ModuleAdapter` does from jaxlib's module (callee summaries memoised,
    calls inlined and identical ops merged for XLA's view)."""

    def __init__(self, module: TextModule, inline: bool = True) -> None:
        self.module = module
        self.inline = inline
        self.summaries = CalleeSummaries(self._summary_model)
        self.pure_callees = self.summaries.pure

    def functions_with_donors(self) -> list[TextFunction]:
        return [f for f in self.module.functions.values() if f.body is not None and f.has_donors]

    def callee_forwards(self, callee: str, same_as: tuple[int, ...] = (),
                        ) -> dict[int, tuple[int, ...]] | None:
        """As :meth:`.jaxlib_ir.ModuleAdapter.callee_forwards`."""
        return self.summaries.forwards(callee, same_as)

    def _summary_model(self, callee: str, same_as: tuple[int, ...]) -> FunctionModel | None:
        fn_text = self.module.functions.get(callee)
        if fn_text is None or fn_text.body is None:
            return None
        return self.build(fn_text, donated=(), same_arg_as=same_as, inline=False)

    def callee_model(self, callee: str) -> FunctionModel | None:
        fn_text = self.module.functions.get(callee)
        if fn_text is None or fn_text.body is None:
            return None
        return self.build(fn_text, donated=(), inline=False)

    def build(self, fn_text: TextFunction, donated: Sequence[int] | None = None,
              same_arg_as: tuple[int, ...] = (), inline: bool | None = None) -> FunctionModel:
        """The model of ``fn_text``, as :meth:`.jaxlib_ir.ModuleAdapter.build` followed by the
        jaxlib path's location fix-ups (``jaxlib_path.fix_locations``): ``donated=None`` reads
        the donation attributes (a malformed one raises :class:`.errors.DonationError`)."""
        if fn_text.body is None:
            raise TextUnsupported(f"@{fn_text.name} has no body")
        name = fn_text.name
        locations = self.module.locations
        values: dict[str, ValueId] = {}
        value_types: list[TensorInfo | None] = []
        args: list[Arg] = []
        donor_set = set(donated) if donated is not None else set()
        for i, arg_name in enumerate(fn_text.arg_names):
            type_text = fn_text.arg_types[i]
            info = tensor_info(type_text)
            d = fn_text.arg_attrs[i]
            printed = locations.printed(fn_text.arg_locs[i])
            loc = SourceLoc(text=loc_text(printed), name=loc_name(printed))
            if donated is None:
                donation = Donation()
                if d is not None and (BUFFER_DONOR in d or ALIASING_OUTPUT in d):
                    donation = read_donation(
                        i, loc.name,
                        _attr_value(d[BUFFER_DONOR]) if BUFFER_DONOR in d else None,
                        _attr_value(d[ALIASING_OUTPUT]) if ALIASING_OUTPUT in d else None,
                        None)
            elif i in donor_set:
                donation = Donation(DonationKind.BUFFER_DONOR)
            else:
                donation = Donation()
            if arg_name in values:
                raise TextUnsupported(f"@{name}: argument {arg_name} twice")
            first_same = same_arg_as[i] if i < len(same_arg_as) else i
            values[arg_name] = first_same if first_same < i else i
            value_types.append(info)
            args.append(Arg(index=i, value=i, tensor=info, type_text=type_text,
                            placement=placement_of(d), donation=donation, loc=loc))
        xla_view = self.inline if inline is None else inline
        dedup: IdenticalOps[str | tuple[str, str]] | None = (IdenticalOps(_line_key) if xla_view
                                                             else None)
        fn = self._body_model(fn_text, values, value_types, args, dedup)
        fn.loc = SourceLoc(text=loc_text(locations.printed(fn_text.loc)))
        if xla_view and has_calls(fn):
            fn = inline_calls(fn, self.callee_model)
            fn = merge_identical_ops(fn, _op_key)
        if xla_view:
            fn = combine_all_reduces(fn, _op_key)
        return fn

    def _body_model(self, fn_text: TextFunction, values: dict[str, ValueId],
                    value_types: list[TensorInfo | None], args: list[Arg],
                    dedup: IdenticalOps[str | tuple[str, str]] | None,
                    outside: Callable[[str], ValueId] | None = None) -> FunctionModel:
        """The ops and results of ``fn_text``'s body. A one-line, one-result op without
        strings (nearly every op of a train step) is read by one regular expression; every
        other op by :meth:`_general_op`. Each op's ``handle`` is its text (its CSE key).
        ``outside``: a loop body's reading of a value it closes over (one more argument)."""
        name = fn_text.name
        body = fn_text.body
        assert body is not None
        locations = self.module.locations
        explicit = self.module.has_locations
        unknown = SourceLoc()
        ops: list[Op] = []
        results: list[Result] = []
        simple_match = _SIMPLE_OP.match
        find_values = _VALUE.findall
        mergeable = MERGEABLE_OPS if dedup is not None else frozenset()
        earlier_op = dedup.earlier if dedup is not None else None
        value_of = values.__getitem__
        type_of = value_types.__getitem__
        consts: dict[ValueId, int] = {}
        """Scalar integer constants (loop bounds), by value."""
        one_types: dict[str, TensorInfo | None] = {}
        """Trailing type text -> the one result's type (``None``: not a tensor)."""
        i, n = 0, len(body)
        while i < n:
            line = body[i]
            j = i + 1
            while j < n:
                nxt = body[j]
                c = nxt[4:5]
                if c == "%":  # the next op (nearly always)
                    break
                if c == " " or c == "}" or c == "^" or nxt == "    cond {":
                    j += 1
                else:
                    break
            m = simple_match(line) if j == i + 1 else None
            if m is None or "." not in m.group(2):
                if self._general_op(name, fn_text, body[i:j], values, value_types, ops,
                                    results, dedup, consts, outside):
                    if j != n:
                        raise TextUnsupported(f"@{name}: an op after the terminator")
                    break
                i = j
                continue
            i = j
            result_name, op_name, operand_text, tail = m.groups()
            if result_name in values:
                raise TextUnsupported(f"@{name}: {result_name} defined twice")
            loc_body = None
            if explicit and tail.endswith(")"):
                k = tail.rfind(" loc(")
                if k >= 0:
                    tail, loc_body = tail[:k], tail[k + 5:-1]
            try:
                operands = list(map(value_of, find_values(operand_text)))
            except KeyError as err:
                if outside is None:
                    raise TextUnsupported(f"@{name}: {op_name} uses {err.args[0]} before its "
                                          "definition") from None
                operands = [values[v] if v in values else outside(v)
                            for v in find_values(operand_text)]
            rtype = one_types.get(tail)
            if rtype is None or op_name == "stablehlo.select":
                rtype = result_types(tail, 1, op_name)[0]
                if op_name != "stablehlo.select":
                    one_types[tail] = rtype
            rtypes = [rtype]
            rid = len(value_types)
            if op_name in mergeable:
                earlier = earlier_op(op_name, operands,  # pyright: ignore[reportOptionalCall]
                                     (rtype.text if rtype is not None else None,),
                                     (operand_text, tail), (rid,))
                if earlier is not None:
                    values[result_name] = earlier[0]
                    continue
            values[result_name] = rid
            value_types.append(rtype)
            if op_name == "stablehlo.constant":
                constant = _scalar_int(operand_text, tail)
                if constant is not None:
                    consts[rid] = constant
            op = Op(len(ops), op_name, operands, [rid], list(map(type_of, operands)),
                    rtypes, loc=TextOpLocation(locations, loc_body) if explicit else unknown,
                    handle=line)
            if op_name in _CALL_LIKE:
                self._call_like(op, operand_text, name)
            elif op_name == DOT_GENERAL:
                op.dot_dims = dot_dims(operand_text)
            ops.append(op)
        if not results and not any(body[k].startswith(("    return", "    func.return"))
                                   for k in range(n - 1, max(-1, n - 2), -1)):
            raise TextUnsupported(f"@{name}: no return")
        if len(results) != len(fn_text.result_types):
            raise TextUnsupported(f"@{name}: the return does not match the signature")
        return FunctionModel(name, args, ops, results)

    def _general_op(self, name: str, fn_text: TextFunction, lines: list[str],
                    values: dict[str, ValueId], value_types: list[TensorInfo | None],
                    ops: list[Op], results: list[Result],
                    dedup: IdenticalOps[str | tuple[str, str]] | None,
                    consts: dict[ValueId, int],
                    outside: Callable[[str], ValueId] | None = None) -> bool:
        """Read one op spelled over ``lines`` into ``ops`` (or, for the terminator, into
        ``results``: then ``True``)."""
        locations = self.module.locations
        explicit = self.module.has_locations
        line = lines[0]
        m = _HEAD.match(line)
        if m is None:
            raise TextUnsupported(f"@{name}: op line {line[:60]!r}")
        result_name, count_text, more_results, generic, pretty = m.groups()
        op_name = generic or pretty
        if "." not in op_name:
            op_name = _FUNC_DIALECT.get(op_name, op_name)
        if more_results:  # %a, %b:2 = ...: one name per result group
            result_names = _result_names(
                f"{result_name}{':' + count_text if count_text else ''}{more_results}")
        elif result_name is None:
            result_names = []
        elif count_text:
            result_names = [f"{result_name}#{k}" for k in range(int(count_text))]
        else:
            result_names = [result_name]
        count = len(result_names)
        rest = line[m.end():]
        multi = len(lines) > 1
        if multi:
            last, loc_body = _split_loc(lines[-1])
        else:
            rest, loc_body = _split_loc(rest) if explicit else (rest, None)
            last = rest
        # the trailing types: on the last line for an op ending in "}) : ..." or "} : ...",
        # else on the first
        tail_on_last = False
        tail_src = rest
        if multi:
            stripped = last.lstrip()
            if stripped.startswith("}") and " : " in stripped:
                tail_src, tail_on_last = stripped, True
        scan = _no_strings(tail_src)
        colon = scan.rfind(" : ")
        head_scan = _no_strings(rest) if tail_on_last else (scan[:colon] if colon >= 0 else scan)
        if op_name in _TERMINATORS:
            operand_names = _VALUE.findall(head_scan)
            tail = scan[colon + 3:] if colon >= 0 else ""
            types = [t.strip() for t in split_top_level(tail)] if tail else []
            if multi or len(types) != len(operand_names):
                raise TextUnsupported(f"@{name}: return {line[:60]!r}")
            res_attrs = fn_text.result_attrs
            for k, v in enumerate(operand_names):
                vid = values.get(v)
                if vid is None and outside is not None:
                    vid = outside(v)
                if vid is None:
                    raise TextUnsupported(f"@{name}: return of undefined {v}")
                results.append(Result(k, vid, tensor_info(types[k]), types[k],
                                      placement_of(res_attrs[k] if k < len(res_attrs)
                                                   else None)))
            return True
        inner: set[str] = set()
        if multi or op_name == "stablehlo.while":
            operand_names, inner = _region_head(head_scan, op_name)
        else:
            operand_names = _VALUE.findall(head_scan)
        if op_name == "stablehlo.reduce" and " init: " in head_scan:
            # reduce(%x init: %i), (%y init: %j): the inputs, then the inits
            pairs = _REDUCE_PAIR.findall(head_scan)
            if 2 * len(pairs) != len(operand_names):
                raise TextUnsupported(f"@{name}: reduce operands {head_scan[:60]!r}")
            operand_names = [p[0] for p in pairs] + [p[1] for p in pairs]
        try:
            operands = [values[v] for v in operand_names]
        except KeyError as err:
            if outside is None:
                raise TextUnsupported(f"@{name}: {op_name} uses {err.args[0]} before its "
                                      "definition") from None
            operands = [values[v] if v in values else outside(v) for v in operand_names]
        types_tail = scan[colon + 3:] if colon >= 0 else ""
        if multi and not tail_on_last:  # while(...) : T, T attributes {...}
            cut = _find_top_level(types_tail, " attributes {")
            types_tail = types_tail if cut < 0 else types_tail[:cut]
        if count and colon < 0:
            raise TextUnsupported(f"@{name}: {op_name} has no types")
        rtypes = result_types(types_tail, count, op_name) if count else []
        next_id = len(value_types)
        result_ids = list(range(next_id, next_id + count))
        text = "\n".join(lines) if multi else line
        if dedup is not None and op_name in MERGEABLE_OPS:
            earlier = dedup.earlier(op_name, operands,
                                    tuple(t.text if t is not None else None for t in rtypes),
                                    text, result_ids)
            if earlier is not None:
                for r, vid in zip(result_names, earlier, strict=True):
                    values[r] = vid
                return False
        for r in result_names:
            if r in values:
                raise TextUnsupported(f"@{name}: {r} defined twice")
            values[r] = next_id
            next_id += 1
        value_types += rtypes
        op = Op(len(ops), op_name, operands, result_ids, [value_types[v] for v in operands],
                rtypes, loc=TextOpLocation(locations, loc_body) if explicit else SourceLoc(),
                handle=text)
        if multi:
            op.region_uses = _region_uses(lines, inner, values, name, outside is not None)
            if op_name == "stablehlo.while":
                self._while(op, lines, head_scan, types_tail, values, value_types, consts,
                            name)
            elif op_name in (CASE, MANUAL_COMPUTATION):
                self._xla_body(op, lines, head_scan, values, value_types, consts, name)
        if op_name in _CALL_LIKE:
            self._call_like(op, rest, name)
        elif op_name == DOT_GENERAL:
            op.dot_dims = dot_dims(text)
        ops.append(op)
        return False

    def _while(self, op: Op, lines: list[str], head: str, types_tail: str,
               values: dict[str, ValueId], value_types: list[TensorInfo | None],
               consts: dict[ValueId, int], fn_name: str) -> None:
        """``max_trips`` of a ``stablehlo.while`` and, for one that surely runs 0 or 1 times,
        its ``call_forwards``, as :func:`.jaxlib_ir.while_max_trips`, ``while_exact_trips``
        and ``ModuleAdapter._loop_body_model`` read them from jaxlib::

            %r:2 = stablehlo.while(%iterArg = %c0, %iterArg_0 = %a) : tensor<i32>, ...
            cond {
              %c = stablehlo.constant dense<1> : tensor<i32>
              %0 = stablehlo.compare  LT, %iterArg, %c,  SIGNED : ...
              stablehlo.return %0 : tensor<i1>
            } do { ... }

        has at most ``1 - 0`` trips."""
        carries = _ITER_ARG.findall(head)
        if [f"{a} = {v}" for a, v in carries] != [p.strip() for p in
                                                  head[head.find("(") + 1:].split(")")[0]
                                                  .split(",")] or len(carries) != len(op.operands):
            raise TextUnsupported(f"@{fn_name}: stablehlo.while {head[:60]!r}")
        names = [a for a, _ in carries]
        if lines[1] != "    cond {" or "    } do {" not in lines:
            raise TextUnsupported(f"@{fn_name}: stablehlo.while in another spelling")
        split = lines.index("    } do {")
        cond = [line[2:] for line in lines[2:split]]
        body = [line[2:] for line in lines[split + 1:-1]]
        def outer_const(v: str) -> int | None:
            vid = values.get(v)
            return None if vid is None else consts.get(vid)

        counter = _loop_counter(cond, names, outer_const)
        if counter is None:
            return
        position, stop = counter
        start = consts.get(op.operands[position])
        if start is None:
            return
        op.max_trips, exact = loop_trips(
            start, stop, lambda: _counts_up_by_one(body, position, names[position], outer_const))
        if op.max_trips > 1:
            return
        operands = op.operands
        type_texts = [t.strip() for t in split_top_level(types_tail)]

        def outer_type(v: str) -> TensorInfo:
            vid = values.get(v)
            info = None if vid is None else value_types[vid]
            if info is None:
                raise TextUnsupported(f"@{fn_name}: a loop body closes over {v}, of a type "
                                      "the reader does not model")
            return info

        op.call_forwards = short_loop_forwards(
            exact, len(operands),
            lambda: self._loop_body_model(body, names, operands, type_texts, outer_type))

    def _xla_body(self, op: Op, lines: list[str], head: str, values: dict[str, ValueId],
                  value_types: list[TensorInfo | None], consts: dict[ValueId, int],
                  fn_name: str) -> None:
        """``Op.xla_body`` of a ``sdy.manual_computation`` (its body) or of a ``stablehlo.case``
        whose index is a constant (the branch it takes), as the jaxlib adapter reads it::

            %0:2 = sdy.manual_computation(%arg0, %arg1) in_shardings=... (%arg2: T, %arg3: U) {
              ...
              sdy.return %5, %6 : T, U
            } : (...) -> (...)
            %1:2 = "stablehlo.case"(%c) ({ ... }, { ... }) : (tensor<i32>) -> (...)

        Any other ``stablehlo.case`` gets its ``Op.branches``."""

        def outer(v: str) -> tuple[ValueId, TensorInfo | None]:
            vid = values.get(v)
            if vid is None:
                raise TextUnsupported(f"@{fn_name}: a region uses {v}, defined nowhere before")
            return vid, value_types[vid]

        count = len(op.results)
        if op.name == CASE:
            branches = _case_branches(lines)
            index = consts.get(op.operands[0]) if op.operands else None
            region = xla_region(CASE, len(branches), index)
            if region is None:
                op.branches = lambda: [
                    self._region_model(f"branch {i}", b, [], [], [], count, outer)
                    for i, b in enumerate(branches)]
                return
            body, names, type_texts = branches[region], [], []
        else:
            m = _MANUAL_ARGS.search(head)
            if m is None or not lines[-1].startswith("    } : "):
                raise TextUnsupported(f"@{fn_name}: sdy.manual_computation {head[:60]!r}")
            pairs = [a.strip() for a in split_top_level(m.group(1))] if m.group(1) else []
            names = [a.split(": ", 1)[0] for a in pairs]
            type_texts = [a.split(": ", 1)[1].split(" loc(", 1)[0] if ": " in a else ""
                          for a in pairs]
            body = [line[2:] for line in lines[1:-1]]
        operands = op.operands[:len(names)]
        op.xla_body = lambda: self._region_model(op.name, body, names, operands, type_texts,
                                                 count, outer)

    def _region_model(self, name: str, body: list[str], names: list[str],
                      operands: list[ValueId], type_texts: list[str], count: int,
                      outer: Callable[[str], tuple[ValueId, TensorInfo | None]]
                      ) -> FunctionModel:
        """A region (its lines, one level less indented) as a function of its block
        arguments ``names`` (bound to ``operands``), then of the outer values it closes over
        (``Arg.outer``), with ``count`` results."""
        same_as = same_value_positions(operands)
        values: dict[str, ValueId] = {}
        value_types: list[TensorInfo | None] = []
        args: list[Arg] = []
        for i, arg_name in enumerate(names):
            info = tensor_info(type_texts[i])
            first = same_as[i] if i < len(same_as) else i
            values[arg_name] = first if first < i else i
            value_types.append(info)
            args.append(Arg(index=i, value=i, tensor=info, type_text=type_texts[i]))

        def outside(v: str) -> ValueId:
            outer_id, info = outer(v)
            vid = values[v] = len(value_types)
            value_types.append(info)
            args.append(Arg(index=len(args), value=vid, tensor=info,
                            type_text=info.text if info is not None else "", outer=outer_id))
            return vid

        fn_text = TextFunction(name, [], [], [], [], [""] * count, [], body)
        fn = self._body_model(fn_text, values, value_types, args, None, outside)
        return FunctionModel(name, fn.args, fn.ops, fn.results)

    def _loop_body_model(self, body: list[str], names: list[str], operands: list[ValueId],
                         type_texts: list[str], outer_type: Callable[[str], TensorInfo]
                         ) -> FunctionModel:
        """A loop body (its lines, one level less indented) as a function of its carries
        ``names`` (one value passed at several positions kept as one); a value it closes over
        is one more argument, of the type it has outside."""
        same_as = same_value_positions(operands)
        values: dict[str, ValueId] = {}
        value_types: list[TensorInfo | None] = []
        args: list[Arg] = []
        if len(type_texts) != len(names):
            raise TextUnsupported("a loop's carries and types do not match")
        for i, arg_name in enumerate(names):
            info = tensor_info(type_texts[i])
            first = same_as[i] if i < len(same_as) else i
            values[arg_name] = first if first < i else i
            value_types.append(info)
            args.append(Arg(index=i, value=i, tensor=info, type_text=type_texts[i]))

        def outside(v: str) -> ValueId:
            info = outer_type(v)
            vid = values[v] = len(value_types)
            value_types.append(info)
            args.append(Arg(index=len(args), value=vid, tensor=info, type_text=info.text))
            return vid

        fn_text = TextFunction("while body", [], [], [], [], type_texts, [], body)
        fn = self._body_model(fn_text, values, value_types, args, None, outside)
        return FunctionModel("while body", fn.args, fn.ops, fn.results)

    def _call_like(self, op: Op, rest: str, fn_name: str) -> None:
        if op.name == "func.call":
            m = re.match(r" @([\w$.\-]+)\(", rest)
            if m is None:
                raise TextUnsupported(f"@{fn_name}: call {rest[:60]!r}")
            target = m.group(1)
            op.target = target
            op.call_forwards = self.callee_forwards(target, same_value_positions(op.operands))
            op.pure_call = self.pure_callees.get(target, False)
            return
        m = re.match(r' @(?:([\w$.\-]+)|"((?:[^"\\]|\\.)*)")\(', rest)
        if m is not None:
            op.target = m.group(1) if m.group(1) is not None else unescape(m.group(2))
        else:
            m = re.search(r'call_target_name = "((?:[^"\\]|\\.)*)"', rest)
            op.target = unescape(m.group(1)) if m else None
        if "output_operand_aliases" in rest:
            op.operand_aliases = operand_alias_pairs(rest[rest.index("output_operand_aliases"):])


_ALIAS_ENTRY = re.compile(
    r"output_tuple_indices\s*=\s*\[([^\]]*)\][^>]*?operand_index\s*=\s*(\d+)", re.S)


def operand_alias_pairs(text: str) -> tuple[tuple[int, int], ...]:
    """``custom_call``'s ``output_operand_aliases`` as printed -> ``((result_index,
    operand_index), ...)``: ``[#stablehlo.output_operand_alias<output_tuple_indices = [1],
    operand_index = 0, operand_tuple_indices = []>]`` -> ``((1, 0),)``."""
    pairs: list[tuple[int, int]] = []
    for m in _ALIAS_ENTRY.finditer(text):
        indices = [int(i) for i in m.group(1).replace(" ", "").split(",") if i]
        pairs.append((indices[0] if indices else 0, int(m.group(2))))
    return tuple(pairs)


_ITER_ARG = re.compile(r"(%[\w$.\-]+) = (%[\w$.\-]+(?:#\d+)?)")
_DENSE_INT = re.compile(r" dense<(-?\d+)>")
_INT_SCALAR = re.compile(r"tensor<(?:i|si|ui)(?:8|16|32|64)>")


def _scalar_int(operand_text: str, tail: str) -> int | None:
    """``N`` of ``stablehlo.constant dense<N> : tensor<i32>`` (a rank-0 integer)."""
    m = _DENSE_INT.fullmatch(operand_text)
    return int(m.group(1)) if m and _INT_SCALAR.fullmatch(tail) else None


def _region_ops(lines: list[str]) -> dict[str, tuple[str, list[str], str]]:
    """A region's one-line, one-result ops (lines one level less indented): result name ->
    (op name, operand names, the text between them and the types' colon, and the types)."""
    out: dict[str, tuple[str, list[str], str]] = {}
    for line in lines:
        m = _SIMPLE_OP.match(line)
        if m is not None:
            tail = m.group(4)
            k = tail.rfind(" loc(")
            tail = tail[:k] if k >= 0 and tail.endswith(")") else tail
            out[m.group(1)] = (m.group(2), _VALUE.findall(m.group(3)), m.group(3) + "\0" + tail)
    return out


def _int_value(name: str, region: dict[str, tuple[str, list[str], str]],
               outer_const: Callable[[str], int | None]) -> int | None:
    """The scalar integer constant ``name`` stands for, in the region or outside it."""
    if name in region:
        op_name, _, text = region[name]
        if op_name != "stablehlo.constant":
            return None
        operand_text, _, tail = text.partition("\0")
        return _scalar_int(operand_text, tail)
    return outer_const(name)


def _loop_counter(cond: list[str], names: list[str],
                  outer_const: Callable[[str], int | None]) -> tuple[int, int] | None:
    """``(carry position, stop)`` of a loop whose condition returns ``compare LT,
    %carry, constant`` (:func:`.jaxlib_ir._loop_counter`; the start is the caller's)."""
    if not cond or not cond[-1].startswith("    stablehlo.return "):
        return None
    returned = _VALUE.findall(_split_loc(cond[-1])[0].split(" : ")[0])
    region = _region_ops(cond[:-1])
    if len(returned) != 1 or returned[0] not in region:
        return None
    op_name, operands, text = region[returned[0]]
    if op_name != "stablehlo.compare" or len(operands) != 2 or not re.match(r"\s*LT,", text):
        return None
    counter, bound = operands
    if counter not in names:
        return None
    stop = _int_value(bound, region, outer_const) if bound not in names else None
    return None if stop is None else (names.index(counter), stop)


def _counts_up_by_one(body: list[str], position: int, counter: str,
                      outer_const: Callable[[str], int | None]) -> bool:
    """Whether the loop body returns ``counter + 1`` (``stablehlo.add`` of the counter and a
    constant 1) at the counter's position (:func:`.jaxlib_ir.while_exact_trips`)."""
    if not body or not body[-1].startswith("    stablehlo.return "):
        return False
    returned = _VALUE.findall(_split_loc(body[-1])[0].split(" : ")[0])
    if position >= len(returned):
        return False
    region = _region_ops(body[:-1])
    update = region.get(returned[position])
    if update is None or update[0] != "stablehlo.add" or len(update[1]) != 2:
        return False
    for i in (0, 1):
        arg, step = update[1][i], update[1][1 - i]
        if arg == counter and _int_value(step, region, outer_const) == 1:
            return True
    return False


def _result_names(groups: str) -> list[str]:
    """``%a, %b:2`` -> ``%a``, ``%b#0``, ``%b#1``."""
    names: list[str] = []
    for m in _RESULT_GROUP.finditer(groups):
        if m.group(2):
            names += [f"{m.group(1)}#{k}" for k in range(int(m.group(2)))]
        else:
            names.append(m.group(1))
    return names


_MANUAL_ARGS = re.compile(r"manual_axes=\{[^}]*\} \((.*)\) \{$")


def _case_branches(lines: list[str]) -> list[list[str]]:
    """The branches of a ``stablehlo.case`` spelled over ``lines`` (head ``... ({``, branches
    separated by ``    }, {``, closed by ``    }) : ...``), each one level less indented."""
    branches: list[list[str]] = [[]]
    for line in lines[1:-1]:
        if line == "    }, {":
            branches.append([])
        else:
            branches[-1].append(line[2:])
    return branches


def _region_head(head: str, op_name: str) -> tuple[list[str], set[str]]:
    """The operands on an op's first line and the region values it declares there
    (``%iterArg = %x`` bindings, ``%arg1: T`` block arguments)."""
    inner: set[str] = set()
    operands: list[str] = []
    for m in re.finditer(r"(%[\w$.\-]+(?:#\d+)?)( = |: )?", head):
        if m.group(2):
            inner.add(m.group(1))
        else:
            operands.append(m.group(1))
    if op_name == "stablehlo.while" and not inner and operands:
        raise TextUnsupported("stablehlo.while without iteration arguments")
    return operands, inner


def _region_uses(lines: list[str], inner: set[str], values: dict[str, ValueId],
                 fn_name: str, lenient: bool = False) -> list[ValueId]:
    """The outer values the op's regions use (lines after the first), by value id; with
    ``lenient`` (a loop body read as a function, as jaxlib's adapter reads it) a value
    defined nowhere before is left out."""
    defined = set(inner)
    uses: list[str] = []
    for line in lines[1:]:
        code = _no_strings(line)
        for m in _DEFINED.finditer(code):
            defined.add(m.group(1))
        for m in _BLOCK_ARG.finditer(code):
            defined.add(m.group(1))
        uses += _VALUE.findall(code)
    out: set[ValueId] = set()
    for u in uses:
        base = u.split("#", 1)[0]
        if base in defined or u in defined:
            continue
        vid = values.get(u)
        if vid is None:
            if lenient:
                continue
            raise TextUnsupported(f"@{fn_name}: a region uses {u}, defined nowhere before")
        out.add(vid)
    for d in defined:
        if d in values:
            raise TextUnsupported(f"@{fn_name}: a region redefines {d}")
    return sorted(out)
