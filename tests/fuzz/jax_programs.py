"""Hypothesis strategies for random JAX programs with donated arguments.

A :class:`ProgramSpec` is plain data (hashable, printable, shrinkable): the input types, how the
inputs are grouped into pytree arguments, a list of :class:`Step`s and the output pytree. Its
:meth:`ProgramSpec.build` turns it into a Python function; :meth:`ProgramSpec.make_args` makes
fresh device arrays (donated buffers are invalidated by a call, so every call needs new ones).

Shapes and dtypes are chosen to collide: ``(4, 4)``, ``(16,)`` and ``(2, 8)`` have the same
element count, ``float32`` and ``int32`` the same byte size, so JAX's greedy pairing, XLA's
size-only ``jax.buffer_donor`` matching and the liveness-aware plan all have choices to make.

Ops: elementwise chains, nested ``jax.jit`` calls, ``dot_general``, reductions, transposes, reshapes, converts,
``dynamic_update_slice``, scatter, ``fori_loop`` / ``while_loop`` / ``scan`` carries (with
permuted carries, the classic swap), ``cond`` and ``select``. Every op is bitwise deterministic on
XLA:CPU except float ``dot_general`` and reductions (``ProgramSpec.exact`` says which).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import strategies as st
from jax import lax

SHAPES: tuple[tuple[int, ...], ...] = ((4,), (2, 2), (4, 4), (16,), (2, 8))
DTYPES: tuple[str, ...] = ("float32", "int32", "float16")
FLOAT_DTYPES = frozenset({"float32", "float16"})


@dataclass(frozen=True)
class TypeSpec:
    shape: tuple[int, ...]
    dtype: str

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __repr__(self) -> str:
        return f"{self.dtype}{list(self.shape)}"


@dataclass(frozen=True)
class Step:
    """One op: ``kind`` applied to env values ``args``; ``param`` is kind-specific data;
    ``out`` are the types of the values it appends to the env."""

    kind: str
    args: tuple[int, ...]
    param: Any
    out: tuple[TypeSpec, ...]


# The output pytree: ("leaf", value index) | ("tuple", children) | ("list", children)
# | ("dict", ((key, child), ...)).
Tree = tuple[Any, ...]


@dataclass(frozen=True)
class ProgramSpec:
    inputs: tuple[TypeSpec, ...]
    arg_groups: tuple[tuple[str, tuple[int, ...]], ...]
    """Top-level positional arguments: ``("leaf", (i,))``, ``("tuple", (i, j))`` or
    ``("dict", (i, j))`` over input indices (each input appears exactly once)."""
    steps: tuple[Step, ...]
    output: Tree
    donate_argnums: tuple[int, ...]
    seed: int
    shardings: tuple[str, ...] | None = None
    """Per input, on a 4-device mesh ``("x",)``: ``"rep"`` (replicated), ``"x0"`` / ``"x1"``
    (dimension 0 / 1 split over ``x``); ``None`` for single-device programs."""

    # ----------------------------------------------------------------------- structure
    @property
    def exact(self) -> bool:
        """Whether every op is bitwise deterministic (no float dot or reduction)."""
        for step in self.steps:
            if step.kind in ("dot", "reduce_center", "scan") and \
                    step.out[0].dtype in FLOAT_DTYPES:
                return False
        return True

    def leaf_order(self) -> list[int]:
        """Input indices in the order ``jax.tree.leaves(args)`` lists them (dict keys sort)."""
        order: list[int] = []
        for _, members in self.arg_groups:
            order.extend(members)
        return order

    def donated_inputs(self) -> set[int]:
        donated: set[int] = set()
        for a in self.donate_argnums:
            donated.update(self.arg_groups[a][1])
        return donated

    def describe(self) -> str:
        lines = [f"inputs: {list(self.inputs)}", f"args: {list(self.arg_groups)}",
                 f"donate_argnums: {self.donate_argnums}", f"shardings: {self.shardings}"]
        n = len(self.inputs)
        for step in self.steps:
            outs = ", ".join(f"v{n + i}: {t}" for i, t in enumerate(step.out))
            lines.append(f"  {outs} = {step.kind}{step.param!r}"
                         f"({', '.join(f'v{a}' for a in step.args)})")
            n += len(step.out)
        lines.append(f"output: {self.output}")
        return "\n".join(lines)

    # ------------------------------------------------------------------------ building
    def make_args(self) -> tuple[Any, ...]:
        """Fresh device arrays for one call, deterministic in ``seed``."""
        rng = np.random.default_rng(self.seed)
        leaves = []
        for i, t in enumerate(self.inputs):
            if t.dtype == "int32":
                host = rng.integers(-5, 6, size=t.shape).astype(np.int32)
            else:
                host = rng.uniform(-2.0, 2.0, size=t.shape).astype(t.dtype)
            leaves.append(jax.device_put(host, self._sharding(i)))
        return self._group(leaves)

    def _sharding(self, i: int) -> Any:
        if self.shardings is None:
            return None
        from jax.sharding import Mesh, NamedSharding, PartitionSpec

        mesh = Mesh(np.array(jax.devices()[:4]), ("x",))
        kind = self.shardings[i]
        spec = PartitionSpec() if kind == "rep" else \
            PartitionSpec("x") if kind == "x0" else PartitionSpec(None, "x")
        return NamedSharding(mesh, spec)

    def _group(self, leaves: Sequence[Any]) -> tuple[Any, ...]:
        args: list[Any] = []
        for kind, members in self.arg_groups:
            if kind == "leaf":
                args.append(leaves[members[0]])
            elif kind == "tuple":
                args.append(tuple(leaves[m] for m in members))
            else:
                args.append({f"k{j}": leaves[m] for j, m in enumerate(members)})
        return tuple(args)

    def build(self) -> Callable[..., Any]:
        """A fresh Python function computing the program (a new object on every call, so
        ``jax.jit`` caches never mix two wrappers)."""
        spec = self

        def program(*args: Any) -> Any:
            flat: list[Any] = [None] * len(spec.inputs)
            for (kind, members), arg in zip(spec.arg_groups, args, strict=True):
                if kind == "leaf":
                    flat[members[0]] = arg
                elif kind == "tuple":
                    for m, x in zip(members, arg, strict=True):
                        flat[m] = x
                else:
                    for j, m in enumerate(members):
                        flat[m] = arg[f"k{j}"]
            env = list(flat)
            for step in spec.steps:
                env.extend(apply_step(step, env))
            return _tree(spec.output, env)

        return program


def _tree(node: Tree, env: list[Any]) -> Any:
    kind = node[0]
    if kind == "leaf":
        return env[node[1]]
    if kind == "tuple":
        return tuple(_tree(c, env) for c in node[1])
    if kind == "list":
        return [_tree(c, env) for c in node[1]]
    return {k: _tree(c, env) for k, c in node[1]}


def tree_values(node: Tree) -> list[int]:
    """Env indices of the output leaves, in ``jax.tree.leaves`` order."""
    kind = node[0]
    if kind == "leaf":
        return [node[1]]
    children = node[1] if kind != "dict" else [c for _, c in sorted(node[1])]
    out: list[int] = []
    for c in children:
        out.extend(tree_values(c))
    return out


# ------------------------------------------------------------------------------ ops
def _unary(name: str, x: Any) -> Any:
    if name == "neg":
        return -x
    if name == "abs":
        return jnp.abs(x)
    if name == "square":
        return x * x
    return x + jnp.asarray(1, x.dtype)


def _binary(name: str, x: Any, y: Any) -> Any:
    if name == "add":
        return x + y
    if name == "sub":
        return x - y
    if name == "mul":
        return x * y
    if name == "max":
        return jnp.maximum(x, y)
    return jnp.minimum(x, y)


def _nested(name: str) -> Callable[[Any, Any], tuple[Any, Any]]:
    """A nested ``jax.jit`` (lowered to ``func.call @inner``) returning a new value and one
    argument unchanged (a call that forwards its operand)."""

    @jax.jit
    def inner(u: Any, v: Any) -> tuple[Any, Any]:
        return _binary(name, u, v), v

    return inner


def apply_step(step: Step, env: list[Any]) -> list[Any]:
    a = [env[i] for i in step.args]
    p = step.param
    k = step.kind
    if k == "unary":
        return [_unary(p, a[0])]
    if k == "binary":
        return [_binary(p, a[0], a[1])]
    if k == "call":
        return list(_nested(p)(a[0], a[1]))
    if k == "select":
        return [jnp.where(a[0] > a[1], a[0], a[1])]
    if k == "convert":
        return [a[0].astype(p)]
    if k == "reshape":
        return [a[0].reshape(p)]
    if k == "transpose":
        return [a[0].T]
    if k == "dot":
        x = a[0]
        return [x @ x.T if p == "xxt" else x.T @ x]
    if k == "reduce_center":
        x = a[0]
        return [x - jnp.sum(x, axis=0, keepdims=True).astype(x.dtype)]
    if k == "dus":
        x, y = a
        size = tuple(max(1, d // 2) for d in x.shape)
        start = tuple(p for _ in x.shape)
        upd = lax.dynamic_slice(y, tuple(0 for _ in y.shape), size)
        return [lax.dynamic_update_slice(x, upd, start)]
    if k == "scatter":
        x, y = a
        idx = jnp.array(p, dtype=jnp.int32)
        return [x.at[idx].add(y[: len(p)])]
    if k in ("fori", "while"):
        trips, ops = p
        n = len(a)

        def body(carry: tuple[Any, ...]) -> tuple[Any, ...]:
            return tuple(_binary(name, carry[i], carry[j]) if name != "keep" else carry[i]
                         for name, i, j in ops)

        if k == "fori":
            return list(lax.fori_loop(0, trips, lambda _, c: body(c), tuple(a)))

        def cond_fn(state: tuple[Any, ...]) -> Any:
            return state[0] < trips

        def body_fn(state: tuple[Any, ...]) -> tuple[Any, ...]:
            return (state[0] + 1, *body(state[1:]))

        out = lax.while_loop(cond_fn, body_fn, (jnp.int32(0), *a))
        assert len(out) == n + 1
        return list(out[1:])
    if k == "scan":
        carry, xs = a
        reverse = bool(p)

        def scan_body(c: Any, x: Any) -> tuple[Any, Any]:
            return c + x, c * x

        c, ys = lax.scan(scan_body, carry, xs, reverse=reverse)
        return [c, ys]
    if k == "cond":
        pred_src, x, y = a
        pred = jnp.sum(pred_src.astype(jnp.float32)) > 0
        if p == "swap":
            return list(lax.cond(pred, lambda u, v: (v, u), lambda u, v: (u + v, v), x, y))
        return list(lax.cond(pred, lambda u, v: (u * v, u), lambda u, v: (u, v - u), x, y))
    raise AssertionError(f"unknown step kind {k}")


# ------------------------------------------------------------------------- strategies
types = st.builds(TypeSpec, st.sampled_from(SHAPES), st.sampled_from(DTYPES))


def _same(env: list[TypeSpec], t: TypeSpec) -> list[int]:
    return [i for i, u in enumerate(env) if u == t]


@st.composite
def steps_strategy(draw: st.DrawFn, env: list[TypeSpec]) -> Step | None:
    """One step over ``env`` (the types defined so far); ``None`` when the drawn kind does
    not fit the env."""
    kind = draw(st.sampled_from((
        "unary", "binary", "binary", "select", "convert", "reshape", "transpose", "dot",
        "reduce_center", "dus", "scatter", "fori", "while", "scan", "cond", "call")))
    x = draw(st.integers(0, len(env) - 1))
    t = env[x]
    if kind == "unary":
        return Step(kind, (x,), draw(st.sampled_from(("neg", "abs", "square", "inc"))), (t,))
    if kind == "call":
        y = draw(st.sampled_from(_same(env, t)))
        return Step(kind, (x, y), draw(st.sampled_from(("add", "mul", "max"))), (t, t))
    if kind in ("binary", "select"):
        y = draw(st.sampled_from(_same(env, t)))
        op = draw(st.sampled_from(("add", "sub", "mul", "max", "min"))) if kind == "binary" \
            else None
        return Step(kind, (x, y), op, (t,))
    if kind == "convert":
        dtype = draw(st.sampled_from([d for d in DTYPES if d != t.dtype]))
        return Step(kind, (x,), dtype, (TypeSpec(t.shape, dtype),))
    if kind == "reshape":
        shapes = [s for s in SHAPES if s != t.shape and int(np.prod(s)) == t.size]
        if not shapes:
            return None
        shape = draw(st.sampled_from(shapes))
        return Step(kind, (x,), shape, (TypeSpec(shape, t.dtype),))
    if kind == "transpose":
        if len(t.shape) != 2:
            return None
        return Step(kind, (x,), None, (TypeSpec(t.shape[::-1], t.dtype),))
    if kind == "dot":
        if len(t.shape) != 2 or t.dtype == "float16":
            return None
        form = draw(st.sampled_from(("xxt", "xtx")))
        n = t.shape[0] if form == "xxt" else t.shape[1]
        return Step(kind, (x,), form, (TypeSpec((n, n), t.dtype),))
    if kind == "reduce_center":
        return Step(kind, (x,), None, (t,))
    if kind in ("dus", "scatter"):
        y = draw(st.sampled_from(_same(env, t)))
        if kind == "dus":
            return Step(kind, (x, y), draw(st.integers(0, 3)), (t,))
        rows = t.shape[0]
        idx = tuple(draw(st.lists(st.integers(0, rows - 1), min_size=1, max_size=min(rows, 3))))
        return Step(kind, (x, y), idx, (t,))
    if kind in ("fori", "while"):
        carry = [x, *draw(st.lists(st.integers(0, len(env) - 1), max_size=2))]
        ctypes = [env[c] for c in carry]
        ops = []
        for i, ct in enumerate(ctypes):
            peers = [j for j, u in enumerate(ctypes) if u == ct]
            name = draw(st.sampled_from(("keep", "add", "mul", "sub", "max")))
            # "keep" of a peer is how a loop swaps or rotates its carries
            src = draw(st.sampled_from(peers))
            other = draw(st.sampled_from(peers))
            ops.append((name, src if name == "keep" else i, other) if name != "keep"
                       else ("keep", src, src))
        trips = draw(st.integers(1, 3))
        return Step(kind, tuple(carry), (trips, tuple(ops)), tuple(ctypes))
    if kind == "scan":
        if len(t.shape) != 2:
            return None
        row = TypeSpec(t.shape[1:], t.dtype)
        carries = _same(env, row)
        if not carries:
            return None
        c = draw(st.sampled_from(carries))
        return Step(kind, (c, x), draw(st.booleans()), (row, t))
    if kind == "cond":
        y = draw(st.sampled_from(_same(env, t)))
        pred = draw(st.integers(0, len(env) - 1))
        return Step(kind, (pred, x, y), draw(st.sampled_from(("swap", "mix"))), (t, t))
    raise AssertionError(kind)


@st.composite
def output_tree(draw: st.DrawFn, leaves: list[int]) -> Tree:
    """A random pytree over ``leaves`` (in that order)."""
    if len(leaves) == 1 and draw(st.booleans()):
        return ("leaf", leaves[0])
    kind = draw(st.sampled_from(("tuple", "list", "dict")))
    children: list[Tree] = []
    i = 0
    while i < len(leaves):
        take = draw(st.integers(1, len(leaves) - i))
        chunk = leaves[i:i + take]
        if take == 1 or len(leaves) == take:
            children.extend(("leaf", v) for v in chunk)
        else:
            children.append(draw(output_tree(chunk)))
        i += take
    if kind == "dict":
        # keys sort in the order drawn, so leaves keep their order
        return ("dict", tuple((f"o{j:02d}", c) for j, c in enumerate(children)))
    return (kind, tuple(children))


@st.composite
def programs(draw: st.DrawFn, max_inputs: int = 5, max_steps: int = 8,
             input_types: st.SearchStrategy[TypeSpec] = types) -> ProgramSpec:
    """A random :class:`ProgramSpec` (see the module docstring)."""
    n_in = draw(st.integers(1, max_inputs))
    first = draw(input_types)
    inputs = [first]
    for _ in range(n_in - 1):
        # repeat an earlier type half of the time: donors need same-typed rivals
        inputs.append(draw(st.one_of(st.sampled_from(inputs), input_types)))
    env = list(inputs)
    steps: list[Step] = []
    for _ in range(draw(st.integers(0, max_steps))):
        step = draw(steps_strategy(env))
        if step is not None:
            steps.append(step)
            env.extend(step.out)
    # outputs: a random selection (with repeats and inputs returned unchanged), random order
    n_out = draw(st.integers(1, 5))
    candidates = list(range(len(env)))
    late = candidates[len(inputs):] or candidates
    outs = [draw(st.sampled_from(late if draw(st.integers(0, 3)) else candidates))
            for _ in range(n_out)]
    output = draw(output_tree(outs))
    order = draw(st.permutations(list(range(n_in))))
    groups: list[tuple[str, tuple[int, ...]]] = []
    i = 0
    while i < n_in:
        kind = draw(st.sampled_from(("leaf", "leaf", "tuple", "dict")))
        size = 1 if kind == "leaf" or i == n_in - 1 else draw(st.integers(2, min(3, n_in - i)))
        members = tuple(order[i:i + size])
        groups.append(("leaf" if size == 1 else kind, members))
        i += size
    donate = tuple(sorted(draw(st.sets(st.integers(0, len(groups) - 1)))))
    seed = draw(st.integers(0, 2**16))
    return ProgramSpec(tuple(inputs), tuple(groups), tuple(steps), output, donate, seed)


SHARDABLE_SHAPES: tuple[tuple[int, ...], ...] = ((4,), (4, 4), (16,), (8, 4))


@st.composite
def sharded_programs(draw: st.DrawFn) -> ProgramSpec:
    """A :class:`ProgramSpec` whose inputs are placed on a 4-device mesh: each input
    replicated or split along a dimension divisible by 4 (so equal types may still differ in
    placement, which forbids aliasing)."""
    input_types = st.builds(TypeSpec, st.sampled_from(SHARDABLE_SHAPES),
                            st.sampled_from(("float32", "int32")))
    spec = draw(programs(max_inputs=4, max_steps=6, input_types=input_types))
    shardings = []
    for t in spec.inputs:
        options = ["rep", "x0"] + (["x1"] if len(t.shape) == 2 and t.shape[1] % 4 == 0 else [])
        shardings.append(draw(st.sampled_from(options)))
    return ProgramSpec(spec.inputs, spec.arg_groups, spec.steps, spec.output,
                       spec.donate_argnums, spec.seed, tuple(shardings))
