"""Upstream MLIR (torch-mlir wheel): legalize, bufferize, count, lower and JIT-run.

The bufferized function keeps a result that is equivalent to an argument as ``return %argN``:
that is how in-place hosting is read off (:attr:`Bufferized.returned_args`). For execution,
``drop-equivalent-buffer-results`` removes those results and ``buffer-results-to-out-params``
turns the others into caller-provided buffers, so every array is passed by pointer.
"""

from __future__ import annotations

import ctypes
import importlib
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

# The wheel's bindings are compiled modules without type stubs: treat them as dynamic.
ir: Any = importlib.import_module("torch_mlir.ir")
passmanager: Any = importlib.import_module("torch_mlir.passmanager")
execution_engine: Any = importlib.import_module("torch_mlir.execution_engine")
_stablehlo: Any = importlib.import_module("torch_mlir._mlir_libs._stablehlo")
get_ranked_memref_descriptor: Any = importlib.import_module(
    "torch_mlir.runtime").get_ranked_memref_descriptor

MlirContext = Any
MlirModule = Any
MlirOperation = Any

LEGALIZE = "builtin.module(func.func(stablehlo-legalize-to-linalg))"
BUFFERIZE = ("builtin.module(eliminate-empty-tensors,one-shot-bufferize{"
             "bufferize-function-boundaries allow-return-allocs-from-loops "
             "function-boundary-type-conversion=identity-layout-map})")
ANALYSE = ("builtin.module(eliminate-empty-tensors,one-shot-bufferize{"
           "bufferize-function-boundaries allow-return-allocs-from-loops test-analysis-only})")
OUT_PARAMS = "builtin.module(drop-equivalent-buffer-results,buffer-results-to-out-params)"
TO_LLVM = ("builtin.module(func.func(convert-linalg-to-loops),expand-strided-metadata,lower-affine,"
           "convert-scf-to-cf,finalize-memref-to-llvm,convert-arith-to-llvm,convert-math-to-llvm,"
           "convert-func-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts)")


class OracleError(Exception):
    """An upstream pipeline step failed (message carries MLIR's diagnostics)."""


def context(unregistered: bool = False) -> MlirContext:
    """The shared context with StableHLO registered; ``unregistered`` allows unknown ops
    (xDSL's ``"test.op"``), a context of its own."""
    return _context(bool(unregistered))


@cache
def _context(unregistered: bool) -> MlirContext:
    ctx = ir.Context()
    _stablehlo.register_dialect(ctx)
    _stablehlo.register_stablehlo_passes()
    ctx.allow_unregistered_dialects = unregistered
    return ctx


def _run(module: MlirModule, pipeline: str) -> None:
    try:
        passmanager.PassManager.parse(pipeline, module.context).run(module.operation)
    except Exception as err:  # MLIRError carries the diagnostics
        raise OracleError(f"{pipeline}: {err}") from None


def run_pipeline(module: MlirModule, pipeline: str) -> None:
    """Run a textual pass pipeline on ``module`` in place; :class:`OracleError` on failure."""
    _run(module, pipeline)


def parse(text: str, unregistered: bool = False) -> MlirModule:
    try:
        return ir.Module.parse(text, context(unregistered))
    except Exception as err:
        raise OracleError(f"upstream MLIR cannot parse the module: {err}") from None


def legalize_to_linalg(stablehlo_text: str) -> str:
    """StableHLO text -> linalg on tensors, printed in generic form (what xDSL reads best)."""
    module = parse(stablehlo_text)
    _run(module, LEGALIZE)
    leftover = sorted({op.name for op in _walk(module) if op.name.startswith("stablehlo.")})
    if leftover:
        raise OracleError(f"stablehlo-legalize-to-linalg left {', '.join(leftover)}")
    return module.operation.get_asm(print_generic_op_form=True)


def _walk(module: MlirModule) -> list[MlirOperation]:
    ops: list[MlirOperation] = []

    def visit(op: MlirOperation) -> Any:
        ops.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return ops


@dataclass
class Bufferized:
    text: str
    allocs: int
    copies: int
    out_of_place: int
    """Operands one-shot's analysis bufferizes out of place (a read-after-write conflict: the
    op gets a fresh buffer, plus a copy when it reads the old contents)."""
    returned_args: dict[int, int]
    """result index -> argument index, for results bufferized as the argument's buffer."""
    num_args: int
    num_results: int


def bufferize(linalg_text: str, function: str = "main", unknown_ops: bool = False
              ) -> Bufferized:
    """``eliminate-empty-tensors`` + ``one-shot-bufferize`` with function boundaries; counts
    ``memref.alloc`` and ``memref.copy`` (and ``linalg.copy``) in the result. ``unknown_ops``
    parses unregistered ops and lets bufferization leave ops it does not know
    (``allow-unknown-ops``): such a module bufferizes but cannot run."""
    extra = " allow-unknown-ops" if unknown_ops else ""
    analyse = ANALYSE.replace("test-analysis-only", f"test-analysis-only{extra}")
    full = BUFFERIZE.replace("allow-return-allocs-from-loops",
                             f"allow-return-allocs-from-loops{extra}")
    analysed = parse(linalg_text, unknown_ops)
    out_of_place = 0
    _run(analysed, analyse)
    for op in _walk(analysed):
        if "__inplace_operands_attr__" in op.attributes:
            marks = ir.ArrayAttr(op.attributes["__inplace_operands_attr__"])
            out_of_place += sum(ir.StringAttr(m).value == "false" for m in marks)
    module = parse(linalg_text, unknown_ops)
    _run(module, full)
    ops = _walk(module)
    allocs = sum(op.name in ("memref.alloc", "memref.alloca") for op in ops)
    copies = sum(op.name in ("memref.copy", "linalg.copy") for op in ops)
    returned: dict[int, int] = {}
    num_args = num_results = 0
    for op in ops:
        if op.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == function:
            block = op.regions[0].blocks[0]
            num_args = len(block.arguments)
            ret = block.operations[len(block.operations) - 1]
            num_results = len(ret.operands)
            for k, v in enumerate(ret.operands):
                if isinstance(v.owner, ir.Block) and v.owner == block:
                    returned[k] = ir.BlockArgument(v).arg_number
    return Bufferized(str(module), allocs, copies, out_of_place, returned, num_args, num_results)


@dataclass
class Compiled:
    engine: Any
    returned_args: dict[int, int]
    num_results: int
    function: str


def compile_bufferized(b: Bufferized, function: str = "main") -> Compiled:
    module = parse(b.text)
    entry = _function(module, function)
    # drop-equivalent-buffer-results only rewrites private functions.
    entry.attributes["sym_visibility"] = ir.StringAttr.get("private", context())
    _run(module, OUT_PARAMS)
    del entry.attributes["sym_visibility"]
    entry.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get(context())
    _run(module, TO_LLVM)
    engine = execution_engine.ExecutionEngine(module, opt_level=0)
    engine.raw_register_runtime("memrefCopy", ctypes.cast(_MEMREF_COPY, ctypes.c_void_p))
    return Compiled(engine, b.returned_args, b.num_results, function)


class _UnrankedMemRef(ctypes.Structure):
    _fields_ = [("rank", ctypes.c_int64), ("descriptor", ctypes.c_void_p)]


def _strided_view(elem_size: int, memref: Any) -> np.ndarray:
    """A numpy view of a ranked memref descriptor ``{allocated, aligned, offset, sizes[rank],
    strides[rank]}`` (elements as opaque ``elem_size``-byte records)."""
    rank = memref.contents.rank
    words = (ctypes.c_int64 * (3 + 2 * rank)).from_address(memref.contents.descriptor)
    aligned, offset = words[1], words[2]
    sizes, strides = list(words[3:3 + rank]), list(words[3 + rank:3 + 2 * rank])
    extent = 0 if 0 in sizes else 1 + sum((n - 1) * abs(s) for n, s in zip(sizes, strides,
                                                                            strict=True))
    raw = (ctypes.c_char * (extent * elem_size)).from_address(aligned + offset * elem_size)
    flat = np.frombuffer(memoryview(raw), dtype=np.dtype(f"V{elem_size}"))
    return np.lib.stride_tricks.as_strided(flat, shape=sizes,
                                           strides=[s * elem_size for s in strides])


@ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.POINTER(_UnrankedMemRef),
                  ctypes.POINTER(_UnrankedMemRef))
def _MEMREF_COPY(elem_size: int, src: Any, dst: Any) -> None:
    """``memrefCopy`` of MLIR's C runner utils (which the wheel does not ship): what
    ``finalize-memref-to-llvm`` calls for a copy between non-contiguous memrefs."""
    source = _strided_view(elem_size, src).copy()
    _strided_view(elem_size, dst)[...] = source


def _function(module: MlirModule, name: str) -> MlirOperation:
    for view in module.body.operations:
        op = view.operation
        if op.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == name:
            return op
    raise OracleError(f"no function @{name} in the module")


def execute(c: Compiled, inputs: list[np.ndarray], result_templates: list[np.ndarray]
            ) -> list[np.ndarray]:
    """Run on ``inputs`` (C-contiguous arrays, passed by pointer and possibly overwritten).

    Returns one array per result: the input array itself for a result hosted by an argument,
    else a fresh array the function wrote through an out-parameter.
    """
    outs: list[np.ndarray] = []
    out_of: dict[int, np.ndarray] = {}
    for k, template in enumerate(result_templates):
        if k in c.returned_args:
            continue
        out_of[k] = np.zeros_like(template)
        outs.append(out_of[k])
    keep = [get_ranked_memref_descriptor(a) for a in [*inputs, *outs]]
    pointers = [ctypes.pointer(ctypes.pointer(d)) for d in keep]
    c.engine.invoke(c.function, *pointers)
    return [inputs[c.returned_args[k]] if k in c.returned_args else out_of[k]
            for k in range(len(result_templates))]
