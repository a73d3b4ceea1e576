"""Advice and a picture for the Adam step of ``examples/jit_adam.py``, donating only the params.

A user who donates only the parameters leaves the optimizer state's buffers unused:
``jud.advise`` compiles the step with each state leaf donated too, measures it, and says
which ones host a result copy-free (verified), what they save together, and how to write it
(``donate_argnums=(0, 1, 2)``). The picture shows the footprints of ``jax.jit``, ``jax.jit``
with region analysis, ``jax_use_donated.jit`` and with the advice applied, and each donated
buffer's reads and writes over program order::

    python examples/advise_adam.py     # writes docs/jit_adam_picture.png and .html
"""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path
from typing import Any

import jax.numpy as jnp

import jax_use_donated as jud

ROOT = Path(__file__).resolve().parent.parent


def _adam_step() -> Any:
    """``adam_step`` of the example next to this one, ``examples/jit_adam.py``."""
    spec = importlib.util.spec_from_file_location("jit_adam", Path(__file__).with_name(
        "jit_adam.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.adam_step


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--png", type=Path, default=ROOT / "docs" / "jit_adam_picture.png")
    parser.add_argument("--html", type=Path, default=ROOT / "docs" / "jit_adam_picture.html")
    ns = parser.parse_args(argv)
    shapes = {"w1": (512, 512), "b1": (512,), "w2": (512, 512)}

    def state(value: float) -> dict[str, jnp.ndarray]:
        return {k: jnp.full(s, value) for k, s in shapes.items()}

    step = jud.jit(_adam_step(), donate_argnums=(0,), warn=False)   # only the params
    args = (state(1.0), state(0.0), state(0.0), state(0.5))
    advice = step.advise(*args)
    print(advice)
    plan = step.plan(*args)
    fig = plan.plot(advice=advice)
    fig.savefig(ns.png, dpi=90)
    page = plan.to_html(advice=advice).replace(str(ROOT) + "/", "")  # paths from the repo
    ns.html.write_text(page)
    print(f"wrote {ns.png} and {ns.html}")


if __name__ == "__main__":
    main()
