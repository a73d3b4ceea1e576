"""A picture of one function's donations, free of JAX and of any IR library: the data
(:class:`PictureData`: footprint bars, one lifetime strip per donated argument or leaf) and its
two renderings, a matplotlib ``Figure`` (:func:`figure`) and a self-contained HTML page
(:func:`html`: inline SVG and CSS, no script, nothing fetched).

Two front ends fill it: the drop-in (:mod:`jax_use_donated.dropin.picture`: ``CallPlan.plot()``
and ``CallPlan.to_html()``, with footprints measured by ``memory_analysis()`` and XLA's copies
read from the executable) and ``jax-donate-opt --donation-report=html=FILE``
(:func:`module_picture`: from the driver's plan records, :func:`.report_schema.plan_records`,
and the model's program order; nothing is compiled there, so its footprint bars say they are
unavailable and its advice is predicted)::

    data = module_picture(fn, plan, advice=predict_advice(fn, plan.ordering, plan))
    Path("step.html").write_text(html_page([data], "step.mlir"))
"""

from __future__ import annotations

import html as _html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jax_use_donated.analysis.liveness import CopyAfter, Liveness, ProducedBy
from jax_use_donated.analysis.model import FunctionModel
from jax_use_donated.analysis.orderings import ordering_model
from jax_use_donated.analysis.plan import DonationPlan, DonorVerdict
from jax_use_donated.analysis.report_schema import format_bytes, plan_records

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from jax_use_donated.analysis.advice import PredictedAdvice



@dataclass(frozen=True)
class Footprint:
    """``compiled.memory_analysis()`` in bytes: the footprint is arguments + outputs - aliased
    + temporaries (``docs``: the measure every benchmark of this project uses)."""

    arguments: int
    outputs: int
    aliased: int
    temporaries: int

    @property
    def total(self) -> int:
        return self.arguments + self.outputs - self.aliased + self.temporaries

    @classmethod
    def of(cls, compiled: Any) -> Footprint:
        m = compiled.memory_analysis()
        if m is None:
            raise RuntimeError("the backend reports no memory_analysis() for this executable")
        return cls(int(m.argument_size_in_bytes), int(m.output_size_in_bytes),
                   int(m.alias_size_in_bytes), int(m.temp_size_in_bytes))


# ---------------------------------------------------------------------------------- grouping

_TOKEN = re.compile(r"\[[^\]]*\]|\.[^.\[\]]+|[^.\[\]]+")


def path_tokens(path: str) -> list[str]:
    """``opt[0].mu['w']`` -> ``['opt', '[0]', '.mu', "['w']"]``."""
    return _TOKEN.findall(path) or [path]


def _natural(text: str) -> list[Any]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text)]


def group_paths(paths: Iterable[str], max_groups: int) -> dict[str, str]:
    """Each path's group, at most ``max_groups`` of them: the path prefix at the deepest level
    that gives at most that many; when that level is coarse (a few groups) and the next has
    too many (``params['layer0']`` ... ``params['layer499']``), runs of consecutive next-level
    prefixes, labelled ``params['layer0'] … ['layer24']``."""
    toks = {p: path_tokens(p) for p in paths}
    deepest = max((len(t) for t in toks.values()), default=1)
    chosen = 1
    for d in range(1, deepest + 1):
        if len({"".join(t[:d]) for t in toks.values()}) > max_groups:
            break
        chosen = d
    coarse = {p: "".join(t[:chosen]) for p, t in toks.items()}
    if chosen >= deepest or len(set(coarse.values())) > max_groups // 2:
        return coarse
    finer = {p: tuple(t[:chosen + 1]) for p, t in toks.items()}
    children = sorted(set(finer.values()), key=lambda t: _natural("".join(t)))
    parents: dict[str, list[tuple[str, ...]]] = {}
    for c in children:  # runs never cross a coarse group
        parents.setdefault("".join(c[:chosen]), []).append(c)
    size = -(-len(children) // max(1, max_groups - len(parents)))
    label: dict[tuple[str, ...], str] = {}
    for members in parents.values():
        for i in range(0, len(members), size):
            run = members[i:i + size]
            first, last = run[0], run[-1]
            name = ("".join(first) if len(run) == 1
                    else f"{''.join(first)} … {''.join(last[chosen:])}")
            for c in run:
                label[c] = name
    return {p: label[finer[p]] for p in toks}


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
    unit: str = "leaves"
    """What a strip is: the drop-in's ``leaves``, the driver's ``arguments``."""

    def outcomes(self) -> dict[str, str | None]:
        """Leaf path -> measured outcome (what tests compare with ``explain`` and ``to_dict``)."""
        return {s.path: s.measured for s in self.strips}


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
        ax_bars.text(left, y, f" {format_bytes(f.total)}", va="center", fontsize=8)
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
        return f"{s.path} ({format_bytes(s.nbytes)}, {s.outcome})"
    return f"{row.label} ({len(row.strips)} leaves, {format_bytes(row.nbytes)})"


# ------------------------------------------------------------------------------------ html

_CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; background: #fff; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 20px 0 6px; }
h3 { font-size: 14px; margin: 14px 0 4px; } h4 { font-size: 13px; margin: 12px 0 4px; }
section.chunk { border-top: 1px solid #ccc; margin-top: 20px; }
.summary, .note { color: #555; } svg text { font: 12px system-ui, sans-serif; }
details { margin: 2px 0; } summary { cursor: pointer; }
table { border-collapse: collapse; font-size: 12px; } td, th { padding: 2px 8px;
text-align: left; border-bottom: 1px solid #eee; } pre { font-size: 12px; }
"""
BAR_W, LABEL_W, STRIP_W, ROW_H = 560, 260, 620, 18


_SINGULAR = {"leaves": "leaf", "arguments": "argument"}


def html(data: PictureData) -> str:
    """The picture as a self-contained HTML page (inline SVG and CSS; no script, no network)."""
    return html_page([data])


@dataclass(frozen=True)
class PageGroup:
    """A titled part of a page (one input chunk of ``jax-donate-opt --split-input-file``):
    its heading, notes and pictures."""

    heading: str
    pictures: Sequence[PictureData]
    notes: Sequence[str] = ()


def html_page(pictures: Sequence[PictureData], title: str | None = None,
              notes: Sequence[str] = (), groups: Sequence[PageGroup] = ()) -> str:
    """Several pictures (one per function of a module) as one self-contained HTML page;
    ``title`` names the page (one picture: its function), ``notes`` are said under it;
    ``groups`` follow the pictures, each a section under its own heading."""
    e = _html.escape
    one = len(pictures) == 1 and title is None and not groups
    name = pictures[0].function if one else (title or "")
    parts = [
        "<!doctype html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
        f"<title>donations of {e(name)}</title><style>{_CSS}</style></head><body>",
    ]
    if not one:
        parts.append(f"<h1>Donations in {e(name)}</h1>")
        parts += [f"<p class=\"note\">{e(n)}</p>" for n in notes]
        if not pictures and not groups:
            parts.append("<p class=\"summary\">No function has donated arguments.</p>")
    for i, data in enumerate(pictures):
        parts += _section(data, i, heading="h1" if one else "h2",
                          sub="h2" if one else "h3")
    index = len(pictures)  # the footprint charts' ids stay unique over the page
    for group in groups:
        parts += ["<section class=\"chunk\">", f"<h2>{e(group.heading)}</h2>"]
        parts += [f"<p class=\"note\">{e(n)}</p>" for n in group.notes]
        for data in group.pictures:
            parts += _section(data, index, heading="h3", sub="h4")
            index += 1
        parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _section(data: PictureData, index: int, heading: str, sub: str) -> list[str]:
    e = _html.escape
    counts: dict[str, int] = {}
    for s in data.strips:
        counts[s.outcome] = counts.get(s.outcome, 0) + 1
    summary = ", ".join(f"{n} {o}" for o, n in sorted(counts.items())) or "nothing donated"
    parts = [
        f"<{heading}>Donations of {e(data.function)}</{heading}>",
        f"<p class=\"summary\">{len(data.strips)} donated {e(data.unit)} ({e(summary)}); "
        f"{data.ops} ops in program order; ordering model {e(data.ordering)}.</p>",
        f"<{sub}>Footprint per compile</{sub}>", _bars_svg(data, index),
    ]
    if data.advice_rows or data.advice_total:
        parts += [f"<{sub}>Advice</{sub}>", f"<table><tr><th>{e(_SINGULAR.get(data.unit, data.unit))}"
                  "</th><th>action</th><th>saves</th><th>verified</th><th>why</th></tr>"]
        parts += ["<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>"
                  for r in data.advice_rows]
        parts += ["</table>", f"<pre>{e(data.advice_total)}</pre>"]
    parts += [f"<{sub}>Donated buffers over program order</{sub}>",
              "<p class=\"note\">Gray ticks: reads of the donated buffer; black dot: its last "
              "read; triangle and line: the write of the result it hosts (green copy-free, "
              "orange XLA copies); red square and triangle: the read that blocks it and the "
              "write it blocks; red cross: a copy XLA made for it. Hover for the op, the "
              "source line and the leaf. Positions are block order; XLA may run a read that "
              "does not depend on a write before it (region analysis), so a copy-free write "
              "can come before a last read here.</p>", _legend_svg()]
    strips = sorted(data.strips, key=lambda s: (-s.nbytes, s.path))
    if len(strips) <= LEAF_ROWS:
        parts.append(_strips_svg(strips, data.ops))
    else:
        for n, row in enumerate(grouped(strips, 40)):
            opened = " open" if n < 3 else ""
            parts.append(f"<details{opened}><summary>{e(row.label)}: {len(row.strips)} "
                         f"{e(data.unit)}, {e(format_bytes(row.nbytes))} ({e(row.counts())})"
                         "</summary>")
            parts.append(_strips_svg(row.strips, data.ops))
            parts.append("</details>")
    for note in data.notes:
        parts.append(f"<p class=\"note\">{e(note)}</p>")
    return parts


def _bars_svg(data: PictureData, index: int = 0) -> str:
    e = _html.escape
    known = [b.footprint.total for b in data.bars if b.footprint is not None]
    scale = BAR_W / max(known) if known and max(known) > 0 else 0.0
    h = 28 * len(data.bars) + 30
    ident = "footprint" if index == 0 else f"footprint-{index}"
    out = [f"<svg id=\"{ident}\" xmlns=\"http://www.w3.org/2000/svg\" width=\""
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
                       f"{e(format_bytes(value))}</title></rect>")
            x += w
        out.append(f"<text x=\"{x + 6:.1f}\" y=\"{y + 14}\">{e(format_bytes(f.total))}<title>"
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
        info = (f"{s.path}: {s.type_text} ({format_bytes(s.nbytes)}), {s.status}"
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



# ------------------------------------------------------------------------- from a module file

NOT_MEASURED = "not measured: jax-donate-opt reads a module file and compiles nothing"


def _op_label(fn: FunctionModel, index: int) -> str:
    return f"{fn.ops[index].describe()} (op {index})"


def lifetime_marks(fn: FunctionModel, live: Liveness, verdict: DonorVerdict | None, d: int,
                   host: int | None, where: str) -> tuple[list[Mark], float | None, float]:
    """Donor ``d``'s strip over ``fn``'s block order: its reads and last read, the write of
    result ``host`` (named ``where``), and the read and the write that block it (``verdict``);
    with the write's position (``None``: no host) and the last read's (the end: none)."""
    end = float(len(fn.ops))
    marks: list[Mark] = []
    reads = sorted(live.reads[d].positions) if d in live.reads else []
    marks += [Mark(float(u), "read", _op_label(fn, u)) for u in reads[:-1]]
    if reads:
        marks.append(Mark(float(reads[-1]), "last read", _op_label(fn, reads[-1])))
    write: float | None = None
    if host is not None and host < len(live.writers):
        w = live.writers[host]
        if isinstance(w, ProducedBy):
            write = float(w.op)
            marks.append(Mark(write, "write", f"writes {where}: " + _op_label(fn, w.op)))
        elif isinstance(w, CopyAfter):
            write = float(w.after) + 0.5 if w.after is not None else end
            marks.append(Mark(write, "write", f"writes {where}: a copy of a value returned "
                              "twice"))
        else:
            write = end
            marks.append(Mark(end, "write", f"returned unchanged as {where}"))
    if verdict is not None and verdict.result is None and verdict.blockers:
        b = verdict.blockers[0]
        if b.reader is not None:
            marks.append(Mark(float(b.reader.index), "blocking read",
                              "still reads it: " + _op_label(fn, b.reader.index)))
        if b.writer is not None:
            marks.append(Mark(float(b.writer.index), "blocked write",
                              f"would write result {b.result} before: "
                              + _op_label(fn, b.writer.index)))
    return marks, write, float(reads[-1]) if reads else end


def model_strips(fn: FunctionModel, plan: DonationPlan, leaves: Sequence[dict[str, Any]],
                 advice: Sequence[PredictedAdvice] = ()) -> list[Strip]:
    """One strip per donated argument of ``fn``: what its plan record (``leaves``, from
    :func:`.report_schema.plan_records`) says, and where in block order the model reads the
    argument, the write of the result it hosts, and the read and the write that block it."""
    live = (plan.checker.live if plan.checker is not None and plan.checker.fn is fn
            else Liveness(fn, fusion_duplication=ordering_model(plan.ordering).xla))
    verdicts = {v.arg.index: v for v in plan.verdicts}
    said = {a.arg: a for a in advice}
    out: list[Strip] = []
    for x in leaves:
        d = x["parameter"]
        host = x["ours"]["result"]
        marks, _, _ = lifetime_marks(fn, live, verdicts.get(d), d, host,
                                     x["ours"]["result_path"] or f"result {host}")
        a = said.get(d)
        out.append(Strip(x["path"], x["leaf"], d, x["ours"]["status"], x["predicted"],
                         x["measured"], x["bytes"] or 0, x["type"], x["ours"]["result_path"],
                         x["message"], tuple(marks),
                         f"{a.action} (predicted): {a.reason}" if a is not None else ""))
    return out


def module_picture(fn: FunctionModel, plan: DonationPlan,
                   advice: Sequence[PredictedAdvice] | None = None,
                   record: dict[str, Any] | None = None, together: int = 0) -> PictureData:
    """The picture of one function of a module file, from its plan record (``record``, else
    :func:`.report_schema.plan_records` of ``fn`` and ``plan``: the one the JSON report
    writes) and the model's block order. Nothing is compiled: the footprint bars say they are
    unavailable, and ``advice`` (:func:`.advice.predict_advice`) is predicted, not verified;
    ``together``: its ``donate`` entries' joint predicted saving."""
    record = record if record is not None else plan_records(fn, plan, function=fn.name)
    strips = model_strips(fn, plan, record["leaves"], advice or ())
    bars = [Bar("jax.jit", f"{NOT_MEASURED} (JAX's pairing)", None),
            Bar("jax-donate-opt's plan", f"{NOT_MEASURED} (this plan: {format_bytes(plan.aliased_bytes(fn))} "
                f"of {format_bytes(sum(a.nbytes for a in fn.donors))} donated reused)", None)]
    if advice is not None:
        bars.append(Bar("+ predicted advice", f"{NOT_MEASURED}; the advice is predicted "
                        "from the module, not verified", None))
    data = PictureData(f"@{fn.name}", len(fn.ops), strips, bars, str(plan.ordering),
                       unit="arguments")
    if advice is not None:
        data.advice_rows = [
            (a.name, a.action, format_bytes(a.bytes_saved) if a.bytes_saved else "-",
             "no (predicted)" if a.action != "none" else "-",
             a.reason + (" (if the caller does not use it after the call)"
                         if a.action == "donate" else ""))
            for a in advice]
        n = sum(1 for a in advice if a.action == "donate")
        data.advice_total = (f"predicted from the module, nothing compiled or measured: "
                             f"donating the {n} suggested argument{'s' if n != 1 else ''} "
                             f"together would reuse {format_bytes(together)} more (planned "
                             "jointly)" if n else "predicted from the module, nothing "
                             "compiled or measured: no argument to donate")
    data.notes.append("Read from a module file: positions are the model's block order, and "
                      "XLA's copies are not known (nothing was compiled); compile the function "
                      "with jax_use_donated.jit and call plan(...).to_html() for measured "
                      "footprints and copies.")
    return data


__all__ = ["Bar", "Footprint", "Mark", "PageGroup", "PictureData", "Row", "Strip", "figure", "group_paths",
           "grouped", "html", "html_page", "model_strips", "module_picture", "path_tokens",
           "rows"]
