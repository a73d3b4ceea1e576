"""Which order of reads and writes a backend's copy insertion assumes: one model per backend
configuration, chosen from the platform and the compiler options (:func:`ordering_for`).

A donor ``d`` may host result ``k`` without a copy when every other read of ``d`` happens
before ``k``'s writer overwrites it. What "before" means is the backend's (see
``docs/orderings.md`` for the XLA source behind each model):

* ``xla-cpu`` (alias ``dataflow``), verified: XLA:CPU's default ``CopyInsertion`` orders by
  data dependence (``DependencyHloOrdering``): every other read must be a data-dependence
  ancestor of the writer;
* ``xla-cpu-region``, verified: ``xla_cpu_copy_insertion_use_region_analysis=True``; the
  region-based live-range analysis orders a read that is independent of the writer before it
  (adding a control edge), so a pair fails only for a read that depends on the writer, or
  when the orders several pairs need form a cycle (the swap ``(a, b) -> (b * 2, a * 3)``);
* ``xla-gpu`` / ``xla-gpu-region``, unverified: XLA:GPU runs the same ``CopyInsertion``
  (region analysis by ``xla_gpu_copy_insertion_use_region_analysis``), then, after
  scheduling, ``RemoveUnnecessaryCopies`` with the schedule's sequential order, which can
  only remove more copies: the models are XLA:CPU's, a lower bound of what is copy-free;
* ``tpu``, unverified: region analysis with a size limit (modelled without the limit);
* ``program`` (block order is execution order, as after bufferization).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Ordering = Literal["xla-cpu", "xla-cpu-region", "xla-gpu", "xla-gpu-region", "tpu", "program",
                   "dataflow"]
"""The ordering models by name; ``dataflow`` is the old name of ``xla-cpu``."""

OrderingKind = Literal["dataflow", "region", "program"]


@dataclass(frozen=True)
class OrderingModel:
    name: str
    kind: OrderingKind
    """``dataflow``: reads must be data-dependence ancestors of the writer; ``region``: reads
    independent of the writer are ordered before it (no cycle among all pairs' orders);
    ``program``: block order."""
    xla: bool
    """An XLA backend: calls are inlined and fusion duplication is modelled."""
    verified: bool
    """Checked against executables (``benchmarks/real_models.py``)."""
    summary: str


ORDERINGS: dict[str, OrderingModel] = {
    m.name: m for m in (
        OrderingModel("xla-cpu", "dataflow", True, True,
                      "XLA:CPU default copy insertion: data-dependence order"),
        OrderingModel("xla-cpu-region", "region", True, True,
                      "XLA:CPU with xla_cpu_copy_insertion_use_region_analysis: independent "
                      "reads ordered before the write"),
        OrderingModel("xla-gpu", "dataflow", True, False,
                      "XLA:GPU: data-dependence copy insertion, copies removed after "
                      "scheduling (lower bound)"),
        OrderingModel("xla-gpu-region", "region", True, False,
                      "XLA:GPU with xla_gpu_copy_insertion_use_region_analysis"),
        OrderingModel("tpu", "region", True, False,
                      "TPU: region analysis with a size limit (limit not modelled)"),
        OrderingModel("program", "program", False, True,
                      "block order is execution order (after bufferization)"),
    )
}
ALIASES: dict[str, str] = {"dataflow": "xla-cpu"}
ORDERING_NAMES: tuple[str, ...] = (*ORDERINGS, *ALIASES)


def ordering_model(ordering: str) -> OrderingModel:
    """The model named ``ordering`` (or its alias); ``ValueError`` for an unknown name."""
    model = ORDERINGS.get(ALIASES.get(ordering, ordering))
    if model is None:
        raise ValueError(f"unknown ordering {ordering!r}; expected one of "
                         f"{', '.join(ORDERING_NAMES)}")
    return model


def _truthy(value: object) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)


def parse_xla_flags(text: str) -> dict[str, object]:
    """The options an ``XLA_FLAGS`` text sets (``--name=value`` -> ``{name: value}``;
    ``true``/``false`` read as booleans, a bare ``--name`` as ``True``)."""
    out: dict[str, object] = {}
    for item in text.split():
        if not item.startswith("--"):
            continue
        name, sep, value = item[2:].partition("=")
        low = value.lower()
        out[name] = (True if not sep or low == "true" else False if low == "false" else value)
    return out


def _flag(options: Mapping[str, object], xla_flags: str | None, name: str) -> bool:
    if name in options:
        return _truthy(options[name])
    return _truthy(parse_xla_flags(xla_flags or "").get(name, False))


def ordering_for(platform: str, compiler_options: Mapping[str, object] | None = None,
                 xla_flags: str | None = None) -> Ordering:
    """The ordering model of a compile for ``platform`` (``jax.default_backend()`` or a
    device's ``platform``: ``cpu``, ``gpu``/``cuda``/``rocm``, ``tpu``) with these compiler
    options (``jax.jit(..., compiler_options=...)``, which win) and ``XLA_FLAGS`` text.

    ``ordering_for("cpu", {"xla_cpu_copy_insertion_use_region_analysis": True})`` is
    ``"xla-cpu-region"``; an unknown platform gets ``"xla-cpu"`` (data dependence, the
    strictest XLA model)."""
    options = compiler_options or {}
    p = platform.lower()
    if p in ("gpu", "cuda", "rocm"):
        region = _flag(options, xla_flags, "xla_gpu_copy_insertion_use_region_analysis")
        return "xla-gpu-region" if region else "xla-gpu"
    if p == "tpu":
        return "tpu"
    if _flag(options, xla_flags, "xla_cpu_copy_insertion_use_region_analysis"):
        return "xla-cpu-region"
    return "xla-cpu"
