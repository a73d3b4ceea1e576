"""Every corpus program (real JAX text, see ``tests/corpus/programs.py``) survives
xDSL parse (unregistered ops refused) -> verify -> print, judged equal by jaxlib.

Four variants per program: pretty text without and with ``debug_info=True`` (printed back
with locations), and jaxlib's generic form (plain and with locations) printed back generic.
"""

from __future__ import annotations

import pytest

from tests.corpus.generate import CorpusText, load_corpus
from tests.corpus.roundtrip import jaxlib_print, roundtrip, source_locations

CORPUS, MANIFEST = load_corpus()


def test_corpus_is_complete() -> None:
    """Every program still lowers, and the corpus is as large as promised."""
    assert MANIFEST["errors"] == {}, f"programs that failed to lower: {MANIFEST['errors']}"
    assert len(MANIFEST["programs"]) >= 60  # type: ignore[arg-type]
    assert len(CORPUS) == 2 * len(MANIFEST["programs"])  # type: ignore[arg-type]


def test_corpus_covers_the_dialects() -> None:
    """The corpus exercises CHLO, Shardy (meshes, manual computations) and debug locations."""
    joined = "\n".join(e.text for e in CORPUS)
    for needle in (
        "chlo.top_k", "chlo.erf_inv", "chlo.lgamma", "chlo.digamma", "chlo.bessel_i1e",
        "chlo.polygamma", "chlo.zeta", "chlo.next_after", "chlo.sinh", "chlo.square",
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
