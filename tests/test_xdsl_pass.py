"""The xDSL adapter and the ``jax-plan-donation`` / ``jax-verify-donation`` passes."""

from __future__ import annotations

import dataclasses

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.universe import Universe
from xdsl.utils.exceptions import PassFailedException

from jax_use_donated.adapters.xdsl_ir import build_function_model, source_loc
from jax_use_donated.analysis.errors import DonationError
from jax_use_donated.analysis.model import DonationKind, Placement, SourceLoc
from jax_use_donated.diagnostics import collect_diagnostics
from jax_use_donated.opt.driver import JaxDonateOptMain
from jax_use_donated.xdsl_plugin.frontend import JaxFrontend, JaxTarget
from jax_use_donated.xdsl_plugin.options import describe
from jax_use_donated.xdsl_plugin.parser_printer import parse_module, print_module
from jax_use_donated.xdsl_plugin.plan_donation import (
    JaxPlanDonation,
    JaxVerifyDonation,
    record_plans,
)
from jax_use_donated.xdsl_plugin.reuse_donated_destinations import JaxReuseDonatedDestinations
from jax_use_donated.xdsl_plugin.universe import UNIVERSE


@pytest.fixture(scope="module")
def ctx() -> Context:
    context = JaxDonateOptMain(args=[]).ctx
    context.allow_unregistered = True
    return context


def parse(ctx: Context, text: str) -> ModuleOp:
    return parse_module(ctx, text)


def main_func(module: ModuleOp, name: str = "main") -> FuncOp:
    for op in module.walk():
        if isinstance(op, FuncOp) and op.sym_name.data == name:
            return op
    raise AssertionError(f"no @{name}")


def arg_attrs(func: FuncOp) -> list[dict[str, str]]:
    assert func.arg_attrs is not None
    return [{k: str(v) for k, v in d.data.items()} for d in func.arg_attrs.data
            if isinstance(d, DictionaryAttr)]


SWAP = """
func.func public @main(%a: tensor<4xf32> {tf.aliasing_output = 0 : i32} loc("a"),
                       %b: tensor<4xf32> {tf.aliasing_output = 1 : i32} loc("b"))
    -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "stablehlo.multiply"(%b, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("f.py":3:4)
  %1 = "stablehlo.add"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("f.py":4:4)
  func.return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
"""


# ----------------------------------------------------------------------------- adapter


def test_adapter_reads_args_ops_results_and_locations(ctx: Context) -> None:
    module = parse(ctx, """
    func.func public @main(
        %x: tensor<2x3xf32> {jax.buffer_donor = true, mhlo.sharding = "{replicated}",
                             mhlo.memory_kind = "device"} loc("params['w']"),
        %n: tensor<i32>) -> (tensor<2x3xf32> {mhlo.sharding = "{replicated}"}) {
      %0 = "stablehlo.while"(%x) ({
      ^bb0(%c: tensor<2x3xf32>):
        %t = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
        "stablehlo.return"(%t) : (tensor<i1>) -> ()
      }, {
      ^bb0(%c: tensor<2x3xf32>):
        %y = "stablehlo.add"(%c, %c) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
        %z = "stablehlo.convert"(%n) : (tensor<i32>) -> tensor<f32>
        "stablehlo.return"(%y) : (tensor<2x3xf32>) -> ()
      }) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc(callsite("f"("user.py":7:3) at "main.py":1:1))
      func.return %0 : tensor<2x3xf32>
    }
    """)
    fn = build_function_model(main_func(module))
    fn.check()
    x, n = fn.args
    assert x.donation.kind is DonationKind.BUFFER_DONOR
    assert x.display_name == "params['w']"
    assert x.tensor is not None and x.tensor.shape == (2, 3) and x.tensor.nbytes == 24
    assert x.placement == Placement('"{replicated}"', '"device"', None)
    assert not n.donation.donated
    (loop,) = fn.ops
    assert loop.name == "stablehlo.while"
    assert loop.operands == [x.value]
    assert loop.region_uses == [n.value]  # %n is read inside the body
    assert loop.loc == SourceLoc(text="user.py:7:3")
    assert fn.results[0].placement.sharding == '"{replicated}"'


def test_unregistered_ops_never_claim_traits(ctx: Context) -> None:
    module = parse(ctx, """
    func.func public @main(%a: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
      %0 = "stablehlo.add"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %1 = "mystery.op"(%0) : (tensor<4xf32>) -> tensor<4xf32>
      %2 = stablehlo.add %1, %1 : tensor<4xf32>
      %3 = stablehlo.transpose %2, dims = [0] : (tensor<4xf32>) -> tensor<4xf32>
      func.return %3 : tensor<4xf32>
    }
    """)
    fn = build_function_model(main_func(module))
    # The generic form of a registered op is the registered op; "mystery.op" is unregistered
    # and must not be taken as elementwise (UnregisteredOp.has_trait answers True).
    assert [(op.name, op.elementwise) for op in fn.ops] == [
        ("stablehlo.add", True),
        ("mystery.op", None),
        ("stablehlo.add", True),
        ("stablehlo.transpose", False),
    ]


@pytest.mark.parametrize("form", ["generic", "registered"])
def test_custom_call_output_operand_aliases(ctx: Context, form: str) -> None:
    if form == "generic":
        op = ('"stablehlo.custom_call"(%a, %b) <{call_target_name = "k", output_operand_aliases = '
              '[#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, '
              'operand_tuple_indices = []>]}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>')
    else:
        op = ('stablehlo.custom_call @k(%a, %b) {output_operand_aliases = '
              '[#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, '
              'operand_tuple_indices = []>]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>')
    module = parse(ctx, f"""
    func.func public @main(%a: tensor<4xf32>, %b: tensor<4xf32> {{jax.buffer_donor = true}})
        -> tensor<4xf32> {{
      %0 = {op}
      func.return %0 : tensor<4xf32>
    }}
    """)
    fn = build_function_model(main_func(module))
    (call,) = fn.ops
    assert call.target == "k"
    assert call.operand_aliases == ((0, 1),)


def test_call_forwards_summarise_the_callee(ctx: Context) -> None:
    module = parse(ctx, """
    func.func public @main(%a: tensor<4xf32> {jax.buffer_donor = true}, %b: tensor<4xf32>)
        -> (tensor<4xf32>, tensor<4xf32>) {
      %0:2 = func.call @pick(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
      func.return %0#0, %0#1 : tensor<4xf32>, tensor<4xf32>
    }
    func.func private @pick(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      %r = "stablehlo.reshape"(%y) : (tensor<4xf32>) -> tensor<4xf32>
      %s = "stablehlo.negate"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      func.return %s, %r : tensor<4xf32>, tensor<4xf32>
    }
    """)
    fn = build_function_model(main_func(module))
    (call,) = fn.ops
    assert call.target == "pick"
    assert call.call_forwards == {1: (1,)}


def test_multi_block_function_with_donors_is_an_error(ctx: Context) -> None:
    module = parse(ctx, """
    func.func public @main(%a: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
      "cf.br"()[^bb1] : () -> ()
    ^bb1:
      func.return %a : tensor<4xf32>
    }
    """)
    with pytest.raises(DonationError, match="2 blocks"):
        build_function_model(main_func(module))


def test_source_loc_of_named_and_fused_locations(ctx: Context) -> None:
    module = parse(ctx, """
    "test.op"() : () -> () loc("x")
    "test.op"() : () -> () loc("jit(f)/add"("a.py":1:2))
    "test.op"() : () -> () loc(fused["b.py":3:4, "c.py":5:6])
    "test.op"() : () -> () loc(callsite("inner"("u.py":9:1) at callsite("m.py":1:1 at "n.py":2:2)))
    """)
    locs = [source_loc(op.location) for op in module.body.block.ops]
    assert locs == [
        SourceLoc(None, "x"),
        SourceLoc("a.py:1:2", "jit(f)/add"),
        SourceLoc("b.py:3:4", None),
        SourceLoc("u.py:9:1", None),
    ]


# ------------------------------------------------------------------------------- passes


def test_alias_mode_rewrites_jax_pairing_and_warns_nothing(ctx: Context) -> None:
    module = parse(ctx, SWAP)
    with collect_diagnostics() as sink, record_plans() as plans:
        JaxPlanDonation().apply(ctx, module)
    assert sink.diagnostics == []
    assert arg_attrs(main_func(module)) == [
        {"tf.aliasing_output": "1 : i32"},
        {"tf.aliasing_output": "0 : i32"},
    ]
    ((fn, plan, warned),) = plans
    assert fn.name == "main" and plan.pairs == {0: 1, 1: 0} and plan.ordering == "dataflow"
    assert warned  # the plan pass warns of each unpaired donor (none here)
    module.verify()


def test_warnings_name_argument_reason_and_location(ctx: Context) -> None:
    module = parse(ctx, """
    func.func public @main(%a: tensor<4xf32> {jax.buffer_donor = true} loc("a"),
                           %c: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>) {
      %0 = "stablehlo.negate"(%c) : (tensor<4xf32>) -> tensor<4xf32> loc("f.py":3:7)
      %1 = "stablehlo.convert"(%a) : (tensor<4xf32>) -> tensor<4xi32> loc("f.py":5:9)
      func.return %0, %1 : tensor<4xf32>, tensor<4xi32>
    }
    """)
    with collect_diagnostics() as sink:
        JaxPlanDonation(keep_unpaired_donors=True).apply(ctx, module)
    (warning,) = sink.warnings()
    assert warning.loc == SourceLoc("f.py:5:9", "a")
    assert warning.format() == (
        "f.py:5:9: warning: donated argument 'a' (%arg0: tensor<4xf32>) is not reused: every "
        "result of its type is written before its last read; result 0 is produced by "
        "stablehlo.negate at f.py:3:7 while stablehlo.convert at f.py:5:9 still reads it")
    assert arg_attrs(main_func(module)) == [{"jax.buffer_donor": "true"}, {}]


def test_materialize_mode_uses_program_order(ctx: Context) -> None:
    module = parse(ctx, """
    func.func public @main(%a: tensor<4xf32> {jax.buffer_donor = true}, %c: tensor<4xf32>)
        -> (tensor<4xf32>, tensor<4xi32>) {
      %0 = "stablehlo.convert"(%a) : (tensor<4xf32>) -> tensor<4xi32>
      %1 = "stablehlo.negate"(%c) : (tensor<4xf32>) -> tensor<4xf32>
      func.return %1, %0 : tensor<4xf32>, tensor<4xi32>
    }
    """)
    with collect_diagnostics() as sink:
        JaxPlanDonation(mode="materialize").apply(ctx, module)
    assert sink.diagnostics == []
    func = main_func(module)
    names = [op.name for op in func.body.block.ops]
    assert names[-2:] == ["bufferization.materialize_in_destination", "func.return"]
    mat = func.body.block.ops.last.prev_op  # type: ignore[union-attr]
    assert mat is not None and mat.operands[1] is func.args[0]
    assert arg_attrs(func) == [{"bufferization.writable": "true"},
                               {"bufferization.writable": "false"}]
    module.verify()


def test_remove_matched_outputs_updates_callers(ctx: Context) -> None:
    module = parse(ctx, """
    func.func public @caller(%x: tensor<4xf32>) -> tensor<4xi32> {
      %0, %1 = func.call @callee(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>)
      func.return %1 : tensor<4xi32>
    }
    func.func private @callee(%a: tensor<4xf32> {jax.buffer_donor = true})
        -> (tensor<4xf32> {jax.result_info = "r0"}, tensor<4xi32> {jax.result_info = "r1"}) {
      %1 = "stablehlo.convert"(%a) : (tensor<4xf32>) -> tensor<4xi32>
      %0 = "stablehlo.sqrt"(%a) : (tensor<4xf32>) -> tensor<4xf32>
      func.return %0, %1 : tensor<4xf32>, tensor<4xi32>
    }
    """)
    JaxPlanDonation(mode="materialize", remove_matched_outputs=True).apply(ctx, module)
    module.verify()
    callee = main_func(module, "callee")
    assert [str(t) for t in callee.function_type.outputs.data] == ["tensor<4xi32>"]
    assert callee.res_attrs is not None and len(callee.res_attrs.data) == 1
    assert 'jax.result_info = "r1"' in str(callee.res_attrs)
    text = print_module(module)
    assert "func.call @callee(%x) : (tensor<4xf32>) -> tensor<4xi32>" in text


def test_remove_matched_outputs_refuses_a_caller_using_the_result(ctx: Context) -> None:
    src = """
    func.func public @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = func.call @callee(%x) : (tensor<4xf32>) -> tensor<4xf32>
      func.return %0 : tensor<4xf32>
    }
    func.func private @callee(%a: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
      %0 = "stablehlo.sqrt"(%a) : (tensor<4xf32>) -> tensor<4xf32>
      func.return %0 : tensor<4xf32>
    }
    """
    module = parse(ctx, src)
    before = print_module(module)
    with pytest.raises(PassFailedException, match="cannot remove result 0 of @callee"):
        JaxPlanDonation(mode="materialize", remove_matched_outputs=True).apply(ctx, module)
    assert print_module(module) == before  # refused before changing anything


def test_strict_mode_turns_unpaired_donors_into_errors(ctx: Context) -> None:
    module = parse(ctx, """
    func.func public @main(%a: tensor<4xf32> {jax.buffer_donor = true},
                           %i: tensor<i32> {jax.buffer_donor = true} loc("i")) -> tensor<4xf32> {
      %0 = "stablehlo.negate"(%a) : (tensor<4xf32>) -> tensor<4xf32>
      func.return %0 : tensor<4xf32>
    }
    """)
    with pytest.raises(PassFailedException, match=r"strict donation: 1 donated argument\(s\)"):
        JaxPlanDonation(strict=True).apply(ctx, module)


def test_keep_existing_aliases_and_verify_pass_refuse_unsafe_pairs(ctx: Context) -> None:
    for pass_ in (JaxPlanDonation(keep_existing_aliases=True), JaxVerifyDonation()):
        module = parse(ctx, SWAP)
        with pytest.raises(PassFailedException, match="aliases result 0, which is unsafe"):
            pass_.apply(ctx, module)


def test_verify_pass_changes_nothing_on_safe_input(ctx: Context) -> None:
    module = parse(ctx, SWAP.replace("tf.aliasing_output = 0", "tf.aliasing_output = 9")
                   .replace("tf.aliasing_output = 1 : i32} loc(\"b\")",
                            "tf.aliasing_output = 0 : i32} loc(\"b\")")
                   .replace("tf.aliasing_output = 9", "tf.aliasing_output = 1"))
    before = print_module(module)
    JaxVerifyDonation().apply(ctx, module)
    assert print_module(module) == before


def test_malformed_attribute_error_is_anchored_on_the_function(ctx: Context) -> None:
    module = parse(ctx, """
    func.func public @main(%a: tensor<4xf32> {jax.buffer_donor = 1 : i32}) -> tensor<4xf32> {
      func.return %a : tensor<4xf32>
    }
    """)
    with pytest.raises(PassFailedException) as info:
        JaxPlanDonation().apply(ctx, module)
    assert "'jax.buffer_donor' must be a boolean" in str(info.value)
    assert getattr(info.value, "anchor", None) is main_func(module)
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "^^^^" in notes  # the IR printed with the message under the function


def test_unknown_mode_is_a_pass_failure(ctx: Context) -> None:
    """Built in Python (no spec to check), the pass still refuses an unknown mode."""
    with pytest.raises(PassFailedException, match="unknown mode 'inplace'"):
        JaxPlanDonation(mode="inplace").apply(  # pyright: ignore[reportArgumentType]
            ctx, parse(ctx, SWAP))


# ----------------------------------------------------------------------- registration


def _parse_pipeline(spec: str) -> tuple[ModulePass, ...]:
    return PassPipeline.parse_spec(dict(UNIVERSE.all_passes), spec).passes


def test_hyphenated_options_parse() -> None:
    (p,) = _parse_pipeline(
        "jax-plan-donation{mode=materialize remove-matched-outputs=true "
        "keep-unpaired-donors=true keep-existing-aliases=true strict=true}")
    assert p == JaxPlanDonation("materialize", True, True, True, True)


@pytest.mark.parametrize(("spec", "expected"), [
    ("jax-plan-donation{strict}", JaxPlanDonation(strict=True)),
    ("jax-plan-donation{keep-unpaired-donors strict=false}",
     JaxPlanDonation(keep_unpaired_donors=True)),
    ("jax-plan-donation{keep_unpaired_donors mode=materialize}",  # snake_case still accepted
     JaxPlanDonation(mode="materialize", keep_unpaired_donors=True)),
    ("jax-verify-donation{ordering=program}", JaxVerifyDonation(ordering="program")),
    ("jax-reuse-donated-destinations{strict temporaries=false}",
     JaxReuseDonatedDestinations(strict=True, temporaries=False)),
    ("jax-plan-donation{report}", JaxPlanDonation(report="text")),
    ("jax-plan-donation{report=true}", JaxPlanDonation(report="text")),
    ("jax-verify-donation{report=false}", JaxVerifyDonation(report="none")),
    ("jax-reuse-donated-destinations{report=json}", JaxReuseDonatedDestinations(report="json")),
])
def test_bare_boolean_options_mean_true(spec: str, expected: ModulePass) -> None:
    assert _parse_pipeline(spec) == (expected,)


@pytest.mark.parametrize(("spec", "message"), [
    ("jax-plan-donation{nope=1}",
     "jax-plan-donation: unknown option 'nope'; options: mode, keep-unpaired-donors, "
     "keep-existing-aliases, strict, remove-matched-outputs, xla-fallback, fusion-safe, "
     "ordering, report"),
    ("jax-plan-donation{report=html}",
     "jax-plan-donation: unknown report 'html'; expected one of none, text, verbose, json"),
    ("jax-plan-donation{keep_unpaired_donors=1}",
     "jax-plan-donation: option 'keep-unpaired-donors' takes true or false (a bare "
     "'keep-unpaired-donors' means true), got 1"),
    ("jax-plan-donation{strict=true,false}",
     "jax-plan-donation: option 'strict' takes true or false (a bare 'strict' means true), "
     "got true,false"),
    ("jax-plan-donation{mode}",
     "jax-plan-donation: option 'mode' needs a value, one of alias, materialize"),
    ("jax-verify-donation{ordering=block}",
     "jax-verify-donation: unknown ordering 'block'; expected one of dataflow, program, "
     "xla-cpu, xla-cpu-region, xla-gpu, xla-gpu-region, tpu"),
    ("jax-plan-donation{ordering=block}",
     "jax-plan-donation: unknown ordering 'block'; expected one of auto, xla-cpu, "
     "xla-cpu-region, xla-gpu, xla-gpu-region, tpu, program, dataflow"),
])
def test_option_errors_speak_kebab_case(spec: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        _parse_pipeline(spec)
    assert str(info.value) == message


def test_help_lists_every_option_with_default_and_meaning() -> None:
    text = describe(JaxPlanDonation)
    lines = text.splitlines()
    assert lines[0] == ("jax-plan-donation: Reuse donated argument buffers for results, "
                        "only after their last read.")
    keys = [line.split()[0] for line in lines[1:] if line.startswith("  ") and
            not line.startswith("   ")]
    assert keys == ["mode=alias", "keep-unpaired-donors=false", "keep-existing-aliases=false",
                    "strict=false", "remove-matched-outputs=false", "xla-fallback=false",
                    "fusion-safe=false", "ordering=auto", "report=none"]
    for field in dataclasses.fields(JaxPlanDonation):  # every option documented, none copied
        doc = field.metadata["doc"]
        assert doc and " ".join(doc.split()[:3]) in " ".join(text.split())


def test_universe_only_adds_names() -> None:
    """Our entry point brings new names only: xDSL's pass of the upstream name, and its
    ``mlir`` frontend and target, resolve to xDSL's own classes."""
    from xdsl.frontend.mlir import MLIRFrontend
    from xdsl.targets.mlir import MLIRTarget
    from xdsl.transforms.jax_use_donated_arguments import JaxUseDonatedArguments
    from xdsl.universe import XDSL_UNIVERSE

    multiverse = Universe.get_multiverse()  # raises on duplicate names
    assert multiverse.all_passes["jax-plan-donation"]() is JaxPlanDonation
    assert multiverse.all_passes["jax-verify-donation"]() is JaxVerifyDonation
    assert multiverse.all_passes["jax-use-donated-arguments"]() is JaxUseDonatedArguments
    assert multiverse.all_frontends["mlir"]() is MLIRFrontend
    assert multiverse.all_targets["mlir"]() is MLIRTarget
    assert multiverse.all_frontends["jax"]() is JaxFrontend
    assert multiverse.all_targets["jax"]() is JaxTarget
    for kind in ("all_passes", "all_frontends", "all_targets", "all_dialects"):
        ours, upstream = getattr(UNIVERSE, kind), getattr(XDSL_UNIVERSE, kind)
        assert not set(ours) & set(upstream), kind
    assert {"stablehlo", "chlo", "sdy"} <= set(multiverse.all_dialects)


def test_rerunning_the_pass_is_stable(ctx: Context) -> None:
    module = parse(ctx, SWAP)
    JaxPlanDonation().apply(ctx, module)
    once = print_module(module)
    JaxPlanDonation().apply(ctx, module)
    assert print_module(module) == once
    attrs = main_func(module).arg_attrs
    assert attrs is not None
    value = attrs.data[0].data["tf.aliasing_output"]
    assert isinstance(value, IntegerAttr) and value.value.data == 1


def test_loops_that_run_at_most_once_forward_like_calls(ctx: Context) -> None:
    """The xDSL adapter summarises short loops as the jaxlib one does (same IR as
    ``test_jit_adapter.test_loops_that_run_at_most_once_forward_like_calls``)."""
    from tests.test_jit_adapter import SHORT_LOOPS

    fn = build_function_model(main_func(parse(ctx, SHORT_LOOPS)))
    never, closes = [op for op in fn.ops if op.name == "stablehlo.while"]
    assert never.max_trips == 0 and never.call_forwards == {0: (0,), 1: (1,)}
    assert closes.max_trips == 1 and closes.call_forwards is None


def test_calls_of_side_effect_free_callees_are_marked_pure(ctx: Context) -> None:
    from tests.test_jit_adapter import CALLS

    fn = build_function_model(main_func(parse(ctx, CALLS)))
    where, log = [op for op in fn.ops if op.name == "func.call"]
    assert where.pure_call and not log.pure_call
