"""Parse, verify, compile and run StableHLO module text with jaxlib and XLA (jax 0.10.2).

How (measured on jax/jaxlib 0.10.2, CPU):

* parse and verify: ``ir.Module.parse(text, context=mlir.make_ir_context())`` then
  ``module.operation.verify()``: JAX's own context (StableHLO, CHLO, Shardy, func, ...);
* compile: ``jax.extend.backend.get_backend().compile_and_load(text, DeviceList(devices),
  compiler.get_compile_options(num_replicas=1, num_partitions=n))`` accepts the StableHLO text
  directly (no HLO proto detour) and honours ``tf.aliasing_output`` / ``jax.buffer_donor``;
* run: ``executable.execute_sharded([device arrays])`` then
  ``.disassemble_into_single_device_arrays()``; PjRt invalidates exactly the aliased
  parameters, like ``jax.jit`` does.

``bufferization.materialize_in_destination`` is not a dialect jaxlib registers: modules
containing it are parsed with unregistered dialects allowed (generic form only) and, to run
them, :func:`strip_materialize` replaces each ``materialize_in_destination(%v, %dest)`` by
``%v`` (its value; where it lands is the bufferizer's business).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import jax
import jax.extend
import numpy as np
from jax._src import compiler
from jax._src.interpreters import mlir
from jax._src.lib import xla_client as xc  # pyright: ignore[reportPrivateImportUsage]
from jaxlib.mlir import ir

from jax_use_donated.dropin.hlo_alias import aliases_from_hlo_text


def dict_attrs(op: Any, name: str) -> list[Any]:
    """The ``DictAttr`` elements of an op's array attribute (``arg_attrs``, ``res_attrs``)."""
    if name not in op.attributes:
        return []
    array = ir.ArrayAttr(op.attributes[name])
    return [ir.DictAttr(array[i]) for i in range(len(array))]


MATERIALIZE = "bufferization.materialize_in_destination"


class JaxlibRejected(AssertionError):
    """jaxlib's MLIR did not parse or verify the text."""


def parse_in_jaxlib(text: str, allow_unregistered: bool = False) -> tuple[ir.Module, Any]:
    """Parse and verify ``text`` in JAX's MLIR context; returns ``(module, context)``."""
    ctx = mlir.make_ir_context()
    ctx.allow_unregistered_dialects = allow_unregistered
    try:
        module = ir.Module.parse(text, context=ctx)
    except Exception as err:  # jaxlib's MLIRError
        raise JaxlibRejected(f"jaxlib cannot parse the module: {err}\n{text}") from None
    with ctx:
        if not module.operation.verify():
            raise JaxlibRejected(f"jaxlib does not verify the module:\n{text}")
    return module, ctx


def strip_materialize(text: str) -> str:
    """The module with every ``materialize_in_destination`` replaced by its source value and
    ``bufferization.*`` argument attributes dropped (see the module docstring)."""
    module, ctx = parse_in_jaxlib(text, allow_unregistered=True)
    with ctx:
        doomed: list[Any] = []

        def visit(op: Any) -> Any:
            if op.operation.name == MATERIALIZE:
                doomed.append(op)
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit)
        for op in doomed:
            op.results[0].replace_all_uses_with(op.operands[0])
            op.erase()
        for op in module.body.operations:
            if op.operation.name != "func.func" or "arg_attrs" not in op.attributes:
                continue
            dicts = []
            for d in dict_attrs(op, "arg_attrs"):
                kept = {a.name: a.attr for a in d if not a.name.startswith("bufferization.")}
                dicts.append(ir.DictAttr.get(kept))
            op.attributes["arg_attrs"] = ir.ArrayAttr.get(dicts)
        return str(module.operation.get_asm(enable_debug_info=False))


@dataclass
class Run:
    """One XLA run of a module."""

    outputs: list[np.ndarray]
    deleted: list[bool]
    """Per input: whether PjRt invalidated (donated) its device buffer."""
    alias: dict[int, int]
    """The compiled ``input_output_alias``: parameter number -> output index."""
    copies: int
    """Occurrences of `` copy(`` in the optimized HLO."""
    temp_bytes: int


def compile_text(text: str, n_devices: int = 1) -> Any:
    """Compile StableHLO ``text`` with XLA for the first ``n_devices`` local devices."""
    backend = jax.extend.backend.get_backend()
    devices = xc.DeviceList(tuple(backend.local_devices()[:n_devices]))
    options = compiler.get_compile_options(num_replicas=1, num_partitions=n_devices)
    return backend.compile_and_load(text, devices, options)


def run_text(text: str, inputs: Sequence[np.ndarray],
             read_aliases: Callable[[str], dict[int, int]] = aliases_from_hlo_text) -> Run:
    """Compile ``text`` with XLA and run it once on fresh device copies of ``inputs``;
    ``read_aliases`` reads the compiled ``input_output_alias`` from the optimized HLO text."""
    executable = compile_text(text)
    device = jax.extend.backend.get_backend().local_devices()[0]
    args = [jax.device_put(x, device) for x in inputs]
    results = executable.execute_sharded(args).disassemble_into_single_device_arrays()
    outputs = [np.asarray(r[0]) for r in results]
    hlo = executable.hlo_modules()[0].to_string()
    stats = executable.get_compiled_memory_stats()
    return Run(outputs, [a.is_deleted() for a in args], read_aliases(hlo),
               hlo.count(" copy("), int(stats.temp_size_in_bytes))
