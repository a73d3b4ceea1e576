"""Lower every corpus program to MLIR text, with and without debug info, into a cache.

``load_corpus()`` returns the cached texts, regenerating them in a subprocess started
with ``XLA_FLAGS=--xla_force_host_platform_device_count=4`` when the cache is missing or
stale (keyed by the JAX version and the source of ``programs.py``).  Each JAX version has its
own cache folder (``.cache/jax-0.12.0.1``), so environments with different JAX versions
sharing one checkout do not regenerate each other's corpus.  Run directly to (re)generate:
``python tests/corpus/generate.py [--out DIR]``.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

CORPUS_DIR = Path(__file__).resolve().parent
CACHE_ROOT = CORPUS_DIR / ".cache"


def default_cache() -> Path:
    """``tests/corpus/.cache/jax-<installed JAX version>``."""
    import jax

    return CACHE_ROOT / f"jax-{jax.__version__}"

DEVICE_FLAG = "--xla_force_host_platform_device_count=4"


@dataclass(frozen=True)
class CorpusText:
    """One lowered program: ``name`` plus ``debug`` (lowered with ``debug_info=True``)."""

    name: str
    debug: bool
    text: str

    @property
    def label(self) -> str:
        return f"{self.name}{'[debug]' if self.debug else ''}"


def _cache_key() -> str:
    import jax

    source = (CORPUS_DIR / "programs.py").read_bytes()
    return hashlib.sha256(source + jax.__version__.encode()).hexdigest()[:16]


def _lower_all(out: Path) -> dict[str, object]:
    """Lower every program into ``out``; runs in the child process."""
    sys.path.insert(0, str(CORPUS_DIR.parent.parent))
    from tests.corpus.programs import PROGRAMS

    warnings.simplefilter("ignore")  # e.g. "Some donated buffers were not usable"
    out.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, object] = {"programs": [], "errors": {}}
    start = time.perf_counter()
    for prog in PROGRAMS:
        try:
            lowered = prog.lower()
            (out / f"{prog.name}.mlir").write_text(lowered.as_text())
            (out / f"{prog.name}.debug.mlir").write_text(lowered.as_text(debug_info=True))
            manifest["programs"].append(prog.name)  # type: ignore[union-attr]
        except Exception as exc:  # a program that no longer lowers is reported, not hidden
            manifest["errors"][prog.name] = f"{type(exc).__name__}: {exc}"  # type: ignore[index]
    manifest["seconds"] = round(time.perf_counter() - start, 2)
    return manifest


def generate(cache_dir: Path | None = None) -> dict[str, object]:
    """Regenerate the corpus under ``cache_dir`` in a 4-host-device subprocess.

    The texts are written to a fresh sibling directory that then replaces ``cache_dir``, so
    concurrent test processes never read a half-written corpus.
    """
    cache_dir = cache_dir or default_cache()
    env = dict(os.environ)
    env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " " + DEVICE_FLAG).strip()
    env["JAX_PLATFORMS"] = "cpu"
    cache_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=cache_dir.name + ".", dir=cache_dir.parent))
    try:
        subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child", "--out", str(staging)],
            env=env,
            check=True,
        )
        if cache_dir.exists():
            shutil.rmtree(cache_dir, ignore_errors=True)
        # Losing the race means another process installed its (identical) corpus first.
        with contextlib.suppress(OSError):
            staging.rename(cache_dir)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return json.loads((cache_dir / "manifest.json").read_text())


def load_corpus(cache_dir: Path | None = None) -> tuple[list[CorpusText], dict[str, object]]:
    """Corpus texts (regenerated if stale) and the manifest (program list, errors, timing)."""
    cache_dir = cache_dir or default_cache()
    key = _cache_key()
    manifest_path = cache_dir / "manifest.json"
    cached: dict[str, object] | None = None
    if manifest_path.exists():
        cached = json.loads(manifest_path.read_text())
    manifest = cached if cached is not None and cached.get("key") == key else generate(cache_dir)
    texts: list[CorpusText] = []
    for name in manifest["programs"]:  # type: ignore[union-attr]
        for debug in (False, True):
            suffix = ".debug.mlir" if debug else ".mlir"
            texts.append(CorpusText(name, debug, (cache_dir / f"{name}{suffix}").read_text()))
    return texts, manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=None, help="default: tests/corpus/.cache/jax-VERSION")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.child:
        out = args.out or default_cache()
        manifest = generate(out)
        print(json.dumps({k: v for k, v in manifest.items() if k != "programs"}, indent=1))
        print(f"{len(manifest['programs'])} programs lowered into {out}")  # type: ignore[arg-type]
        return
    if DEVICE_FLAG not in os.environ.get("XLA_FLAGS", ""):
        sys.exit("generate.py --child must run with XLA_FLAGS=" + DEVICE_FLAG)
    manifest = _lower_all(args.out)
    manifest["key"] = _cache_key()
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=1))


if __name__ == "__main__":
    main()
