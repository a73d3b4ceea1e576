"""Generated programs mixing control flow, transforms and library state machines with donated
arguments, and the check of every per-donor claim the drop-in makes against the executable.

A :class:`Program` is plain data (frozen, JSON-able): typed state slots, a list of
:class:`Block`s each rewriting one or two slots with one construct (``lax.cond``,
``lax.switch``, ``while_loop``, ``fori_loop`` writing ``.at[].set``, ``lax.scan``
accumulating, ``jax.custom_vjp`` and ``jax.checkpoint`` under ``grad``, a nested ``jax.jit``,
``lax.pmean`` inside ``shard_map``), optionally a library optimizer step over a parameter
pytree (``optax.MultiSteps`` or ``optax.apply_if_finite``: ``lax.cond`` state machines inside
optax), the donated argument numbers and the output order. :meth:`Program.source` prints it as
Python (the reproducer a failure reports); :meth:`Program.build` executes that text, so what
runs is what is printed. A sharded program wraps its body in ``jax.shard_map`` over 4 host
devices (its process needs ``XLA_FLAGS=--xla_force_host_platform_device_count=4``).

:func:`check_program` runs one program through ``jax_use_donated.jit`` with one
``region_analysis`` setting and returns a :class:`Finding` per broken claim:

* ``predicted P, measured M``: ``jud.plan(...)``'s prediction for a donated leaf against the
  compiled executable (``CallPlan.disagreements``);
* ``false copy warning``: a ``jud.DonationWarning`` says XLA copies a donor the executable
  does not copy;
* ``numbers differ``: the outputs are not those of plain ``jax.jit`` (no donation);
* ``footprint above jax.jit``: ``memory_analysis()`` footprint (arguments + outputs - aliased
  + temporaries) above ``jax.jit`` with the same donation and XLA options;
* ``footprint above plain jax.jit``: with ``region_analysis`` (single device), above plain
  ``jax.jit`` compiled with XLA's default options (what the user had without the drop-in);
* ``error``: lowering, compiling or running raised.
"""

from __future__ import annotations

import dataclasses
import re
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

TYPES: dict[str, tuple[int, ...]] = {"m": (8, 8), "v": (64,), "s": (8,)}
"""Slot types (all float32): ``m`` and ``v`` have the same byte size, every leading
dimension divides by the 4 devices of a sharded program."""
BLOCKS = ("cond", "switch", "while", "fori_set", "scan_acc", "custom_vjp", "checkpoint_grad",
          "nested_jit")
SHARDED_BLOCKS = (*BLOCKS, "pmean")
LIBRARIES = ("multisteps", "apply_if_finite")
SWAPPABLE = frozenset({"cond", "while", "scan_acc", "nested_jit"})
DEVICES = 4
REGION_OPTION = "xla_cpu_copy_insertion_use_region_analysis"


@dataclass(frozen=True)
class Block:
    """``kind`` rewrites slot ``a`` reading slot ``b`` (and rewrites ``b`` too where the
    construct carries both); ``swap``: the construct exchanges the two (same type) inside."""

    kind: str
    a: int
    b: int
    swap: bool = False


@dataclass(frozen=True)
class Program:
    slots: tuple[str, ...]
    """Type key (:data:`TYPES`) per state slot; each slot is one positional argument."""
    blocks: tuple[Block, ...]
    donate: tuple[int, ...]
    """Donated positional arguments."""
    order: tuple[int, ...]
    """Output order: a permutation of the output values (slots, then ``aux`` if any, then
    ``params`` and ``opt_state`` if a library step)."""
    library: str | None = None
    lib_at: int = 0
    """Where ``params, opt_state`` sit among the positional arguments."""
    aux: bool = True
    """A scalar output (a loss) after the slots."""
    sharded: bool = False
    seed: int = 0

    # ------------------------------------------------------------------------- layout
    @property
    def arg_names(self) -> list[str]:
        names = [f"s{i}" for i in range(len(self.slots))]
        if self.library:
            names[self.lib_at:self.lib_at] = ["params", "opt_state"]
        return names

    @property
    def value_names(self) -> list[str]:
        names = [f"s{i}" for i in range(len(self.slots))]
        if self.aux:
            names.append("aux")
        if self.library:
            names += ["params", "opt_state"]
        return names

    def describe(self) -> str:
        kinds = ", ".join(b.kind + ("(swap)" if b.swap else "") for b in self.blocks)
        return (f"[{kinds}]" + (f" + {self.library}" if self.library else "")
                + (" in shard_map" if self.sharded else "")
                + f", donate {self.donate}, outputs {self.output_names()}")

    def output_names(self) -> list[str]:
        values = self.value_names
        return [values[i] for i in self.order]

    # ------------------------------------------------------------------------- source
    def source(self) -> str:
        """The program as Python: helpers, then ``step`` (the function jitted with
        ``donate_argnums=donate``)."""
        lines = ["import jax, jax.numpy as jnp, optax",
                 "from jax import lax",
                 "def _as(y, shape):  # y itself when it has that shape, else its mean",
                 "    return y if y.shape == tuple(shape) else jnp.broadcast_to(jnp.mean(y), "
                 "shape)"]
        kinds = {b.kind for b in self.blocks}
        if "custom_vjp" in kinds:
            lines += ["@jax.custom_vjp",
                      "def _cvjp(x, y): return x * jnp.sin(y)",
                      "_cvjp.defvjp(lambda x, y: (x * jnp.sin(y), (x, y)),",
                      "             lambda r, g: (g * jnp.sin(r[1]), g * r[0] * jnp.cos(r[1])))"]
        if "nested_jit" in kinds:
            lines += ["_inner = jax.jit(lambda x, y: (x + _as(y, x.shape), y * 2.0))",
                      "_inner_swap = jax.jit(lambda x, y: (y * 2.0, x + 1.0))",
                      "_inner_one = jax.jit(lambda x: x * 3.0)"]
        if self.library == "multisteps":
            lines.append("_TX = optax.MultiSteps(optax.adam(1e-2), every_k_schedule=2)")
        elif self.library == "apply_if_finite":
            lines.append("_TX = optax.apply_if_finite(optax.sgd(0.1, momentum=0.9), 3)")
        body = "step" if not self.sharded else "_body"
        lines.append(f"def {body}({', '.join(self.arg_names)}):")
        for block in self.blocks:
            lines += ["    " + line for line in _block_lines(block, self.slots)]
        n = len(self.slots)
        if self.aux:
            total = " + ".join(f"jnp.sum(s{i})" for i in range(n))
            lines.append(f"    aux = {total}")
        if self.library:
            lines += [
                "    def _loss(p, f): return jnp.mean((jnp.tanh(f) @ p['w'] + p['b']) ** 2)",
                "    loss, grads = jax.value_and_grad(_loss)(params, _as(s0, (8, 8)))"]
            if self.sharded:
                lines.append("    grads = jax.tree.map(lambda g: lax.pmean(g, 'x'), grads)")
            lines += ["    updates, opt_state = _TX.update(grads, opt_state, params)",
                      "    params = optax.apply_updates(params, updates)"]
            if self.aux:
                lines.append("    aux = aux + loss")
        if self.aux and self.sharded:
            lines.append("    aux = lax.pmean(aux, 'x')")
        lines.append(f"    return ({', '.join(self.output_names())},)")
        if self.sharded:
            spec = {**{f"s{i}": "P('x')" for i in range(n)}, "aux": "P()", "params": "P()",
                    "opt_state": "P()"}
            lines += ["from jax.sharding import PartitionSpec as P",
                      f"_MESH = jax.make_mesh(({DEVICES},), ('x',))",
                      "step = jax.shard_map(_body, mesh=_MESH, in_specs=("
                      + ", ".join(spec[a] for a in self.arg_names) + ",), out_specs=("
                      + ", ".join(spec[v] for v in self.output_names()) + ",))"]
        return "\n".join(lines) + "\n"

    def build(self) -> dict[str, Any]:
        """Execute :meth:`source`: its namespace (``step``, ``_TX``, ``_MESH``)."""
        namespace: dict[str, Any] = {}
        exec(compile(self.source(), f"<program {self.seed}>", "exec"), namespace)
        return namespace

    def make_args(self, namespace: dict[str, Any]) -> tuple[Any, ...]:
        """Fresh arguments, deterministic in ``seed`` (placed on the mesh when sharded)."""
        import jax
        import jax.numpy as jnp

        rng = np.random.default_rng(self.seed)
        slots = [jnp.asarray(rng.uniform(-1.0, 1.0, TYPES[t]).astype(np.float32))
                 for t in self.slots]
        lib: list[Any] = []
        if self.library:
            params = {"w": jnp.asarray(rng.uniform(-0.5, 0.5, (8, 8)).astype(np.float32)),
                      "b": jnp.asarray(rng.uniform(-0.5, 0.5, (8,)).astype(np.float32))}
            lib = [params, namespace["_TX"].init(params)]
        if self.sharded:
            from jax.sharding import NamedSharding
            from jax.sharding import PartitionSpec as P

            mesh = namespace["_MESH"]
            slots = [jax.device_put(s, NamedSharding(mesh, P("x"))) for s in slots]
            lib = [jax.device_put(x, NamedSharding(mesh, P())) for x in lib]
        args: list[Any] = list(slots)
        args[self.lib_at:self.lib_at] = lib
        return tuple(args)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @staticmethod
    def from_json(data: dict[str, Any]) -> Program:
        blocks = tuple(Block(**b) for b in data["blocks"])
        fields = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
        return Program(**{**fields, "blocks": blocks})


def _block_lines(block: Block, slots: tuple[str, ...]) -> list[str]:
    x, y = f"s{block.a}", f"s{block.b}"
    one = block.a == block.b
    swap = block.swap and not one and slots[block.a] == slots[block.b]
    k = block.kind
    if k == "cond":
        if one:
            return [f"{x} = lax.cond(jnp.sum({x}) > 0, lambda x: x * 2.0 + 1.0, "
                    f"lambda x: x * 0.5, {x})"]
        true = "(y * 2.0, x + 1.0)" if swap else "(x * 2.0 + 1.0, y - 1.0)"
        return [f"{x}, {y} = lax.cond(jnp.sum({y}) > 0, lambda x, y: {true}, "
                f"lambda x, y: (x - _as(y, x.shape), y * 0.5), {x}, {y})"]
    if k == "switch":
        if one:
            return [f"{x} = lax.switch(jnp.clip(jnp.sum({x}).astype(jnp.int32), 0, 2), "
                    "[lambda x: x + 1.0, lambda x: x * x, lambda x: jnp.sin(x)], " f"{x})"]
        return [f"{x}, {y} = lax.switch(jnp.clip((jnp.sum({y}) > 0).astype(jnp.int32) + "
                f"(jnp.sum({x}) > 1).astype(jnp.int32), 0, 2), "
                "[lambda x, y: (x + 1.0, y), lambda x, y: (x * _as(y, x.shape), y + 1.0), "
                f"lambda x, y: (jnp.sin(x), y * 2.0)], {x}, {y})"]
    if k == "while":
        if one:
            return [f"_, {x} = lax.while_loop(lambda c: c[0] < 3, "
                    f"lambda c: (c[0] + 1, c[1] * 0.9 + 0.1), (0, {x}))"]
        body = ("(c[0] + 1, c[2] * 1.1, c[1] * 0.9)" if swap
                else "(c[0] + 1, c[1] * 0.9 + _as(c[2], c[1].shape), c[2] * 1.1)")
        return [f"_, {x}, {y} = lax.while_loop(lambda c: c[0] < 3, lambda c: {body}, "
                f"(0, {x}, {y}))"]
    if k == "fori_set":
        value = ("c[(i + 1) % c.shape[0]] * 0.5" if one
                 else f"_as({y}, c.shape[1:]) * i")
        return [f"{x} = lax.fori_loop(0, 4, lambda i, c: c.at[i % c.shape[0]].set({value}), "
                f"{x})"]
    if k == "scan_acc":
        if one:
            return [f"{x}, _ = lax.scan(lambda c, t: (c * 0.5 + t, jnp.sum(c)), {x}, "
                    f"jnp.stack([{x} * 1.0, {x} * 2.0]))"]
        xs = f"jnp.stack([_as({y}, {x}.shape) * k for k in (1.0, 2.0, 3.0)])"
        if swap:
            return [f"({x}, {y}), _ = lax.scan(lambda c, t: ((c[1] + t * 0.5, c[0]), "
                    f"jnp.sum(c[0])), ({x}, {y}), {xs})"]
        return [f"{x}, _ys = lax.scan(lambda c, t: (c + t * 0.5, jnp.sum(c)), {x}, {xs})",
                f"{y} = {y} + jnp.sum(_ys)"]
    if k == "custom_vjp":
        return [f"{x} = {x} - 0.1 * jax.grad(lambda x: jnp.sum(_cvjp(x, _as({y}, x.shape))))"
                f"({x})"]
    if k == "checkpoint_grad":
        return [f"{x} = {x} - 0.1 * jax.grad(lambda x: jnp.sum(jax.checkpoint("
                f"lambda x, y: jnp.tanh(x) * y)(x, _as({y}, x.shape))))({x})"]
    if k == "nested_jit":
        if one:
            return [f"{x} = _inner_one({x})"]
        return [f"{x}, {y} = {'_inner_swap' if swap else '_inner'}({x}, {y})"]
    if k == "pmean":
        return [f"{x} = {x} + lax.pmean(_as({y}, {x}.shape), 'x')"]
    raise ValueError(k)


# ----------------------------------------------------------------------------- generation

def random_program(seed: int, sharded: bool = False) -> Program:
    """A program drawn from ``seed`` (numpy's generator: the same seed, the same program)."""
    rng = np.random.default_rng(seed)
    slots = tuple(str(rng.choice(list(TYPES))) for _ in range(int(rng.integers(2, 5))))
    kinds = SHARDED_BLOCKS if sharded else BLOCKS
    blocks = []
    for _ in range(int(rng.integers(1, 5))):
        kind = str(rng.choice(kinds))
        a, b = int(rng.integers(len(slots))), int(rng.integers(len(slots)))
        swap = kind in SWAPPABLE and a != b and slots[a] == slots[b] and bool(rng.random() < .6)
        blocks.append(Block(kind, a, b, swap))
    draw = rng.random()
    library = None if draw < 0.6 else LIBRARIES[int(draw >= 0.8)]
    lib_at = int(rng.integers(len(slots) + 1))
    aux = bool(rng.random() < 0.7)
    nargs = len(slots) + (2 if library else 0)
    donate = tuple(i for i in range(nargs) if rng.random() < 0.6) or (int(rng.integers(nargs)),)
    nvalues = len(slots) + aux + (2 if library else 0)
    order = tuple(int(i) for i in rng.permutation(nvalues))
    return Program(slots, tuple(blocks), donate, order, library, lib_at, aux, sharded, seed)


def random_programs(count: int, seed: int, sharded: bool = False) -> Iterator[Program]:
    for i in range(count):
        yield random_program(seed * 100_003 + i + (50_000 if sharded else 0), sharded)


# --------------------------------------------------------------------------------- checks

@dataclass(frozen=True)
class Finding:
    """One broken claim."""

    kind: str
    region_analysis: bool
    detail: str


@dataclass
class CheckResult:
    """One program under one setting."""

    program: Program
    region_analysis: bool
    donors: int
    findings: list[Finding] = field(default_factory=list)
    seconds: float = 0.0
    footprints: dict[str, int] = field(default_factory=dict)
    """``drop-in``, ``jax.jit`` (same XLA options), ``jax.jit default``."""


_ARG = re.compile(r"\(%arg(\d+):")


def footprint(compiled: Any) -> int:
    """Bytes: arguments + outputs - aliased + temporaries (``memory_analysis()``)."""
    m = compiled.memory_analysis()
    return int(m.argument_size_in_bytes + m.output_size_in_bytes - m.alias_size_in_bytes
               + m.temp_size_in_bytes)


def _close(a: Any, b: Any) -> bool:
    import jax

    la, lb = jax.tree.leaves(a), jax.tree.leaves(b)
    return len(la) == len(lb) and all(
        np.allclose(np.asarray(x), np.asarray(y), rtol=1e-4, atol=1e-5, equal_nan=True)
        for x, y in zip(la, lb, strict=True))


def check_program(program: Program, region_analysis: bool) -> CheckResult:
    """Every claim of ``jud.jit(step, donate_argnums=..., region_analysis=...)`` on
    ``program`` against the executable (see the module docstring)."""
    import jax

    import jax_use_donated as jud

    t0 = time.perf_counter()
    outcome = CheckResult(program, region_analysis, 0)

    def found(kind: str, detail: str) -> None:
        outcome.findings.append(Finding(kind, region_analysis, detail))

    try:
        namespace = program.build()
        step = namespace["step"]
        ours = jud.jit(step, donate_argnums=program.donate, region_analysis=region_analysis)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            plan = ours.plan(*program.make_args(namespace))
        outcome.donors = len(plan.donations)
        for x in plan.disagreements:
            found(f"predicted {x.predicted}, measured {x.measured}",
                  f"{x.path} ({x.status}){': ' + x.evidence if x.evidence else ''}")
        measured = {x.parameter: x.measured for x in plan.donations}
        for w in caught:
            text = str(w.message)
            m = _ARG.search(text)
            if (issubclass(w.category, jud.DonationWarning) and m is not None
                    and "XLA inserts a copy" in text
                    and measured.get(int(m.group(1))) != "copied"):
                found("false copy warning",
                      f"%arg{m.group(1)} measured {measured.get(int(m.group(1)))}: {text}")
        out = ours(*program.make_args(namespace))
        reference = jax.jit(step)(*program.make_args(namespace))
        if not _close(out, reference):
            found("numbers differ", "outputs differ from jax.jit without donation")
        args = program.make_args(namespace)
        ours_fp = footprint(ours.lower(*args).compile())
        options: dict[str, str | bool] = (
            {REGION_OPTION: True} if region_analysis and not program.sharded else {})
        theirs = jax.jit(step, donate_argnums=program.donate).lower(*args)
        same_fp = footprint(theirs.compile(compiler_options=options or None))
        default_fp = footprint(theirs.compile()) if options else same_fp
        outcome.footprints = {"drop-in": ours_fp, "jax.jit": same_fp,
                              "jax.jit default": default_fp}
        if ours_fp > same_fp:
            found("footprint above jax.jit",
                  f"{ours_fp} B > {same_fp} B (jax.jit, XLA options {options or 'default'})")
        if options and ours_fp > default_fp:
            found("footprint above plain jax.jit",
                  f"{ours_fp} B > {default_fp} B (jax.jit with XLA's default options)")
    except Exception as err:  # the campaign records crashes as findings
        found(f"error: {type(err).__name__}", str(err).splitlines()[0][:300])
    outcome.seconds = time.perf_counter() - t0
    return outcome


# ------------------------------------------------------------------------------ shrinking

def _without_slot(program: Program, slot: int) -> Program | None:
    """``program`` without state slot ``slot`` (blocks on it dropped, indices shifted)."""
    if len(program.slots) <= 1:
        return None
    def shift(i: int) -> int:
        return i - (i > slot)
    blocks = tuple(Block(b.kind, shift(b.a), shift(b.b), b.swap) for b in program.blocks
                   if slot not in (b.a, b.b))
    names = program.arg_names
    arg = names.index(f"s{slot}")
    donate = tuple(d - (d > arg) for d in program.donate if d != arg)
    values = program.value_names
    value = values.index(f"s{slot}")
    order = tuple(o - (o > value) for o in program.order if o != value)
    lib_at = program.lib_at - (program.library is not None and slot < program.lib_at)
    slots = program.slots[:slot] + program.slots[slot + 1:]
    if not donate:
        return None
    return dataclasses.replace(program, slots=slots, blocks=blocks, donate=donate, order=order,
                               lib_at=max(lib_at, 0))


def _without_library(program: Program) -> Program | None:
    if program.library is None:
        return None
    at = program.lib_at
    donate = tuple(d - 2 * (d > at) for d in program.donate if d not in (at, at + 1))
    first = len(program.slots) + program.aux
    order = tuple(o for o in program.order if o < first)
    if not donate:
        return None
    return dataclasses.replace(program, library=None, lib_at=0, donate=donate, order=order)


def _without_aux(program: Program) -> Program | None:
    if not program.aux:
        return None
    aux = len(program.slots)
    order = tuple(o - (o > aux) for o in program.order if o != aux)
    return dataclasses.replace(program, aux=False, order=order)


def smaller(program: Program) -> Iterator[Program]:
    """Candidates one step simpler than ``program``, simplest-first."""
    if (p := _without_library(program)) is not None:
        yield p
    for i in range(len(program.blocks)):
        yield dataclasses.replace(program, blocks=program.blocks[:i] + program.blocks[i + 1:])
    for i in range(len(program.slots)):
        if (p := _without_slot(program, i)) is not None:
            yield p
    if (p := _without_aux(program)) is not None:
        yield p
    for d in program.donate:
        if len(program.donate) > 1:
            yield dataclasses.replace(program, donate=tuple(x for x in program.donate if x != d))
    identity = tuple(range(len(program.order)))
    if program.order != identity:
        yield dataclasses.replace(program, order=identity)
    for i, b in enumerate(program.blocks):
        if b.swap:
            plain = dataclasses.replace(b, swap=False)
            yield dataclasses.replace(
                program, blocks=(*program.blocks[:i], plain, *program.blocks[i + 1:]))


def shrink(program: Program, kind: str, region_analysis: bool,
           check: Callable[[Program, bool], CheckResult] = check_program,
           budget: int = 60) -> tuple[Program, Finding]:
    """Greedily the smallest program that still shows a finding of ``kind`` under this
    setting (at most ``budget`` checks), with that finding."""
    best = check(program, region_analysis)
    finding = next(f for f in best.findings if f.kind == kind)
    tries = 0
    improved = True
    while improved and tries < budget:
        improved = False
        for candidate in smaller(program):
            tries += 1
            result = check(candidate, region_analysis)
            hit = next((f for f in result.findings if f.kind == kind), None)
            if hit is not None:
                program, finding, improved = candidate, hit, True
                break
            if tries >= budget:
                break
    return program, finding
