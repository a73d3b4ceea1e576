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

from typing import TYPE_CHECKING, Any

from jax_use_donated.analysis.picture import (
    COLORS,
    FIGURE_ROWS,
    LEAF_ROWS,
    Bar,
    Mark,
    PictureData,
    Row,
    Strip,
    figure,
    group_paths,
    grouped,
    html,
    lifetime_marks,
    path_tokens,
    rows,
)
from jax_use_donated.analysis.report_schema import format_bytes
from jax_use_donated.dropin import extensions
from jax_use_donated.dropin.records import CallPlan, LoweringRecord
from jax_use_donated.dropin.variants import REGION_OPTION, CallSite, site_of

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from jax_use_donated.dropin.advice import Advice


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
            (x.path, x.action, format_bytes(x.bytes_saved) if x.bytes_saved else "-",
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


def _strips(plan: CallPlan, record: LoweringRecord | None, advice: Advice | None
            ) -> list[Strip]:
    from jax_use_donated.analysis.liveness import Liveness
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
    out: list[Strip] = []
    for x in plan.donations:
        d = x.parameter
        marks: list[Mark] = []
        nbytes, type_text = 0, ""
        if d is not None and d < len(fn.args):
            arg = fn.args[d]
            nbytes, type_text = arg.nbytes, arg.type_text
            host = p.pairs.get(d)
            if host is None:
                host = record.fallback.kept_pairs.get(d)
            t = truth.donors.get(d) if truth is not None else None
            if host is None and t is not None and t.output is not None:
                host = t.output  # a buffer donor XLA matched by size
            marks, write, last_read = lifetime_marks(fn, live, verdicts.get(d), d, host,
                                                     f"{x.result_path or host}")
            if t is not None:
                for c in t.copies:
                    at = write if write is not None else last_read
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


def plot_plan(plan: CallPlan, advice: Advice | bool | None = True) -> Figure:
    """:meth:`CallPlan.plot`."""
    return figure(picture_data(plan, advice))


def html_plan(plan: CallPlan, advice: Advice | bool | None = True) -> str:
    """:meth:`CallPlan.to_html`."""
    return html(picture_data(plan, advice))


extensions.register_plan_method("plot", plot_plan)
extensions.register_plan_method("to_html", html_plan)

__all__ = ["COLORS", "FIGURE_ROWS", "LEAF_ROWS", "Bar", "Mark", "PictureData", "Row", "Strip", "figure", "group_paths",
           "grouped", "html", "html_plan", "path_tokens", "picture_data", "plot_plan", "rows"]
