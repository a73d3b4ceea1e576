"""IREE as a second executor: it turns ``tf.aliasing_output = k`` into a forced in-place result
(and drops ``jax.buffer_donor``), so an unsafe pairing computes wrong numbers.

:func:`compare` runs one JAX program four ways: plain JAX (the reference), IREE on JAX's own
StableHLO (greedy ``tf.aliasing_output``), IREE on the module after our
``jax-plan-donation`` pass (alias mode, XLA's data-dependence rule), and IREE after the
pass with ``fusion-safe=true`` (pairs that survive IREE's fusion, :mod:`..analysis.fusion`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from jax_use_donated.analysis.errors import ALIASING_OUTPUT
from jax_use_donated.oracle.harness import apply_pass
from jax_use_donated.oracle.reference import jax_reference, mismatched_results
from jax_use_donated.xdsl_plugin.plan_donation import JaxPlanDonation


def run_iree(stablehlo_text: str, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Compile for the CPU and run on copies of ``inputs``."""
    import iree.compiler as compiler  # pyright: ignore[reportMissingImports]
    import iree.runtime as runtime  # pyright: ignore[reportMissingImports]

    vmfb = compiler.compile_str(stablehlo_text, target_backends=["llvm-cpu"],
                                input_type="stablehlo",
                                extra_args=["--iree-llvmcpu-target-cpu=generic"])
    ctx = runtime.SystemContext(config=runtime.Config("local-task"))
    ctx.add_vm_module(runtime.VmModule.copy_buffer(ctx.instance, vmfb))
    module = list(ctx.modules.values())[-1]
    out = module["main"](*[np.array(a) for a in inputs])
    outs = out if isinstance(out, list | tuple) else [out]
    return [np.asarray(o.to_host()) for o in outs]


def ours(stablehlo_generic_text: str, fusion_safe: bool = False) -> str:
    """Our pass in alias mode over JAX's module (generic form in, generic form out); with
    ``fusion_safe`` the pass's ``fusion-safe=true`` option for backends like IREE."""
    rewritten, _ = apply_pass(stablehlo_generic_text,
                              JaxPlanDonation(mode="alias", fusion_safe=fusion_safe))
    return rewritten


@dataclass
class IreeComparison:
    name: str
    greedy_correct: bool
    ours_correct: bool
    """Alias mode of ``jax-plan-donation`` (pairs safe under XLA's rules)."""
    fusion_safe_correct: bool
    """Alias mode with ``fusion-safe=true``."""
    greedy_pairs: int = 0
    alias_pairs: int = 0
    fusion_safe_pairs: int = 0
    """How many donors each version aliases to a result."""


def compare(name: str, fun: Callable[..., object], inputs: Sequence[object],
            donate: Sequence[int]) -> IreeComparison:
    reference = jax_reference(fun, inputs, donate, keep_unused=False)
    greedy = reference.stablehlo_text
    generic = reference.lowered.compiler_ir("stablehlo").operation.get_asm(  # pyright: ignore
        print_generic_op_form=True)

    def correct(text: str) -> bool:
        return not mismatched_results(run_iree(text, reference.leaves), reference.expected)

    rewritten = ours(generic)
    restricted = ours(generic, fusion_safe=True)
    return IreeComparison(name, correct(greedy), correct(rewritten), correct(restricted),
                          greedy.count(ALIASING_OUTPUT), rewritten.count(ALIASING_OUTPUT),
                          restricted.count(ALIASING_OUTPUT))
