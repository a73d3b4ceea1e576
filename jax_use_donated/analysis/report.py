"""The donation report: ``jax-donate-opt --donation-report[=text|json|html=FILE]`` and the
passes' ``report`` option in ``xdsl-opt``; the driver's ``--advise`` (:func:`advice_text`). Every front end (the xDSL path, both routes of the jaxlib
path, the passes in an ``xdsl-opt`` process) renders it here, so they print the same bytes.

The text says each thing once: the warnings (printed before it) say why each donor is not
reused, the report adds the numbers, the table and what to do next; ``long`` (``--verbose``)
explains the ordering and the columns. For ``examples/train_step.mlir``::

    donation report for @main: 13/16 donors reused, 82.0 KiB of 98.3 KiB
      ordering: XLA's default copy insertion (a donor's other reads must feed the write)
      jax.jit's pairing: 16/16 donors, 98.3 KiB; 3 of its pairs overwrite a buffer still read (XLA copies them)
    argument                    type               bytes     jax.jit    planned    reason
    opt_state['count'] (%arg0)  tensor<i32>        4 B       result 5   -          read-after-write
    ...
    hint: for XLA:CPU with region analysis (jud.jit's default on one CPU device), which orders ...

The JSON form is one document per report, on one line: :data:`SCHEMA`, :data:`VERSION`, the
input's name, one record per function (:func:`function_record`) and the hints; with
``--advise`` also ``advice``, one advice record per advised function
(:func:`.report_schema.predicted_advice_record`: each suggestion's name, action, bytes saved,
``verified`` false, reason). The HTML form (``--donation-report=html=FILE``,
:func:`html_report`, :func:`html_chunks_report`) is one self-contained page drawn from the same
plan records (:mod:`.picture`: a lifetime strip per donated argument; no footprint, since
nothing is compiled); with ``--split-input-file`` it holds a section per input chunk.

``--advise`` (:func:`advise_functions`, :func:`advice_text`) says per function, by the rules of
:mod:`.advice` under the plan's ordering, which undonated arguments could host a result
copy-free if donated and what would let each unused donor be reused; predicted from the
module, never verified (the driver compiles nothing)::

    advice for @main (predicted from the module, unverified: nothing compiled or measured)
      ordering: XLA's default copy insertion (a donor's other reads must feed the write)
      argument       action  saves   why
      batch (%arg2)  donate  16 B    it would host result 1 without a copy (if the caller does not use it after the call)
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from jax_use_donated.analysis.advice import PredictedAdvice, predict_advice, with_donors
from jax_use_donated.analysis.model import FunctionModel, Op
from jax_use_donated.analysis.orderings import Ordering, ordering_model
from jax_use_donated.analysis.picture import PageGroup, PictureData, html_page, module_picture
from jax_use_donated.analysis.plan import (
    Blocker,
    DonationPlan,
    DonorVerdict,
    Reason,
    compat_key,
    plan_donation,
)
from jax_use_donated.analysis.report_schema import (
    format_bytes,
    plan_records,
    predicted_advice_record,
)

SCHEMA = "jax-use-donated/donation-report"
"""The JSON document's ``schema``."""
VERSION = 1
"""The JSON document's ``version``: raised whenever a field changes meaning or goes away (a new
field, such as ``advice``, leaves it)."""

Format = Literal["text", "json", "html"]
FORMATS: tuple[Format, ...] = ("text", "json")
"""Formats printed to stderr or written to a FILE."""
PAGE_FORMATS: tuple[Format, ...] = ("html",)
"""Formats written to a FILE only (``--donation-report=html=FILE``)."""
RESERVED_FORMATS: tuple[str, ...] = ()
"""Formats reserved for later."""


class AdvisedFunction(NamedTuple):
    """One function's predicted advice (``--advise``): the model, the plan it was predicted
    against and the entries of :func:`.advice.predict_advice`."""

    fn: FunctionModel
    plan: DonationPlan
    advice: list[PredictedAdvice]
    together: int = 0
    """Predicted bytes reused beyond the plan with every ``donate`` entry applied at once
    (planned jointly: entries that compete for one result do not add up)."""


def _advised(fn: FunctionModel, plan: DonationPlan, advice: list[PredictedAdvice]
             ) -> AdvisedFunction:
    donate = [a.arg for a in advice if a.action == "donate"]
    together = 0
    if donate:
        joint_fn = with_donors(fn, donate)
        together = (plan_donation(joint_fn, plan.ordering).aliased_bytes(joint_fn)
                    - plan.aliased_bytes(fn))
    return AdvisedFunction(fn, plan, advice, together)


class ReportedPlan(NamedTuple):
    """One planned function, as a pass handed it to the report."""

    fn: FunctionModel
    plan: DonationPlan
    warned: bool = True
    """The pass warned of each unpaired donor (``False``: ``jax-verify-donation``, which
    warns of nothing: the report then gives their reasons)."""


@dataclass(frozen=True)
class ReportStyle:
    """How to render: ``format``, ``long`` (explanations, ``--verbose``) and the input's name."""

    format: Format = "text"
    long: bool = False
    input_name: str = "<stdin>"
    advice: tuple[AdvisedFunction, ...] | None = None
    """``--advise`` with ``json`` or ``html``: the document carries each function's predicted
    advice (and the functions without donors that have some)."""

    def to_json(self) -> dict[str, Any]:
        return {"format": self.format, "long": self.long, "input_name": self.input_name}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ReportStyle:
        return cls(data["format"], bool(data["long"]), str(data["input_name"]))


# --------------------------------------------------------------------------------------------
# Words


ORDERING_WORDS: dict[str, tuple[str, str]] = {
    "xla-cpu": (
        "XLA's default copy insertion (a donor's other reads must feed the write)",
        "XLA's default copy insertion (XLA:CPU; verified against its executables): a donor "
        "hosts a result only if every other read of the donor is a data-dependence ancestor of "
        "the op that writes the result; a read that merely could run first does not count"),
    "xla-cpu-region": (
        "XLA:CPU with region analysis (independent reads run before the write)",
        "XLA:CPU with xla_cpu_copy_insertion_use_region_analysis (verified against its "
        "executables; jud.jit's default on one CPU device): a read independent of the write is "
        "ordered before it; a pair fails only for a read that depends on the write, or where "
        "the orders several pairs need form a cycle"),
    "xla-gpu": (
        "XLA:GPU's default copy insertion (unverified; data dependence)",
        "XLA:GPU's default copy insertion (unverified): XLA:CPU's data-dependence rule; XLA:GPU "
        "may remove more copies after scheduling, so more donors may be copy-free than shown"),
    "xla-gpu-region": (
        "XLA:GPU with region analysis (unverified)",
        "XLA:GPU with xla_gpu_copy_insertion_use_region_analysis (unverified): as XLA:CPU's "
        "region analysis"),
    "tpu": (
        "TPU copy insertion (unverified; region analysis)",
        "TPU (unverified): region analysis as XLA:CPU's, without its size limit"),
    "program": (
        "block order (as after bufferization)",
        "block order is execution order (after bufferization): a donor hosts a result written "
        "after its last read in the block"),
}
"""Per ordering model: a few words (the report) and the long explanation (``--verbose``)."""

REGION_OF = {"xla-cpu": "xla-cpu-region", "xla-gpu": "xla-gpu-region"}
"""The region-analysis variant of a data-dependence ordering, for the hint."""

LEGEND: tuple[tuple[str, str], ...] = (
    ("jax.jit", "the result jax.jit pairs the argument with: the input's tf.aliasing_output, "
                "else JAX's rule (the first free result of its type and placement, in argument "
                "order, whenever the argument is read); (copy): that pair overwrites a buffer "
                "still read, so XLA copies the argument first"),
    ("planned", "the result this plan gives the argument: written only after every other "
                "read of it under the ordering, choosing pairs that reuse the most bytes"),
    ("reason", "paired; read-after-write: every result it could host is written while it "
               "is still read; returned: it is itself a result, so its value must survive; "
               "no-compatible-result: no result has its type and placement; outnumbered: "
               "other donors hold every result it could host; (unused): never read"),
    ("donors", "the arguments the text marks as donated (tf.aliasing_output, "
               "jax.buffer_donor); an argument jax.jit was asked to donate but found no "
               "output for carries no mark in the text (jax.jit warned 'Some donated buffers "
               "were not usable') and is not counted here; jud.jit plans while JAX lowers, "
               "and sees it"),
)
"""The long report's explanation of the table (``--verbose``), once per report."""


def legend(orderings: Sequence[str], width: int = 100) -> list[str]:
    """The explanation ``--verbose`` adds: each ordering of the report, then the columns."""
    items = [(f"ordering {ordering_model(o).name}", ORDERING_WORDS[ordering_model(o).name][1])
             for o in dict.fromkeys(orderings)]
    items.extend(LEGEND)
    column = max(len(key) for key, _ in items) + 4
    lines = ["what the report says:"]
    for key, text in items:
        lines.extend(textwrap.wrap(text, width, initial_indent=f"  {key:<{column - 2}}",
                                   subsequent_indent=" " * column, break_on_hyphens=False))
    return lines


NO_DONORS = ("no function has donated arguments (jax.buffer_donor or tf.aliasing_output; "
             "jax.jit marks none where it found no output for a donated argument)")
"""Why a report of a pipeline that planned nothing is empty."""


def ordering_words(ordering: str, long: bool = False) -> str:
    """The ordering model in words (:data:`ORDERING_WORDS`)."""
    name = ordering_model(ordering).name
    return ORDERING_WORDS[name][1 if long else 0]


# --------------------------------------------------------------------------------------------
# Facts shared by the text and the JSON


def _jax_pairs(fn: FunctionModel, plan: DonationPlan) -> dict[int, int]:
    """jax.jit's pairing: the input's ``tf.aliasing_output``, else JAX's rule."""
    given = {a.index: a.donation.alias_index for a in fn.donors
             if a.donation.alias_index is not None}
    return given or dict(plan.jax_pairs)


def _jax_result(verdict: DonorVerdict) -> int | None:
    given = verdict.arg.donation.alias_index
    return given if given is not None else verdict.jax_result


def jax_copied(fn: FunctionModel, plan: DonationPlan) -> set[int] | None:
    """The donors whose jax.jit pair overwrites a buffer that is still read under the plan's
    ordering (or pairs unequal types), which XLA copies; ``None`` where pairs are not judged
    one by one (region orderings, whose pairs constrain each other) or the plan carries no
    pair rule."""
    checker = plan.checker
    if checker is None or ordering_model(plan.ordering).kind == "region":
        return None
    copied: set[int] = set()
    for d, k in _jax_pairs(fn, plan).items():
        typed = 0 <= k < len(fn.results) and compat_key(fn.args[d]) == compat_key(fn.results[k])
        if not (typed and checker.is_safe(d, k)):
            copied.add(d)
    return copied


def _donated_bytes(fn: FunctionModel) -> int:
    return sum(a.nbytes for a in fn.donors)


def _hints(plans: Sequence[ReportedPlan]) -> list[tuple[str, str]]:
    """``(id, text)`` of the hints a report ends with, each once."""
    hints: list[tuple[str, str]] = []
    region = sorted({REGION_OF[ordering_model(p.plan.ordering).name] for p in plans
                     if p.warned and ordering_model(p.plan.ordering).name in REGION_OF
                     and any(v.reason is Reason.READ_AFTER_WRITE for v in p.plan.unpaired)})
    for name in region:
        machine = "CPU" if name == "xla-cpu-region" else "GPU"
        default = (" (jud.jit's default on one CPU device)" if machine == "CPU" else "")
        hints.append(("region-ordering",
                      f"these numbers are for XLA's default copy insertion; XLA:{machine} with "
                      f"region analysis{default} runs independent reads before a write and may "
                      f"reuse more donors: -p 'jax-plan-donation{{ordering={name}}}'"))
    if any(a.loc.name is None and a.loc.text is None for p in plans for a in p.fn.donors):
        hints.append(("debug-info",
                      "arguments without names or source lines: export the text with "
                      "jax.jit(f).lower(...).as_text(debug_info=True) for pytree paths and the "
                      "Python line of each read"))
    return hints


# --------------------------------------------------------------------------------------------
# Text


def _row_name(verdict: DonorVerdict) -> str:
    arg = verdict.arg
    return f"{arg.loc.name} (%arg{arg.index})" if arg.loc.name else f"%arg{arg.index}"


def _function_text(item: ReportedPlan) -> list[str]:
    fn, plan = item.fn, item.plan
    lines = [f"donation report for @{fn.name}: {len(plan.pairs)}/{len(plan.verdicts)} donors "
             f"reused without a copy, {format_bytes(plan.aliased_bytes(fn))} of "
             f"{format_bytes(_donated_bytes(fn))}",
             f"  ordering: {ordering_words(plan.ordering)}"]
    jax = _jax_pairs(fn, plan)
    copied = jax_copied(fn, plan)
    line = (f"  jax.jit's pairing: {len(jax)}/{len(plan.verdicts)} donors, "
            f"{format_bytes(sum(fn.args[d].nbytes for d in jax))}")
    if copied:
        free = [d for d in jax if d not in copied]
        who = "XLA copies" if ordering_model(plan.ordering).xla else "need a copy"
        line += (f", {len(free)} without a copy ({format_bytes(sum(fn.args[d].nbytes for d in free))}):"
                 f" {len(copied)} overwrite{'s' if len(copied) == 1 else ''} a buffer still "
                 f"read, which {who}")
    elif copied is not None and jax:
        line += ", all without a copy"
    lines.append(line)
    header = ("argument", "type", "bytes", "jax.jit", "planned", "reason")
    rows: list[tuple[str, ...]] = []
    for v in plan.verdicts:
        jax_k = _jax_result(v)
        nbytes = v.arg.tensor.nbytes if v.arg.tensor is not None else None
        mark = " (copy)" if copied and v.arg.index in copied else ""
        rows.append((_row_name(v), v.arg.type_text, format_bytes(nbytes),
                     "-" if jax_k is None else f"result {jax_k}{mark}",
                     "-" if v.result is None else f"result {v.result}",
                     v.reason.value + (" (unused)" if v.unused else "")))
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    lines.append(fmt.format(*header).rstrip())
    lines.extend(fmt.format(*r).rstrip() for r in rows)
    if not item.warned:  # no warning said why: the report does
        lines.extend(f"  {v.message}" for v in plan.unpaired)
    return lines


def text_report(plans: Sequence[ReportedPlan], long: bool = False) -> str:
    """The text report of ``plans`` (see the module docstring); ``long`` explains."""
    lines: list[str] = []
    for item in plans:
        lines.extend(_function_text(item))
    warned = sum(len(p.plan.unpaired) for p in plans if p.warned)
    if warned:
        lines.append(f"{warned} donor{'s' if warned != 1 else ''} not reused: the warning"
                     f"{'s' if warned != 1 else ''} above say{'' if warned != 1 else 's'} why")
    if long and plans:
        lines.extend(legend([p.plan.ordering for p in plans]))
    lines.extend(f"hint: {text}" for _, text in _hints(plans))
    return "\n".join(lines) + ("\n" if lines else "")


# --------------------------------------------------------------------------------------------
# JSON


def _op_record(op: Op | None) -> dict[str, Any] | None:
    return None if op is None else {"op": op.name, "location": op.loc.text}


def _blocker_kind(b: Blocker) -> str:
    for kind, flag in (("in-place-of-argument", b.in_place_of is not None),
                       ("constant", b.constant), ("cycle", b.cycle), ("fused", b.fused),
                       ("hosted-by-returned-argument", b.free_for is not None),
                       ("returned", b.returned_in is not None)):
        if flag:
            return kind
    return "read-after-write"


def _blocker_record(b: Blocker) -> dict[str, Any]:
    return {"kind": _blocker_kind(b), "result": b.result, "writer": _op_record(b.writer),
            "reader": _op_record(b.reader)}


def function_record(fn: FunctionModel, plan: DonationPlan, warned: bool = True
                    ) -> dict[str, Any]:
    """One function's record of the JSON report: its ordering, the totals, and per donor its
    name, type, bytes, jax.jit's result, the planned result, the reason and message."""
    model = ordering_model(plan.ordering)
    jax = _jax_pairs(fn, plan)
    copied = jax_copied(fn, plan)
    return {
        "function": fn.name,
        "location": fn.loc.text,
        "ordering": {"name": model.name, "kind": model.kind, "verified": model.verified,
                     "description": ORDERING_WORDS[model.name][1]},
        "donors": len(plan.verdicts),
        "reused": len(plan.pairs),
        "donated_bytes": _donated_bytes(fn),
        "reused_bytes": plan.aliased_bytes(fn),
        "jax_pairing": {"donors": len(jax), "bytes": sum(fn.args[d].nbytes for d in jax),
                        "copied": None if copied is None else sorted(copied)},
        "warned": warned,
        "arguments": [{
            "index": v.arg.index,
            "name": v.arg.loc.name,
            "location": v.arg.loc.text,
            "type": v.arg.type_text,
            "bytes": v.arg.tensor.nbytes if v.arg.tensor is not None else None,
            "jax_result": _jax_result(v),
            "jax_copied": None if copied is None else v.arg.index in copied,
            "result": v.result,
            "reason": v.reason.value,
            "unused": v.unused,
            "message": v.message,
            "blockers": [_blocker_record(b) for b in v.blockers],
        } for v in plan.verdicts],
    }


def json_report(plans: Sequence[ReportedPlan], input_name: str, note: str | None = None,
                advice: Sequence[AdvisedFunction] | None = None) -> str:
    """The JSON document (one line) of ``plans``; ``note`` says why there is none; ``advice``
    (``--advise``) adds ``advice``, an advice record per function (:func:`advice_records`).

    ``functions`` holds one record per function in the schema the drop-in's
    ``CallPlan.to_dict()`` gives (:mod:`.report_schema`: per donated leaf its path, bytes,
    dtype and shape, our pairing, JAX's, the predicted outcome, the reason and location);
    ``details`` the driver's own view of each (the ordering in words, jax.jit's copied pairs,
    every blocker with its reader and writer)."""
    doc: dict[str, Any] = {
        "schema": SCHEMA,
        "version": VERSION,
        "input": input_name,
        "details": [function_record(p.fn, p.plan, p.warned) for p in plans],
        "functions": [plan_records(p.fn, p.plan, function=p.fn.name) for p in plans],
        "hints": [{"id": hint_id, "text": text} for hint_id, text in _hints(plans)],
    }
    if advice is not None:
        doc["advice"] = advice_records(advice)
    if note is not None:
        doc["note"] = note
    return json.dumps(doc, ensure_ascii=False) + "\n"


def advice_records(advised: Sequence[AdvisedFunction]) -> list[dict[str, Any]]:
    """``--advise`` as data: per function its advice record
    (:func:`.report_schema.predicted_advice_record`; predicted, none verified)."""
    return [predicted_advice_record(a.fn, a.plan, a.advice, a.together) for a in advised]


# --------------------------------------------------------------------------------------------
# Advice (--advise) and the page (--donation-report=html=FILE)

ADVICE_CAVEAT = ("predicted from the module, unverified: nothing compiled or measured; "
                 "jax_use_donated.advise(f, *args) compiles and measures each suggestion")


def advise_functions(plans: Sequence[ReportedPlan], others: Sequence[FunctionModel] = (),
                     ordering: Ordering = "dataflow") -> list[AdvisedFunction]:
    """The predicted advice of every planned function (against its plan and ordering), then
    of each of ``others`` not planned (functions without donors, or a pipeline without a
    donation pass), planned here under ``ordering``."""
    out = [_advised(p.fn, p.plan, predict_advice(p.fn, p.plan.ordering, p.plan))
           for p in plans]
    planned = {p.fn.name for p in plans}
    for fn in others:
        if fn.name in planned:
            continue
        plan = plan_donation(fn, ordering)
        out.append(_advised(fn, plan, predict_advice(fn, ordering, plan)))
    return out


def _advice_row_name(fn: FunctionModel, a: PredictedAdvice) -> str:
    arg = fn.args[a.arg]
    return f"{arg.loc.name} (%arg{arg.index})" if arg.loc.name else f"%arg{arg.index}"


def advice_text(advised: Sequence[AdvisedFunction], input_name: str = "<stdin>") -> str:
    """``--advise``'s text: per function its ordering, a table (argument, action, predicted
    bytes saved, why) and the predicted total; or why there is nothing to advise."""
    if not advised:
        return (f"advice for {input_name}: nothing to advise: the module has no public "
                "function with a body\n")
    lines: list[str] = []
    for item in advised:
        fn, plan = item.fn, item.plan
        lines.append(f"advice for @{fn.name} ({ADVICE_CAVEAT.split(';')[0]})")
        lines.append(f"  ordering: {ordering_words(plan.ordering)}")
        if not item.advice:
            lines.append("  nothing to advise: every donated argument is reused and no other "
                         "argument could host a result")
            continue
        header = ("argument", "action", "saves", "why")
        rows = [(_advice_row_name(fn, a), a.action,
                 format_bytes(a.bytes_saved) if a.bytes_saved else "-",
                 a.reason + (" (if the caller does not use it after the call)"
                             if a.action == "donate" else ""))
                for a in item.advice]
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(3)]
        fmt = "  ".join(f"{{:<{w}}}" for w in widths) + "  {}"
        lines.append(("  " + fmt.format(*header)).rstrip())
        lines.extend(("  " + fmt.format(*r)).rstrip() for r in rows)
        donate = [a for a in item.advice if a.action == "donate"]
        if donate:
            lines.append(f"  total: donating the {len(donate)} argument"
                         f"{'s' if len(donate) != 1 else ''} above together would reuse "
                         f"{format_bytes(item.together)} more (predicted, planned jointly)")
    lines.append(f"note: {ADVICE_CAVEAT}")
    return "\n".join(lines) + "\n"


class PageChunk(NamedTuple):
    """One input chunk's part of the page: its plans, its advice (``--advise``), why nothing
    is reported (``note``) and, with ``--split-input-file``, its heading (``label``)."""

    plans: Sequence[ReportedPlan]
    advised: Sequence[AdvisedFunction] | None = None
    note: str | None = None
    label: str | None = None


def _pictures(plans: Sequence[ReportedPlan], advised: Sequence[AdvisedFunction] | None
              ) -> list[PictureData]:
    by_name = {a.fn.name: a for a in advised or ()}
    pictures = []
    for p in plans:
        a = by_name.pop(p.fn.name, None)
        pictures.append(module_picture(p.fn, p.plan, a.advice if a is not None else None,
                                       plan_records(p.fn, p.plan, function=p.fn.name),
                                       a.together if a is not None else 0))
    pictures.extend(module_picture(a.fn, a.plan, a.advice, together=a.together)
                    for a in by_name.values() if a.advice)
    return pictures


def _count(plans: Sequence[ReportedPlan]) -> str:
    return f"{len(plans)} function{'s' if len(plans) != 1 else ''} with donated arguments"


READ_NOTE = ("read from the module file by jax-donate-opt (nothing compiled: footprints "
             "unavailable, XLA's copies unknown)")


def html_report(plans: Sequence[ReportedPlan], input_name: str,
                advised: Sequence[AdvisedFunction] | None = None, note: str | None = None
                ) -> str:
    """The page of ``plans`` (:func:`.picture.html_page`): per function the plan record the
    JSON report writes, drawn as a lifetime strip per donated argument; with ``advised``
    (``--advise``) the predicted advice too, and the functions without donors it advises;
    ``note``: why no plan is reported."""
    said = f"Nothing to report: {note}" if note is not None and not plans else _count(plans)
    notes = [f"{said}; {READ_NOTE}."]
    if advised is not None:
        notes.append(f"Advice: {ADVICE_CAVEAT}.")
    return html_page(_pictures(plans, advised), title=input_name, notes=notes)


def html_chunks_report(chunks: Sequence[PageChunk], input_name: str) -> str:
    """One page for the whole input: an unsplit input's chunk as :func:`html_report` (or why
    there is nothing to report); with ``--split-input-file`` (labelled chunks) a section per
    chunk, in input order."""
    if len(chunks) == 1 and chunks[0].label is None:
        c = chunks[0]
        if c.note is not None and not c.plans and not c.advised:
            return html_page([], title=input_name, notes=[f"Nothing to report: {c.note}."])
        return html_report(c.plans, input_name, c.advised, c.note)
    groups = []
    for c in chunks:
        notes = [f"Nothing to report: {c.note}." if c.note is not None and not c.plans
                 else f"{_count(c.plans)}."]
        groups.append(PageGroup(c.label or "", _pictures(c.plans, c.advised), notes))
    notes = [f"{len(chunks)} input chunks (--split-input-file), {READ_NOTE}."]
    if any(c.advised is not None for c in chunks):
        notes.append(f"Advice: {ADVICE_CAVEAT}.")
    return html_page([], title=input_name, notes=notes, groups=groups)


# --------------------------------------------------------------------------------------------
# Front door


def render(plans: Sequence[ReportedPlan], style: ReportStyle) -> str:
    """The report of ``plans`` in ``style``; with no plan, why there is nothing to report."""
    if style.format == "html" and (plans or style.advice):
        return html_report(plans, style.input_name, style.advice)
    if not plans:
        return nothing_to_report(style, NO_DONORS, with_input=True)
    if style.format == "json":
        return json_report(plans, style.input_name, advice=style.advice)
    return text_report(plans, style.long)


def nothing_to_report(style: ReportStyle, why: str, with_input: bool) -> str:
    """The report that says only why it is empty (text: one line; JSON: a document with no
    functions and a ``note``)."""
    if style.format == "json":
        return json_report([], style.input_name, note=f"nothing to report: {why}",
                           advice=style.advice)
    if style.format == "html":
        return html_page([], title=style.input_name, notes=[f"Nothing to report: {why}."])
    where = f" for {style.input_name}" if with_input else ""
    return f"donation report{where}: nothing to report: {why}\n"


def donation_report(plans: Sequence[tuple[FunctionModel, DonationPlan]]) -> str:
    """The short text report of ``(fn, plan)`` pairs whose passes warned of every unpaired
    donor (:func:`text_report`)."""
    return text_report([p if isinstance(p, ReportedPlan) else ReportedPlan(*p) for p in plans])


__all__ = ["FORMATS", "PAGE_FORMATS", "SCHEMA", "VERSION", "AdvisedFunction", "PageChunk",
           "ReportStyle", "ReportedPlan", "advice_records", "advice_text", "advise_functions",
           "donation_report", "format_bytes", "function_record", "html_chunks_report",
           "html_report", "json_report", "nothing_to_report", "render", "text_report"]
