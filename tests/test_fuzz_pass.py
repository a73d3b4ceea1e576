"""Differential fuzzing of ``jax-donate-opt -p jax-plan-donation`` with XLA as oracle.

Random StableHLO modules (:mod:`tests.fuzz.stablehlo_modules`: random JAX programs lowered by
JAX, with redrawn donation attributes, printed pretty or generic, with or without debug
locations) go through the driver in-process (``jax_use_donated.opt.driver.main``) in every
configuration of :data:`tests.fuzz.pass_oracle.CONFIGS` (``mode=alias|materialize``,
``keep-unpaired-donors``, ``keep-existing-aliases``, ``strict``, ``remove-matched-outputs``).
The output must parse and verify in jaxlib's MLIR context, compile with XLA
(``backend.compile_and_load(text, ...)``, see :mod:`tests.fuzz.xla_exec`) and compute bitwise
the same outputs as the input module on the same inputs; see
:func:`tests.fuzz.pass_oracle.check_config` for the full list.

Profiles: CI runs 16 modules, each in ``alias``, ``materialize`` and one more drawn
configuration; ``JUD_FUZZ_PROFILE=long`` runs 1,000 modules in all seven configurations
(``JUD_FUZZ_PASS_EXAMPLES=N`` overrides the count).

Materialize mode is also fuzzed through upstream bufferization
(:mod:`tests.fuzz.materialize_oracle`, needs the ``[oracle]`` extra): every module in the five
materialize configurations must bufferize with one-shot bufferization and, where it legalizes
to linalg, compute the input's numbers with each donor holding its result. CI: 12 modules;
long profile: 300 (``JUD_FUZZ_MATERIALIZE_EXAMPLES=N`` overrides).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jax_use_donated.oracle import upstream_available
from tests.fuzz.jax_programs import ProgramSpec, Step, TypeSpec
from tests.fuzz.materialize_oracle import MATERIALIZE_CONFIGS, check_materialize_config
from tests.fuzz.pass_oracle import CONFIGS, Config, check_config, run_driver
from tests.fuzz.stablehlo_modules import ModuleCase, stablehlo_modules
from tests.fuzz.xla_exec import parse_in_jaxlib, run_text

LONG = os.environ.get("JUD_FUZZ_PROFILE", "ci") == "long"
EXAMPLES = int(os.environ.get("JUD_FUZZ_PASS_EXAMPLES", 1_000 if LONG else 16))
OUTCOMES: Counter[tuple[str, str]] = Counter()
MATERIALIZE_EXAMPLES = int(os.environ.get("JUD_FUZZ_MATERIALIZE_EXAMPLES", 300 if LONG else 12))
MATERIALIZE_OUTCOMES: Counter[tuple[str, str]] = Counter()
needs_upstream = pytest.mark.skipif(
    not upstream_available(),
    reason="upstream MLIR bindings missing: pip install --no-deps torch-mlir==20261001",
)


@settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=not LONG,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.large_base_example])
@given(stablehlo_modules(), st.data())
def test_pass_output_computes_what_the_input_computes(case: ModuleCase, data: st.DataObject
                                                      ) -> None:
    reference = run_text(case.text, case.inputs())
    if LONG:
        configs = list(CONFIGS)
    else:
        configs = [CONFIGS[0], CONFIGS[4], data.draw(st.sampled_from(CONFIGS), label="config")]
    for config in configs:
        generic = data.draw(st.booleans(), label="generic output")
        outcome = check_config(case, config, reference.outputs, reference.copies, generic)
        OUTCOMES[config.options or "(defaults)", outcome] += 1


def test_pass_campaign_summary() -> None:
    print(f"\npass fuzz: {dict(sorted(OUTCOMES.items()))}")


@needs_upstream
@settings(max_examples=MATERIALIZE_EXAMPLES, deadline=None, database=None,
          derandomize=not LONG,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.large_base_example])
@given(stablehlo_modules())
def test_materialize_output_bufferizes_and_computes_what_the_input_computes(
        case: ModuleCase) -> None:
    reference = run_text(case.text, case.inputs())
    for config in MATERIALIZE_CONFIGS:
        outcome = check_materialize_config(case, config, reference.outputs)
        MATERIALIZE_OUTCOMES[config.options, outcome.outcome] += 1


@needs_upstream
def test_materialize_campaign_summary() -> None:
    print(f"\nmaterialize fuzz: {dict(sorted(MATERIALIZE_OUTCOMES.items()))}")
    if MATERIALIZE_OUTCOMES:  # the fuzz test ran in this session: some modules must run
        assert sum(n for (_, o), n in MATERIALIZE_OUTCOMES.items() if o == "executed") > 0


# ----------------------------------------------------------------------------- fixed cases
F4 = TypeSpec((4,), "float32")


def _case(steps: list[Step], outputs: list[int], donations: tuple[str, ...],
          form: str = "pretty") -> ModuleCase:
    """A module whose every input is donated with JAX's own pairing (``donate_argnums`` all)."""
    import jax

    spec = ProgramSpec((F4, F4), (("leaf", (0,)), ("leaf", (1,))), tuple(steps),
                       ("tuple", tuple(("leaf", v) for v in outputs)), (0, 1), seed=3)
    lowered = jax.jit(spec.build(), donate_argnums=(0, 1), keep_unused=True).lower(
        *[jax.ShapeDtypeStruct((4,), np.float32)] * 2)
    text = lowered.as_text(debug_info=True)
    if form == "generic":
        module, ctx = parse_in_jaxlib(text)
        with ctx:
            text = str(module.operation.get_asm(print_generic_op_form=True,
                                                enable_debug_info=True))
    return ModuleCase(text, spec, form, True, donations)


SWAP = [Step("binary", (1, 1), "mul", (F4,)), Step("binary", (0, 0), "add", (F4,))]


@pytest.mark.parametrize("form", ["pretty", "generic"])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.options or "defaults")
def test_swap_in_every_configuration(config: Config, form: str) -> None:
    case = _case(SWAP, [2, 3], ("alias:0", "alias:1"), form)
    reference = run_text(case.text, case.inputs())
    outcome = check_config(case, config, reference.outputs, reference.copies, False)
    # JAX's pair a -> 0 writes b * b into a while a + a may still read a (no data dependence
    # orders them): keep-existing-aliases must refuse it; every other configuration succeeds.
    expected = "refused" if "keep-existing" in config.options else "ok"
    assert outcome == expected


def test_swap_alias_output_is_the_liveness_pairing() -> None:
    case = _case(SWAP, [2, 3], ("alias:0", "alias:1"))
    run = run_driver(["-p", "jax-plan-donation"], case.text)
    assert run.code == 0, run.stderr
    out = run_text(run.stdout, case.inputs())
    assert out.alias == {0: 1, 1: 0}
    assert out.copies == 0


JAX_DONATE_OPT = shutil.which("jax-donate-opt") or str(
    Path(sys.executable).with_name("jax-donate-opt"))


@pytest.mark.parametrize("options", ["", "{mode=materialize}"])
def test_console_script_matches_in_process_driver(tmp_path: Path, options: str) -> None:
    """A real ``jax-donate-opt`` process prints exactly what the in-process driver prints."""
    case = _case([*SWAP, Step("fori", (2, 3), (2, (("keep", 1, 1), ("add", 0, 1))), (F4, F4))],
                 [4, 5, 0], ("alias:0", "alias:1"))
    src = tmp_path / "in.mlir"
    src.write_text(case.text)
    pipeline = f"jax-plan-donation{options}"
    proc = subprocess.run([JAX_DONATE_OPT, str(src), "-p", pipeline, "--print-op-generic"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    in_process = run_driver(["-p", pipeline, "--print-op-generic"], case.text)
    assert proc.stdout == in_process.stdout
    reference = run_text(case.text, case.inputs())
    config = Config(options.strip("{}"))
    assert check_config(case, config, reference.outputs, reference.copies, True) == "ok"


@needs_upstream
@pytest.mark.parametrize("config", MATERIALIZE_CONFIGS, ids=lambda c: c.options)
def test_swap_materialized_bufferizes_and_runs(config: Config) -> None:
    case = _case(SWAP, [2, 3], ("alias:0", "alias:1"))
    reference = run_text(case.text, case.inputs())
    result = check_materialize_config(case, config, reference.outputs)
    if "keep-existing" in config.options:  # JAX's a -> 0 is unsafe in block order too
        assert result.outcome == "refused"
        return
    assert result.outcome == "executed"
    assert result.check is not None
    if "remove-matched-outputs" not in config.options:
        assert result.check.destinations == {0: 1, 1: 0}  # b hosts b*b, a hosts a+a
