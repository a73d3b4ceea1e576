"""The StableHLO dialect for xDSL, faithful to jaxlib's MLIR text.

All 118 ops of jaxlib's StableHLO dialect (117 before jaxlib 0.11.1, which adds
``collective_reduce``), with MLIR's custom assembly formats where ``StablehloOps.td``
declares one and the generic ``"stablehlo.op"(...) <{...}>`` form otherwise. Modules:

- :mod:`.types`: ``!stablehlo.token``, ``!stablehlo.future``, ``#stablehlo.bounds`` and
  ``#stablehlo.type_extensions`` tensor encodings (tuples are xDSL's builtin ``tuple``);
- :mod:`.attributes`: enums (comparison direction/type, precision, FFT type, RNG
  algorithm/distribution, transpose) and structs (dot/gather/scatter/conv dimension numbers,
  ``dot_algorithm``, channel handle, result accuracy, ``output_operand_alias``);
- :mod:`.mesh`: mesh-axes replica groups (``#stablehlo.replica_group_mesh_axes``, JAX 0.11+);
- :mod:`.traits`: ``Elementwise`` and the shape/element-type agreement traits;
- :mod:`.float_format`, :mod:`.constant`: bit-exact float text and ``stablehlo.constant``;
- :mod:`.ops_elementwise`, :mod:`.ops_shape`, :mod:`.ops_compute`, :mod:`.ops_regions`,
  :mod:`.ops_collectives`: the ops by family;
- :mod:`.base`: MLIR-style attribute dictionaries, type directives and the declarative
  ``operands, key = value attr-dict : types`` format most ops share.

>>> from xdsl.context import Context
>>> ctx = Context(); ctx.load_dialect(StableHLO)
"""

from __future__ import annotations

from xdsl.ir import Dialect

from jax_use_donated.dialects.stablehlo.attributes import STABLEHLO_ATTRIBUTES
from jax_use_donated.dialects.stablehlo.constant import ConstantOp
from jax_use_donated.dialects.stablehlo.mesh import MESH_ATTRIBUTES
from jax_use_donated.dialects.stablehlo.ops_collectives import COLLECTIVE_OPS
from jax_use_donated.dialects.stablehlo.ops_compute import COMPUTE_OPS
from jax_use_donated.dialects.stablehlo.ops_elementwise import ELEMENTWISE_OPS
from jax_use_donated.dialects.stablehlo.ops_regions import REGION_OPS
from jax_use_donated.dialects.stablehlo.ops_shape import SHAPE_OPS
from jax_use_donated.dialects.stablehlo.traits import Elementwise
from jax_use_donated.dialects.stablehlo.types import STABLEHLO_TYPES

STABLEHLO_OPS = [ConstantOp, *ELEMENTWISE_OPS, *SHAPE_OPS, *COMPUTE_OPS, *REGION_OPS, *COLLECTIVE_OPS]

StableHLO = Dialect("stablehlo", STABLEHLO_OPS, [*STABLEHLO_TYPES, *STABLEHLO_ATTRIBUTES, *MESH_ATTRIBUTES])

__all__ = ["STABLEHLO_OPS", "Elementwise", "StableHLO"]
