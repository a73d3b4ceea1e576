#!/usr/bin/env bash
# The real-model benchmark on a GPU machine: verifies (or refutes) the unverified xla-gpu and
# xla-gpu-region ordering models (docs/orderings.md). Prepared for when a GPU is available;
# run from the repository root:
#
#   bash benchmarks/gpu_real_models.sh            # needs jax[cuda12] (installs it if missing)
#
# Writes benchmarks/results/real_models_gpu.md (and prints the table). A disagreement where the
# model says "copied" and XLA:GPU made no copy is expected now and then (the models ignore the
# post-scheduling copy removal); one where it says "copy-free" and XLA copied is a bug.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if ! "$PY" -c 'import jax, sys; sys.exit(jax.default_backend() != "gpu")' 2>/dev/null; then
  "$PY" -m pip install -q -e '.[test,bench]' 'jax[cuda12]'
fi
"$PY" -c 'import jax; print(jax.__version__, jax.default_backend(), jax.devices())'
# The benchmark reads jax.default_backend(): on a GPU its two compiles are XLA:GPU's default and
# xla_gpu_copy_insertion_use_region_analysis=True, predicted with xla-gpu / xla-gpu-region.
timeout 540 "$PY" benchmarks/real_models.py --catalogue --verbose \
  --out benchmarks/results/real_models_gpu.md
