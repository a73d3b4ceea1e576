"""``CallPlan.plot()`` and ``CallPlan.to_html()``: drawn from the plan's own data, rendered in a
real headless Chromium, readable at 1,000 leaves."""

from __future__ import annotations

import html
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jax_use_donated as jud
from jax_use_donated.dropin import picture
from tests.chromium import chromium, run_chromium, screenshot_pixels


def adam_state_first(p: dict[str, jax.Array], m: dict[str, jax.Array],
                     v: dict[str, jax.Array], g: dict[str, jax.Array]
                     ) -> tuple[dict[str, jax.Array], ...]:
    m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
    v = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
    p = jax.tree.map(lambda p, m, v: p - 1e-3 * m / (jnp.sqrt(v) + 1e-8), p, m, v)
    return m, v, p


def with_a_blocked_leaf(p: jax.Array, g: jax.Array, batch: jax.Array
                        ) -> tuple[jax.Array, jax.Array]:
    new = p - 0.1 * g
    return new, (new * p).sum() + batch.sum()   # reads the old p after (and with) the new


def _state(value: float) -> dict[str, jax.Array]:
    return {"w1": jnp.full((64, 64), value), "b1": jnp.full((64,), value),
            "w2": jnp.full((64, 64), value)}


@pytest.fixture(scope="module")
def adam_plan() -> jud.CallPlan:
    step = jud.jit(adam_state_first, donate_argnums=(0,), warn=False)
    return step.plan(_state(1.0), _state(0.0), _state(0.0), _state(0.5))


def test_picture_data_is_the_plans_data_and_explains(adam_plan: jud.CallPlan) -> None:
    data = picture.picture_data(adam_plan, advice=False)
    assert data.outcomes() == {x.path: x.measured for x in adam_plan.donations}
    step = jud.jit(adam_state_first, donate_argnums=(0,), warn=False)
    report = step.explain(_state(1.0), _state(0.0), _state(0.0), _state(0.5))
    assert data.outcomes() == {r.path: r.measured for r in report.rows}
    to_dict = getattr(adam_plan, "to_dict", None)
    if to_dict is not None:   # CallPlan.to_dict (another change) carries the same leaves
        d = to_dict()
        leaves = d.get("donations", d.get("leaves", []))
        assert {x["path"]: x.get("measured") for x in leaves} == data.outcomes()
    # Every strip knows its reads and the write of the result it hosts, in program order.
    for s in data.strips:
        assert s.first("last read") is not None and s.first("write") is not None, s
        assert 0 <= s.first("write").position <= data.ops  # type: ignore[union-attr]
    assert [b.label for b in data.bars] == ["jax.jit", "jax.jit + region analysis",
                                            "jax_use_donated.jit", "+ verified advice"]
    assert data.bars[-1].footprint is None   # advice=False: said, not drawn


def test_plot_and_html_carry_the_names_and_the_advice(adam_plan: jud.CallPlan) -> None:
    from matplotlib.figure import Figure

    fig = adam_plan.plot()
    assert isinstance(fig, Figure)
    labels = " ".join(t.get_text() for ax in fig.axes for t in ax.get_yticklabels())
    for x in adam_plan.donations:
        assert x.path in labels
    page = adam_plan.to_html()
    assert page.startswith("<!doctype html>") and "<svg" in page
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "<script" not in page and "https://" not in page
    for x in adam_plan.donations:
        assert html.escape(x.path) in page
    assert "+ verified advice" in page and "m[&#x27;w1&#x27;]" in page  # the advice's leaves
    # The advice bar is measured: lower than the call as made.
    bars = picture.picture_data(adam_plan).bars
    ours, advised = bars[2].footprint, bars[3].footprint
    assert ours is not None and advised is not None and advised.total < ours.total


def test_html_renders_in_headless_chromium(tmp_path: Path) -> None:
    binary = chromium()
    step = jud.jit(with_a_blocked_leaf, donate_argnums=(0, 2), warn=False,
                   region_analysis=False)
    p, g = jnp.ones((64, 64)), jnp.full((64, 64), 0.5)
    batch = jnp.ones((16,))
    plan = step.plan(p, g, batch)
    page = tmp_path / "step.html"
    page.write_text(plan.to_html())
    dom = run_chromium(binary, "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr.decode()[-2000:]
    text = html.unescape(dom.stdout.decode())
    for name in ("p", "batch", "g"):
        assert f">{name}<" in text, name
    assert "Footprint per compile" in text and "restructure" in text
    shot = tmp_path / "step.png"
    out = run_chromium(binary, f"--screenshot={shot}", "--window-size=1100,900", page.as_uri())
    assert shot.exists(), out.stderr.decode()[-2000:]
    pixels = screenshot_pixels(shot)
    # The footprint chart sits under the title: its area is not blank, and its bars are drawn
    # in the chart's colours (arguments, outputs not aliased, temporaries).
    chart = pixels[100:330, 250:950].astype(int)
    assert (np.abs(chart - 255).sum(axis=-1) > 60).mean() > 0.05
    colours = [picture.COLORS[k] for k in ("arguments", "outputs", "temporaries")]
    painted = sum(int((np.abs(chart - np.array([int(c[i:i + 2], 16) for i in (1, 3, 5)]))
                       .sum(axis=-1) < 30).sum()) for c in colours)
    assert painted > 5000, painted
    # The strips below are drawn too (the donated leaves' lines).
    assert (np.abs(pixels[330:].astype(int) - 255).sum(axis=-1) > 60).sum() > 2000


def test_a_thousand_leaves_stay_readable(tmp_path: Path) -> None:
    layers = 500

    def step(params: dict[str, dict[str, jax.Array]], grads: dict[str, dict[str, jax.Array]]
             ) -> dict[str, dict[str, jax.Array]]:
        return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)

    params = {f"layer{i:03d}": {"w": jnp.ones((4, 4 + i % 3)), "b": jnp.ones((4,))}
              for i in range(layers)}
    grads = jax.tree.map(lambda x: x * 0.1, params)
    plan = jud.jit(step, donate_argnums=(0,), warn=False).plan(params, grads)
    assert len(plan.donations) == 2 * layers
    data = picture.picture_data(plan, advice=False)
    rows = picture.rows(data, picture.FIGURE_ROWS)
    assert 1 < len(rows) <= 40
    assert sum(len(r.strips) for r in rows) == 2 * layers
    assert [r.nbytes for r in rows] == sorted((r.nbytes for r in rows), reverse=True)
    page = picture.html(data)
    assert page.count("<details") == len(picture.grouped(data.strips, 40)) <= 40
    for x in plan.donations:
        assert html.escape(x.path) in page
    fig = picture.figure(data)
    assert len(fig.axes[1].get_yticklabels()) <= picture.FIGURE_ROWS


def test_plot_of_a_plan_without_its_call_says_how() -> None:
    def sgd(p: jax.Array, g: jax.Array) -> jax.Array:
        return p - 0.1 * g

    step = jud.jit(sgd, donate_argnums=(0,), warn=False)
    step(jnp.ones(8), jnp.ones(8))   # last_plan: no jud.plan(...) call attached
    assert step.last_plan is not None
    with pytest.raises(LookupError, match=r"jud\.plan"):
        step.last_plan.plot()


def test_group_paths() -> None:
    paths = [f"opt[0].mu['layer{i}']['w']" for i in range(50)] + ["step"]
    groups = picture.group_paths(paths, 10)
    assert groups["step"] == "step"
    assert groups["opt[0].mu['layer3']['w']"].startswith("opt[0].mu['layer0'] … ['layer")
    assert len(set(groups.values())) <= 10
    wide = picture.group_paths([f"{a}['{b}']" for a in "abcdefgh" for b in "xy"], 10)
    assert wide["a['x']"] == "a"  # eight groups: fine enough
    assert picture.path_tokens("opt[0].mu['w']") == ["opt", "[0]", ".mu", "['w']"]


def test_the_bundled_example_writes_its_picture(tmp_path: Path) -> None:
    """``python examples/advise_adam.py`` (the command behind docs/jit_adam_picture.png)."""
    import importlib.util

    script = Path(__file__).resolve().parent.parent / "examples" / "advise_adam.py"
    spec = importlib.util.spec_from_file_location("advise_adam", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    png, page = tmp_path / "adam.png", tmp_path / "adam.html"
    module.main(["--png", str(png), "--html", str(page)])
    assert png.stat().st_size > 10_000
    text = page.read_text()
    root = str(script.parent.parent) + "/"
    assert "m[&#x27;w1&#x27;]" in text and root not in text and "examples/jit_adam.py" in text
