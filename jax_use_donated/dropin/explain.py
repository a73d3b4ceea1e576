"""``explain``: what happens to every donated leaf, and what JAX's own pairing would have done.

``print(jax_use_donated.explain(step, params, opt, batch))`` for any jitted ``step``::

    donations of jit(step): 3 of 4 donated leaves reused (12.0 MiB); JAX's pairing: 1 copy-free
    argument       type                bytes    ours                  JAX default
    params['w']    tensor<1024x1024xf32>  4.0 MiB  -> result[0]['w']    -> result[1]['m'] (XLA copies)
    ...
    params['b']: not reused: ... at step.py:12:7

The report is a :class:`DonationReport` (rows of :class:`DonorRow`), printable as a table.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jax_use_donated.analysis.errors import ALIASING_OUTPUT, BUFFER_DONOR
from jax_use_donated.analysis.liveness import Liveness
from jax_use_donated.analysis.orderings import ordering_model
from jax_use_donated.analysis.plan import PairChecker, Reason, _blocker_text
from jax_use_donated.analysis.report_schema import format_bytes
from jax_use_donated.dropin.records import PREDICTED_OUTCOME, LoweringRecord
from jax_use_donated.dropin.xla_truth import ExecutableTruth


@dataclass(frozen=True)
class DonorRow:
    """One donated leaf."""

    path: str
    """The pytree path of the argument, e.g. ``params['w1']``."""
    arg_index: int | None
    """Its position among ``@main``'s arguments (``None`` when jit removed it)."""
    type_text: str
    nbytes: int | None
    result: int | None
    """The result whose buffer it becomes, or ``None``."""
    result_path: str | None
    """That result's pytree path, e.g. ``result[0]['w1']``."""
    status: str
    """``"reused"``, ``"not reused"`` or ``"removed"`` (unused, dropped by jit)."""
    reason: str
    message: str
    blocking_read: str | None
    """``file:line:col`` of the read that prevents reuse, when one does."""
    jax_result: int | None
    jax_note: str
    """What JAX's default pairing does with this leaf, in words."""
    jax_copy_free: bool
    """Whether JAX's default pairing reuses this leaf without an XLA copy."""
    jax_detail: str = ""
    """Why JAX's pairing makes XLA copy, when it does."""
    measured: str | None = None
    """What the compiled executable does with it: ``"copy-free"``, ``"copied"`` or ``"not
    donated"`` (``None``: not measured, or removed)."""
    evidence: str = ""
    """The copies XLA made for it (HLO instruction names)."""

    @property
    def predicted(self) -> str | None:
        return PREDICTED_OUTCOME.get(self.status)

    @property
    def disagrees(self) -> bool:
        """The executable contradicts the plan for this leaf (a bug in the rules)."""
        return (self.measured is not None and self.predicted is not None
                and self.measured != self.predicted)


@dataclass
class DonationReport:
    """Per donated leaf: what this project's pairing does, and JAX's default."""

    function: str
    rows: list[DonorRow] = field(default_factory=list)
    kept_jax: str | None = None
    """Why the footprint guard runs JAX's own pairing instead of ours (``None``: ours runs);
    then the "ours" column shows JAX's pairing, the one the executable has."""

    @property
    def reused(self) -> list[DonorRow]:
        return [r for r in self.rows if r.status == "reused"]

    @property
    def reused_bytes(self) -> int:
        return sum(r.nbytes or 0 for r in self.reused)

    @property
    def jax_copy_free_bytes(self) -> int:
        return sum(r.nbytes or 0 for r in self.rows if r.jax_copy_free)

    @property
    def disagreements(self) -> list[DonorRow]:
        return [r for r in self.rows if r.disagrees]

    def row(self, path: str) -> DonorRow:
        """The row of the leaf named ``path`` (``KeyError`` if none)."""
        for r in self.rows:
            if r.path == path:
                return r
        raise KeyError(path)

    def __str__(self) -> str:
        jax_free = sum(1 for r in self.rows if r.jax_copy_free)
        head = (f"donations of {self.function}: {len(self.reused)} of {len(self.rows)} donated "
                f"leaves reused ({format_bytes(self.reused_bytes)}); JAX's default: {jax_free} reused "
                f"without a copy ({format_bytes(self.jax_copy_free_bytes)})")
        if self.kept_jax is not None:
            head += f"\nkept JAX's own pairing (footprint guard): {self.kept_jax}"
        measured = any(r.measured is not None for r in self.rows)
        table = [("argument", "type", "bytes", "ours", "JAX default")
                 + (("XLA (measured)",) if measured else ())]
        for r in self.rows:
            ours = r.status
            if r.result is not None:
                ours = f"-> {r.result_path or f'result {r.result}'}"
                if r.status != "reused":
                    ours += ", XLA copies"
            row = (r.path, r.type_text, format_bytes(r.nbytes), ours, r.jax_note)
            if measured:
                row += ((r.measured or "-") + (" (not as planned)" if r.disagrees else ""),)
            table.append(row)
        widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
        lines = [head]
        for n, row in enumerate(table):
            lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
            if n == 0:
                lines.append("  ".join("-" * w for w in widths))
        notes = [r for r in self.rows if r.status != "reused" or r.jax_detail or r.disagrees]
        if notes:
            lines.append("")
            for r in notes:
                if r.status != "reused":
                    lines.append(f"{r.path}: {r.message}")
                if r.jax_detail:
                    lines.append(f"{r.path}: {r.jax_detail}")
                if r.disagrees:
                    lines.append(f"{r.path}: predicted {r.predicted}, but the executable has it "
                                 f"{r.measured}" + (f" ({r.evidence})" if r.evidence else "")
                                 + ": a bug in jax_use_donated's rules, please report it")
        return "\n".join(lines)

    __repr__ = __str__


def report_of(record: LoweringRecord | None, name: str,
              truth: ExecutableTruth | None = None) -> DonationReport:
    """Describe a lowering's plan (``None``: nothing was donated), with the executable's
    measured outcome per donor when ``truth`` is given."""
    report = DonationReport(record.name if record is not None else name)
    if record is None:
        return report
    report.kept_jax = record.kept_jax
    fn, plan = record.function, record.plan
    jax_view = record.jax_view() if record.kept_jax is not None else None
    live = Liveness(fn, fusion_duplication=ordering_model(plan.ordering).xla)
    checker = PairChecker(fn, live, record.jax_ordering)  # JAX's pairs as jax.jit compiles
    paths = record.result_paths
    for v in plan.verdicts:
        arg = v.arg
        d = arg.index
        k = plan.pairs.get(d)
        kept = record.fallback.kept_pairs.get(d)
        if jax_view is not None:  # the executable runs JAX's pairing (footprint guard)
            k, kept = jax_view.get(d), None
            if k is not None and jax_view.outcome(d) == "copied":
                k, kept = None, k
        jax_kind, jax_value = record.jax_attrs.get(d, (None, None))
        jax_result: int | None = None
        jax_copy_free = False
        if jax_kind == ALIASING_OUTPUT and isinstance(jax_value, int):
            jax_result = jax_value
            b = checker.blocker(d, jax_value)
            jax_copy_free = b is None
            target = _result_label(paths, jax_value)
            jax_note = f"-> {target}" if b is None else f"-> {target}, XLA copies"
            jax_detail = "" if b is None else f"JAX's pairing with {target}: {_blocker_text(b)}"
        elif jax_kind == BUFFER_DONOR:
            jax_note, jax_detail = "buffer donor, XLA pairs by size", ""
        else:
            jax_note, jax_detail = "not donated", ""
        reader = next((b.reader for b in v.blockers if b.reader is not None), None)
        t = truth.donors.get(d) if truth is not None else None
        blocking = reader.loc.text if reader is not None and v.result is None else None
        report.rows.append(DonorRow(
            path=arg.display_name,
            arg_index=d,
            type_text=arg.type_text,
            nbytes=arg.tensor.nbytes if arg.tensor is not None else None,
            result=k if k is not None else kept,
            result_path=(_result_label(paths, k) if k is not None
                         else _result_label(paths, kept) if kept is not None else None),
            status=("reused" if k is not None
                    else "reused with a copy" if kept is not None else "not reused"),
            reason=v.reason.value if k is None else Reason.PAIRED.value,
            message=(v.message if jax_view is None or kept is None else
                     "copied by XLA under JAX's pairing, which the footprint guard kept"),
            blocking_read=blocking,
            jax_result=jax_result,
            jax_note=jax_note,
            jax_copy_free=jax_copy_free,
            jax_detail=jax_detail,
            measured=t.outcome.value if t is not None else None,
            evidence=t.evidence if t is not None else "",
        ))
    for r in record.removed:
        report.rows.append(DonorRow(
            path=r.name, arg_index=None, type_text=r.type_text, nbytes=r.nbytes, result=None,
            result_path=None, status="removed", reason="unused",
            message="unused, so jit removed it and its buffer is not donated "
                    "(keep_unused=True keeps it)",
            blocking_read=None, jax_result=None,
            jax_note="removed silently", jax_copy_free=False, jax_detail=""))
    return report


def _result_label(paths: list[str | None], k: int) -> str:
    p = paths[k] if 0 <= k < len(paths) else None
    return p if p else f"result {k}"
