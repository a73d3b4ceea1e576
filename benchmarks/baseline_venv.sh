#!/usr/bin/env bash
# A venv for a baseline checkout in side-by-side benchmarks (pass_scaling.py --jaxlib-baseline
# DIR --baseline-python PY, hook_ab.py --baseline DIR --baseline-python PY): it sees the
# current venv's packages (jax, xdsl, ...) through a .pth line, which does not run that venv's
# own .pth files (so this checkout's editable install stays out), and installs the baseline
# itself, so importlib.metadata finds the baseline's xdsl.universe entry point, not ours.
# Usage: benchmarks/baseline_venv.sh DIR [VENV]   (prints VENV/bin/python)
set -euo pipefail
dir=$(cd "$1" && pwd)
venv=${2:-$dir/.venv-baseline}
site=$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
python3 -m venv "$venv"
vsite=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$site" > "$vsite/zz_shared_packages.pth"
"$venv/bin/pip" install -q wheel setuptools >&2
"$venv/bin/pip" install -q --no-deps --no-build-isolation "$dir" >&2
echo "$venv/bin/python"
