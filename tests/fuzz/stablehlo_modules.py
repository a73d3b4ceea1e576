"""Random StableHLO modules for differential fuzzing of the xDSL pass.

A module is a random :class:`~tests.fuzz.jax_programs.ProgramSpec` lowered by JAX (so it is
StableHLO exactly as JAX prints it: ``while`` / ``case`` regions, ``func.call`` of nested jits,
``scatter`` bodies, ``dot_general``, ``dynamic_update_slice``, ``jax.result_info``), whose
donation attributes are then redrawn in jaxlib's IR: every argument independently gets none,
``jax.buffer_donor = true``, JAX's own pairing, or ``tf.aliasing_output = k`` for a random
result of its type (distinct, so XLA accepts it; often unsafe, which XLA repairs with copies).
It is printed pretty or generic, with or without debug locations (location ranges and trailing
``#loc`` aliases).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import jax
import numpy as np
from hypothesis import strategies as st
from jax._src.interpreters import mlir
from jaxlib.mlir import ir

from tests.fuzz.jax_programs import ProgramSpec, programs
from tests.fuzz.xla_exec import dict_attrs

BUFFER_DONOR = "jax.buffer_donor"
ALIASING_OUTPUT = "tf.aliasing_output"


@dataclass(frozen=True)
class ModuleCase:
    text: str
    spec: ProgramSpec
    form: str
    """``"pretty"`` or ``"generic"``."""
    debug_info: bool
    donations: tuple[str, ...]
    """What each argument got: ``-``, ``donor`` or ``alias:k``."""

    def inputs(self) -> list[np.ndarray]:
        """Host arrays for the module's arguments (all leaves: lowered with keep_unused)."""
        args = self.spec.make_args()
        return [np.asarray(x) for x in jax.tree.leaves(args)]

    def describe(self) -> str:
        return (f"form={self.form} debug_info={self.debug_info} donations={self.donations}\n"
                f"{self.spec.describe()}\n{self.text}")


def _abstract(spec: ProgramSpec) -> tuple[object, ...]:
    return jax.tree.map(lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype), spec.make_args())


@st.composite
def stablehlo_modules(draw: st.DrawFn, forms: tuple[str, ...] = ("pretty", "generic")
                      ) -> ModuleCase:
    spec = draw(programs(max_inputs=4, max_steps=6))
    form = draw(st.sampled_from(forms))
    debug_info = draw(st.booleans())
    ctx = mlir.make_ir_context()
    with ctx, warnings.catch_warnings():
        # JAX's "Some donated buffers were not usable": expected, the attributes are redrawn
        warnings.simplefilter("ignore")
        lowered = jax.jit(spec.build(), donate_argnums=spec.donate_argnums,
                          keep_unused=True).lower(*_abstract(spec))
        module = ir.Module.parse(lowered.as_text(debug_info=True))
        main = next(op for op in module.body.operations
                    if op.operation.name == "func.func" and ir.StringAttr(
                        op.attributes["sym_name"]).value == "main")
        ftype = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
        inputs, results = list(ftype.inputs), list(ftype.results)
        old = dict_attrs(main, "arg_attrs")
        taken: set[int] = set()
        dicts = []
        chosen: list[str] = []
        for i, t in enumerate(inputs):
            attrs = {a.name: a.attr for a in old[i]} if i < len(old) else {}
            choice = draw(st.sampled_from(("keep", "none", "donor", "alias")))
            if choice != "keep":
                attrs.pop(BUFFER_DONOR, None)
                attrs.pop(ALIASING_OUTPUT, None)
            if choice == "donor":
                attrs[BUFFER_DONOR] = ir.BoolAttr.get(True)
            elif choice == "alias":
                free = [k for k, r in enumerate(results) if r == t and k not in taken]
                if free:
                    k = draw(st.sampled_from(free))
                    taken.add(k)
                    attrs[ALIASING_OUTPUT] = ir.IntegerAttr.get(
                        ir.IntegerType.get_signless(32), k)
            elif ALIASING_OUTPUT in attrs:
                k = ir.IntegerAttr(attrs[ALIASING_OUTPUT]).value
                if k in taken:
                    attrs.pop(ALIASING_OUTPUT)
                else:
                    taken.add(k)
            if ALIASING_OUTPUT in attrs:
                chosen.append(f"alias:{ir.IntegerAttr(attrs[ALIASING_OUTPUT]).value}")
            elif BUFFER_DONOR in attrs:
                chosen.append("donor")
            else:
                chosen.append("-")
            dicts.append(ir.DictAttr.get(attrs))
        main.attributes["arg_attrs"] = ir.ArrayAttr.get(dicts)
        text = str(module.operation.get_asm(enable_debug_info=debug_info,
                                            print_generic_op_form=form == "generic"))
    return ModuleCase(text, spec, form, debug_info, tuple(chosen))
