"""What XLA really did with each donated parameter, read from the compiled executable's HLO text.

Input: the text of the compiled module (``compiled.as_text()`` or
``executable.hlo_modules()[0].to_string()``: scheduled, after copy insertion) and the donated
parameter numbers; no JAX import. Output: per donated parameter one :class:`Outcome`:

* ``COPY_FREE``: the parameter's buffer hosts an output (``input_output_alias``) and no copy
  of the entry computation involves that buffer;
* ``COPIED``: it hosts an output, but XLA inserted a copy for it: a copy *of the parameter*
  (its old value is still read after the aliased output overwrites it), or a copy *into the
  aliased output* (the value is computed elsewhere, then copied into the donated buffer);
* ``NOT_DONATED``: the executable does not alias it (PjRt does not invalidate it).

A copy counts only when it keeps its operand's layout (XLA:CPU also writes transposes as
layout-changing copies) and is not one that XLA makes whatever the aliasing: the copy of a
value returned at several outputs, of a constant, or of another parameter returned unchanged
(:func:`copy_insertion.AddSpecialCaseCopies`). Example: the swap ``(a, b) -> (b * 2, a * 3)``
with JAX's pairing ``{0: 0, 1: 1}`` compiles to ``copy(%a)``, ``copy(%b)`` and two copies at
the root: both parameters are ``COPIED``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
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
    the output the parameter's buffer hosts."""


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
        """The copies counted against it, e.g. ``parameter copy %copy.1`` (``""``: none)."""
        return ", ".join(f"{c.kind} copy %{c.instruction.name}" for c in self.copies)

    def describe(self) -> str:
        if self.outcome is Outcome.NOT_DONATED:
            return f"parameter {self.parameter}: not donated"
        text = f"parameter {self.parameter} -> output {self.output}: {self.outcome.value}"
        if self.copies:
            text += " (" + "; ".join(f"{c.kind} copy %{c.instruction.name}"
                                     for c in self.copies) + ")"
        return text


@dataclass
class ExecutableTruth:
    """Every donated parameter's measured outcome, and the executable's alias map."""

    donors: dict[int, DonorTruth]
    aliases: dict[int, int]
    """Parameter number -> output index of every ``input_output_alias`` entry."""
    copies: list[Instruction]
    """Every layout-preserving copy of the entry computation (counted or not)."""

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
_COPY_OPCODES = frozenset({"copy", "copy-start"})
_FORWARDING = frozenset({"bitcast", "copy-done"})


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
    current: list[str] = []
    for c in text:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            items.append("".join(current))
            current = []
        else:
            current.append(c)
    if "".join(current).strip():
        items.append("".join(current))
    return items


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
    end = _balanced(rest, paren)
    operands: list[str] = []
    for item in _split_top(rest[paren + 1:end - 1]):
        om = _NAME.search(item.strip())
        if om is not None:
            operands.append(om.group(1))
    number = None
    if opcode == "parameter":
        pm = _PARAMETER.match(rest)
        number = int(pm.group(1)) if pm else None
        operands = []
    return Instruction(name, shape, opcode, tuple(operands), root, computation, line.strip(),
                       number)


@dataclass
class HloComputation:
    name: str
    entry: bool
    instructions: dict[str, Instruction]
    root: Instruction | None


def parse_computations(text: str) -> list[HloComputation]:
    """The computations of an HLO module's text, with their instructions in print order."""
    out: list[HloComputation] = []
    current: HloComputation | None = None
    for line in text.splitlines():
        if current is None:
            m = _COMPUTATION.match(line)
            if m is not None and not line.startswith("HloModule"):
                current = HloComputation(m.group(2), bool(m.group(1)), {}, None)
            continue
        if line.strip() == "}":
            out.append(current)
            current = None
            continue
        inst = _parse_instruction(line, current.name)
        if inst is not None:
            current.instructions[inst.name] = inst
            if inst.root:
                current.root = inst
    return out


def entry_computation(text: str) -> HloComputation:
    """The ``ENTRY`` computation of an HLO module's text."""
    for comp in parse_computations(text):
        if comp.entry:
            return comp
    raise ValueError("no ENTRY computation in the HLO text")


class _Entry:
    """Source and output facts of the entry computation."""

    def __init__(self, comp: HloComputation) -> None:
        self.comp = comp
        self.insts = comp.instructions
        self.params = {i.parameter_number: i.name for i in self.insts.values()
                       if i.opcode == "parameter" and i.parameter_number is not None}
        self.outputs: dict[str, list[int]] = {}
        """Instruction name -> output indices it (through forwarding ops) fills."""
        root = comp.root
        if root is not None:
            if root.opcode == "tuple":
                for k, name in enumerate(root.operands):
                    self.outputs.setdefault(name, []).append(k)
            else:
                self.outputs.setdefault(root.name, []).append(0)

    def source(self, name: str) -> str:
        """Follow forwarding ops back (``bitcast``, ``copy-done``, a ``get-tuple-element`` of
        a ``tuple``): the instruction that defines the value's buffer."""
        seen: set[str] = set()
        while name in self.insts and name not in seen:
            seen.add(name)
            inst = self.insts[name]
            if inst.opcode in _FORWARDING and inst.operands:
                name = inst.operands[0]
            elif inst.opcode == "get-tuple-element" and inst.operands:
                tup = self.insts.get(inst.operands[0])
                m = _GTE_INDEX.search(inst.text)
                if tup is None or tup.opcode != "tuple" or m is None \
                        or int(m.group(1)) >= len(tup.operands):
                    break
                name = tup.operands[int(m.group(1))]
            else:
                break
        return name

    def parameter_of(self, name: str) -> int | None:
        """The parameter number whose buffer ``name`` (a source) is: a parameter, or a
        ``get-tuple-element`` of the single tupled parameter."""
        inst = self.insts.get(name)
        if inst is None:
            return None
        if inst.opcode == "parameter":
            return inst.parameter_number
        if inst.opcode == "get-tuple-element" and inst.operands and len(self.params) == 1:
            tup = self.insts.get(inst.operands[0])
            m = _GTE_INDEX.search(inst.text)
            if tup is not None and tup.opcode == "parameter" and tup.shape.startswith("(") \
                    and m is not None:
                return int(m.group(1))
        return None

    def fills(self, name: str) -> list[int]:
        """Output indices that ``name``'s value reaches through forwarding ops and tuples."""
        users: dict[str, list[str]] = {}
        for inst in self.insts.values():
            for o in inst.operands:
                users.setdefault(o, []).append(inst.name)
        out: list[int] = []
        stack, seen = [name], {name}
        while stack:
            n = stack.pop()
            out += self.outputs.get(n, [])
            for u in users.get(n, []):
                if u not in seen and self.insts[u].opcode in _FORWARDING and not self.insts[u].root:
                    seen.add(u)
                    stack.append(u)
        return out


def read_truth(hlo_text: str, donated: Iterable[int],
               aliases: Mapping[int, int] | None = None) -> ExecutableTruth:
    """Every donated parameter's :class:`Outcome` in the compiled module ``hlo_text``.

    ``aliases`` (parameter -> output) overrides the header's ``input_output_alias`` (e.g. read
    from the proto with :func:`.hlo_alias.executable_aliases`); parameters the executable
    aliases but ``donated`` does not list are reported too.
    """
    alias_map = dict(aliases) if aliases is not None else aliases_from_hlo_text(hlo_text)
    entry = _Entry(entry_computation(hlo_text))
    insts = entry.insts
    copies = [i for i in insts.values()
              if i.opcode in _COPY_OPCODES and i.operands
              and (src := insts.get(i.operands[0])) is not None and src.layout == i.layout]
    output_to_param = {k: p for p, k in alias_map.items()}
    evidence: dict[int, list[CopyEvidence]] = {}
    for c in copies:
        src = entry.source(c.operands[0])
        p = entry.parameter_of(src)
        src_inst = insts.get(src)
        if p is not None and p in alias_map:
            evidence.setdefault(p, []).append(CopyEvidence(c, "parameter"))
            continue
        if p is not None or (src_inst is not None and src_inst.opcode == "constant"):
            continue  # an undonated parameter or a constant is copied whatever the aliasing
        if len(entry.fills(src)) > 1 or len(entry.fills(c.operands[0])) > 1:
            continue  # a value returned several times is copied whatever the aliasing
        for k in entry.fills(c.name):
            q = output_to_param.get(k)
            if q is not None:
                evidence.setdefault(q, []).append(CopyEvidence(c, "output"))
    donors: dict[int, DonorTruth] = {}
    for p in sorted(set(donated) | set(alias_map)):
        k = alias_map.get(p)
        if k is None:
            donors[p] = DonorTruth(p, Outcome.NOT_DONATED, None)
        else:
            found = evidence.get(p, [])
            donors[p] = DonorTruth(p, Outcome.COPIED if found else Outcome.COPY_FREE, k, found)
    return ExecutableTruth(donors, alias_map, copies)


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
    "entry_computation",
    "executable_truth",
    "parse_computations",
    "read_truth",
]
