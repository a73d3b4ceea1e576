"""The jaxlib path's text route: a forked child reads the model from jaxlib's text
(:mod:`.adapters.jax_text`) and plans while the driver parses, checks and prints with jaxlib
(:mod:`.text_route`).

* the text model equals the bindings model (:class:`.jaxlib_ir.ModuleAdapter` plus the jaxlib
  path's location fix-ups) for every function the reader reads, on jaxlib's print (with and
  without locations) of the corpus, the lit inputs, the hostile inputs and a real train step;
* the driver gives byte-identical exit codes, stdout and stderr through the text route and
  through the bindings route, on the corpus, the lit and the hostile inputs;
* the route declines, and the bindings route runs, where the input is not jaxlib's own print
  or holds what the reader does not know;
* the command forks its child before the driver's imports and adopts it only for the very
  bytes it runs on.
"""

from __future__ import annotations

import os
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from jax_use_donated.adapters import jax_text
from jax_use_donated.adapters.jaxlib_ir import ModuleAdapter, symbol_name
from jax_use_donated.analysis.model import FunctionModel, Op
from jax_use_donated.analysis.report import ReportStyle
from jax_use_donated.opt import fronts, jaxlib_path, text_route
from tests.test_driver_paths import CONFIGS, HOSTILE, LIT_INPUTS, corpus_files, run

ROOT = Path(__file__).resolve().parent.parent


@cache
def _context() -> Any:
    return jaxlib_path.make_context(allow_unregistered=True)


def canonical(text: str, debug: bool) -> str | None:
    """jaxlib's print of ``text`` (with locations when ``debug``), ``None`` if it refuses it."""
    try:
        module = jaxlib_path.parse(text.encode(), ctx=_context())
    except jaxlib_path.Unsupported:
        return None
    return module.operation.get_asm(enable_debug_info=debug, assume_verified=True)


def _op_view(op: Op) -> tuple[object, ...]:
    return (op.index, op.name, op.operands, op.results, op.operand_types, op.result_types,
            sorted(op.region_uses), op.elementwise, op.operand_aliases, op.call_forwards,
            op.target, op.dps_inits, op.same_index_operands, op.max_trips, op.pure_call,
            op.dot_dims,
            op.loc.text, op.loc.name)


def model_view(fn: FunctionModel) -> tuple[object, ...]:
    """Everything the rules read of a model (handles aside)."""
    return (fn.name, fn.loc.text,
            [(a.index, a.value, a.tensor, a.type_text, a.placement, a.donation, a.loc.text,
              a.loc.name) for a in fn.args],
            [_op_view(op) for op in fn.ops],
            [(r.index, r.value, r.tensor, r.type_text, r.placement) for r in fn.results])


def compare_models(text: str) -> tuple[int, list[str]]:
    """Assert the text model equals the bindings model for each function of ``text`` (a
    jaxlib print) the reader reads, in XLA's view and without inlining; the count of
    functions compared and why the others were declined."""
    module = jaxlib_path.parse(text.encode(), ctx=_context())
    try:
        read = jax_text.read_module(text)
    except jax_text.TextUnsupported as err:
        return 0, [str(err)]
    explicit = "loc(" in text
    compared = 0
    declined: list[str] = []
    for inline in (True, False):
        bindings = ModuleAdapter(module.operation, inline=inline)
        reader = jax_text.TextModuleAdapter(read, inline=inline)
        for view in module.body.operations:
            func = view.operation
            if func.name != "func.func" or not len(func.regions[0].blocks):
                continue
            name = symbol_name(func)
            try:
                expected: FunctionModel | str = bindings.build(func)
                assert isinstance(expected, FunctionModel)
                fronts.fix_locations(expected, func)
                fronts.fix_op_locations(expected, explicit)
            except Exception as err:  # the reader must fail alike
                expected = f"{type(err).__name__}: {err}"
            try:
                got: FunctionModel | str = reader.build(read.functions[name])
            except jax_text.TextUnsupported as err:
                declined.append(str(err))
                continue
            except Exception as err:  # the reader must fail alike
                got = f"{type(err).__name__}: {err}"
            if isinstance(expected, str) or isinstance(got, str):
                assert isinstance(expected, str) and isinstance(got, str), (name, expected, got)
                assert expected.split(":")[0] == got.split(":")[0], (name, expected, got)
                continue
            assert model_view(got) == model_view(expected), name
            compared += 1
    return compared, declined


@cache
def corpus_texts() -> list[str]:
    from tests.corpus.generate import load_corpus

    texts, _ = load_corpus()
    return [t.text for t in texts]


def test_text_model_equals_bindings_model_on_the_corpus() -> None:
    compared = 0
    declined: list[str] = []
    for text in corpus_texts():
        for debug in (False, True):
            printed = canonical(text, debug)
            assert printed is not None
            c, d = compare_models(printed)
            compared += c
            declined += d
    # 1,384 functions on JAX 0.12.1 (its CPU lgamma and digamma are custom calls, not private
    # functions), more on older JAX
    assert compared > 1350 and declined == [], (compared, declined)


def test_text_model_equals_bindings_model_on_lit_and_hostile_inputs() -> None:
    compared = 0
    for source in LIT_INPUTS + HOSTILE:
        for chunk in source.read_text(errors="replace").split("// -----"):
            for debug in (False, True):
                printed = canonical(chunk, debug)
                if printed is not None:
                    compared += compare_models(printed)[0]
    assert compared > 400, compared


def test_text_model_equals_bindings_model_on_a_real_train_step() -> None:
    from benchmarks.jax_modules import lower

    for debug in (False, True):
        printed = canonical(lower(4, debug_info=debug), debug)
        assert printed is not None
        assert compare_models(printed)[0] == 2


def _path_line(err: str) -> tuple[str, str]:
    """``--verbose``'s path line (with timings) and the rest of stderr."""
    lines = err.splitlines(keepends=True)
    path = [x for x in lines if x.startswith("jax-donate-opt: path: ")]
    rest = [x for x in lines if not x.startswith("jax-donate-opt: ")]
    return (path[0] if path else ""), "".join(rest)


def test_text_route_gives_the_bindings_route_output(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Forced for every size: the same exit code, stdout and stderr as the bindings route, on
    the corpus (every other text; ``JUD_TEXT_ROUTE_CORPUS_STRIDE=n``: every n-th, as CI's
    second environment runs it), the lit and the hostile inputs, with the configs that
    rewrite, verify and report (text, long text, JSON)."""
    stride = int(os.environ.get("JUD_TEXT_ROUTE_CORPUS_STRIDE", "2"))
    sources = [*corpus_files(tmp_path)[::stride], *LIT_INPUTS, *HOSTILE]
    text_runs = 0
    for source in sources:
        for config in (CONFIGS[0], CONFIGS[1], CONFIGS[3], CONFIGS[4], CONFIGS[5], CONFIGS[6]):
            monkeypatch.setattr(text_route, "MIN_BYTES", 1 << 40)
            code, out, err = run(source, *config, "--verbose")
            monkeypatch.setattr(text_route, "MIN_BYTES", 0)
            code_t, out_t, err_t = run(source, *config, "--verbose")
            line, rest = _path_line(err_t)
            assert (code_t, out_t, rest) == (code, out, _path_line(err)[1]), (source.name,
                                                                               config)
            text_runs += "model read from the text" in line
    assert text_runs > (200 if stride == 2 else len(sources)), text_runs


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _route_says(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, tuple[int, str, str]]:
    monkeypatch.setattr(text_route, "MIN_BYTES", 0)
    code, out, err = run(path, "-p", "jax-plan-donation", "--path=jaxlib", "--verbose")
    monkeypatch.setattr(text_route, "MIN_BYTES", 1 << 40)
    expected = run(path, "-p", "jax-plan-donation", "--path=jaxlib")
    assert (code, out, _path_line(err)[1]) == expected
    return err, expected


HAND_WRITTEN = """
func.func public @main(%arg0: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
  %0 = stablehlo.negate %arg0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def test_the_route_declines_what_jaxlib_spells_otherwise(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    err, (code, out, _) = _route_says(_write(tmp_path, "hand.mlir", HAND_WRITTEN), monkeypatch)
    assert "the text route declined (the input is not jaxlib's own print of it)" in err
    assert code == 0 and "tf.aliasing_output = 0 : i32" in out
    printed = canonical(HAND_WRITTEN, False)
    assert printed is not None
    spaced = printed.replace("stablehlo.negate %arg0", "stablehlo.negate  %arg0")
    err, _ = _route_says(_write(tmp_path, "spaced.mlir", spaced), monkeypatch)
    assert "declined (the input is not jaxlib's own print of it)" in err
    quoted = canonical(HAND_WRITTEN.replace("@main", '@"my main"'), False)
    assert quoted is not None and '@"my main"' in quoted  # jaxlib's spelling, not the reader's
    err, (code, out, _) = _route_says(_write(tmp_path, "quoted.mlir", quoted), monkeypatch)
    assert "declined (the text reader: line 2: function" in err
    assert code == 0 and "tf.aliasing_output = 0 : i32" in out


def test_the_route_takes_loops_and_declines_what_jaxlib_refuses(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    chunks = [c for c in (ROOT / "lit_tests" / "xla_behaviour.mlir").read_text().split("// -----")
              if "stablehlo.while" in c and "jax.buffer_donor" in c]
    chunks += [c for c in (ROOT / "lit_tests" / "inplace.mlir").read_text().split("// -----")
               if "stablehlo.while" in c and "jax.buffer_donor" in c]
    assert len(chunks) >= 3, len(chunks)
    for k, chunk in enumerate(chunks):  # one-trip loops too: their bodies forward carries
        loop = canonical(chunk, False)
        assert loop is not None
        err, _ = _route_says(_write(tmp_path, f"loop{k}.mlir", loop), monkeypatch)
        assert "model read from the text" in err, err
    printed = canonical(HAND_WRITTEN, False)
    assert printed is not None
    broken = printed.replace("stablehlo.negate %arg0 : tensor<4xf32>",
                             "stablehlo.negate %arg0 : tensor<5xf32>")
    err, (code, _, _) = _route_says(_write(tmp_path, "broken.mlir", broken), monkeypatch)
    assert code != 0 and "path: xdsl (the jaxlib path gave up: jaxlib cannot read" in err


def test_the_planning_child_replies_or_declines() -> None:
    from jax_use_donated.planning import PlanOptions

    printed = canonical(HAND_WRITTEN, False)
    assert printed is not None
    options = [PlanOptions("dataflow")]
    child = text_route.PlanChild(printed.encode())
    child.ask(options, report=ReportStyle("text", False, "in.mlir"))
    result = child.result()
    assert result["rewrites"] == {"main": [{"0": 0}, []]} and result["warnings"] == []
    assert result["with_donors"] == ["main"] and "donation report" in result["report"]
    dead = text_route.PlanChild(printed.encode())
    dead.cancel()
    with pytest.raises(text_route.Declined, match="child failed"):
        dead.result()
    refused = text_route.PlanChild(HAND_WRITTEN.encode())  # not one module: the reader stops
    refused.ask(options, report=None)
    with pytest.raises(text_route.Declined, match="the text reader"):
        refused.result()


def test_an_early_child_is_adopted_only_for_its_own_bytes() -> None:
    printed = canonical(HAND_WRITTEN, False)
    assert printed is not None
    data = printed.encode()
    text_route.EARLY = text_route.PlanChild(data)
    assert text_route.adopt(data + b" ") is None and text_route.EARLY is None
    early = text_route.EARLY = text_route.PlanChild(data)
    assert text_route.adopt(data) is early
    early.cancel()
    text_route.EARLY = text_route.PlanChild(data)
    text_route.discard_early()
    assert text_route.EARLY is None


def test_the_command_forks_its_child_at_start_up(tmp_path: Path) -> None:
    """``jax-donate-opt`` on a train step over :data:`.text_route.MIN_BYTES`: the child it
    forked before the driver's imports is the one that planned; the outputs equal the bindings
    route's (in-process, where no child is forked early)."""
    from benchmarks.jax_modules import lower

    text = lower(200)
    assert len(text) > text_route.MIN_BYTES
    source = _write(tmp_path, "step.mlir", text)
    tool = Path(sys.executable).with_name("jax-donate-opt")
    done = subprocess.run([str(tool), str(source), "-p", "jax-plan-donation", "--verbose",
                           "--donation-report"], capture_output=True, text=True, check=False)
    line, rest = _path_line(done.stderr)
    assert "planned by a child forked at start-up" in line
    bindings = subprocess.run(
        [sys.executable, "-c", "import sys\nfrom jax_use_donated.opt import driver, text_route\n"
         "text_route.MIN_BYTES = 1 << 40\nsys.exit(driver.main(sys.argv[1:]))", str(source),
         "-p", "jax-plan-donation", "--verbose", "--donation-report"],
        capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout, rest) == (bindings.returncode, bindings.stdout,
                                                    _path_line(bindings.stderr)[1])
    assert "what the report says:" in rest  # --verbose: the long report
    assert "tf.aliasing_output" in done.stdout


# --------------------------------------------------------------------------------------------
# The reader's pieces


def test_split_top_level_and_result_types() -> None:
    parts = list(jax_text.split_top_level('a, f(b, c), "d, e", t<x, y>, (T) -> T'))
    assert parts == ["a", " f(b, c)", ' "d, e"', " t<x, y>", " (T) -> T"]
    f32 = jax_text.tensor_info("tensor<4xf32>")
    i1 = jax_text.tensor_info("tensor<4xi1>")
    assert f32 is not None and f32.shape == (4,) and f32.element_bits == 32
    assert jax_text.result_types("(tensor<4xf32>) -> tensor<4xi1>", 1, "x") == [i1]
    assert jax_text.result_types("tensor<4xi1>, tensor<4xf32>", 1, "stablehlo.select") == [f32]
    assert jax_text.result_types("tensor<4xf32>, tensor<4xi1>", 2, "x") == [f32, i1]
    assert jax_text.result_types("tensor<4xf32>", 2, "x") == [f32, f32]
    with pytest.raises(jax_text.TextUnsupported):
        jax_text.result_types("tensor<4xf32>, tensor<4xi1>", 1, "stablehlo.clamp")
    assert jax_text.tensor_info("!stablehlo.token") is None
    assert jax_text.tensor_info("tensor<*xf32>") is None
    dyn = jax_text.tensor_info("tensor<?x2xcomplex<f32>>")
    assert dyn is not None and dyn.shape == (None, 2) and dyn.element_bits == 64


def test_locations_expand_as_jaxlib_prints_them() -> None:
    locations = jax_text.Locations({"#loc1": '"f.py":3:4', "#loc2": '"g.py":5:6',
                                    "#loc3": "callsite(#loc1 at #loc2)"})
    assert locations.printed("#loc3") == 'loc(callsite("f.py":3:4 at "g.py":5:6))'
    assert jax_text.loc_text(locations.printed("#loc3")) == "f.py:3:4"
    assert jax_text.loc_name('loc("x"("f.py":1:2))') == "x"
    with pytest.raises(jax_text.TextUnsupported, match="#loc9"):
        locations.printed("#loc9")


@pytest.mark.parametrize(("text", "why"), [
    ('module {\n  func.func @"quoted"() {\n    return\n  }\n}', "function"),
    ("module {\n  func.func @f() {\n    return\n  ^bb1:\n    return\n  }\n}", "several blocks"),
    ("#map = affine_map<(d0) -> (d0)>\nmodule {\n}", "alias line"),
    ("module {\n  func.func @f() {\n    %0 = stablehlo.negate %1 : tensor<f32>\n"
     "    return\n  }\n}", "before its definition"),
    ("module {\n  func.func @f() {\n    %0 = stablehlo.constant dense<0> : tensor<4xf32x>\n"
     "    return\n  }\n}", "type"),
])
def test_the_reader_refuses_what_it_does_not_know(text: str, why: str) -> None:
    with pytest.raises(jax_text.TextUnsupported, match=why):
        read = jax_text.read_module(text)
        for fn in read.functions.values():
            jax_text.TextModuleAdapter(read).build(fn)


def _real_model_forms() -> list[bool]:
    """``JUD_REAL_MODEL_FORMS`` as ``tests/test_orderings.py`` reads it: ``flat,nested``
    (default) or ``flat`` (CI's second environment)."""
    return [f == "nested" for f in os.environ.get("JUD_REAL_MODEL_FORMS", "flat,nested").split(",")]


@pytest.mark.parametrize("nested", _real_model_forms(), ids=lambda n: "nested" if n else "flat")
def test_real_library_steps_plan_alike_on_both_routes(tmp_path: Path, nested: bool,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Every real train and decode step of ``benchmarks/real_models.py`` (Flax Linen and NNX,
    Equinox, optax, hand-written JAX; flat, and with the step called as an inner jit), as
    their jit lowers it, with and without debug locations: the text route's exit code, module,
    warnings and report equal the bindings route's, and the text route ran (it declines
    nothing JAX prints for these)."""
    from benchmarks.real_models import VARIANTS, _lower

    ran = 0
    for variant in VARIANTS:
        lowered = _lower(*variant.make(nested))
        for debug in (False, True):
            source = _write(tmp_path, f"{variant.name}{'.debug' if debug else ''}.mlir",
                            lowered.as_text(debug_info=debug))
            monkeypatch.setattr(text_route, "MIN_BYTES", 0)
            code, out, err = run(source, "-p", "jax-plan-donation", "--donation-report",
                                 "--verbose")
            monkeypatch.setattr(text_route, "MIN_BYTES", 1 << 40)
            expected = run(source, "-p", "jax-plan-donation", "--donation-report", "--verbose")
            line, rest = _path_line(err)
            assert (code, out, rest) == (*expected[:2], _path_line(expected[2])[1]), (
                variant.name, debug, line)
            ran += "model read from the text" in line
    assert ran == 2 * len(VARIANTS), ran


def test_the_early_child_is_forked_only_where_the_text_route_may_run(tmp_path: Path) -> None:
    big = _write(tmp_path, "big.mlir", "// " + "x" * text_route.MIN_BYTES + "\n")
    small = _write(tmp_path, "small.mlir", HAND_WRITTEN)
    for argv in ([str(big), "-p", "jax-plan-donation{mode=materialize}"],
                 [str(big), "-p", "canonicalize,jax-plan-donation"],
                 [str(big), "-p", "jax-plan-donation", "--path=xdsl"],
                 [str(small), "-p", "jax-plan-donation"],
                 [str(small), "-o", str(big), "-p", "jax-plan-donation"]):  # -o names no input
        text_route.start_early(argv)
        assert text_route.EARLY is None, argv
    for argv in ([str(big), "-p", "jax-plan-donation{xla-fallback},jax-verify-donation"],
                 [str(big), "--donation-report"]):
        text_route.start_early(argv)
        assert text_route.EARLY is not None, argv
        text_route.discard_early()
