"""Calls analysed as XLA inlines them: a step called as an inner jit plans like the flat step,
in both adapters (one core implementation, :mod:`jax_use_donated.analysis.inline`)."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import pytest
from xdsl.context import Context
from xdsl.dialects.func import FuncOp

from jax_use_donated.adapters.jaxlib_ir import function_model, module_function
from jax_use_donated.adapters.xdsl_ir import ModuleSymbols, build_function_model
from jax_use_donated.analysis import plan_donation
from jax_use_donated.analysis.inline import inline_calls
from jax_use_donated.analysis.model import Arg, FunctionModel, Op, Result
from jax_use_donated.opt.driver import JaxDonateOptMain
from jax_use_donated.xdsl_plugin.parser_printer import parse_module


def adam(p: jax.Array, m: jax.Array, v: jax.Array, g: jax.Array) -> tuple[jax.Array, ...]:
    m = 0.9 * m + 0.1 * g
    v = 0.99 * v + 0.01 * g * g
    return v, m, p - 0.01 * m / (jnp.sqrt(v) + 1e-8)  # state first: JAX's pairing copies


def _main(fun: Any, *args: jax.Array, **kw: Any) -> Any:
    lowered = jax.jit(fun, **kw).lower(*args)
    module = lowered.compiler_ir()
    assert module is not None
    main = module_function(module)
    assert main is not None
    return lowered, main


ARGS = [jnp.full((8, 8), float(i)) for i in range(4)]


def _nested(fun: Any) -> Any:
    inner = jax.jit(fun)
    return lambda *a: inner(*a)


def test_nested_jit_plans_like_the_flat_step() -> None:
    _, flat = _main(adam, *ARGS, donate_argnums=(0, 1, 2))
    _, nested = _main(_nested(_nested(adam)), *ARGS, donate_argnums=(0, 1, 2))
    flat_fn, nested_fn = function_model(flat), function_model(nested)
    assert not any(op.name == "func.call" for op in nested_fn.ops)
    assert [op.name for op in nested_fn.ops] == [op.name for op in flat_fn.ops]
    flat_plan, nested_plan = plan_donation(flat_fn), plan_donation(nested_fn)
    assert nested_plan.pairs == flat_plan.pairs == {0: 2, 1: 1, 2: 0}
    summarised = plan_donation(function_model(nested, inline=False))
    assert summarised.pairs == {}  # the opaque call reads every donor and writes none in place


@pytest.fixture(scope="module")
def ctx() -> Context:
    context = JaxDonateOptMain(args=[]).ctx
    context.allow_unregistered = True
    return context


def test_xdsl_adapter_inlines_the_same_way(ctx: Context) -> None:
    lowered, nested = _main(_nested(adam), *ARGS, donate_argnums=(0, 1, 2))
    jaxlib_fn = function_model(nested)
    module = parse_module(ctx, lowered.as_text())
    main = next(op for op in module.walk() if isinstance(op, FuncOp) and op.sym_name.data == "main")
    xdsl_fn = build_function_model(main, ModuleSymbols.of(module), inline=True)
    assert [op.name for op in xdsl_fn.ops] == [op.name for op in jaxlib_fn.ops]
    assert plan_donation(xdsl_fn).pairs == plan_donation(jaxlib_fn).pairs == {0: 2, 1: 1, 2: 0}
    plain = build_function_model(main, ModuleSymbols.of(module))
    assert any(op.name == "func.call" for op in plain.ops)


def test_call_results_are_substituted_and_recursion_stays_a_call() -> None:
    def arg(i: int) -> Arg:
        return Arg(i, i, None, "tensor<4xf32>")

    # @main(%0) { %1 = call @f(%0); %2 = call @loop(%1); return %2, %1 }
    main = FunctionModel("main", [arg(0)], [
        Op(0, "func.call", [0], [1], target="f"),
        Op(1, "func.call", [1], [2], target="loop"),
    ], [Result(0, 2, None, "t"), Result(1, 1, None, "t")])
    # @f(%0) { %1 = negate %0; return %1 } ; @loop(%0) { %1 = call @loop(%0); return %1 }
    bodies = {
        "f": FunctionModel("f", [arg(0)], [Op(0, "stablehlo.negate", [0], [1])],
                           [Result(0, 1, None, "t")]),
        "loop": FunctionModel("loop", [arg(0)], [Op(0, "func.call", [0], [1], target="loop")],
                              [Result(0, 1, None, "t")]),
    }
    fn = inline_calls(main, bodies.get)
    fn.check()
    assert [(op.index, op.name) for op in fn.ops] == [(0, "stablehlo.negate"), (1, "func.call")]
    negate = fn.ops[0]
    assert negate.operands == [0]
    assert fn.results[1].value == negate.results[0]
    assert fn.ops[1].operands == [negate.results[0]]  # @loop inlined once, its self-call kept
    assert fn.results[0].value == fn.ops[1].results[0]
