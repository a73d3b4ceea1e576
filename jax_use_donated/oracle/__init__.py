"""Execution oracles that prove the destination rewrite by running real code (extra ``[oracle]``).

* :mod:`.upstream`: upstream MLIR from the ``torch-mlir`` wheel (its Python package is
  ``torch_mlir``; install it alone with ``pip install --no-deps torch-mlir==20261001 numpy
  packaging``): ``stablehlo-legalize-to-linalg``, ``eliminate-empty-tensors``,
  ``one-shot-bufferize``, LLVM lowering and the ExecutionEngine;
* :mod:`.harness`: JAX program -> StableHLO -> linalg -> our xDSL pass -> bufferize -> JIT run on
  numpy arrays passed by pointer, checked against JAX;
* :mod:`.iree_exec`: IREE (``iree-base-compiler``/``iree-base-runtime``) as a second executor of
  StableHLO with ``tf.aliasing_output``;
* :mod:`.xla_exec`: XLA (through jaxlib, no extra needed) as the executor of StableHLO text:
  parse and verify in jaxlib's MLIR, compile, run, read back aliasing and copies;
* :mod:`.reference`: what plain JAX computes for a donated program and how an executor's
  results are compared with it (shared by the oracles above and the fuzz campaign).
"""

from __future__ import annotations

import importlib.util


def upstream_available() -> bool:
    """Whether the torch-mlir wheel (upstream MLIR Python bindings) is importable."""
    return importlib.util.find_spec("torch_mlir") is not None


def iree_available() -> bool:
    """Whether IREE's compiler and runtime Python packages are importable."""
    return (importlib.util.find_spec("iree") is not None
            and importlib.util.find_spec("iree.compiler") is not None
            and importlib.util.find_spec("iree.runtime") is not None)
