"""The jaxlib path's text route: a forked child reads the model from the text and plans while
this process parses, checks and prints with jaxlib.

Reading the model through jaxlib's Python bindings (:mod:`.adapters.jaxlib_ir`) costs more
than jaxlib's parse and print together, and the plan about as much again. So for a large input
the work is split over two processes:

* the child (forked by the ``jax-donate-opt`` command before it imports the driver,
  :func:`start_early`, or here) reads the models from the text (:mod:`.adapters.jax_text`),
  waits for the pipeline's options, plans, collects the warnings and the donation report and
  sends them with the rewrites (function -> aliases, buffer donors);
* this process parses and verifies the bytes with jaxlib, prints the module (with locations
  when the input has any) and checks that the print *is* the input: then the text the child
  read is jaxlib's own spelling, the one :mod:`.adapters.jax_text` is tested on. It prints
  the module without locations (the output), applies the child's rewrites with
  :func:`.jaxlib_ir.set_arg_donations` and puts each rewritten signature line, rebuilt from the
  argument dictionaries as jaxlib prints them (:class:`.signatures.Splicer`, the bindings
  route's too), in place of the old one::

    // input (= jaxlib's print of it)           // child: read, plan    // here: rewrite
    func.func public @main(%arg0: ...           {"main": [{0: 1}, []]}  func.func public @main(
        {tf.aliasing_output = 0 : i32}, ...                               %arg0: ... {tf.aliasing_output = 1 : i32}

Whenever the child cannot plan (the reader meets a spelling it does not know, a model cannot
be built, a strict plan fails) or jaxlib re-spells the input, :class:`Declined` carries the
parsed module back and the caller plans on it through the bindings, as before; errors are
always reported by the xDSL path.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from jax_use_donated.opt.child import Child, Link
from jax_use_donated.opt.jaxlib_io import Declined

if TYPE_CHECKING:
    from jax_use_donated.adapters.jax_text import TextModule
    from jax_use_donated.analysis.report import ReportStyle
    from jax_use_donated.opt.jaxlib_io import Outcome
    from jax_use_donated.planning import PlanOptions

MIN_BYTES = 1 << 18
"""Inputs from this size on take the text route (``benchmarks/pass_scaling.py --end-to-end``:
it pays at 10^4 ops, 0.9 MB; at 0.1 MB the start-up, 0.3 s of imports, is most of the time
and the fork gains nothing)."""

# --------------------------------------------------------------------------------------------
# The child: read and plan


def plan_text(module: TextModule, passes: Sequence[PlanOptions], report: ReportStyle | None,
              prebuilt: dict[str, Any] | None = None) -> dict[str, Any]:
    """The passes on the text's models, as :func:`.jaxlib_path.run_pipeline` runs them on
    jaxlib's (the same loop, :func:`.planning.plan_functions`): the rewrites, the warnings
    (``[severity, message, file:line:col, name]``), the donation report rendered in the
    ``report`` style (when given),
    the functions that had donors and the timings. ``prebuilt``: models of XLA's view read
    before the options came (name -> model or the :class:`.errors.DonationError` building it
    raised). :class:`Declined` where that function would give up."""
    from jax_use_donated.analysis.report import ReportedPlan, render
    from jax_use_donated.diagnostics import collect_diagnostics
    from jax_use_donated.opt.text_front import TextFront
    from jax_use_donated.planning import plan_functions

    rewrites: dict[str, tuple[dict[int, int], list[int]]] = {}
    seconds: dict[str, float] = {}
    plans: list[ReportedPlan] = []
    with_donors = [f.name for f in module.functions.values()
                   if f.body is not None and f.has_donors]
    with collect_diagnostics() as sink:
        for k, options in enumerate(passes):
            front = TextFront(options, module, rewrites, prebuilt if k == 0 else None)
            plans.extend(ReportedPlan(item.fn, item.plan, not options.verify)
                         for item in plan_functions(front, seconds))
    return {
        "rewrites": {name: [{str(a): r for a, r in pairs.items()}, donors]
                     for name, (pairs, donors) in rewrites.items()},
        "warnings": [[d.severity, d.message, d.loc.text, d.loc.name] for d in sink.diagnostics],
        "report": render(plans, report) if report is not None else None,
        "planned": bool(plans),
        "with_donors": with_donors,
        "seconds": seconds,
    }


def _planner(data: bytes, link: Link) -> None:
    """The child: read the models (XLA's view, before the options come), then plan as asked
    and reply ``ok`` with :func:`plan_text`'s result as JSON, or ``declined`` and why."""
    from jax_use_donated.adapters.jax_text import TextModuleAdapter, TextUnsupported, read_module
    from jax_use_donated.analysis.errors import DonationError
    from jax_use_donated.analysis.report import ReportStyle
    from jax_use_donated.planning import PlanOptions

    def reply(status: str, payload: bytes) -> None:
        link.send(status.encode() + b"\0" + payload)

    start = time.perf_counter()
    module: TextModule | None = None
    prebuilt: dict[str, Any] = {}
    why = ""
    try:
        module = read_module(data.decode())
        adapter = TextModuleAdapter(module, inline=True)
        for fn_text in module.functions.values():
            if fn_text.body is not None and fn_text.has_donors:
                try:
                    prebuilt[fn_text.name] = adapter.build(fn_text)
                except DonationError as err:
                    prebuilt[fn_text.name] = err
    except (TextUnsupported, UnicodeDecodeError) as err:
        why = f"the text reader: {err}"
    read = time.perf_counter() - start
    request = link.receive()
    if request is None:
        return  # the parent gave up
    if module is None:
        reply("declined", why.encode())
        return
    asked = json.loads(request)
    passes = [PlanOptions(**p) for p in asked["passes"]]
    try:
        style = ReportStyle.from_json(asked["report"]) if asked["report"] else None
        result = plan_text(module, passes, style, prebuilt)
    except Declined as err:
        reply("declined", err.reason.encode())
        return
    result["seconds"]["read"] = read
    reply("ok", json.dumps(result).encode())


class PlanChild:
    """A forked :func:`_planner` for ``data`` (a :class:`.child.Child`): :meth:`ask` sends
    the options, :meth:`result` waits for its reply, :meth:`cancel` stops it. With
    ``preimport`` (anywhere but at the command's start, where the process has one thread) the
    modules the child runs are imported before the fork."""

    def __init__(self, data: bytes, preimport: bool = True) -> None:
        if preimport:  # a process with other threads: the child imports nothing (a lock
            # another thread held at the fork would stay held in the child)
            import jax_use_donated.adapters.jax_text
            import jax_use_donated.analysis.plan
            import jax_use_donated.analysis.report
            import jax_use_donated.planning  # noqa: F401
        self.data = data
        self.child = Child(lambda link: _planner(data, link))

    @property
    def pid(self) -> int | None:
        """The child's process id until it is reaped."""
        return self.child.pid

    def ask(self, passes: Sequence[PlanOptions], report: ReportStyle | None) -> None:
        from dataclasses import asdict

        payload = json.dumps({"passes": [asdict(p) for p in passes],
                              "report": report.to_json() if report is not None else None})
        self.child.send(payload.encode())  # the child is gone: result() says so

    def result(self) -> dict[str, Any]:
        """The child's :func:`plan_text` result; :class:`Declined` when it has none."""
        try:
            reply = self.child.receive()
        finally:
            self.cancel()
        if reply is None:
            raise Declined("the planning child failed")
        status, _, body = reply.partition(b"\0")
        if status != b"ok":
            raise Declined(body.decode(errors="replace"))
        return json.loads(body)

    def cancel(self) -> None:
        """Stop the child (done, or the route gave up) and close the pipes."""
        self.child.cancel()


EARLY: PlanChild | None = None
"""The child :func:`start_early` forked for the command line, until adopted or discarded."""

_VALUE_OPTIONS = frozenset({"-o", "--output-file", "-p", "--passes", "-f", "--frontend",
                            "-t", "--target"})


def start_early(argv: Sequence[str]) -> None:
    """Fork the planning child for ``argv``'s input before the driver's imports (0.3-0.4 s of
    xDSL), so that it reads the models while they run. Speculative: the input is the one
    argument naming a file of at least :data:`MIN_BYTES`; :func:`adopt` takes the child only
    for the very bytes the driver ends up reading, :func:`discard_early` stops it."""
    global EARLY
    if not hasattr(os, "fork") or any(a == "--path=xdsl" or a == "--advise"
                                      or a.startswith("--donation-report=html") for a in argv):
        return  # the xDSL path will run
    candidates: list[str] = []
    skip = False
    for k, a in enumerate(argv):
        if skip:
            skip = False
            continue
        if a in _VALUE_OPTIONS:
            skip = True
            if a in ("-p", "--passes") and k + 1 < len(argv) and not _attribute_only(argv[k + 1]):
                return  # the xDSL path will run: no child to waste a core on
            continue
        if a.startswith("-"):
            continue
        with contextlib.suppress(OSError, ValueError):
            if os.path.isfile(a) and os.path.getsize(a) >= MIN_BYTES:
                candidates.append(a)
    if len(candidates) != 1:
        return
    try:
        with open(candidates[0], "rb") as f:
            data = f.read()
        EARLY = PlanChild(data, preimport=False)  # one thread yet: the child imports
    except Exception:  # no early child: the route forks later
        EARLY = None


_ATTRIBUTE_ONLY = re.compile(r"(?:jax-plan-donation|jax-verify-donation)(?:\{[^{}]*\})?")


def _attribute_only(pipeline: str) -> bool:
    """Whether a ``-p`` pipeline can be attribute-only (the text route's): donation passes
    only, and no ``mode=materialize``."""
    return "materialize" not in pipeline and all(
        _ATTRIBUTE_ONLY.fullmatch(p.strip()) for p in re.split(r",(?![^{}]*\})", pipeline))


def adopt(data: bytes) -> PlanChild | None:
    """The early child if it read ``data``, else ``None`` (it is then stopped)."""
    global EARLY
    child, EARLY = EARLY, None
    if child is None:
        return None
    if child.data == data:
        return child
    child.cancel()
    return None


def discard_early() -> None:
    """Stop an early child nobody adopted."""
    global EARLY
    child, EARLY = EARLY, None
    if child is not None:
        child.cancel()


# --------------------------------------------------------------------------------------------
# This process: parse, check, print, rewrite


def plan_options(passes: Sequence[Any]) -> list[PlanOptions]:
    """The options of an attribute-only pipeline (both routes of the jaxlib path run these);
    :class:`Declined` for any other."""
    from jax_use_donated.analysis.orderings import ORDERING_NAMES
    from jax_use_donated.planning import PlanOptions
    from jax_use_donated.xdsl_plugin.plan_donation import JaxPlanDonation, JaxVerifyDonation

    out: list[PlanOptions] = []
    for p in passes:
        if isinstance(p, JaxPlanDonation):
            if p.mode != "alias" or p.remove_matched_outputs or (p.xla_fallback and p.fusion_safe):
                raise Declined(f"{p.name}: options the xDSL pass refuses")
            if p.ordering != "auto" and p.ordering not in ORDERING_NAMES:
                raise Declined(f"{p.name}: unknown ordering")
            out.append(p.plan_options)
        elif isinstance(p, JaxVerifyDonation):
            if p.ordering not in ORDERING_NAMES:
                raise Declined(f"{p.name}: unknown ordering")
            out.append(PlanOptions(p.ordering, keep_existing_aliases=True, verify=True))
        else:
            raise Declined(f"pass {p.name}")
    return out


def run_beside_planner(data: bytes, passes: Sequence[Any], report: ReportStyle | None,
                       allow_unregistered: bool, timings: dict[str, float]
                       ) -> tuple[Outcome, str]:
    """The outcome and output text of ``passes`` on ``data`` (see the module docstring).
    :class:`Declined` (with jaxlib's module when parsed) where the bindings route must run
    instead; :class:`.jaxlib_module.Unsupported` where jaxlib refuses the input."""
    from jax_use_donated.adapters.jaxlib_ir import set_arg_donations, symbol_name
    from jax_use_donated.analysis.model import SourceLoc
    from jax_use_donated.diagnostics import Diagnostic
    from jax_use_donated.opt.jaxlib_io import (
        Outcome,
        check_nesting,
        functions_with_donors,
        make_context,
        parse,
    )
    from jax_use_donated.opt.signatures import Splicer

    options = plan_options(passes)
    if not hasattr(os, "fork"):
        raise Declined("no fork() here")
    mark = time.perf_counter()
    child = adopt(data)
    if child is None:
        child = PlanChild(data)
        timings["fork"] = time.perf_counter() - mark
    module = None
    try:
        child.ask(options, report)
        mark = time.perf_counter()
        check_nesting(data)  # jaxlib's printer is quadratic in the depth
        ctx = make_context(allow_unregistered)
        timings["nesting, jaxlib"] = time.perf_counter() - mark
        mark = time.perf_counter()
        module = parse(data, ctx=ctx)
        timings["parse"] = time.perf_counter() - mark
        mark = time.perf_counter()
        operation = module.operation
        debug = b"loc(" in data
        printed = operation.get_asm(enable_debug_info=debug, assume_verified=True)
        if printed.rstrip("\n") != data.decode().rstrip("\n"):
            raise Declined("the input is not jaxlib's own print of it", module)
        text = (operation.get_asm(enable_debug_info=False, assume_verified=True) if debug
                else printed) + "\n"
        del printed
        timings["print"] = time.perf_counter() - mark
        functions = {symbol_name(f): f for f in functions_with_donors(module)}
        splicer = Splicer(functions)
        splicer.locate(text)
        mark = time.perf_counter()
        result = child.result()
        timings["wait"] = time.perf_counter() - mark
    except BaseException as err:
        child.cancel()
        if isinstance(err, Declined) and err.module is None:
            err.module = module
        raise
    if result["with_donors"] != list(functions):
        raise Declined("jaxlib finds donors in other functions than the text reader", module)
    rewrites = result["rewrites"]
    if not splicer.locate(text, rewrites):
        raise Declined("a signature line is not found once in jaxlib's text", module)
    mark = time.perf_counter()
    for name, (pairs, donors) in rewrites.items():
        set_arg_donations(functions[name], {int(a): r for a, r in pairs.items()}, donors)
    text = splicer.splice(text, rewrites)
    timings["rewrite"] = time.perf_counter() - mark
    outcome = Outcome(text, [Diagnostic(severity, message, SourceLoc(loc, name))
                             for severity, message, loc, name in result["warnings"]],
                      seconds=result["seconds"], report=result["report"])
    return outcome, text
