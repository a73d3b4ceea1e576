"""The jaxlib adapter (``jax_use_donated.adapters.jaxlib_ir``) and the HLO alias reader."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from jax import lax
from jax._src.interpreters import mlir
from jaxlib.mlir import ir

from jax_use_donated.adapters.jaxlib_ir import (
    OpLocation,
    arg_donations,
    function_model,
    module_function,
    result_names,
    set_arg_donations,
)
from jax_use_donated.analysis import DonationError, DonationKind, plan_donation
from jax_use_donated.analysis.model import SourceLoc
from jax_use_donated.dropin.hlo_alias import aliases_from_hlo_text, executable_aliases


def lowered_main(fun, *args, **jit_kwargs):  # type: ignore[no-untyped-def]
    lowered = jax.jit(fun, **jit_kwargs).lower(*args)
    module = lowered.compiler_ir()
    assert module is not None
    main = module_function(module)
    assert main is not None
    return lowered, main


def swap(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
    return b * 2.0, a * 3.0


SWAP_LINE = swap.__code__.co_firstlineno + 1


def test_args_types_names_donations_and_locations() -> None:
    _, main = lowered_main(swap, jnp.ones((4, 4)), jnp.ones((4, 4)), donate_argnums=(0, 1))
    fn = function_model(main)
    fn.check()
    assert [a.loc.name for a in fn.args] == ["a", "b"]
    assert [a.donation.kind for a in fn.args] == [DonationKind.ALIASING_OUTPUT] * 2
    assert [a.donation.alias_index for a in fn.args] == [0, 1]
    t = fn.args[0].tensor
    assert t is not None and t.shape == (4, 4) and t.element_bits == 32 and t.nbytes == 64
    assert t.text == "tensor<4x4xf32>"
    multiplies = [op for op in fn.ops if op.name == "stablehlo.multiply"]
    assert multiplies[0].operands[0] == fn.args[1].value
    assert multiplies[0].loc.text is not None
    assert multiplies[0].loc.text.endswith(f"test_jit_adapter.py:{SWAP_LINE}:11")
    assert [r.value for r in fn.results] == [m.results[0] for m in multiplies]
    assert plan_donation(fn).pairs == {0: 1, 1: 0}


def test_pytree_names_and_result_info() -> None:
    _, main = lowered_main(lambda p: {"w": p["w"] * 2.0}, {"w": jnp.ones(3)},
                           donate_argnums=0)
    fn = function_model(main)
    assert fn.args[0].loc.name == "p['w']"
    assert result_names(main) == ["result['w']"]


def test_region_uses_of_outer_values() -> None:
    def loop(a: jax.Array, b: jax.Array) -> jax.Array:
        return jax.lax.fori_loop(0, 3, lambda i, x: x + b, a)

    _, main = lowered_main(loop, jnp.ones(4), jnp.ones(4), donate_argnums=(0, 1))
    fn = function_model(main)
    while_op = next(op for op in fn.ops if op.name == "stablehlo.while")
    # b enters the loop as a carried operand or as a use inside the body: either way a read.
    assert fn.args[1].value in while_op.operands + while_op.region_uses

    def cond(p: jax.Array, a: jax.Array, b: jax.Array) -> jax.Array:
        return jax.lax.cond(p, lambda: a + b, lambda: a - b)

    _, main = lowered_main(cond, jnp.bool_(True), jnp.ones(4), jnp.ones(4),
                           donate_argnums=(1, 2))
    fn = function_model(main)
    case = next(op for op in fn.ops if op.name in ("stablehlo.case", "stablehlo.if"))
    assert {fn.args[1].value, fn.args[2].value} <= set(case.region_uses)


def test_nested_jit_call_is_summarised() -> None:
    inner = jax.jit(lambda a: a.reshape(-1).reshape(a.shape))

    def outer(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
        return inner(a), b + 1.0

    _, main = lowered_main(outer, jnp.ones((4, 4)), jnp.ones((4, 4)), donate_argnums=(0, 1))
    fn = function_model(main, inline=False)  # inlined by default (test_inline.py)
    call = next(op for op in fn.ops if op.name == "func.call")
    assert call.call_forwards == {0: (0,)}
    assert call.target is not None


def test_call_passing_one_value_twice_is_summarised_per_call_site() -> None:
    """``where(p, x, x)`` is ``x`` at this call site only (XLA inlines and folds it)."""
    where = jax.jit(lambda p, u, v: jnp.where(p, u, v))

    def f(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
        return where(a > 0, a, a), where(b > 0, b, a)

    _, main = lowered_main(f, jnp.ones(4), jnp.ones(4), donate_argnums=(0, 1))
    calls = [op for op in function_model(main, inline=False).ops if op.name == "func.call"]
    assert [c.call_forwards for c in calls] == [{0: (1,)}, {}]


def test_while_trip_bounds_are_read_from_constant_counters() -> None:
    from jax import lax

    def f(x: jax.Array, n: jax.Array) -> tuple[jax.Array, ...]:
        return (lax.fori_loop(0, 1, lambda i, c: c * 2.0, x),
                lax.fori_loop(2, 7, lambda i, c: c * 2.0, x),
                lax.fori_loop(0, n, lambda i, c: c * 2.0, x),
                lax.scan(lambda c, _: (c + 1.0, None), x, None, length=1)[0])

    _, main = lowered_main(f, jnp.ones(4), jnp.int32(3))
    loops = [op for op in function_model(main).ops if op.name == "stablehlo.while"]
    assert [op.max_trips for op in loops] == [1, 5, None, 1]


def _parse(text: str) -> ir.Module:
    ctx = mlir.make_ir_context()
    return ir.Module.parse(text, ctx)


def test_custom_call_operand_aliases_and_placements() -> None:
    module = _parse("""
      func.func public @main(%arg0: tensor<4xf32> {jax.buffer_donor = true,
                                mhlo.sharding = "{replicated}", mhlo.memory_kind = "device"})
          -> (tensor<4xf32> {mhlo.sharding = "{replicated}"}) {
        %0 = stablehlo.custom_call @update(%arg0) {output_operand_aliases = [
          #stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0,
                                          operand_tuple_indices = []>]}
          : (tensor<4xf32>) -> tensor<4xf32>
        return %0 : tensor<4xf32>
      }""")
    main = module_function(module)
    assert main is not None
    fn = function_model(main)
    op = fn.ops[0]
    assert op.target == "update" and op.operand_aliases == ((0, 0),)
    assert fn.args[0].placement.sharding == "{replicated}"
    assert fn.args[0].placement.memory_kind == "device"
    assert fn.results[0].placement.memory_kind is None
    assert fn.args[0].donation.kind is DonationKind.BUFFER_DONOR


def test_malformed_donation_attribute() -> None:
    module = _parse("""
      func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = "zero"})
          -> tensor<4xf32> {
        return %arg0 : tensor<4xf32>
      }""")
    main = module_function(module)
    assert main is not None
    with pytest.raises(DonationError, match="must be an integer result index"):
        function_model(main)


def test_set_arg_donations_keeps_other_attributes() -> None:
    # A function of its own: JAX caches lowerings per function, and this edits one in place.
    _, main = lowered_main(lambda a, b: (b * 2.0, a * 3.0), jnp.ones(4), jnp.ones(4),
                           donate_argnums=(0, 1))
    set_arg_donations(main, {1: 0}, buffer_donors=[0])
    assert arg_donations(main) == {0: ("jax.buffer_donor", True), 1: ("tf.aliasing_output", 0)}
    set_arg_donations(main, {})
    assert arg_donations(main) == {}


@pytest.mark.parametrize("donate", [(), (0,), (1,), (0, 1)])
def test_alias_reader_proto_matches_text(donate: tuple[int, ...]) -> None:
    compiled = jax.jit(swap, donate_argnums=donate).lower(jnp.ones(4), jnp.ones(4)).compile()
    from_text = aliases_from_hlo_text(compiled.as_text())
    assert executable_aliases(compiled.runtime_executable()) == from_text
    assert set(from_text) == set(donate)


def test_op_locations_are_read_lazily_and_pickle_as_plain_locations() -> None:
    import pickle

    _, main = lowered_main(swap, jnp.ones(4), jnp.ones(4), donate_argnums=(0, 1))
    op = function_model(main).ops[0]
    assert isinstance(op.loc, OpLocation) and "_text" not in vars(op.loc)
    text = op.loc.text
    assert vars(op.loc)["_text"] == text and op.loc.name is None
    copy = pickle.loads(pickle.dumps(op.loc))
    assert (type(copy), copy.text, copy.name) == (SourceLoc, text, None)


def test_ops_with_several_results_or_none() -> None:
    """The builder reads one-result ops through ``.result`` and falls back to the result list
    for the others: value ids stay dense and in order, and types follow each result."""
    module = _parse("""
      func.func public @main(%a: tensor<4xf32> {jax.buffer_donor = true}, %b: tensor<4xi32>)
          -> (tensor<4xf32>, tensor<4xi32>) {
        %0:2 = stablehlo.optimization_barrier %a, %b : tensor<4xf32>, tensor<4xi32>
        stablehlo.custom_call @sink(%0#0) {has_side_effect = true} : (tensor<4xf32>) -> ()
        %1 = stablehlo.negate %0#0 : tensor<4xf32>
        return %1, %0#1 : tensor<4xf32>, tensor<4xi32>
      }""")
    main = module_function(module)
    assert main is not None
    fn = function_model(main)
    fn.check()
    barrier, sink, negate = fn.ops
    assert barrier.results == [2, 3] and sink.results == [] and negate.results == [4]
    assert [t.text if t else None for t in barrier.result_types] == [
        "tensor<4xf32>", "tensor<4xi32>"]
    assert sink.operands == [2] and negate.operands == [2]
    assert [r.value for r in fn.results] == [4, 3]
    plan = plan_donation(fn)  # the sink reads %a's view and is not ordered before the negate
    assert plan.pairs == {}
    assert plan.verdicts[0].blockers[0].reader is sink


def test_region_free_names_have_no_regions() -> None:
    """The builder skips the region query for ``REGION_FREE_OPS``: each of those names is a
    StableHLO op whose definition (our xDSL dialect, checked against jaxlib's) has none."""
    from jax_use_donated.adapters.jaxlib_ir import REGION_FREE_OPS
    from jax_use_donated.dialects.stablehlo import StableHLO

    definitions = {op.name: op for op in StableHLO.operations}
    for name in sorted(REGION_FREE_OPS):
        assert name in definitions, name
        assert not definitions[name].get_irdl_definition().regions, name
    assert definitions["stablehlo.while"].get_irdl_definition().regions  # the check can fail


SHORT_LOOPS = """
  func.func public @main(%x: tensor<4xf32>, %y: tensor<4xf32>)
      -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %never:2 = stablehlo.while(%i = %c0, %a = %x) : tensor<i32>, tensor<4xf32>
    cond {
      %c0_ = stablehlo.constant dense<0> : tensor<i32>
      %p = stablehlo.compare LT, %i, %c0_, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %n = stablehlo.negate %a : tensor<4xf32>
      stablehlo.return %i, %n : tensor<i32>, tensor<4xf32>
    }
    %closes:3 = stablehlo.while(%i = %c0, %a = %x, %b = %y)
        : tensor<i32>, tensor<4xf32>, tensor<4xf32>
    cond {
      %c1 = stablehlo.constant dense<1> : tensor<i32>
      %p = stablehlo.compare LT, %i, %c1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %c1 = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %i, %c1 : tensor<i32>
      %r = stablehlo.reshape %b : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %n, %y, %r : tensor<i32>, tensor<4xf32>, tensor<4xf32>
    }
    return %never#1, %closes#1, %closes#2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }"""


def test_loops_that_run_at_most_once_forward_like_calls() -> None:
    """A loop that surely runs 0 times forwards every carry; one that surely runs once
    forwards what its body returns unchanged, and nothing when the body returns a value it
    closes over (``%y``: not an operand of the loop)."""
    module = _parse(SHORT_LOOPS)  # kept alive: its ops die with it
    main = module_function(module)
    assert main is not None
    never, closes = [op for op in function_model(main).ops if op.name == "stablehlo.while"]
    assert never.max_trips == 0 and never.call_forwards == {0: (0,), 1: (1,)}
    assert closes.max_trips == 1 and closes.call_forwards is None

    def fori_max(x: jax.Array) -> jax.Array:
        return lax.fori_loop(0, 1, lambda i, c: jnp.maximum(c, c), x)

    _, main = lowered_main(fori_max, jnp.ones(4), donate_argnums=0)
    (loop,) = [op for op in function_model(main).ops if op.name == "stablehlo.while"]
    assert loop.max_trips == 1 and loop.call_forwards == {1: (1,)}  # through @closed_call
    _, main = lowered_main(lambda x: lax.fori_loop(0, 2, lambda i, c: jnp.maximum(c, c), x),
                           jnp.ones(4))
    (loop,) = [op for op in function_model(main).ops if op.name == "stablehlo.while"]
    assert loop.max_trips == 2 and loop.call_forwards is None


def test_calls_of_side_effect_free_callees_are_marked_pure() -> None:
    """``Op.pure_call``: ``@_where`` (a select) is side-effect free, a callee with a
    ``custom_call`` is not; the xDSL adapter agrees (``test_xdsl_pass``)."""
    module = _parse(CALLS)
    main = module_function(module)
    assert main is not None
    where, log = [op for op in function_model(main, inline=False).ops
                  if op.name == "func.call"]
    assert where.pure_call and not log.pure_call


CALLS = """
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %p = stablehlo.compare GT, %x, %x, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %w = func.call @_where(%p, %x, %x) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>)
        -> tensor<4xf32>
    %l = func.call @log(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %x : tensor<4xf32>
  }
  func.func private @_where(%p: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>)
      -> tensor<4xf32> {
    %0 = stablehlo.select %p, %a, %b : tensor<4xi1>, tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @log(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.custom_call @print(%a) {has_side_effect = true} : (tensor<4xf32>)
        -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }"""
