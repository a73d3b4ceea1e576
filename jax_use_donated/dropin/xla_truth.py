"""What XLA really did with each donated parameter, read from the compiled executable's HLO text.

Input: the text of the compiled module (``compiled.as_text()`` or
``executable.hlo_modules()[0].to_string()``: scheduled, after copy insertion) and the donated
parameter numbers; no JAX import. Output: per donated parameter one :class:`Outcome`:

* ``COPY_FREE``: the parameter's buffer hosts an output (``input_output_alias``) and no copy
  counted against it (below);
* ``COPIED``: it hosts an output, but XLA inserted a copy for it: a copy *of the parameter*
  (its old value is still read after the aliased output overwrites it), or a copy *into the
  parameter's buffer* (the value is computed elsewhere, then copied into the donated buffer);
* ``NOT_DONATED``: the executable does not alias it (PjRt does not invalidate it).

Copies are read wherever XLA puts them: the entry computation, ``conditional`` branches,
``while`` bodies and conditions, ``call``ed and async-wrapped computations (fused and reduction
computations hold no buffer copies). Values are followed as XLA's alias analysis does: through
``tuple``, ``get-tuple-element``, ``bitcast`` and ``copy-done``; from a ``conditional``'s operand
to its branch's parameter and from each branch's root to the ``conditional``'s result; from a
``while``'s operand to its body's and condition's parameter, the body's root and its result; from
a ``call``'s operands and result to its callee's parameters and root; and from the operand a
``dynamic-update-slice``, a ``scatter``, a fusion rooted in one or an
``output_to_operand_aliasing`` instruction updates in place to its result. So a buffer is the
set of positions that must share memory, and a donor's buffer is the one holding its parameter
and the output it is aliased to.

A copy counts only when it keeps its operand's layout (XLA:CPU also writes transposes as
layout-changing copies) and is not one that XLA makes whatever the aliasing: the copy of a
value returned at several outputs, of a constant, or of another parameter
(:func:`copy_insertion.AddSpecialCaseCopies`); a copy inside a ``while`` loop (its body, its
condition and what they call: each carry is one buffer for the whole loop, whichever buffer it
is outside, so these copies are the loop's own); and the copy of a donated parameter into the
initial carry of a loop whose buffer is not that parameter's while the parameter is still read
once the loop starts (the loop writes its carry in place, so the parameter's value has to be
copied whichever output its buffer hosts). Example: the swap
``(a, b) -> (b * 2, a * 3)`` with JAX's pairing ``{0: 0, 1: 1}`` compiles to ``copy(%a)``,
``copy(%b)`` and two copies at the root: both parameters are ``COPIED``; a line search
``cond(ok, lambda: new, lambda: params)`` with ``params`` donated copies ``new`` into
``params``' buffer inside the ``new`` branch: ``params`` is ``COPIED``, with the evidence
``output copy %copy.1 in %region_3.4``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum

from jax_use_donated.dropin.hlo_alias import aliases_from_hlo_text


class Outcome(Enum):
    COPY_FREE = "copy-free"
    COPIED = "copied"
    NOT_DONATED = "not donated"


@dataclass(frozen=True)
class Instruction:
    """One HLO instruction as printed: ``%copy.1 = f32[4]{0} copy(%p.1)``."""

    name: str
    shape: str
    opcode: str
    operands: tuple[str, ...]
    root: bool
    computation: str
    text: str
    parameter_number: int | None = None
    index: int | None = None
    """``get-tuple-element``'s ``index``."""
    called: tuple[str, ...] = ()
    """The computations a control-flow instruction runs: a ``conditional``'s branches in
    order, a ``while``'s ``(condition, body)``, a ``call``'s or ``async-start``'s callee."""

    @property
    def layout(self) -> str | None:
        """``{1,0}`` of ``f32[4,4]{1,0}`` (``None`` for a tuple or a shape without one)."""
        if self.shape.startswith("("):
            return None
        m = _LAYOUT.search(self.shape)
        return m.group(1) if m else None


@dataclass(frozen=True)
class CopyEvidence:
    """A copy counted against one donated parameter."""

    instruction: Instruction
    kind: str
    """``"parameter"``: a copy of the donated parameter's value; ``"output"``: a copy into
    the parameter's buffer (the output it hosts)."""
    entry: bool = True
    """Whether the copy is in the entry computation (else in :attr:`computation`)."""

    @property
    def computation(self) -> str:
        """The computation the copy lives in, e.g. ``region_1.2``."""
        return self.instruction.computation

    def describe(self) -> str:
        """``parameter copy %copy.1``, or ``output copy %copy.8 in %region_0.1`` when the copy
        is in a nested computation."""
        text = f"{self.kind} copy %{self.instruction.name}"
        return text if self.entry else f"{text} in %{self.computation}"


@dataclass(frozen=True)
class UncountedCopy:
    """A layout-preserving copy that counts against no donor, and why."""

    instruction: Instruction
    reason: str
    """``constant``, ``undonated parameter``, ``returned at several outputs``, ``inside a
    loop``, ``loop initial value`` or ``no donated buffer``."""


@dataclass
class DonorTruth:
    """What the executable does with one donated parameter."""

    parameter: int
    outcome: Outcome
    output: int | None
    """The output index its buffer hosts (``input_output_alias``)."""
    copies: list[CopyEvidence] = field(default_factory=list)

    @property
    def evidence(self) -> str:
        """The copies counted against it, e.g. ``parameter copy %copy.1`` or ``output copy
        %copy.1 in %region_3.4`` (``""``: none)."""
        return ", ".join(c.describe() for c in self.copies)

    def describe(self) -> str:
        if self.outcome is Outcome.NOT_DONATED:
            return f"parameter {self.parameter}: not donated"
        text = f"parameter {self.parameter} -> output {self.output}: {self.outcome.value}"
        if self.copies:
            text += " (" + "; ".join(c.describe() for c in self.copies) + ")"
        return text


@dataclass
class ExecutableTruth:
    """Every donated parameter's measured outcome, and the executable's alias map."""

    donors: dict[int, DonorTruth]
    aliases: dict[int, int]
    """Parameter number -> output index of every ``input_output_alias`` entry."""
    copies: list[Instruction]
    """Every layout-preserving copy of the entry computation and of the computations it runs
    (branches, loop bodies and conditions, callees), counted or not."""
    uncounted: list[UncountedCopy] = field(default_factory=list)
    """The copies of :attr:`copies` that count against no donor, with the reason."""

    def outcome(self, parameter: int) -> Outcome:
        return self.donors[parameter].outcome

    @property
    def copy_free(self) -> dict[int, int]:
        """Parameter -> output of every donor hosted without a copy."""
        return {p: t.output for p, t in self.donors.items()
                if t.outcome is Outcome.COPY_FREE and t.output is not None}

    def count(self, outcome: Outcome) -> int:
        return sum(t.outcome is outcome for t in self.donors.values())


_COMPUTATION = re.compile(r"^(ENTRY\s+)?%?([\w.\-]+)\s.*\{\s*$")
_INSTRUCTION = re.compile(r"^\s*(ROOT\s+)?%?([\w.\-]+)\s*=\s*(.*)$")
_LAYOUT = re.compile(r"\](\{[^}]*\})")
_NAME = re.compile(r"%?([A-Za-z_][\w.\-]*)\s*$")
_PARAMETER = re.compile(r"^parameter\((\d+)\)")
_GTE_INDEX = re.compile(r"index=(\d+)")
_CALLED_ONE = re.compile(
    r"\b(true_computation|false_computation|condition|body|to_apply|calls)=%?([\w.\-]+)")
_BRANCHES = re.compile(r"\bbranch_computations=\{([^}]*)\}")
_TRAILING_ATTRIBUTES = (", metadata=", ", backend_config=", ", frontend_attributes=",
                        ", statistics_viz=")
_COPY_OPCODES = frozenset({"copy", "copy-start"})
_CONTROL_FLOW = frozenset({"conditional", "while", "call", "async-start"})
"""Instructions whose called computations run on buffers (not fusions or reducers)."""
_IN_PLACE = frozenset({"dynamic-update-slice", "scatter"})
"""Ops whose result XLA writes into their first operand(s) (``GetInPlaceInputOutputPairs``)."""
_IN_PLACE_CALLS = tuple(f" {op}(" for op in _IN_PLACE)
_OPERAND_ALIASING = re.compile(r"output_to_operand_aliasing=\{(.*?)\}\s*(?:,\s*[a-z_]+=|$)")
_OPERAND_ALIAS_ENTRY = re.compile(r"\{([\d,]*)\}:\s*\((\d+),\s*\{([\d,]*)\}\)")


def _balanced(text: str, start: int) -> int:
    """Index just past the parenthesised group opening at ``text[start]``."""
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def _split_top(text: str) -> list[str]:
    """Comma-separated items of ``text`` at bracket depth 0."""
    items: list[str] = []
    depth = 0
    start = 0
    for i, c in enumerate(text):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    if text[start:].strip():
        items.append(text[start:])
    return items


def _called(opcode: str, tail: str) -> tuple[str, ...]:
    """The computations a control-flow instruction runs, from its attributes."""
    for marker in _TRAILING_ATTRIBUTES:  # metadata may quote anything: read only before it
        cut = tail.find(marker)
        if cut >= 0:
            tail = tail[:cut]
    if opcode == "conditional":
        m = _BRANCHES.search(tail)
        if m is not None:
            return tuple(_NAME.search(b.strip()).group(1)  # type: ignore[union-attr]
                         for b in m.group(1).split(",") if b.strip())
        named = dict(_CALLED_ONE.findall(tail))
        return tuple(named[k] for k in ("true_computation", "false_computation") if k in named)
    named = dict(_CALLED_ONE.findall(tail))
    if opcode == "while":
        return (named["condition"], named["body"]) if "condition" in named and "body" in named \
            else ()
    callee = named.get("to_apply") or named.get("calls")
    return (callee,) if callee else ()


def _parse_instruction(line: str, computation: str) -> Instruction | None:
    m = _INSTRUCTION.match(line)
    if m is None:
        return None
    root, name, rest = bool(m.group(1)), m.group(2), m.group(3)
    if rest.startswith("("):
        end = _balanced(rest, 0)
        shape, rest = rest[:end], rest[end:].lstrip()
    else:
        shape, _, rest = rest.partition(" ")
    paren = rest.find("(")
    if paren < 0:
        return None
    opcode = rest[:paren].strip()
    close = rest.find(")", paren)
    inner = rest[paren + 1:close] if close >= 0 else ""
    if close >= 0 and not any(c in inner for c in "([{"):  # the common case: ``%a, %b``
        end, items = close + 1, inner.split(",")
    else:
        end = _balanced(rest, paren)
        items = _split_top(rest[paren + 1:end - 1])
    operands: list[str] = []
    for item in items:
        om = _NAME.search(item.strip())
        if om is not None:
            operands.append(om.group(1))
    number = index = None
    called: tuple[str, ...] = ()
    if opcode == "parameter":
        pm = _PARAMETER.match(rest)
        number = int(pm.group(1)) if pm else None
        operands = []
    elif opcode == "get-tuple-element":
        im = _GTE_INDEX.search(rest, end)
        index = int(im.group(1)) if im else None
    elif opcode in _CONTROL_FLOW or opcode == "fusion":
        called = _called(opcode, rest[end:])
    return Instruction(name, shape, opcode, tuple(operands), root, computation, line.strip(),
                       number, index, called)


@dataclass
class HloComputation:
    name: str
    entry: bool
    instructions: dict[str, Instruction]
    root: Instruction | None

    @functools.cached_property
    def parameters(self) -> dict[int, Instruction]:
        """Parameter number -> its instruction (computed once: read after parsing)."""
        return {i.parameter_number: i for i in self.instructions.values()
                if i.opcode == "parameter" and i.parameter_number is not None}


def _parse_block(name: str, entry: bool, lines: Iterable[str]) -> HloComputation:
    comp = HloComputation(name, entry, {}, None)
    for line in lines:
        inst = _parse_instruction(line, name)
        if inst is not None:
            comp.instructions[inst.name] = inst
            if inst.root:
                comp.root = inst
    return comp


class _Module:
    """The computations of an HLO module's text, each parsed when first asked for (a train
    step's text is mostly fused computations, which the reader never needs)."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self.blocks: dict[str, tuple[bool, int, int]] = {}
        """Computation name -> (is the entry, first instruction line, end line)."""
        self._roots: dict[str, int | None] = {}
        """Computation name -> its ``ROOT`` line (found when first asked for)."""
        self.entry_name: str | None = None
        self._parsed: dict[str, HloComputation] = {}
        lines = self.lines
        # Computations are printed one after another: a header line ending in "{", the
        # indented instructions, a line "}". Finding each "}" is a C-speed list search.
        pos = 0
        while True:
            try:
                end = lines.index("}", pos)
            except ValueError:
                break
            for i in range(pos, end):
                header = _COMPUTATION.match(lines[i])
                if header is not None and not lines[i].startswith(("HloModule", " ")):
                    name, entry = header.group(2), bool(header.group(1))
                    self.blocks[name] = (entry, i + 1, end)
                    if entry:
                        self.entry_name = name
                    break
            pos = end + 1

    def root_line(self, name: str) -> str | None:
        """The ``ROOT`` line of a computation, without parsing the others."""
        if name not in self._roots:
            block = self.blocks.get(name)
            self._roots[name] = None if block is None else next(
                (i for i in range(block[2] - 1, block[1] - 1, -1)  # XLA prints it last
                 if self.lines[i][:12].lstrip().startswith("ROOT ")), None)
        i = self._roots[name]
        return self.lines[i] if i is not None else None

    def mentions(self, name: str, needles: tuple[str, ...]) -> bool:
        """Whether a line of a computation contains one of ``needles``."""
        block = self.blocks.get(name)
        return block is not None and any(
            n in line for line in self.lines[block[1]:block[2]] for n in needles)

    def computation(self, name: str) -> HloComputation | None:
        comp = self._parsed.get(name)
        if comp is None and name in self.blocks:
            entry, start, end = self.blocks[name]
            comp = _parse_block(name, entry, self.lines[start:end])
            self._parsed[name] = comp
        return comp

    def entry(self) -> HloComputation:
        if self.entry_name is None:
            raise ValueError("no ENTRY computation in the HLO text")
        comp = self.computation(self.entry_name)
        assert comp is not None
        return comp


def parse_computations(text: str) -> list[HloComputation]:
    """The computations of an HLO module's text, with their instructions in print order."""
    module = _Module(text)
    return [c for name in module.blocks if (c := module.computation(name)) is not None]


def entry_computation(text: str) -> HloComputation:
    """The ``ENTRY`` computation of an HLO module's text."""
    return _Module(text).entry()


# --------------------------------------------------------------------------------------------
# Buffers: positions that must share memory, as XLA's alias analysis groups them

Path = tuple[int, ...]
Position = tuple[str, str, Path]
"""(computation, instruction, tuple index)."""

_SHAPES: dict[str, list[object] | None] = {}


def _shape_tree(shape: str) -> list[object] | None:
    """``None`` for an array shape, else the element trees of a tuple shape."""
    if not shape.startswith("("):
        return None
    if shape not in _SHAPES:
        if len(_SHAPES) > 4096:
            _SHAPES.clear()
        _SHAPES[shape] = [_shape_tree(s.strip()) for s in _split_top(shape[1:-1])]
    return _SHAPES[shape]


def _leaves(tree: list[object] | None, prefix: Path = ()) -> Iterator[Path]:
    """The index paths of the arrays in a shape tree."""
    if tree is None:
        yield prefix
        return
    for i, sub in enumerate(tree):
        yield from _leaves(sub, (*prefix, i))  # type: ignore[arg-type]


@dataclass
class _Caller:
    """Where a computation runs: the instruction that runs it, and as what."""

    computation: str
    instruction: Instruction
    branch: int | None
    """The branch number of a ``conditional``'s branch computation."""

    def operand_of(self, parameter: int) -> int | None:
        """The caller's operand that a parameter of the computation receives (``None``: a
        loop's carry, which the loop's own result also feeds)."""
        if self.instruction.opcode == "while":
            return None
        if self.branch is not None:
            return self.branch + 1  # operand 0 selects the branch
        return parameter  # call, async-start


class _Program:
    """The control-flow computations of a module, their callers and buffers."""

    def __init__(self, module: _Module) -> None:
        self.module = module
        self.entry = module.entry()
        self.comps: dict[str, HloComputation] = {self.entry.name: self.entry}
        self.callers: dict[str, _Caller] = {}
        self.in_loop: set[str] = set()
        self.parent: dict[Position, Position] = {}
        self.loop_carries: list[Position] = []
        self._fusions: dict[str, list[tuple[Path, int]]] = {}
        stack = [self.entry]
        while stack:
            comp = stack.pop()
            for inst in comp.instructions.values():
                if inst.opcode not in _CONTROL_FLOW or not inst.called:
                    continue
                for k, name in enumerate(inst.called):
                    callee = module.computation(name)
                    if callee is None or name in self.comps:
                        continue
                    self.comps[name] = callee
                    branch = k if inst.opcode == "conditional" else None
                    self.callers[name] = _Caller(comp.name, inst, branch)
                    if inst.opcode == "while" or comp.name in self.in_loop:
                        self.in_loop.add(name)
                    stack.append(callee)
        for comp in self.comps.values():
            self._union_computation(comp)

    # -- union-find over positions
    def find(self, pos: Position) -> Position:
        parent = self.parent
        root = pos
        while (up := parent.get(root)) is not None and up != root:
            root = up
        while pos != root:  # path compression
            up = parent[pos]
            parent[pos] = root
            pos = up
        return root

    def union(self, a: Position, b: Position) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb

    def _tree(self, comp: HloComputation, name: str) -> list[object] | None:
        inst = comp.instructions.get(name)
        return _shape_tree(inst.shape) if inst is not None else None

    def _union_all(self, tree: list[object] | None, a: Position, b: Position) -> None:
        """Union every array of ``a`` with the same array of ``b`` (``tree``: their shape)."""
        for q in _leaves(tree):
            self.union((a[0], a[1], a[2] + q), (b[0], b[1], b[2] + q))

    def _union_computation(self, comp: HloComputation) -> None:
        c = comp.name
        for inst in comp.instructions.values():
            op, n, ops = inst.opcode, inst.name, inst.operands
            if op == "tuple":
                for i, o in enumerate(ops):
                    self._union_all(self._tree(comp, o), (c, n, (i,)), (c, o, ()))
            elif op == "get-tuple-element" and ops and inst.index is not None:
                self._union_all(_shape_tree(inst.shape), (c, n, ()), (c, ops[0], (inst.index,)))
            elif op == "bitcast" and ops:
                self.union((c, n, ()), (c, ops[0], ()))
            elif op == "copy-done" and ops:
                self._union_all(_shape_tree(inst.shape), (c, n, ()), (c, ops[0], (0,)))
            elif op == "copy-start" and ops:
                self.union((c, n, (1,)), (c, ops[0], ()))
            elif op in _CONTROL_FLOW and inst.called:
                self._union_call(comp, inst)
            elif op in _IN_PLACE and ops:
                self._union_in_place(comp, inst, [((), 0)] if not inst.shape.startswith("(")
                                     else [((i,), i) for i in range((len(ops) - 1) // 2)])
            elif op == "fusion" and inst.called:
                self._union_in_place(comp, inst, self._fusion_in_place(inst.called[0]))
            elif op in ("async-done", "async-update") and ops:
                self._union_async_done(comp, inst)
            if "output_to_operand_aliasing=" in inst.text:
                self._union_in_place(comp, inst, _operand_aliasing(inst.text))

    def _union_call(self, comp: HloComputation, inst: Instruction) -> None:
        c, n, ops = comp.name, inst.name, inst.operands
        tree = _shape_tree(inst.shape)
        callees = [self.comps.get(name) for name in inst.called]
        if inst.opcode == "conditional":
            for k, branch in enumerate(callees):
                if branch is None:
                    continue
                param = branch.parameters.get(0)
                if param is not None and k + 1 < len(ops):
                    self._union_all(_shape_tree(param.shape), (branch.name, param.name, ()),
                                    (c, ops[k + 1], ()))
                if branch.root is not None:
                    self._union_all(tree, (c, n, ()), (branch.name, branch.root.name, ()))
        elif inst.opcode == "while":
            if not ops:
                return
            for q in _leaves(tree):
                self.loop_carries.append((c, n, q))
            self._union_all(tree, (c, n, ()), (c, ops[0], ()))
            for callee in callees:
                if callee is None:
                    continue
                param = callee.parameters.get(0)
                if param is not None:
                    self._union_all(tree, (c, n, ()), (callee.name, param.name, ()))
                if callee is callees[-1] and callee.root is not None:  # the body
                    self._union_all(tree, (c, n, ()), (callee.name, callee.root.name, ()))
        else:  # call, async-start: parameter j receives operand j
            callee = callees[0]
            if callee is None:
                return
            for j, param in callee.parameters.items():
                if j < len(ops):
                    self._union_all(_shape_tree(param.shape), (callee.name, param.name, ()),
                                    (c, ops[j], ()))
            if inst.opcode == "call" and callee.root is not None:
                self._union_all(tree, (c, n, ()), (callee.name, callee.root.name, ()))

    def _union_in_place(self, comp: HloComputation, inst: Instruction,
                        pairs: Iterable[tuple[Path, int]]) -> None:
        """The result at each path shares the buffer of its operand (XLA updates it in place:
        ``dynamic-update-slice``, ``scatter``, such a fusion, ``output_to_operand_aliasing``)."""
        for path, k in pairs:
            if k < len(inst.operands):
                self.union((comp.name, inst.name, path), (comp.name, inst.operands[k], ()))

    def _fusion_in_place(self, name: str) -> list[tuple[Path, int]]:
        """(output path, fusion operand) of every in-place update a fused computation's root
        makes into one of its parameters (read through ``bitcast``s)."""
        if name in self._fusions:
            return self._fusions[name]
        pairs: list[tuple[Path, int]] = []
        line = self.module.root_line(name)
        # Most fusions compute a fresh array: parse only a root that may update in place.
        candidate = line is not None and (
            any(op in line for op in _IN_PLACE_CALLS)
            or (any(op in line for op in (" tuple(", " bitcast("))
                and self.module.mentions(name, _IN_PLACE_CALLS)))
        root = _parse_instruction(line, name) if candidate and line is not None else None
        if root is not None:
            fused = self.module.computation(name)
            if fused is not None:
                outputs = ([((i,), o) for i, o in enumerate(root.operands)]
                           if root.opcode == "tuple" else [((), root.name)])
                for path, out in outputs:
                    inst = self._through_bitcasts(fused, out)
                    if inst is None or inst.opcode not in _IN_PLACE or not inst.operands:
                        continue
                    param = self._through_bitcasts(fused, inst.operands[0])
                    if param is not None and param.opcode == "parameter" \
                            and param.parameter_number is not None:
                        pairs.append((path, param.parameter_number))
        self._fusions[name] = pairs
        return pairs

    @staticmethod
    def _through_bitcasts(comp: HloComputation, name: str) -> Instruction | None:
        inst = comp.instructions.get(name)
        while inst is not None and inst.opcode == "bitcast" and inst.operands:
            inst = comp.instructions.get(inst.operands[0])
        return inst

    def _async_start(self, comp: HloComputation, inst: Instruction) -> Instruction | None:
        seen = 0
        while inst.opcode in ("async-done", "async-update") and inst.operands and seen < 64:
            nxt = comp.instructions.get(inst.operands[0])
            if nxt is None:
                return None
            inst, seen = nxt, seen + 1
        return inst if inst.opcode == "async-start" else None

    def _union_async_done(self, comp: HloComputation, inst: Instruction) -> None:
        start = self._async_start(comp, inst)
        if start is None or not start.called:
            return
        callee = self.comps.get(start.called[0])
        if inst.opcode == "async-done" and callee is not None and callee.root is not None:
            self._union_all(_shape_tree(inst.shape), (comp.name, inst.name, ()),
                            (callee.name, callee.root.name, ()))

    # -- values
    def source(self, comp: HloComputation, name: str, path: Path = ()) -> tuple[str, str, Path]:
        """The position whose instruction defines the value at ``(comp, name, path)``: follow
        forwarding ops back, a parameter of a branch or callee to its caller's operand, a
        ``call``'s or async result to its callee's root. A loop's parameter and result, a
        ``conditional``'s result, a copy and every computing instruction define values."""
        for _ in range(100_000):
            inst = comp.instructions.get(name)
            if inst is None:
                break
            op = inst.opcode
            if op == "bitcast" and inst.operands:
                name = inst.operands[0]
            elif op == "get-tuple-element" and inst.operands and inst.index is not None:
                name, path = inst.operands[0], (inst.index, *path)
            elif op == "tuple" and path and path[0] < len(inst.operands):
                name, path = inst.operands[path[0]], path[1:]
            elif op == "copy-done" and inst.operands:
                return comp.name, inst.operands[0], (0, *path)
            elif op == "parameter" and comp.name in self.callers:
                caller = self.callers[comp.name]
                k = caller.operand_of(inst.parameter_number or 0)
                if k is None or k >= len(caller.instruction.operands):
                    break  # a loop's carry is a value of its own
                comp = self.comps[caller.computation]
                name = caller.instruction.operands[k]
            elif op == "call" and inst.called and inst.called[0] in self.comps:
                comp = self.comps[inst.called[0]]
                if comp.root is None:
                    break
                name = comp.root.name
            elif op == "async-done":
                start = self._async_start(comp, inst)
                callee = self.comps.get(start.called[0]) if start and start.called else None
                if callee is None or callee.root is None:
                    break
                comp, name = callee, callee.root.name
            else:
                break
        return comp.name, name, path


def _operand_aliasing(text: str) -> list[tuple[Path, int]]:
    """``output_to_operand_aliasing={{1}: (0, {})}`` -> ``[((1,), 0)]`` (operand-level only)."""
    m = _OPERAND_ALIASING.search(text)
    if m is None:
        return []
    return [(tuple(int(i) for i in out.split(",") if i), int(k))
            for out, k, index in _OPERAND_ALIAS_ENTRY.findall(m.group(1)) if not index]


def _copy_layouts_match(copy: Instruction, operand: Instruction | None) -> bool:
    """Whether ``copy`` keeps its operand's layout (a layout-changing copy is a transpose)."""
    if operand is None:
        return False
    if copy.opcode == "copy-start":  # (destination, source, context)
        items = _split_top(copy.shape[1:-1]) if copy.shape.startswith("(") else []
        m = _LAYOUT.search(items[0]) if items else None
        return operand.layout == (m.group(1) if m else None)
    return copy.layout == operand.layout


def read_truth(hlo_text: str, donated: Iterable[int],
               aliases: Mapping[int, int] | None = None) -> ExecutableTruth:
    """Every donated parameter's :class:`Outcome` in the compiled module ``hlo_text``.

    ``aliases`` (parameter -> output) overrides the header's ``input_output_alias`` (e.g. read
    from the proto with :func:`.hlo_alias.executable_aliases`); parameters the executable
    aliases but ``donated`` does not list are reported too. Linear in the text: one pass finds
    the computations, then only the entry and the computations it runs are parsed::

        text = jax.jit(line_search, donate_argnums=0).lower(p, g).compile().as_text()
        read_truth(text, [0]).donors[0].evidence  # "output copy %copy.1 in %region_3.4"
    """
    alias_map = dict(aliases) if aliases is not None else aliases_from_hlo_text(hlo_text)
    reader = _Attribution(_Program(_Module(hlo_text)), alias_map)
    copies: list[Instruction] = []
    uncounted: list[UncountedCopy] = []
    for comp in reader.program.comps.values():
        for c in comp.instructions.values():
            if c.opcode in _COPY_OPCODES and c.operands \
                    and _copy_layouts_match(c, comp.instructions.get(c.operands[0])):
                copies.append(c)
                reason = reader.attribute(comp, c)
                if reason is not None:
                    uncounted.append(UncountedCopy(c, reason))
    donors: dict[int, DonorTruth] = {}
    for p in sorted(set(donated) | set(alias_map)):
        k = alias_map.get(p)
        if k is None:
            donors[p] = DonorTruth(p, Outcome.NOT_DONATED, None)
        else:
            found = reader.evidence.get(p, [])
            donors[p] = DonorTruth(p, Outcome.COPIED if found else Outcome.COPY_FREE, k, found)
    return ExecutableTruth(donors, alias_map, copies, uncounted)


_BUFFER_COPY_OPCODES = frozenset({"kCopy", "kCopyStart"})
_CALLING_OPCODES = frozenset({"kWhile", "kConditional", "kCall", "kAsyncStart"})
_ENTRY_NAME = re.compile(r"main(\.\d+)?$")


def runs_copies(module: object) -> bool | None:
    """Whether a copy runs on buffers in a compiled jaxlib ``HloModule``
    (``executable.hlo_modules()[0]``), walked through jaxlib's objects, not its text: a
    ``copy`` or ``copy-start`` in the entry computation or in a computation it runs
    (``while``, ``conditional``, ``call``, ``async-start``, transitively; fusions' copies are
    not on buffers, as in :func:`read_truth`). ``None`` when that cannot be told cheaply: no
    single entry named ``main`` (JAX's), one tuple parameter, or objects of another shape.

    On a 128-layer train step this reads about 6,400 instructions in 0.005 s, where printing
    the module takes 0.04 s and reading the text 0.07 s: a module with no copy needs neither
    (:func:`copy_free_truth`)."""
    try:
        comps = {c.name: c for c in module.computations()}  # type: ignore[attr-defined]
        entries = [c for name, c in comps.items() if _ENTRY_NAME.match(name)]
        if len(entries) != 1:
            return None
        parameters = 0
        single: object = None
        seen = {entries[0].name}
        stack = [entries[0]]
        while stack:
            comp = stack.pop()
            for inst in comp.instructions():
                kind = inst.opcode.name
                if kind in _BUFFER_COPY_OPCODES:
                    return True
                if comp is entries[0] and kind == "kParameter":
                    parameters += 1
                    if parameters == 1:
                        single = inst
                elif kind in _CALLING_OPCODES:
                    parsed = _parse_instruction(inst.to_string(), comp.name)
                    if parsed is None or not parsed.called:
                        return None
                    for name in parsed.called:
                        callee = comps.get(name)
                        if callee is None:
                            return None
                        if name not in seen:
                            seen.add(name)
                            stack.append(callee)
        if parameters == 1:
            parsed = _parse_instruction(single.to_string(),  # type: ignore[attr-defined]
                                        entries[0].name)
            if parsed is None or parsed.shape.startswith("("):
                return None  # the arguments passed as one tuple: left to read_truth
        return False
    except Exception:
        return None


def copy_free_truth(donated: Iterable[int], aliases: Mapping[int, int]) -> ExecutableTruth:
    """:func:`read_truth`'s answer for a module in which no copy runs on buffers
    (:func:`runs_copies` is ``False``) and whose ``input_output_alias`` is ``aliases``: every
    aliased parameter ``COPY_FREE``, every other donated one ``NOT_DONATED``."""
    alias_map = dict(aliases)
    donors = {p: (DonorTruth(p, Outcome.COPY_FREE, alias_map[p]) if p in alias_map
                  else DonorTruth(p, Outcome.NOT_DONATED, None))
              for p in sorted(set(donated) | set(alias_map))}
    return ExecutableTruth(donors, alias_map, [], [])


class _Attribution:
    """Which donor each copy counts against: the entry's parameters and outputs, each donor's
    buffer (its parameter and its aliased output, with every position sharing them)."""

    def __init__(self, program: _Program, aliases: Mapping[int, int]) -> None:
        self.program = program
        self.aliases = aliases
        entry = program.entry
        params = entry.parameters
        self.tupled = params[0] if len(params) == 1 and 0 in params \
            and params[0].shape.startswith("(") else None
        """The single tuple parameter, when the arguments are passed as one tuple."""
        root = entry.root
        outputs: list[Position] = []
        if root is not None:
            tree = _shape_tree(root.shape)
            outputs = ([(entry.name, root.name, (k,)) for k in range(len(tree))]
                       if tree is not None else [(entry.name, root.name, ())])
        for p, k in aliases.items():
            pos = self._parameter_position(p)
            if pos is not None and k < len(outputs):
                program.union(pos, outputs[k])  # the output is written into p's buffer
        find = program.find
        self.donor_of: dict[Position, int] = {}
        """Buffer (a union-find root) -> the donor whose buffer it is."""
        for p in aliases:
            pos = self._parameter_position(p)
            if pos is not None:
                self.donor_of[find(pos)] = p
        self.output_buffers = {find(pos) for pos in outputs}
        self.returned = {program.source(entry, pos[1], pos[2]) for pos in outputs}
        """The values the outputs return (a buffer an output is written into held others)."""
        self.loops: dict[Position, Position] = {find(pos): pos for pos in program.loop_carries}
        """A loop's carry buffer -> the loop's position."""
        self._sources: dict[str, dict[str, Position]] = {}
        self._users: dict[str, dict[str, list[str]]] = {}
        self.evidence: dict[int, list[CopyEvidence]] = {}

    def _parameter_position(self, p: int) -> Position | None:
        entry = self.program.entry
        if self.tupled is not None:
            return (entry.name, self.tupled.name, (p,))
        inst = entry.parameters.get(p)
        return (entry.name, inst.name, ()) if inst is not None else None

    def _parameter_of(self, where: Position) -> int | None:
        """The entry parameter number whose value ``where`` (a source) is, else ``None``."""
        comp, name, path = where
        entry = self.program.entry
        inst = entry.instructions.get(name) if comp == entry.name else None
        if inst is None or inst.opcode != "parameter":
            return None
        if self.tupled is not None:
            return path[0] if len(path) == 1 else None
        return inst.parameter_number if not path else None

    def _read_after(self, comp: HloComputation, copy: Instruction, src: Position,
                    loop: Position) -> bool:
        """Whether the value ``src`` is read, besides ``copy``, by the loop at ``loop`` or by
        anything scheduled after it (the module is printed in schedule order), or returned.
        A loop inside a ``call`` (XLA:CPU 0.12 wraps small loops in ``call(...),
        to_apply=%while..._computation``) is where that call is."""
        while loop[0] != comp.name:
            caller = self.program.callers.get(loop[0])
            if caller is None or caller.instruction.opcode != "call":
                return True
            loop = (caller.computation, caller.instruction.name, ())
        order = {name: i for i, name in enumerate(comp.instructions)}
        sources = self._sources.get(comp.name)
        if sources is None:
            sources = {n: self.program.source(comp, n) for n in comp.instructions}
            self._sources[comp.name] = sources
        users = self._users.get(comp.name)
        if users is None:
            users = {}
            for inst in comp.instructions.values():
                for o in inst.operands:
                    users.setdefault(o, []).append(inst.name)
            self._users[comp.name] = users
        start = order[loop[1]]
        stack = [u for n, where in sources.items() if where == src for u in users.get(n, ())]
        seen = {copy.name}
        while stack:
            name = stack.pop()
            if name in seen:
                continue
            seen.add(name)
            inst = comp.instructions[name]
            if inst.root or order[name] >= start:
                return True
            if inst.opcode in ("tuple", "bitcast", "get-tuple-element"):
                stack.extend(users.get(name, ()))
        return False

    def _count(self, p: int, c: Instruction, kind: str) -> None:
        entry = c.computation == self.program.entry.name
        self.evidence.setdefault(p, []).append(CopyEvidence(c, kind, entry))

    def attribute(self, comp: HloComputation, c: Instruction) -> str | None:
        """Count the copy ``c`` against the donor whose value it preserves or whose buffer it
        writes; else return why it counts against none."""
        program = self.program
        if comp.name in program.in_loop:
            return "inside a loop"
        dest = program.find((comp.name, c.name, (0,) if c.opcode == "copy-start" else ()))
        src = program.source(comp, c.operands[0])
        p = self._parameter_of(src)
        q = self.donor_of.get(dest)
        if p is not None:
            if p not in self.aliases:
                return "undonated parameter"
            loop = self.loops.get(dest)
            if loop is None or q == p or not self._read_after(comp, c, src, loop):
                self._count(p, c, "parameter")
                return None
            # The first carry of a loop whose buffer is not p's, while p is still read once
            # the loop runs: the loop writes its carry in place, so XLA copies p whatever p's
            # aliasing.
            if q is None:
                return "loop initial value"
            self._count(q, c, "output")
            return None
        src_inst = program.comps[src[0]].instructions.get(src[1])
        if src_inst is not None and src_inst.opcode == "constant":
            return "constant"
        if dest in self.output_buffers and src in self.returned:
            return "returned at several outputs"
        if q is None:
            return "no donated buffer"
        self._count(q, c, "output")
        return None


def executable_truth(compiled: object, donated: Iterable[int]) -> ExecutableTruth:
    """:func:`read_truth` of a JAX ``Compiled`` (``as_text()``) or a jaxlib executable
    (``hlo_modules()[0].to_string()``)."""
    as_text = getattr(compiled, "as_text", None)
    text = (as_text() if callable(as_text)
            else compiled.hlo_modules()[0].to_string())  # type: ignore[attr-defined]
    if not isinstance(text, str):
        raise TypeError(f"{compiled!r} gives no HLO text")
    return read_truth(text, donated)


__all__ = [
    "CopyEvidence",
    "DonorTruth",
    "ExecutableTruth",
    "Instruction",
    "Outcome",
    "UncountedCopy",
    "copy_free_truth",
    "entry_computation",
    "executable_truth",
    "parse_computations",
    "read_truth",
    "runs_copies",
]
