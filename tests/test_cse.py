"""XLA's CSE in the model (``analysis/cse.py``): identical ops are one op by the time XLA
assigns buffers, so a donor read by a duplicate is read by the op its update depends on.
Checked against the executable under XLA:CPU's default copy insertion, with both adapters."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import pytest
from xdsl.context import Context
from xdsl.dialects.func import FuncOp

from jax_use_donated.adapters.jaxlib_ir import function_model, module_function
from jax_use_donated.adapters.xdsl_ir import ModuleSymbols, build_function_model
from jax_use_donated.analysis import plan_donation, predict_pairing
from jax_use_donated.analysis.cse import canonical_op_text, merge_identical_ops
from jax_use_donated.analysis.model import FunctionModel
from jax_use_donated.dropin.xla_truth import executable_truth
from jax_use_donated.opt.driver import JaxDonateOptMain
from jax_use_donated.xdsl_plugin.parser_printer import parse_module

A = jnp.ones((32, 32))

DUPLICATED: dict[str, Callable[[jax.Array], tuple[jax.Array, ...]]] = {
    "dot": lambda a: ((a @ a) * 2, a @ a),
    "sum": lambda a: (a - a.sum(), a.sum()),
    "tanh": lambda a: (jnp.tanh(a) * 2, jnp.tanh(a) + 1),
    "exp": lambda a: (jnp.exp(a) + 1, jnp.exp(a).sum(0)),
    "column_sums": lambda a: (a * a.sum(0), a.sum(0) * 3),
}


def _lowered(fun: Callable[..., Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return jax.jit(fun, donate_argnums=0).lower(A)


def _jaxlib_model(lowered: Any, **kw: Any) -> FunctionModel:
    main = module_function(lowered.compiler_ir())
    assert main is not None
    return function_model(main, **kw)


@pytest.mark.parametrize("name", list(DUPLICATED))
def test_the_duplicate_s_read_is_the_original_s(name: str) -> None:
    """JAX's pair ``a -> 0`` is copy-free in the executable, and so predicted; the model
    without the merge predicts a copy (what the plan said before)."""
    lowered = _lowered(DUPLICATED[name])
    truth = executable_truth(lowered.compile(), [0])
    assert truth.aliases == {0: 0}
    assert truth.donors[0].outcome.value == "copy-free"
    merged = _jaxlib_model(lowered)
    assert predict_pairing(merged, "xla-cpu", truth.aliases) == {0: "copy-free"}
    assert plan_donation(merged, "xla-cpu").pairs == {0: 0}
    unmerged = merge_identical_ops(_jaxlib_model(lowered, inline=False), lambda op: None)
    assert len(unmerged.ops) > len(merged.ops)
    assert predict_pairing(unmerged, "xla-cpu", truth.aliases) == {0: "copied"}


@pytest.fixture(scope="module")
def ctx() -> Context:
    context = JaxDonateOptMain(args=[]).ctx
    context.allow_unregistered = True
    return context


@pytest.mark.parametrize("name", list(DUPLICATED))
def test_both_adapters_merge_alike(name: str, ctx: Context) -> None:
    lowered = _lowered(DUPLICATED[name])
    jaxlib_fn = _jaxlib_model(lowered)
    module = parse_module(ctx, lowered.as_text())
    main = next(op for op in module.walk()
                if isinstance(op, FuncOp) and op.sym_name.data == "main")
    xdsl_fn = build_function_model(main, ModuleSymbols.of(module), inline=True)
    assert [op.name for op in xdsl_fn.ops] == [op.name for op in jaxlib_fn.ops]
    assert len(xdsl_fn.ops) < len(build_function_model(main, ModuleSymbols.of(module)).ops)
    assert plan_donation(xdsl_fn, "xla-cpu").pairs == plan_donation(jaxlib_fn, "xla-cpu").pairs


@pytest.mark.parametrize(("name", "fun", "op"), [
    ("other dimensions", lambda a: (a * a.sum(0), a.sum(1) * 3), "stablehlo.reduce"),
    ("other operands", lambda a: ((a @ a) * 2, a @ (a + 1)), "stablehlo.dot_general"),
    ("other constants", lambda a: (a + 1.0, a + 2.0), "stablehlo.constant"),
    ("other contraction", lambda a: ((a @ a) * 2, a.T @ a), "stablehlo.dot_general"),
])
def test_different_ops_stay_apart(name: str, fun: Callable[..., Any], op: str) -> None:
    lowered = _lowered(fun)
    merged = _jaxlib_model(lowered)
    kept = _jaxlib_model(lowered, inline=False)
    count = [sum(o.name == op for o in fn.ops) for fn in (merged, kept)]
    assert count[0] == count[1] >= 2, name


def test_side_effecting_ops_are_never_merged() -> None:
    def f(a: jax.Array) -> tuple[jax.Array, jax.Array]:
        jax.debug.print("{}", a.sum())
        jax.debug.print("{}", a.sum())
        return a * 2, a + 1

    merged = _jaxlib_model(_lowered(f))
    calls = [op for op in merged.ops if op.name == "stablehlo.custom_call"]
    assert len(calls) == 2


def test_canonical_text_ignores_names_only() -> None:
    one = '%4 = "r"(%arg0) ({ ^bb0(%arg1: f32): %7 = "add"(%arg1, %arg1) }) : f32'
    two = '%9 = "r"(%arg0) ({ ^bb0(%arg2: f32): %3 = "add"(%arg2, %arg2) }) : f32'
    other = '%9 = "r"(%arg0) ({ ^bb0(%arg2: f32): %3 = "mul"(%arg2, %arg2) }) : f32'
    assert canonical_op_text(one) == canonical_op_text(two) != canonical_op_text(other)


def _structure(fn: FunctionModel) -> tuple[object, ...]:
    """``fn`` with its value ids renumbered in order of definition (arguments, then each op's
    results): the walk gives merged results no id, the reference gives them one it drops."""
    ids: dict[int, int] = {}

    def define(v: int) -> int:
        return ids.setdefault(v, len(ids))

    for arg in fn.args:
        define(arg.value)
    ops = []
    for op in fn.ops:
        ops.append((op.index, op.name, [ids[v] for v in op.operands],
                    [ids[v] for v in op.region_uses], [define(v) for v in op.results],
                    op.call_forwards, op.target))
    return tuple(ops), tuple(ids[r.value] for r in fn.results)


def _catalogue() -> list[Any]:
    from tests.corpus.programs import PROGRAMS

    def nested(params: Any, x: jax.Array) -> Any:
        inner = jax.jit(lambda p: jax.tree.map(lambda w: w - 0.1 * jnp.tanh(w @ x).sum(), p))
        return inner(params), jax.tree.map(lambda w: (w @ x).sum(), params)

    lowered = [p.lower() for p in PROGRAMS if p.devices == 1]
    lowered += [_lowered(f) for f in DUPLICATED.values()]
    params = [jnp.ones((32, 32)) for _ in range(3)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lowered.append(jax.jit(nested, donate_argnums=0).lower(params, A))
    return lowered


def test_merging_while_walking_is_merging_afterwards() -> None:
    """The jaxlib adapter merges identical ops as it walks a function; the model equals the
    one built without merging and then merged (:func:`merge_identical_ops`), on every
    single-device program of the corpus, the duplicated programs and a step calling a jit."""
    from jax_use_donated.adapters.jaxlib_ir import ModuleAdapter

    merged_somewhere = 0
    for lowered in _catalogue():
        module = lowered.compiler_ir()
        main = module_function(module)
        assert main is not None
        walked = ModuleAdapter(module.operation).build(main)
        after = ModuleAdapter(module.operation, cse_while_walking=False).build(main)
        raw = ModuleAdapter(module.operation, inline=False).build(main)
        assert _structure(walked) == _structure(after)
        merged_somewhere += len(walked.ops) < len(raw.ops)
    assert merged_somewhere >= len(DUPLICATED) + 1
