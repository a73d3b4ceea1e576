"""Every corpus program (real JAX text, see ``tests/corpus/programs.py``) survives
xDSL parse (unregistered ops refused) -> verify -> print, judged equal by jaxlib.

Four variants per program: pretty text without and with ``debug_info=True`` (printed back
with locations), and jaxlib's generic form (plain and with locations) printed back generic.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.corpus.generate import CorpusText, load_corpus
from tests.corpus.roundtrip import jaxlib_print, roundtrip, source_locations
from tests.jax_versions import JAX, LOWERS_LGAMMA_TO_CHLO, LOWERS_SPECIAL_FUNCTIONS_ON_CPU_TO_FFI

CORPUS, MANIFEST = load_corpus()


def test_corpus_is_complete() -> None:
    """Every program still lowers, and the corpus is as large as promised."""
    assert MANIFEST["errors"] == {}, f"programs that failed to lower: {MANIFEST['errors']}"
    assert len(MANIFEST["programs"]) >= 60  # type: ignore[arg-type]
    assert len(CORPUS) == 2 * len(MANIFEST["programs"])  # type: ignore[arg-type]


def _version_needles() -> dict[str, bool]:
    """Text the corpus holds on some JAX versions only: needle -> expected on this one."""
    return {
        "chlo.lgamma": LOWERS_LGAMMA_TO_CHLO,
        "@lgamma_impl": not LOWERS_LGAMMA_TO_CHLO and not LOWERS_SPECIAL_FUNCTIONS_ON_CPU_TO_FFI,
        "@cpu_lgamma_ffi": LOWERS_SPECIAL_FUNCTIONS_ON_CPU_TO_FFI,
        "@cpu_digamma_ffi": LOWERS_SPECIAL_FUNCTIONS_ON_CPU_TO_FFI,
        "chlo.digamma": not LOWERS_SPECIAL_FUNCTIONS_ON_CPU_TO_FFI,
        "chlo.erf_inv": not LOWERS_SPECIAL_FUNCTIONS_ON_CPU_TO_FFI,
        "chlo.bessel_i1e": not LOWERS_SPECIAL_FUNCTIONS_ON_CPU_TO_FFI,
        "stablehlo.fma": LOWERS_SPECIAL_FUNCTIONS_ON_CPU_TO_FFI,
        # shard_map collectives name their devices by mesh axes from JAX 0.11 on
        "#stablehlo.replica_group_mesh_axes<mesh = @mesh": JAX >= (0, 11),
        '#stablehlo.axis_ref<name = "x">': JAX >= (0, 11),
    }


def test_corpus_follows_the_jax_version() -> None:
    """What JAX prints differently per version is present exactly where expected."""
    joined = "\n".join(e.text for e in CORPUS)
    assert {n: n in joined for n in _version_needles()} == _version_needles()


def test_corpus_covers_the_dialects() -> None:
    """The corpus exercises CHLO, Shardy (meshes, manual computations) and debug locations
    (the CHLO ops only some JAX versions print are in :func:`_version_needles`)."""
    joined = "\n".join(e.text for e in CORPUS)
    for needle in (
        "chlo.top_k", "chlo.polygamma", "chlo.zeta", "chlo.next_after", "chlo.sinh", "chlo.square",
        "sdy.mesh", "sdy.sharding_constraint", "sdy.manual_computation", "sdy.return",
        "#sdy.sharding<", "#sdy.sharding_per_value<", "#sdy.op_sharding_rule<", "manual_axes={",
        "stablehlo.while", "stablehlo.case", "stablehlo.reduce_window", "stablehlo.select_and_scatter",
        "stablehlo.scatter", "stablehlo.gather", "stablehlo.fft", "stablehlo.rng_bit_generator",
        "stablehlo.composite", "stablehlo.convolution", "stablehlo.sort", "!stablehlo.token",
        "stablehlo.all_reduce", "stablehlo.all_to_all", "stablehlo.collective_permute",
        "stablehlo.partition_id", "lapack_", "0xFF800000", " to :",
    ):  # fmt: skip
        assert needle in joined, f"no corpus program contains {needle!r}"


def _label(entry: CorpusText) -> str:
    return entry.label


@pytest.mark.parametrize("entry", CORPUS, ids=_label)
def test_pretty_roundtrip(entry: CorpusText) -> None:
    result = roundtrip(entry.text, debug_info=entry.debug)
    assert result.ok, f"{entry.label}: round trip failed at {result.stage}:\n{result.message}"
    if entry.debug:
        lost = source_locations(entry.text) - source_locations(result.printed)
        assert not lost, f"{entry.label}: source locations lost in our print: {sorted(lost)[:5]}"
        assert ' loc("' in result.printed, f"{entry.label}: our print carries no locations"


@pytest.mark.parametrize("entry", CORPUS, ids=_label)
def test_generic_roundtrip(entry: CorpusText) -> None:
    generic = jaxlib_print(entry.text, generic=True, debug_info=entry.debug)
    result = roundtrip(generic, generic=True, debug_info=entry.debug)
    assert result.ok, (
        f"{entry.label} (generic form): round trip failed at {result.stage}:\n{result.message}"
    )


_SHARD_MAP = [e for e in CORPUS if e.name.startswith("shard_map") and not e.debug]
_COLLECTIVE = re.compile(r'"stablehlo\.(?:all_\w+|reduce_scatter|collective_\w+)"\(.*')


def _collectives(text: str) -> list[str]:
    """jaxlib's print of every collective op line, operand names normalised."""
    return [re.sub(r"%[\w#]+", "%v", m) for m in _COLLECTIVE.findall(jaxlib_print(text))]


def test_the_donation_pass_runs_on_every_shard_map_program(tmp_path: Path) -> None:
    """``jax-donate-opt -p <donation pass>`` accepts what this JAX prints for shard_map
    collectives (mesh-axes replica groups from JAX 0.11) and keeps them as jaxlib reads them."""
    from jax_use_donated.opt.driver import main
    from jax_use_donated.xdsl_plugin.plan_donation import JaxPlanDonation

    assert len(_SHARD_MAP) >= 4
    for entry in _SHARD_MAP:
        src, out = tmp_path / f"{entry.name}.mlir", tmp_path / f"{entry.name}.out.mlir"
        src.write_text(entry.text)
        assert main([str(src), "-o", str(out), "-p", JaxPlanDonation.name]) == 0, entry.name
        expected = _collectives(entry.text)
        assert expected, entry.name
        assert _collectives(out.read_text()) == expected, entry.name
