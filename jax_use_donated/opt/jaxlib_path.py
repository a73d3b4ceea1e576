"""``jax-donate-opt``'s jaxlib path: parse, plan, rewrite and print with jaxlib's C++ MLIR.

For pipelines that only change argument attributes (``jax-plan-donation`` in alias mode,
``jax-verify-donation``; no pass at all with ``--path=jaxlib``) the driver can read the input with jaxlib's MLIR
(``jaxlib.mlir.ir``, the bindings behind ``jax._src.lib.mlir``), build the core's model with
the jit hook's adapter (:mod:`jax_use_donated.adapters.jaxlib_ir`), plan with the shared core,
write ``tf.aliasing_output`` / ``jax.buffer_donor`` with jaxlib and print with jaxlib: about
100x faster reading than xDSL's Python parser. From 256 KiB of input on, a child forked at
start-up reads the model from the text and plans while this process parses and prints
(:mod:`.text_route`); where that route declines, the model is read through jaxlib's bindings
and a child forked after parsing prints while this process plans (:mod:`.print_ahead`).

Exit codes and stderr are the xDSL path's, byte for byte: the jaxlib path handles successful
runs only. Whenever jaxlib cannot parse the input, a donation attribute is malformed, a strict
plan fails, a verified alias is unsafe or anything else goes wrong, it gives up before writing
anything and the driver runs the xDSL path on the same bytes, which reports the error as always.
stdout is jaxlib's own spelling of the module (``module``, ``call``, ``return``, ``%arg0``),
equal to what jaxlib prints for the xDSL path's output. ``--path=auto`` (the default) takes
this path for a donation pass on text with MLIR's own names (:func:`xdsl_reasons`: what JAX's
``as_text()`` prints); ``--path=jaxlib`` forces it wherever the pipeline allows
(:func:`pipeline_reasons`), ``--path=xdsl`` never takes it.

Documented differences under ``--path=jaxlib`` (``auto`` avoids them by choosing xDSL):

* SSA value and block names: jaxlib prints MLIR's numbering (``%arg0``, ``%0``, ``^bb0``),
  xDSL keeps the input's names (``%a``, ``%x_1``);
* ``loc("-":L:C)`` in the input: ``-`` is the name jaxlib gives its input buffer, so such a
  location is taken for one jaxlib made up and diagnostics name the input file instead.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from jax_use_donated.adapters.jax_text import PARSER_BUFFER
from jax_use_donated.opt import print_ahead
from jax_use_donated.opt.jaxlib_io import (
    Outcome,
    Unsupported,
    check_nesting,
    functions_with_donors,
    make_context,
    parse,
    print_module,
    print_verified_module,
)

if TYPE_CHECKING:  # the driver imports this module only when it runs
    from jax_use_donated.opt.driver import JaxDonateOptMain

Path = Literal["auto", "jaxlib", "xdsl"]
PATHS: tuple[Path, ...] = ("auto", "jaxlib", "xdsl")

_FLAGS_XDSL_ONLY = {
    "split_input_file": "--split-input-file",
    "verify_diagnostics": "--verify-diagnostics",
    "parsing_diagnostics": "--parsing-diagnostics",
    "shrink": "--shrink",
    "print_between_passes": "--print-between-passes",
    "time_passes": "--time-passes",
    "print_op_generic": "--print-op-generic",
    "print_no_properties": "--print-no-properties",
    "print_debuginfo": "--print-debuginfo",
    "syntax_highlight": "--syntax-highlight",
    "no_implicit_module": "--no-implicit-module",
    "disable_verify": "--disable-verify",
}
"""Options of ``xdsl-opt`` whose behaviour only the xDSL path implements."""

_OWN_VALUE_NAME = re.compile(
    rb"%(?!(?:arg\d+|\d+|cst|c|true|false|c\d+_[iu]\d+|c_\d+_[iu]\d+|idx\d*|iterArg"
    rb"|output_state|output|values|indices)"
    rb"(?:_\d+)?(?![\w$.\-]))[A-Za-z_$.\-]")
"""An SSA name MLIR's printer would not give: ``%arg3``, ``%7``, ``%cst_0``, ``%c1_i32`` are its
own (name hints of constants, ``stablehlo.while``'s ``%iterArg``, ``rng_bit_generator``'s
``%output_state``/``%output``, ``top_k``'s ``%values``/``%indices``), ``%params`` is the user's."""
_COMMENT = re.compile(rb"//[^\n]*")
_OWN_BLOCK_NAME = re.compile(rb"\^(?!bb\d+(?![\w$.\-]))[\w$.\-]")


# --------------------------------------------------------------------------------------------
# Choosing the path


def pipeline_reasons(tool: JaxDonateOptMain) -> list[str]:
    """Why the jaxlib path cannot run this command line at all (``[]``: it can)."""
    from jax_use_donated.xdsl_plugin.plan_donation import JaxPlanDonation, JaxVerifyDonation
    from jax_use_donated.xdsl_plugin.universe import TEXT_FORMAT

    args = tool.args
    reasons = [f"{flag} is handled by the xDSL path"
               for dest, flag in _FLAGS_XDSL_ONLY.items() if getattr(args, dest, False)]
    if getattr(args, "advise", False):
        reasons.append("--advise is handled by the xDSL path")
    request = getattr(args, "donation_report", None)
    if request is not None and request.format == "html":
        reasons.append("--donation-report=html is handled by the xDSL path")
    if (args.frontend or TEXT_FORMAT) != TEXT_FORMAT:
        reasons.append(f"frontend '{args.frontend}'")
    if (args.target or TEXT_FORMAT) != TEXT_FORMAT:
        reasons.append(f"target '{args.target}'")
    for p in tool.pipeline.passes:
        if isinstance(p, JaxPlanDonation):
            if not p.rewrites_signatures_only:
                reasons.append(f"{p.name}{{mode={p.mode}}} changes the body (xDSL path)")
        elif not isinstance(p, JaxVerifyDonation):
            reasons.append(f"pass {p.name} runs on the xDSL path")
    return reasons


def auto_reasons(tool: JaxDonateOptMain) -> list[str]:
    """Why ``--path=auto`` keeps a command the jaxlib path could run on xDSL: a pipeline
    without a donation pass is a round trip through our xDSL dialects."""
    if not tool.pipeline.passes:
        return ["no pass: a round trip through the xDSL dialects"]
    return []


def xdsl_reasons(data: bytes) -> list[str]:
    """Why ``--path=auto`` reads ``data`` with xDSL although jaxlib could: names the user chose
    (xDSL keeps them, jaxlib prints MLIR's numbering), or locations jaxlib would take for its
    own (``[]``: none). Text printed by jaxlib (JAX's ``as_text()``) has neither."""
    reasons: list[str] = []
    code = _COMMENT.sub(b"", data) if b"//" in data else data
    if _OWN_VALUE_NAME.search(code):
        reasons.append("the input names SSA values (xDSL keeps the names, jaxlib numbers them)")
    if _OWN_BLOCK_NAME.search(code):
        reasons.append("the input names blocks (xDSL keeps the names, jaxlib numbers them)")
    if f'loc("{PARSER_BUFFER}":'.encode() in data:
        reasons.append(f'the input has loc("{PARSER_BUFFER}":...) locations, which jaxlib makes '
                       "up for ops without one")
    return reasons


# --------------------------------------------------------------------------------------------
# jaxlib


# --------------------------------------------------------------------------------------------
# Running a pipeline


def run_pipeline(module: Any, passes: Sequence[Any], explicit_locations: bool = True
                 ) -> Outcome:
    """Apply ``passes`` (``jax-plan-donation`` in alias mode, ``jax-verify-donation``) to the
    jaxlib ``module`` as the xDSL passes would; :class:`Unsupported` where the xDSL path must
    report an error instead. ``explicit_locations``: whether the input has any ``loc(``."""
    from jax_use_donated.analysis.report import ReportedPlan
    from jax_use_donated.diagnostics import collect_diagnostics
    from jax_use_donated.opt.fronts import BindingsFront
    from jax_use_donated.opt.text_route import Declined, plan_options
    from jax_use_donated.planning import plan_functions

    try:
        pipeline = plan_options(passes)
    except Declined as err:
        raise Unsupported(err.reason) from None
    outcome = Outcome("")
    with collect_diagnostics() as sink:
        for options in pipeline:
            done = plan_functions(BindingsFront(options, module, explicit_locations),
                                  outcome.seconds)
            outcome.plans.extend(ReportedPlan(item.fn, item.plan, not options.verify)
                                 for item in done)
        outcome.warnings = list(sink.diagnostics)
    return outcome


def try_run(tool: JaxDonateOptMain, data: bytes, path: Path) -> bool:
    """Run ``tool``'s command on ``data`` with jaxlib and write its output and diagnostics;
    ``False`` (nothing written) when the xDSL path has to run it. ``--verbose`` says which
    path ran and why (stderr).

    The cyclic garbage collector stays paused until the models are gone: re-enabled while
    they are alive, its next collection scanned them all (0.27 s at 10^5 ops). In the
    ``jax-donate-opt`` command (:data:`KEEP_UNTIL_EXIT` set) they are never gone, as the
    process ends right after this path wrote its output: there it stays paused."""
    import gc

    was_enabled = gc.isenabled()
    gc.disable()
    done = False
    try:
        done = _try_run(tool, data, path)
    finally:
        if was_enabled and not (done and KEEP_UNTIL_EXIT is not None):
            gc.enable()
    return done


def _try_run(tool: JaxDonateOptMain, data: bytes, path: Path) -> bool:
    verbose = bool(getattr(tool.args, "verbose", False))

    def say(message: str) -> None:
        if verbose:
            print(f"jax-donate-opt: {message}", file=sys.stderr)

    if path == "xdsl":
        say("path: xdsl (--path=xdsl)")
        return False
    reasons = pipeline_reasons(tool)
    if path == "auto":
        reasons = reasons or auto_reasons(tool) or xdsl_reasons(data)
    if reasons:
        say(f"path: xdsl ({'; '.join(reasons)})")
        return False
    timings: dict[str, float] = {}
    start = time.perf_counter()
    ahead = None
    try:
        data.decode("utf-8")
        if b"\0" in data:  # jaxlib's lexer stops at a NUL byte, xDSL's reports it
            raise Unsupported("the input has a NUL byte")
        if b"dialect_resources" in data:  # blobs: a second context in one process drops them
            raise Unsupported("the input has resource blobs")
        timings["checks"] = time.perf_counter() - start
        parallel, module = _text_route(tool, data, timings, say)
        if parallel is not None:
            outcome, text = parallel
            started = ("forked at start-up" if "fork" not in timings else "forked here")
            say(f"path: jaxlib, model read from the text and planned by a child {started} ("
                f"{', '.join(f'{k} {v:.3f} s' for k, v in timings.items())}; the child: "
                f"{', '.join(f'{k} {v:.3f} s' for k, v in outcome.seconds.items())})")
            write(tool, outcome, text)
            if KEEP_UNTIL_EXIT is not None:
                KEEP_UNTIL_EXIT.append(outcome)
            return True
        if module is None:
            mark = time.perf_counter()
            check_nesting(data)
            timings["checks"] += time.perf_counter() - mark
            mark = time.perf_counter()
            ctx = make_context(bool(tool.args.allow_unregistered_dialect))
            timings["jaxlib"] = time.perf_counter() - mark
            mark = time.perf_counter()
            module = parse(data, ctx=ctx)
            timings["parse"] = time.perf_counter() - mark
        ahead = print_ahead.start(module, list(functions_with_donors(module)), len(data),
                                  print_verified_module)
        outcome = run_pipeline(module, tool.pipeline.passes, b"loc(" in data)
        timings.update(outcome.seconds)
        mark = time.perf_counter()
        text = ahead.text() if ahead is not None else None
        printed_ahead = text is not None
        if text is None:
            text = print_module(module)
        timings["print"] = time.perf_counter() - mark
    except (Unsupported, UnicodeDecodeError) as err:
        if ahead is not None:
            ahead.cancel()
        say(f"path: xdsl (the jaxlib path gave up: {err})")
        return False
    except Exception as err:  # anything unforeseen: the xDSL path decides (and reports)
        if ahead is not None:
            ahead.cancel()
        say(f"path: xdsl (the jaxlib path gave up: {type(err).__name__}: {err})")
        return False
    say(f"path: jaxlib ({', '.join(f'{k} {v:.3f} s' for k, v in timings.items())}"
        + ("; printed ahead by a child process" if printed_ahead else "") + ")")
    write(tool, outcome, text)
    if KEEP_UNTIL_EXIT is not None:
        KEEP_UNTIL_EXIT.append((module, outcome))
    return True


def _text_route(tool: JaxDonateOptMain, data: bytes, timings: dict[str, float],
                say: Callable[[str], None]) -> tuple[tuple[Outcome, str] | None, Any]:
    """:func:`.text_route.run_beside_planner` for an input of at least
    :data:`.text_route.MIN_BYTES`: its outcome and text, or ``None`` (and why, with
    ``--verbose``) and jaxlib's module where it parsed one, for the bindings route."""
    from jax_use_donated.opt import text_route

    if len(data) < text_route.MIN_BYTES:
        return None, None
    try:
        done = text_route.run_beside_planner(
            data, tool.pipeline.passes, tool.report_style(),
            bool(tool.args.allow_unregistered_dialect), timings)
    except text_route.Declined as err:
        say(f"the text route declined ({err.reason}): the model is read through jaxlib")
        return None, err.module
    return done, None


KEEP_UNTIL_EXIT: list[object] | None = None
"""Set by the ``jax-donate-opt`` command (:func:`.driver.console_main`), which ends the
process without teardown: what the jaxlib path built is kept here instead of being freed
object by object."""


def write(tool: JaxDonateOptMain, outcome: Outcome, text: str) -> None:
    """Diagnostics to stderr, the donation report (stderr or its file), then the module to
    the output, as the xDSL path writes them."""
    from jax_use_donated.analysis.report import render

    name = tool.get_input_name()
    stream = tool.prepare_output()  # as xDSL: an unwritable output fails before anything else
    for diag in outcome.warnings:
        print(diag.format(name), file=sys.stderr)
    sys.stderr.flush()
    style = tool.report_style()
    if style is not None:
        tool.write_report(outcome.report if outcome.report is not None
                          else render(outcome.plans, style))
    try:
        stream.write(text)
        stream.flush()
    finally:
        if stream is not sys.stdout:
            stream.close()
