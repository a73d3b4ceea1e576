"""``jax-donate-opt``: ``xdsl-opt`` with this project's dialects, passes and JAX text reader.

Everything ``xdsl-opt`` accepts works (``-p``, ``--split-input-file``, ``--verify-diagnostics``,
``--allow-unregistered-dialect``, ``-o``, ...), plus:

* input is read and output printed by the ``jax`` frontend and target
  (:mod:`jax_use_donated.xdsl_plugin.frontend`: location ranges, trailing ``#loc`` aliases, hex-float dense
  constants); ``-f mlir -t mlir`` select xDSL's own;
* ``--help`` lists our passes with every option, its default and meaning (``--help-passes``
  adds xDSL's); ``--version`` names this package, jax, jaxlib and xdsl;
* donation warnings are printed MLIR-style to stderr (``file:line:col: warning: ...``);
* ``--donation-report[=text|json][=FILE]`` prints the donation report
  (:mod:`jax_use_donated.analysis.report`: per function the totals, the ordering the plan
  assumes, jax.jit's pairing, a per-donor table, hints; ``--verbose`` explains) to stderr or
  ``FILE``, or says why there is nothing to report; a pass's ``report`` option asks for the
  same; ``--donation-report=html=FILE`` writes it as one self-contained HTML page (a lifetime
  strip per donated argument, from the same plan records as the JSON; with
  ``--split-input-file`` a section per input chunk);
* ``--advise`` prints, per public function, which undonated arguments could host a result
  copy-free if donated and what would let each unused donor be reused, by the rules of
  :mod:`jax_use_donated.analysis.advice` under the pipeline's ordering (predicted from the
  module, unverified: nothing is compiled); with ``--donation-report=json`` the document
  carries it too (``advice``), with ``html=FILE`` the page;
* unregistered ops are allowed automatically while no StableHLO dialect is installed; once it
  is, only with ``--allow-unregistered-dialect``;
* every diagnostic is MLIR-style, ``file:line:col: error: message`` (the input's name, or
  ``<stdin>``, where the IR has no location), and never a Python traceback;
* ``--split-input-file`` reports every malformed chunk, then exits 1, as ``mlir-opt`` does;
* an input without operations is an empty module;
* deeply nested IR (thousands of regions) is read, rewritten and printed: the driver runs on
  a thread with a large stack and a raised recursion limit; nesting beyond that is an
  ``error:`` (exit 1), never a crash.
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import dataclasses
import os
import sys
import textwrap
import threading
from collections.abc import Callable, Sequence
from io import BytesIO, StringIO
from typing import IO, Any, ClassVar, NoReturn, cast

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import parse_spec
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    MultipleSpansParseError,
    ParseError,
)
from xdsl.xdsl_opt_main import xDSLOptMain

from jax_use_donated.analysis.report import (
    FORMATS,
    NO_DONORS,
    PAGE_FORMATS,
    RESERVED_FORMATS,
    AdvisedFunction,
    Format,
    PageChunk,
    ReportedPlan,
    ReportStyle,
    advice_text,
    advise_functions,
    donation_report,
    format_bytes,
    html_chunks_report,
    nothing_to_report,
    render,
)
from jax_use_donated.diagnostics import collect_diagnostics
from jax_use_donated.opt.jaxlib_path import PATHS
from jax_use_donated.xdsl_plugin.options import KebabOptions, describe
from jax_use_donated.xdsl_plugin.plan_donation import record_plans
from jax_use_donated.xdsl_plugin.universe import PLAN_PASS, TEXT_FORMAT, UNIVERSE

__all__ = ["JaxDonateOptMain", "donation_report", "format_bytes", "main"]


def _version(distribution: str) -> str:
    from importlib.metadata import PackageNotFoundError, version  # 25 ms: only when asked

    try:
        return version(distribution)
    except PackageNotFoundError:
        return "not installed"


def version_line() -> str:
    """``jax-donate-opt --version``: this package and the versions of what it runs on."""
    return (f"jax-donate-opt (jax-use-donated {_version('jax-use-donated')}): "
            f"jax {_version('jax')}, jaxlib {_version('jaxlib')}, xdsl {_version('xdsl')}")


def our_passes() -> list[type[KebabOptions]]:
    """This project's passes, in the order ``--help`` lists them."""
    return [cast(type[KebabOptions], factory()) for factory in UNIVERSE.all_passes.values()]


def passes_help() -> str:
    """Our passes with every option, its default and meaning (from the pass dataclasses)."""
    parts = ["jax-use-donated passes (-p 'NAME{option=value ...}'; a bare boolean option, "
             "e.g. {strict}, means true):"]
    parts.extend(textwrap.indent(describe(cls, width=98), "  ") for cls in our_passes())
    return "\n".join(parts)


class _HelpPasses(argparse.Action):
    """``--help-passes``: our passes in full, then the names of xDSL's own."""

    def __init__(self, option_strings: Sequence[str], dest: str, tool: JaxDonateOptMain,
                 **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)
        self.tool = tool

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> NoReturn:
        others = [n for n in self.tool.available_passes if n not in UNIVERSE.all_passes]
        listing = textwrap.fill(", ".join(others), width=100, initial_indent="  ",
                                subsequent_indent="  ", break_on_hyphens=False)
        print(f"{passes_help()}\n\nxDSL passes ({len(others)}):\n{listing}")
        parser.exit()


REPORTING_PASSES = tuple(UNIVERSE.all_passes)
"""Passes whose plans ``--donation-report`` prints (all of ours)."""

REPORT_FLAG = "--donation-report"


@dataclasses.dataclass(frozen=True)
class ReportRequest:
    """``--donation-report[=FORMAT[=FILE]]``: the format and where the report goes
    (``None``: stderr)."""

    format: Format = "text"
    path: str | None = None


def report_request(value: str) -> ReportRequest:
    """``text``, ``json``, ``text=FILE``, ``json=FILE``, ``html=FILE`` read as a
    :class:`ReportRequest`; ``argparse.ArgumentTypeError`` for anything else (``html`` without
    a FILE: a page is not for a terminal)."""
    name, sep, path = value.partition("=")
    if name in PAGE_FORMATS:
        if not path:
            raise argparse.ArgumentTypeError(
                f"'{name}' writes a page to a file: name it, e.g. {name}=report.{name}")
        return ReportRequest(name, path)
    if name in RESERVED_FORMATS:
        raise argparse.ArgumentTypeError(
            f"'{name}' is reserved for a later release; use {' or '.join(FORMATS)}")
    if name not in FORMATS:
        raise argparse.ArgumentTypeError(
            f"unknown report format '{name}'; expected {', '.join(FORMATS)} (optionally "
            "=FILE, e.g. json=report.json)")
    if sep and not path:
        raise argparse.ArgumentTypeError(f"'{value}' names no file after '='")
    return ReportRequest("json" if name == "json" else "text", path or None)


def with_report_format(args: Sequence[str]) -> list[str]:
    """``args`` with a bare ``--donation-report`` (or an abbreviation of it) written as
    ``--donation-report=text``: its value is only ever given after ``=``, so the input file
    that may follow it stays the input file."""
    out: list[str] = []
    for k, a in enumerate(args):
        if a == "--":
            out.extend(args[k:])
            break
        out.append(f"{REPORT_FLAG}=text"
                   if len(a) >= len("--do") and REPORT_FLAG.startswith(a) else a)
    return out


class JaxDonateOptMain(xDSLOptMain):
    """``xDSLOptMain`` with our dialects, passes, frontend, target and diagnostics."""

    version_format: ClassVar[str] = version_line().replace("{", "{{").replace("}", "}}")

    def __init__(self, args: Sequence[str] | None = None) -> None:
        self._chunk_lines: list[int] = []
        """The first line (0-based) of each input chunk read so far."""
        self._page_chunks: dict[int, PageChunk] = {}
        """``html``: each reported chunk's part of the page (by chunk number, from 1), written
        once at the end of the run (:meth:`write_page`)."""
        super().__init__(description="xdsl-opt with liveness-aware buffer donation for JAX",
                         args=with_report_format(sys.argv[1:] if args is None else args))
        if not self.args.allow_unregistered_dialect and \
                "stablehlo" not in self.ctx.registered_dialect_names:
            # Until a StableHLO dialect is installed, JAX's ops can only be read unregistered.
            self.ctx.allow_unregistered = True

    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        registered = set(self.ctx.registered_dialect_names)
        for name, factory in UNIVERSE.all_dialects.items():
            if name not in registered:
                self.ctx.register_dialect(name, factory)

    def register_all_frontends(self) -> None:
        super().register_all_frontends()
        self.available_frontends.setdefault(TEXT_FORMAT, UNIVERSE.all_frontends[TEXT_FORMAT])

    def register_all_targets(self) -> None:
        super().register_all_targets()
        self.available_targets.setdefault(TEXT_FORMAT, UNIVERSE.all_targets[TEXT_FORMAT])

    def setup_pipeline(self) -> None:
        """xDSL's pipeline, except that after a pass that rewrites only function signatures
        (:attr:`.JaxPlanDonation.rewrites_signatures_only`) just the ``func.func`` ops are
        verified again (:func:`verify_signatures`), not every op of their bodies."""
        super().setup_pipeline()
        verify_all = self.pipeline.callback
        if verify_all is None:
            return
        args = self.args

        def callback(previous: ModulePass | None, module: ModuleOp,
                     next_pass: ModulePass | None) -> None:
            if (previous is None or args.disable_verify
                    or not getattr(previous, "rewrites_signatures_only", False)):
                verify_all(previous, module, next_pass)
                return
            args.disable_verify = True
            try:
                verify_all(previous, module, next_pass)  # timing and printing, as xDSL does
            finally:
                args.disable_verify = False
            verify_signatures(module)

        self.pipeline = dataclasses.replace(self.pipeline, callback=callback)

    def register_all_passes(self) -> None:
        for name, factory in UNIVERSE.all_passes.items():  # ours first, in every listing
            self.register_pass(name, factory)
        super().register_all_passes()

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.set_defaults(frontend=TEXT_FORMAT, target=TEXT_FORMAT)
        for action in arg_parser._actions:  # pyright: ignore[reportPrivateUsage]
            if action.dest == "passes":
                action.help = (f"pass pipeline, e.g. '{PLAN_PASS}{{mode=materialize strict}}'; "
                               "this project's passes are listed below, xDSL's by "
                               "--help-passes")
            elif action.dest == "frontend":
                action.help = (f"input format (default: {TEXT_FORMAT}, JAX's MLIR text read "
                               f"bit-exactly; mlir: xDSL's own reader)")
            elif action.dest == "target":
                action.help = (f"output format (default: {TEXT_FORMAT}, MLIR text as jaxlib "
                               f"prints it); also: "
                               f"{', '.join(t for t in self.available_targets if t != TEXT_FORMAT)}")
        arg_parser.add_argument(
            "--help-passes", action=_HelpPasses, tool=self,
            help="list this project's passes with their options, then xDSL's passes")
        arg_parser.add_argument(
            REPORT_FLAG, default=None, type=report_request, metavar="FORMAT[=FILE]",
            help="print the donation report of the pipeline's "
                 f"{', '.join(REPORTING_PASSES)} to stderr, or to FILE: per function the "
                 "donors reused and their bytes, the ordering the plan assumes, jax.jit's "
                 "pairing, a table (argument, type, bytes, jax.jit's result, the planned "
                 "one, reason) and hints; FORMAT text (the default: a bare --donation-report) "
                 "or json (one document per line, versioned; per input chunk with "
                 "--split-input-file), or html=FILE (one self-contained page: a lifetime strip "
                 "per donated argument; a section per chunk with --split-input-file); "
                 "--verbose explains the report's terms")
        arg_parser.add_argument(
            "--advise", default=False, action="store_true",
            help="print to stderr, per public function, which undonated arguments could host "
                 "a result without a copy if donated, and what would let each unused donor be "
                 "reused, under the ordering of the pipeline's donation pass (else "
                 "jax-plan-donation's default); predicted from the module, unverified: "
                 "nothing is compiled (jax_use_donated.advise measures); with "
                 "--donation-report=json the JSON document carries it too (\"advice\": per "
                 "function each suggestion's path, action, bytes_saved, verified=false, "
                 "reason), with --donation-report=html=FILE the page")
        arg_parser.add_argument(
            "--path", choices=PATHS, default="auto",
            help="how the input is read, rewritten and printed: jaxlib (C++ MLIR, for "
                 "jax-plan-donation in alias mode, jax-verify-donation and no pass), xdsl "
                 "(every pass and option), auto (default: jaxlib for a donation pass on text "
                 "with MLIR's own value names, as JAX prints it; else xdsl)")
        arg_parser.add_argument(
            "--verbose", default=False, action="store_true",
            help="say on stderr which path ran, why, and its timings; explain the terms of "
                 "the donation report")
        arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        arg_parser.epilog = passes_help()

    _input_data: bytes | None = None
    """The input, once the jaxlib path has read it (the xDSL path then reads it again)."""

    def get_input_name(self) -> str:
        return self.args.input_file or STDIN_NAME

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        """As ``mlir-opt``, any file is MLIR text unless its extension names another
        frontend (xDSL refuses ``input.txt``, ``/dev/stdin`` with a ``ValueError``)."""
        stream, extension = super().get_input_stream()
        if self._input_data is not None:
            stream.close()
            stream = BytesIO(self._input_data)
        return stream, extension if extension in self.available_frontends else TEXT_FORMAT

    def parse_chunk(self, chunk: IO[bytes], file_extension: str,
                    start_offset: int = 0) -> ModuleOp | None:
        """xDSL's, with ``--no-implicit-module`` applied to the ``jax`` frontend too."""
        self._chunk_lines.append(start_offset)
        spec = parse_spec(self.args.frontend or file_extension)
        if spec.name != TEXT_FORMAT:
            return super().parse_chunk(chunk, file_extension, start_offset)
        from jax_use_donated.xdsl_plugin.frontend import (
            JaxFrontend,  # the jaxlib path never reads xDSL IR
        )

        frontend = JaxFrontend.from_spec(spec)
        if self.args.no_implicit_module:
            frontend = dataclasses.replace(frontend, no_implicit_module=True)
        return frontend.parse(self.ctx, chunk, self.get_input_name())

    def output_resulting_program(self, prog: ModuleOp) -> str:
        """xDSL's, with the printing flags (``--print-op-generic``, ``--print-debuginfo``,
        ...) applied to the ``jax`` target too."""
        spec = parse_spec(self.args.target)
        if spec.name != TEXT_FORMAT:
            return super().output_resulting_program(prog)
        from jax_use_donated.xdsl_plugin.frontend import JaxTarget

        target = dataclasses.replace(
            JaxTarget.from_spec(spec),
            print_generic_format=self.args.print_op_generic,
            print_properties_as_attributes=self.args.print_no_properties,
            print_debuginfo=self.args.print_debuginfo,
            syntax_highlight=self.args.syntax_highlight,
        )
        output = StringIO()
        target.emit(self.ctx, prog, output)
        return output.getvalue()

    def report_format(self) -> tuple[Format, bool] | None:
        """The report's format and whether it is long: from ``--donation-report``, else from
        the first pass's ``report`` option (``verbose``: long); ``None`` when none is asked
        for. ``--verbose`` makes it long."""
        request: ReportRequest | None = self.args.donation_report
        verbose = bool(self.args.verbose)
        if request is not None:
            return request.format, verbose
        for p in self.pipeline.passes:
            option = getattr(p, "report", "none")
            if p.name in REPORTING_PASSES and option != "none":
                return ("json" if option == "json" else "text"), verbose or option == "verbose"
        return None

    def report_style(self) -> ReportStyle | None:
        """How the report is rendered, or ``None`` when none is asked for or the pipeline
        cannot fill it (no donation pass)."""
        asked = self.report_format()
        passes: Sequence[ModulePass] = self.pipeline.passes
        if asked is None or not any(p.name in REPORTING_PASSES for p in passes):
            return None
        return ReportStyle(asked[0], asked[1], self.get_input_name())

    def advice_in_report(self) -> bool:
        """``--advise`` with a JSON or HTML report: the document carries the advice, even
        without a donation pass (then it holds only the advice and why no plan is reported)."""
        asked = self.report_format()
        return bool(getattr(self.args, "advise", False)) and asked is not None \
            and asked[0] in ("json", "html")

    def no_pass_reason(self) -> str:
        """Why a pipeline without a donation pass has nothing to report."""
        return f"the pipeline has no donation pass ({', '.join(REPORTING_PASSES)})"

    def advice_ordering(self) -> Any:
        """The ordering ``--advise`` predicts under for functions no pass planned: the first
        donation pass's, else ``jax-plan-donation``'s default."""
        for p in self.pipeline.passes:
            ordering = getattr(p, "effective_ordering", None)
            if p.name in REPORTING_PASSES and ordering is not None:
                return ordering
        from jax_use_donated.xdsl_plugin.plan_donation import JaxPlanDonation

        return JaxPlanDonation().effective_ordering

    def advice_models(self, prog: ModuleOp) -> list[Any]:
        """``--advise``: the models of ``prog``'s public functions with a body, built before
        the passes rewrite them (a function whose model cannot be built is left out; the
        passes report it)."""
        from jax_use_donated.adapters.xdsl_ir import build_function_model
        from jax_use_donated.analysis.errors import DonationError
        from jax_use_donated.analysis.orderings import ordering_model

        inline = ordering_model(self.advice_ordering()).xla
        models = []
        for op in prog.walk():
            if isinstance(op, FuncOp) and not op.is_declaration and \
                    (op.sym_visibility is None or op.sym_visibility.data != "private"):
                try:
                    models.append(build_function_model(op, inline=inline))
                except DonationError:
                    continue
        return models

    def reports_donation(self) -> bool:
        """Whether a donation report was asked for and the pipeline can fill it."""
        return self.report_style() is not None

    _report_opened = False

    def write_report(self, text: str) -> None:
        """``text`` (a report) to stderr, or to ``--donation-report``'s ``FILE`` (truncated
        by the first report of the run, appended to by the next, one per input chunk; the
        HTML page is written once, :meth:`write_page`)."""
        request: ReportRequest | None = self.args.donation_report
        if request is None or request.path is None:
            sys.stderr.write(text)
            sys.stderr.flush()
            return
        with open(request.path, "a" if self._report_opened else "w", encoding="utf-8") as f:
            f.write(text)
        self._report_opened = True

    def report_chunk(self, plans: Sequence[ReportedPlan],
                     advised: Sequence[AdvisedFunction] | None, done: bool) -> None:
        """One input chunk's report, from its ``plans`` and ``advised`` (``--advise``):
        written now (text, JSON: one per chunk), or kept for the page (HTML, :meth:`write_page`).
        ``done``: the pipeline ran to its end (else only a chunk with plans is reported)."""
        style = self.report_style()
        no_pass = style is None and self.advice_in_report()  # the advice is all there is
        if no_pass:
            asked = self.report_format()
            assert asked is not None
            style = ReportStyle(asked[0], asked[1], self.get_input_name())
        if style is None or not (plans or done):
            return
        why = self.no_pass_reason() if no_pass else NO_DONORS
        if style.format == "html":
            self._page_chunks[len(self._chunk_lines) or 1] = PageChunk(
                tuple(plans), None if advised is None else tuple(advised), why)
            return
        if style.format == "json" and advised is not None:
            style = dataclasses.replace(style, advice=tuple(advised))
        self.write_report(nothing_to_report(style, why, with_input=False) if no_pass
                          else render(plans, style))

    def write_page(self) -> None:
        """``--donation-report=html=FILE``: one page for the whole input, once, at the end of
        the run; with ``--split-input-file`` a section per chunk (a chunk that failed says
        so); nothing when no chunk was reported."""
        if not self._page_chunks:
            return
        chunks = list(self._page_chunks.values())
        if self.args.split_input_file:
            total = len(self._chunk_lines)
            failed = PageChunk((), None, "the chunk failed (its error is on stderr)")
            chunks = [self._page_chunks.get(n, failed)._replace(
                label=f"Input chunk {n} of {total}, from line {line + 1}")
                for n, line in enumerate(self._chunk_lines, 1)]
        self._page_chunks = {}
        self.write_report(html_chunks_report(chunks, self.get_input_name()))

    def run(self) -> None:
        """As ``xdsl-opt``, except that ``--split-input-file`` goes on after a failed chunk:
        each chunk's error is printed (stderr), and the run fails at the end (exit 1), as in
        ``mlir-opt``. With ``--verify-diagnostics`` or ``--parsing-diagnostics`` (errors are
        the expected output) and without splitting, xDSL's loop runs unchanged.
        ``--donation-report`` without a pass that plans donation says so, once (with
        ``--advise`` and JSON or HTML, per chunk, with the advice); a report ``FILE`` that
        cannot be written fails before anything is read; the HTML page is written at the end
        (:meth:`write_page`)."""
        request: ReportRequest | None = self.args.donation_report
        if request is not None and request.path is not None:
            self.write_report("")  # an unwritable FILE fails here (exit 1, its error)
        asked = self.report_format()
        if asked is not None and not self.reports_donation() and not self.advice_in_report():
            self.write_report(nothing_to_report(
                ReportStyle(asked[0], asked[1], self.get_input_name()),
                self.no_pass_reason(), with_input=False))
        try:
            self.run_chunks()
        finally:
            self.write_page()

    def run_chunks(self) -> None:
        """:meth:`run` after the report's first words: the jaxlib path, else xDSL's loop or
        ours over the input's chunks."""
        if self.run_jaxlib_path():
            return
        args = self.args
        if not args.split_input_file or args.verify_diagnostics or args.parsing_diagnostics \
                or args.shrink:
            super().run()
            return
        chunks, file_extension = self.prepare_input()
        output_stream = self.prepare_output()
        failed = 0
        try:
            for i, (chunk, offset) in enumerate(chunks):
                try:
                    if i > 0:
                        output_stream.write("// -----\n")
                    module = self.parse_chunk(chunk, file_extension, offset)
                    if module is not None:
                        self.apply_passes(module)
                        output_stream.write(self.output_resulting_program(module))
                    output_stream.flush()
                except (ParseError, DiagnosticException, RecursionError) as err:
                    if isinstance(err, ParseError):
                        err.span = dataclasses.replace(err.span, line_offset=offset)
                    failed += 1
                    output_stream.flush()
                    sys.stdout.flush()
                    print(format_error(err, self.get_input_name()), file=sys.stderr)
                finally:
                    chunk.close()
        finally:
            if output_stream is not sys.stdout:
                output_stream.close()
        if failed:
            raise SystemExit(1)

    def run_jaxlib_path(self) -> bool:
        """Run the command on jaxlib's MLIR (:mod:`jax_use_donated.opt.jaxlib_path`) when
        ``--path`` allows it and its result is the xDSL path's; ``False`` when the xDSL path
        has to run."""
        path = self.args.path
        if path == "xdsl" and not self.args.verbose:
            return False
        from jax_use_donated.opt import jaxlib_path

        reasons = jaxlib_path.pipeline_reasons(self)
        if path == "jaxlib" and reasons:
            sys.stdout.flush()
            print(f"jax-donate-opt: error: --path=jaxlib cannot run this command: "
                  f"{'; '.join(reasons)}", file=sys.stderr)
            raise SystemExit(1)
        if path != "xdsl" and not reasons:
            stream, _ = self.get_input_stream()
            try:
                self._input_data = stream.read()
            finally:
                if stream is not sys.stdin.buffer:
                    stream.close()
        return jaxlib_path.try_run(self, self._input_data or b"", path)

    def apply_passes(self, prog: ModuleOp) -> None:
        fallback = self.get_input_name()
        done = False
        advising = bool(getattr(self.args, "advise", False))
        models = self.advice_models(prog) if advising else []
        with collect_diagnostics() as sink, record_plans() as plans:
            try:
                super().apply_passes(prog)
                done = True
            finally:
                sys.stdout.flush()
                for diag in sink.diagnostics:
                    print(diag.format(fallback), file=sys.stderr)
                sys.stderr.flush()
                advised = (advise_functions(plans, models, self.advice_ordering())
                           if advising and done else None)
                self.report_chunk(plans, advised, done)
                if advised is not None:
                    sys.stderr.write(advice_text(advised, fallback))
                    sys.stderr.flush()


STDIN_NAME = "<stdin>"
"""The input's name in diagnostics when it is read from stdin (as in MLIR)."""

STACK_BYTES = 1 << 30
"""Stack of the thread the driver runs on: virtual memory, touched only as deep as the IR
nests. CPython 3.11 uses at most ~1.6 KiB of C stack per recursion level in the worst paths
measured (C-level re-entry such as ``sorted(key=...)``); xDSL's recursive parser, verifier,
walker and printer use ~100 B on average."""

RECURSION_LIMIT = 200_000
"""Python frames allowed on that thread: 5 KiB of stack each, so exceeding the limit raises
``RecursionError`` long before the C stack overflows. 3,000 nested regions need 20,000-40,000
frames (reading alone ~9 per level)."""


def _error_location(err: BaseException) -> str | None:
    anchor = getattr(err, "anchor", None)
    location = getattr(anchor, "location", None)
    if location is None:
        return None
    from jax_use_donated.adapters.xdsl_ir import source_loc

    return source_loc(location).text


def format_error(err: BaseException, input_name: str) -> str:
    """One MLIR-style diagnostic for ``err``: ``file:line:col: error: message``, then the
    source line with a caret for parse errors; ``input_name`` (``<stdin>``) stands for the
    location of IR without one."""
    if isinstance(err, ParseError):
        loc = err.span.get_location()
        text = f"{loc.file}:{loc.line}:{loc.col}: error: {err.msg}"
        context = err.span.print_with_context().split("\n", 1)[1].rstrip("\n")
        text += "\n" + context
        if isinstance(err, MultipleSpansParseError):
            note = (err.ref_text or "").strip().rstrip(":")
            for span, msg in err.refs:
                ref = span.get_location()
                text += (f"\n{ref.file}:{ref.line}:{ref.col}: note: {msg or note}".rstrip()
                         + "\n" + span.print_with_context().split("\n", 1)[1].rstrip("\n"))
        return text
    if isinstance(err, RecursionError):
        from jax_use_donated.xdsl_plugin.frontend import nesting_too_deep

        return f"{input_name}: error: {nesting_too_deep('processing it')}"
    where = _error_location(err) or input_name
    return f"{where}: error: {err}"


def _main(argv: Sequence[str] | None) -> int:
    prog = "jax-donate-opt"
    tool: JaxDonateOptMain | None = None
    try:
        try:
            tool = JaxDonateOptMain(args=argv)
        except (ValueError, ArgSpecParseError) as err:  # -p: unknown pass, option or value
            sys.stdout.flush()
            print(f"{prog}: error: {err}", file=sys.stderr)
            return 1
        tool.run()
    except SystemExit as exit_:
        code = exit_.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except (ParseError, DiagnosticException, RecursionError) as err:
        sys.stdout.flush()
        if tool is None:  # a pass pipeline that does not parse, before any input is read
            print(f"{prog}: error: {err}", file=sys.stderr)
        else:
            print(format_error(err, tool.get_input_name()), file=sys.stderr)
        return 1
    except OSError as err:  # unreadable input, unwritable -o
        sys.stdout.flush()
        print(f"{prog}: error: {err.strerror or err}: {err.filename or ''}".rstrip(": "),
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except Exception as err:  # no traceback, ever: report what failed
        sys.stdout.flush()
        kind = type(err).__name__
        print(f"{prog}: error: {kind}: {err}", file=sys.stderr)
        return 2
    return 0


def verify_signatures(module: ModuleOp) -> None:
    """Verify ``module`` and each ``func.func`` in it without their bodies: all a pass that
    rewrites only argument attributes can have broken (the bodies were verified before it)."""
    module.verify(verify_nested_ops=False)
    for op in module.ops:  # functions live in module bodies: no walk through their bodies
        if isinstance(op, FuncOp):
            op.verify(verify_nested_ops=False)
        elif isinstance(op, ModuleOp):
            verify_signatures(op)


def run_with_large_stack(fn: Callable[[], int]) -> int:
    """``fn()`` on a thread with :data:`STACK_BYTES` of stack and :data:`RECURSION_LIMIT`
    (xDSL parses, verifies, walks and prints nested regions recursively); the previous limit
    is restored afterwards. Runs ``fn`` directly where no such thread can be made."""
    result: list[int] = []
    context = contextvars.copy_context()
    limit = sys.getrecursionlimit()
    tracer, profiler = sys.gettrace(), sys.getprofile()  # coverage-guided fuzzing, profiling

    def work() -> None:
        try:
            if callable(tracer):  # a Python tracer; C profilers (cProfile) are not callable
                sys.settrace(tracer)
            if callable(profiler):
                sys.setprofile(profiler)
            sys.setrecursionlimit(max(limit, RECURSION_LIMIT))
            result.append(context.run(fn))
        except BaseException as err:  # a thread must not end with a traceback
            print(f"jax-donate-opt: error: {type(err).__name__}: {err}", file=sys.stderr)
            result.append(2)

    try:
        previous = threading.stack_size(STACK_BYTES)
    except (ValueError, RuntimeError):  # the platform refuses the size
        return fn()
    try:
        thread = threading.Thread(target=work, name="jax-donate-opt", daemon=True)
        thread.start()
    except RuntimeError:  # cannot start a thread (e.g. out of memory for its stack)
        return fn()
    finally:
        threading.stack_size(previous)
    try:
        thread.join()
    finally:
        sys.setrecursionlimit(limit)
    return result[0] if result else 2


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point; returns the exit code (0 ok, 1 diagnosed error, 2 internal)."""
    try:
        return run_with_large_stack(lambda: _main(argv))
    except KeyboardInterrupt:
        print("jax-donate-opt: interrupted", file=sys.stderr)
        return 130


def console_main() -> NoReturn:
    """The ``jax-donate-opt`` command: :func:`main`, then the process ends without tearing
    down what it built (freeing a 10^5-op module's models and MLIR objects one by one cost
    0.1-0.2 s, more than the planning of many inputs); the outputs are flushed and closed
    first. In-process callers use :func:`main`."""
    from jax_use_donated.opt import jaxlib_path, text_route

    jaxlib_path.KEEP_UNTIL_EXIT = []
    try:
        code = main()
    finally:
        text_route.discard_early()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):  # a closed or broken pipe
                stream.flush()
    os._exit(code)


if __name__ == "__main__":
    console_main()
