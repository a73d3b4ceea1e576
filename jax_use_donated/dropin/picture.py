"""A picture of one call's donations: footprints side by side, and each donated leaf's lifetime.

``jud.plan(step, *args).plot()`` returns a matplotlib ``Figure``, ``.to_html()`` a
self-contained HTML page (inline SVG, no script, nothing fetched), both drawn from one
:class:`PictureData`:

* **footprint bars** (``memory_analysis()``: arguments, outputs not aliased, temporaries):
  ``jax.jit`` as JAX pairs the donations, ``jax.jit`` with XLA:CPU's region analysis, the call
  as ``jax_use_donated.jit`` compiles it, and with the verified advice applied
  (:mod:`.advice`); each variant is compiled for the call's arguments;
* **a lifetime strip per donated leaf** over program order (the plan's model: ``@main``'s
  ops in block order): every read of the donated buffer, its last read, the write of the
  result it hosts (green: copy-free in the executable, orange: XLA copies), the read and the
  write that block it when it hosts nothing, and the copies XLA made for it (from the
  executable, :mod:`.xla_truth`; drawn at the write they serve). In the HTML every mark has
  the op, the user's source line and the leaf's name on hover (SVG ``<title>``). Above 60
  leaves the strips are grouped by path prefix, largest group first (a collapsible section
  each), so a step with 1,000 leaves stays readable.

Example::

    plan = jud.plan(step, params, opt_state, batch)
    plan.plot().savefig("step.png")
    Path("step.html").write_text(plan.to_html())
"""

from __future__ import annotations

import html as _html
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jax_use_donated.dropin import extensions
from jax_use_donated.dropin.calls import group_paths, path_tokens
from jax_use_donated.dropin.explain import _size
from jax_use_donated.dropin.records import CallPlan, LoweringRecord
from jax_use_donated.dropin.variants import REGION_OPTION, CallSite, Footprint, site_of

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from jax_use_donated.dropin.advice import Advice

# ------------------------------------------------------------------------------------ data

@dataclass(frozen=True)
class Mark:
    """One event on a strip."""

    position: float
    """Program order: the op's index among ``@main``'s ops."""
    kind: str
    """``read``, ``last read``, ``write``, ``blocking read``, ``blocked write`` or ``copy``."""
    label: str
    """The op and the user's source line (``stablehlo.multiply at step.py:12:8``), or the
    HLO copy."""


@dataclass(frozen=True)
class Strip:
    """One donated leaf: what :class:`~jax_use_donated.dropin.records.LeafDonation` says, and
    where in program order its buffer is read and written."""

    path: str
    leaf: int | None
    parameter: int | None
    status: str
    predicted: str | None
    measured: str | None
    nbytes: int
    type_text: str
    result_path: str | None
    message: str
    marks: tuple[Mark, ...] = ()
    advice: str = ""

    @property
    def outcome(self) -> str:
        """The measured outcome, else the plan's status."""
        return self.measured or self.status

    def first(self, kind: str) -> Mark | None:
        return next((m for m in self.marks if m.kind == kind), None)


@dataclass(frozen=True)
class Bar:
    label: str
    what: str
    """What was compiled, in words."""
    footprint: Footprint | None
    """``None``: not available here (and :attr:`what` says why)."""


@dataclass
class PictureData:
    """Everything the figure and the HTML page draw (one source for both)."""

    function: str
    ops: int
    strips: list[Strip]
    bars: list[Bar]
    ordering: str = ""
    advice_rows: list[tuple[str, str, str, str, str]] = field(default_factory=list)
    """Per suggestion: leaf, action, bytes saved, verified, why (the advice's table)."""
    advice_total: str = ""
    notes: list[str] = field(default_factory=list)

    def outcomes(self) -> dict[str, str | None]:
        """Leaf path -> measured outcome (what tests compare with ``explain`` and ``to_dict``)."""
        return {s.path: s.measured for s in self.strips}


def picture_data(plan: CallPlan, advice: Advice | bool | None = True,
                 site: CallSite | None = None, record: LoweringRecord | None = None
                 ) -> PictureData:
    """Build the picture of ``plan``: its call is found with :func:`.variants.site_of` (``plan``
    from :func:`jax_use_donated.plan`) unless ``site`` is given. ``advice``: an
    :class:`~jax_use_donated.dropin.advice.Advice` of this call, ``True`` to compute it
    (compiling its variants), ``False``/``None`` to leave its bar out."""
    from jax_use_donated.dropin import advice as advice_module

    given = advice if not isinstance(advice, bool) else None
    if given is not None and site is None:
        site = given.site
    if site is None:
        site = site_of(plan)
    args, kwargs = call_args(site)
    if record is None:
        from jax_use_donated.dropin import api

        record, _, _ = api._lowered_record(site.jitted, tuple(args), kwargs)
    if advice is True:
        given = advice_module.advise_call(site.jitted, args, kwargs)
    strips = _strips(plan, record, given)
    bars = _bars(site, plan, given)
    ops = len(record.function.ops) if record is not None else 0
    ordering = str(record.plan.ordering) if record is not None else ""
    data = PictureData(plan.function, ops, strips, bars, ordering)
    if given is not None:
        data.advice_rows = [
            (x.path, x.action, _size(x.bytes_saved) if x.bytes_saved else "-",
             "yes" if x.verified else "no" if x.action != "none" else "-",
             x.reason + (f"; {x.caveat}" if x.caveat else "") + (f" ({x.note})" if x.note
                                                                 else ""))
            for x in given.suggestions]
        data.advice_total = "\n".join(given.summary())
    return data


def call_args(site: CallSite) -> tuple[list[Any], dict[str, Any]]:
    """The call's arguments: the user's live arrays where they still exist, their abstract
    values elsewhere, static arguments as given."""
    values = []
    for i, a in enumerate(site.abstract):
        ref = site.live[i] if i < len(site.live) else None
        x = ref() if ref is not None else None
        values.append(x if x is not None and not x.is_deleted() else a)
    d_args, d_kwargs = site.treedef.unflatten(values)
    it = iter(d_args)
    args = [site.statics[i] if i in site.statics else next(it) for i in range(site.n_args)]
    return args, {**d_kwargs, **site.static_kwargs}


def _op_label(fn: Any, index: int) -> str:
    op = fn.ops[index]
    return f"{op.describe()} (op {index})"


def _strips(plan: CallPlan, record: LoweringRecord | None, advice: Advice | None
            ) -> list[Strip]:
    from jax_use_donated.analysis.liveness import CopyAfter, Liveness, ProducedBy
    from jax_use_donated.analysis.orderings import ordering_model

    said = {s.path: s for s in advice.suggestions} if advice is not None else {}
    if record is None:
        return [Strip(x.path, x.leaf, x.parameter, x.status, x.predicted, x.measured, 0, "",
                      x.result_path, x.message) for x in plan.donations]
    fn, p = record.function, record.plan
    live = (p.checker.live if p.checker is not None and p.checker.fn is fn
            else Liveness(fn, fusion_duplication=ordering_model(p.ordering).xla))
    verdicts = {v.arg.index: v for v in p.verdicts}
    truth = record.truth
    end = float(len(fn.ops))
    out: list[Strip] = []
    for x in plan.donations:
        d = x.parameter
        marks: list[Mark] = []
        nbytes, type_text = 0, ""
        if d is not None and d < len(fn.args):
            arg = fn.args[d]
            nbytes, type_text = arg.nbytes, arg.type_text
            reads = sorted(live.reads[d].positions) if d in live.reads else []
            marks += [Mark(float(u), "read", _op_label(fn, u)) for u in reads[:-1]]
            if reads:
                marks.append(Mark(float(reads[-1]), "last read", _op_label(fn, reads[-1])))
            host = p.pairs.get(d)
            if host is None:
                host = record.fallback.kept_pairs.get(d)
            t = truth.donors.get(d) if truth is not None else None
            if host is None and t is not None and t.output is not None:
                host = t.output  # a buffer donor XLA matched by size
            write: float | None = None
            if host is not None and host < len(live.writers):
                w = live.writers[host]
                if isinstance(w, ProducedBy):
                    write = float(w.op)
                    marks.append(Mark(write, "write", f"writes {x.result_path or host}: "
                                      + _op_label(fn, w.op)))
                elif isinstance(w, CopyAfter):
                    write = float(w.after) + 0.5 if w.after is not None else end
                    marks.append(Mark(write, "write", f"writes {x.result_path or host}: a "
                                      "copy of a value returned twice"))
                else:
                    marks.append(Mark(end, "write", f"returned unchanged as "
                                      f"{x.result_path or host}"))
                    write = end
            v = verdicts.get(d)
            if v is not None and v.result is None and v.blockers:
                b = v.blockers[0]
                if b.reader is not None:
                    marks.append(Mark(float(b.reader.index), "blocking read",
                                      "still reads it: " + _op_label(fn, b.reader.index)))
                if b.writer is not None:
                    marks.append(Mark(float(b.writer.index), "blocked write",
                                      f"would write result {b.result} before: "
                                      + _op_label(fn, b.writer.index)))
            if t is not None:
                for c in t.copies:
                    at = write if write is not None else (float(reads[-1]) if reads else end)
                    marks.append(Mark(at, "copy", f"XLA {c.describe()}: "
                                      f"{c.instruction.text.strip()[:160]}"))
        s = said.get(x.path)
        note = f"{s.action}: {s.reason}" if s is not None else ""
        out.append(Strip(x.path, x.leaf, d, x.status, x.predicted, x.measured, nbytes,
                         type_text, x.result_path, x.message, tuple(marks), note))
    return out


def _bars(site: CallSite, plan: CallPlan, advice: Advice | None) -> list[Bar]:
    import jax

    bars: list[Bar] = []
    jax_default = site.compile(site.donated, planned=False, region=False)
    bars.append(Bar("jax.jit", "jax.jit with the call's donations, JAX's pairing, XLA's "
                    "default copy insertion", jax_default.footprint))
    cpu_single = jax.default_backend() == "cpu" and jax.device_count() >= 1 and all(
        getattr(getattr(a, "sharding", None), "num_devices", 1) <= 1 for a in site.abstract)
    if cpu_single:
        region = site.compile(site.donated, planned=False, region=True)
        bars.append(Bar("jax.jit + region analysis", f"jax.jit, JAX's pairing, compiled with "
                        f"{REGION_OPTION}=True", region.footprint))
    else:
        bars.append(Bar("jax.jit + region analysis", "XLA:CPU's option; not this backend or "
                        "program (several devices)", None))
    ours = (advice.breakdown.get("as called") if advice is not None else None) or \
        site.compile(site.donated).footprint
    bars.append(Bar("jax_use_donated.jit", f"the call as {plan.function} compiles it: planned "
                    "by liveness", ours))
    if advice is not None:
        advised = advice.breakdown.get("advised")
        n = len(advice.applied)
        bars.append(Bar("+ verified advice", f"with the {n} verified suggestion"
                        f"{'s' if n != 1 else ''} applied (compiled and measured)", advised))
    else:
        bars.append(Bar("+ verified advice", "not computed (plot(advice=True) computes it)",
                        None))
    return bars


# ---------------------------------------------------------------------------------- layout

COLORS = {
    "arguments": "#9e9e9e", "outputs": "#4c78a8", "temporaries": "#f58518",
    "read": "#9e9e9e", "last read": "#222222", "copy-free": "#2ca02c", "copied": "#f58518",
    "write": "#2ca02c", "blocking read": "#d62728", "blocked write": "#d62728",
    "copy": "#d62728", "not donated": "#bbbbbb",
}
LEAF_ROWS = 60
"""Up to this many donated leaves the strips are one list; above, grouped by path prefix."""
FIGURE_ROWS = 40


@dataclass
class Row:
    """A strip as drawn: one leaf, or a group of leaves overlaid."""

    label: str
    strips: list[Strip]

    @property
    def nbytes(self) -> int:
        return sum(s.nbytes for s in self.strips)

    def counts(self) -> str:
        outcomes: dict[str, int] = {}
        for s in self.strips:
            outcomes[s.outcome] = outcomes.get(s.outcome, 0) + 1
        return ", ".join(f"{n} {o}" for o, n in sorted(outcomes.items()))


def rows(data: PictureData, limit: int) -> list[Row]:
    """One row per leaf (largest first) when at most ``limit``; otherwise one per path-prefix
    group (largest group first)."""
    strips = sorted(data.strips, key=lambda s: (-s.nbytes, s.path))
    if len(strips) <= limit:
        return [Row(s.path, [s]) for s in strips]
    return grouped(strips, limit)


def grouped(strips: Sequence[Strip], max_groups: int) -> list[Row]:
    groups = group_paths([s.path for s in strips], max_groups)
    by: dict[str, list[Strip]] = {}
    for s in sorted(strips, key=lambda s: (-s.nbytes, s.path)):
        by.setdefault(groups[s.path], []).append(s)
    out = [Row(g, members) for g, members in by.items()]
    out.sort(key=lambda r: (-r.nbytes, r.label))
    return out


def _write_color(s: Strip) -> str:
    return COLORS["copied"] if s.measured == "copied" or s.status == "copied" else COLORS["write"]


# ---------------------------------------------------------------------------------- figure

def figure(data: PictureData) -> Figure:
    """The picture as a matplotlib ``Figure`` (footprint bars above, lifetime strips below)."""
    try:
        from matplotlib.figure import Figure
        from matplotlib.lines import Line2D
    except ImportError as e:
        raise ImportError("CallPlan.plot() draws with matplotlib: pip install "
                          "'jax-use-donated[plot]' (or use CallPlan.to_html(), which needs "
                          "nothing)") from e

    shown = rows(data, FIGURE_ROWS)
    more = 0
    if len(shown) > FIGURE_ROWS:
        more = len(shown) - FIGURE_ROWS
        shown = shown[:FIGURE_ROWS]
    strips_h = 0.9 + 0.24 * max(len(shown), 1)
    fig = Figure(figsize=(11, 2.4 + strips_h), layout="constrained")
    ax_bars, ax = fig.subplots(2, 1, height_ratios=[2.4, strips_h])
    labels = [b.label for b in data.bars][::-1]
    bars = data.bars[::-1]
    for y, b in enumerate(bars):
        if b.footprint is None:
            ax_bars.text(0, y, "  n/a: " + b.what, va="center", fontsize=7, color="#666666")
            continue
        f = b.footprint
        parts = [("arguments", f.arguments), ("outputs", f.outputs - f.aliased),
                 ("temporaries", f.temporaries)]
        left = 0.0
        for name, value in parts:
            label = "outputs not aliased" if name == "outputs" else name
            ax_bars.barh(y, value / 2**20, left=left, color=COLORS[name], height=0.6,
                         label=label if y == len(bars) - 1 else None)
            left += value / 2**20
        ax_bars.text(left, y, f" {_size(f.total)}", va="center", fontsize=8)
    ax_bars.set_yticks(range(len(labels)), labels, fontsize=8)
    ax_bars.set_xlabel("footprint, MiB (memory_analysis: arguments + outputs - aliased + "
                       "temporaries)", fontsize=8)
    ax_bars.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax_bars.set_title(f"{data.function}: footprint per compile", fontsize=10)
    known = [b.footprint.total for b in bars if b.footprint is not None]
    ax_bars.set_xlim(0, 1.18 * max(known) / 2**20 if known and max(known) else 1)
    n = max(data.ops, 1)
    for y, row in enumerate(shown):
        alpha = 1.0 if len(row.strips) == 1 else max(0.15, 1.0 / len(row.strips) ** 0.5)
        for s in row.strips:
            last = s.first("last read")
            write = s.first("write")
            if last is not None:
                ax.plot([0, last.position], [y, y], color=COLORS["read"], lw=1, alpha=alpha)
            if write is not None:
                ax.plot([write.position, n], [y, y], color=_write_color(s), lw=2, alpha=alpha)
            for m in s.marks:
                style = {"read": ("|", COLORS["read"], 5), "last read": ("o", COLORS["last read"],
                                                                        4),
                         "write": ("^", _write_color(s), 6),
                         "blocking read": ("s", COLORS["blocking read"], 7),
                         "blocked write": ("v", COLORS["blocked write"], 5),
                         "copy": ("x", COLORS["copy"], 7)}[m.kind]
                ax.plot([m.position], [y], style[0], color=style[1], ms=style[2], alpha=alpha,
                        mew=1.5, mfc="none" if m.kind == "blocking read" else style[1])
    ax.set_ylim(len(shown) - 0.5, -0.5)
    ax.set_xlim(-0.5, n + 0.5)
    ax.set_yticks(range(len(shown)), [_row_label(r) for r in shown], fontsize=7)
    ax.set_xlabel(f"program order (op of @main in block order, {data.ops} ops)" + (
        "; region analysis runs a read that does not depend on a write before it"
        if "region" in data.ordering else "")
        + (f"; {more} smaller groups not shown" if more else ""), fontsize=8)
    ax.set_title("donated buffers: reads, the write of the result each hosts, XLA's copies",
                 fontsize=10)
    handles = [Line2D([], [], marker=m, color=c, ls="", label=label,
                      mfc="none" if label == "blocking read" else c) for m, c, label in (
        ("|", COLORS["read"], "read"), ("o", COLORS["last read"], "last read"),
        ("^", COLORS["copy-free"], "write (copy-free)"), ("^", COLORS["copied"],
                                                          "write (XLA copies)"),
        ("s", COLORS["blocking read"], "blocking read"), ("v", COLORS["blocked write"],
                                                           "blocked write"),
        ("x", COLORS["copy"], "XLA copy"))]
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def _row_label(row: Row) -> str:
    if len(row.strips) == 1:
        s = row.strips[0]
        return f"{s.path} ({_size(s.nbytes)}, {s.outcome})"
    return f"{row.label} ({len(row.strips)} leaves, {_size(row.nbytes)})"


# ------------------------------------------------------------------------------------ html

_CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; background: #fff; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 20px 0 6px; }
.summary, .note { color: #555; } svg text { font: 12px system-ui, sans-serif; }
details { margin: 2px 0; } summary { cursor: pointer; }
table { border-collapse: collapse; font-size: 12px; } td, th { padding: 2px 8px;
text-align: left; border-bottom: 1px solid #eee; } pre { font-size: 12px; }
"""
BAR_W, LABEL_W, STRIP_W, ROW_H = 560, 260, 620, 18


def html(data: PictureData) -> str:
    """The picture as a self-contained HTML page (inline SVG and CSS; no script, no network)."""
    e = _html.escape
    counts: dict[str, int] = {}
    for s in data.strips:
        counts[s.outcome] = counts.get(s.outcome, 0) + 1
    summary = ", ".join(f"{n} {o}" for o, n in sorted(counts.items())) or "nothing donated"
    parts = [
        "<!doctype html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
        f"<title>donations of {e(data.function)}</title><style>{_CSS}</style></head><body>",
        f"<h1>Donations of {e(data.function)}</h1>",
        f"<p class=\"summary\">{len(data.strips)} donated leaves ({e(summary)}); "
        f"{data.ops} ops in program order; ordering model {e(data.ordering)}.</p>",
        "<h2>Footprint per compile</h2>", _bars_svg(data),
    ]
    if data.advice_rows or data.advice_total:
        parts += ["<h2>Advice</h2>", "<table><tr><th>leaf</th><th>action</th><th>saves</th>"
                  "<th>verified</th><th>why</th></tr>"]
        parts += ["<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>"
                  for r in data.advice_rows]
        parts += ["</table>", f"<pre>{e(data.advice_total)}</pre>"]
    parts += ["<h2>Donated buffers over program order</h2>",
              "<p class=\"note\">Gray ticks: reads of the donated buffer; black dot: its last "
              "read; triangle and line: the write of the result it hosts (green copy-free, "
              "orange XLA copies); red square and triangle: the read that blocks it and the "
              "write it blocks; red cross: a copy XLA made for it. Hover for the op, the "
              "source line and the leaf. Positions are block order; XLA may run a read that does not "
              "depend on a write before it (region analysis), so a copy-free write can come "
              "before a last read here.</p>", _legend_svg()]
    strips = sorted(data.strips, key=lambda s: (-s.nbytes, s.path))
    if len(strips) <= LEAF_ROWS:
        parts.append(_strips_svg(strips, data.ops))
    else:
        for n, row in enumerate(grouped(strips, 40)):
            opened = " open" if n < 3 else ""
            parts.append(f"<details{opened}><summary>{e(row.label)}: {len(row.strips)} leaves, "
                         f"{e(_size(row.nbytes))} ({e(row.counts())})</summary>")
            parts.append(_strips_svg(row.strips, data.ops))
            parts.append("</details>")
    for note in data.notes:
        parts.append(f"<p class=\"note\">{e(note)}</p>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _bars_svg(data: PictureData) -> str:
    e = _html.escape
    known = [b.footprint.total for b in data.bars if b.footprint is not None]
    scale = BAR_W / max(known) if known and max(known) > 0 else 0.0
    h = 28 * len(data.bars) + 30
    out = [f"<svg id=\"footprint\" xmlns=\"http://www.w3.org/2000/svg\" width=\""
           f"{LABEL_W + BAR_W + 120}\" height=\"{h}\" role=\"img\">"]
    for i, b in enumerate(data.bars):
        y = 10 + 28 * i
        out.append(f"<text x=\"{LABEL_W - 8}\" y=\"{y + 14}\" text-anchor=\"end\">"
                   f"{e(b.label)}<title>{e(b.what)}</title></text>")
        if b.footprint is None:
            out.append(f"<text x=\"{LABEL_W}\" y=\"{y + 14}\" fill=\"#777\">n/a: {e(b.what)}"
                       "</text>")
            continue
        f = b.footprint
        x = float(LABEL_W)
        for name, value in (("arguments", f.arguments), ("outputs", f.outputs - f.aliased),
                            ("temporaries", f.temporaries)):
            w = value * scale
            if w <= 0:
                continue
            out.append(f"<rect x=\"{x:.1f}\" y=\"{y}\" width=\"{w:.1f}\" height=\"20\" "
                       f"fill=\"{COLORS[name]}\"><title>{e(b.label)}: {name} "
                       f"{e(_size(value))}</title></rect>")
            x += w
        out.append(f"<text x=\"{x + 6:.1f}\" y=\"{y + 14}\">{e(_size(f.total))}<title>"
                   f"{e(b.what)}: arguments {f.arguments} B + outputs {f.outputs} B - aliased "
                   f"{f.aliased} B + temporaries {f.temporaries} B = {f.total} B</title></text>")
    y = 10 + 28 * len(data.bars)
    x = LABEL_W
    for name in ("arguments", "outputs", "temporaries"):
        label = "outputs not aliased" if name == "outputs" else name
        out.append(f"<rect x=\"{x}\" y=\"{y}\" width=\"10\" height=\"10\" "
                   f"fill=\"{COLORS[name]}\"/><text x=\"{x + 14}\" y=\"{y + 9}\">{label}</text>")
        x += 170
    out.append("</svg>")
    return "".join(out)


def _legend_svg() -> str:
    items = [("read", "read"), ("last read", "last read"), ("write", "write, copy-free"),
             ("copied", "write, XLA copies"), ("blocking read", "blocking read"),
             ("blocked write", "blocked write"), ("copy", "XLA copy")]
    out = ["<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" height=\"22\">"]
    x = 4
    for kind, label in items:
        out.append(_marker(kind if kind != "copied" else "write", x + 5, 11,
                           COLORS[kind] if kind != "write" else COLORS["copy-free"], ""))
        out.append(f"<text x=\"{x + 14}\" y=\"15\">{label}</text>")
        x += 14 + 8 * len(label) + 14
    out.append("</svg>")
    return "".join(out)


def _marker(kind: str, x: float, y: float, color: str, title: str) -> str:
    t = f"<title>{_html.escape(title)}</title>" if title else ""
    if kind == "read":
        return (f"<line x1=\"{x:.1f}\" y1=\"{y - 5}\" x2=\"{x:.1f}\" y2=\"{y + 5}\" "
                f"stroke=\"{color}\" stroke-width=\"1.5\">{t}</line>")
    if kind == "last read":
        return f"<circle cx=\"{x:.1f}\" cy=\"{y}\" r=\"4\" fill=\"{color}\">{t}</circle>"
    if kind in ("write", "blocked write"):
        d = -1 if kind == "write" else 1
        return (f"<polygon points=\"{x - 5:.1f},{y - 5 * d} {x + 5:.1f},{y - 5 * d} "
                f"{x:.1f},{y + 5 * d}\" fill=\"{color}\">{t}</polygon>")
    if kind == "blocking read":
        return (f"<rect x=\"{x - 5:.1f}\" y=\"{y - 5}\" width=\"10\" height=\"10\" "
                f"fill=\"none\" stroke=\"{color}\" stroke-width=\"2\">{t}</rect>")
    return (f"<path d=\"M{x - 5:.1f},{y - 5} L{x + 5:.1f},{y + 5} M{x - 5:.1f},{y + 5} "
            f"L{x + 5:.1f},{y - 5}\" stroke=\"{color}\" stroke-width=\"2\">{t}</path>")


def _strips_svg(strips: Sequence[Strip], ops: int) -> str:
    e = _html.escape
    n = max(ops, 1)
    h = ROW_H * len(strips) + 8

    def x_of(p: float) -> float:
        return LABEL_W + 10 + STRIP_W * p / n

    out = [f"<svg class=\"strips\" xmlns=\"http://www.w3.org/2000/svg\" width=\""
           f"{LABEL_W + STRIP_W + 30}\" height=\"{h}\">"]
    for i, s in enumerate(strips):
        y = 4 + ROW_H * i + ROW_H / 2
        info = (f"{s.path}: {s.type_text} ({_size(s.nbytes)}), {s.status}"
                + (f" -> {s.result_path}" if s.result_path else "")
                + (f"; executable: {s.measured}" if s.measured else "")
                + f"\n{s.message}" + (f"\nadvice: {s.advice}" if s.advice else ""))
        out.append(f"<g class=\"strip\" data-path=\"{e(s.path)}\"><title>{e(info)}</title>")
        if i % 2:
            out.append(f"<rect x=\"0\" y=\"{y - ROW_H / 2:.1f}\" width=\"{LABEL_W + STRIP_W + 30}"
                       f"\" height=\"{ROW_H}\" fill=\"#f6f6f6\"/>")
        label = s.path if len(s.path) <= 34 else s.path[:16] + "…" + s.path[-17:]
        out.append(f"<text x=\"{LABEL_W - 6}\" y=\"{y + 4:.1f}\" text-anchor=\"end\">"
                   f"{e(label)}</text>")
        out.append(f"<line x1=\"{x_of(0):.1f}\" y1=\"{y:.1f}\" x2=\"{x_of(n):.1f}\" "
                   f"y2=\"{y:.1f}\" stroke=\"#e3e3e3\"/>")
        last, write = s.first("last read"), s.first("write")
        if last is not None:
            out.append(f"<line x1=\"{x_of(0):.1f}\" y1=\"{y:.1f}\" x2=\"{x_of(last.position):.1f}"
                       f"\" y2=\"{y:.1f}\" stroke=\"{COLORS['read']}\" stroke-width=\"2\"/>")
        if write is not None:
            out.append(f"<line x1=\"{x_of(write.position):.1f}\" y1=\"{y:.1f}\" x2=\""
                       f"{x_of(n):.1f}\" y2=\"{y:.1f}\" stroke=\"{_write_color(s)}\" "
                       "stroke-width=\"3\"/>")
        for m in s.marks:
            color = _write_color(s) if m.kind == "write" else COLORS[m.kind]
            out.append(_marker(m.kind, x_of(m.position), y, color, f"{s.path}: {m.kind}, "
                               f"{m.label}"))
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)


def plot_plan(plan: CallPlan, advice: Advice | bool | None = True) -> Figure:
    """:meth:`CallPlan.plot`."""
    return figure(picture_data(plan, advice))


def html_plan(plan: CallPlan, advice: Advice | bool | None = True) -> str:
    """:meth:`CallPlan.to_html`."""
    return html(picture_data(plan, advice))


extensions.register_plan_method("plot", plot_plan)
extensions.register_plan_method("to_html", html_plan)

__all__ = ["Bar", "Mark", "PictureData", "Row", "Strip", "figure", "group_paths", "html",
           "html_plan", "path_tokens", "picture_data", "plot_plan", "rows"]
