"""Worker scripts for ``tests/test_dropin_concurrency.py``: each mode runs in its own process
(a hang is then a timeout, not a stuck test session) and prints one JSON line.

* ``threads``: 8 threads build and call their own drop-in functions at once (different shapes,
  output orders and donation), after the same programs ran single-threaded; prints whether
  every result and plan matched.
* ``digest``: plans of a fixed set of programs, as a digest of the rewritten modules
  (compared across ``PYTHONHASHSEED`` values).
* ``distributed RANK PORT``: one process of a two-process ``jax.distributed`` job on
  127.0.0.1 (CPU, gloo, 2 host devices each): a sharded Adam step with donation under the
  drop-in and under the global switch; prints the plans' digest and whether the results equal
  ``jax.jit``'s.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any

N_THREADS = 8


def _programs() -> list[tuple[str, Callable[[], Callable[..., Any]], tuple[int, ...], int]]:
    """(name, factory of a fresh function, donate_argnums, size)."""
    import jax.numpy as jnp

    def swap() -> Callable[..., Any]:
        return lambda a, b: (b * 2.0, a * 3.0)

    def adam() -> Callable[..., Any]:
        def step(p: Any, m: Any, v: Any, g: Any) -> Any:
            m = 0.9 * m + 0.1 * g
            v = 0.999 * v + 0.001 * g * g
            return m, v, p - 1e-3 * m / (jnp.sqrt(v) + 1e-8)  # state first

        return step

    def fan() -> Callable[..., Any]:
        return lambda a, b: (a + 1.0, 2.0 * a, b.T)

    def cycle() -> Callable[..., Any]:
        return lambda a, b, c: (c * 2.0, a * 3.0, b * 4.0)

    return [("swap", swap, (0, 1), 64), ("adam", adam, (0, 1, 2), 32), ("fan", fan, (0,), 16),
            ("cycle", cycle, (0, 1, 2), 48), ("swap-small", swap, (0,), 8),
            ("adam-big", adam, (0, 1, 2), 96), ("fan-none", fan, (), 24),
            ("cycle-some", cycle, (1, 2), 40)]


def _args(name: str, size: int) -> list[Any]:
    import jax.numpy as jnp

    count = {"swap": 2, "adam": 4, "fan": 2, "cycle": 3}[name.split("-")[0]]
    return [jnp.full((size, size), float(i + 1)) for i in range(count)]


def _run_one(entry: tuple[str, Callable[[], Callable[..., Any]], tuple[int, ...], int],
             ) -> tuple[list[Any], dict[int, int], set[int]]:
    import jax
    import numpy as np

    import jax_use_donated as jud

    name, factory, donate, size = entry
    f = jud.jit(factory(), donate_argnums=donate)
    args = _args(name, size)
    out = [np.asarray(x) for x in jax.tree.leaves(f(*args))]
    deleted = {i for i, x in enumerate(args) if x.is_deleted()}
    plan = f.last_plan
    return out, dict(plan.parameter_pairs) if plan is not None else {}, deleted


def threads() -> dict[str, Any]:
    import numpy as np

    programs = _programs()
    single = [_run_one(p) for p in programs]
    results: list[Any] = [None] * N_THREADS
    errors: list[str] = []
    barrier = threading.Barrier(N_THREADS)

    def work(i: int) -> None:
        try:
            barrier.wait(timeout=60)
            results[i] = _run_one(programs[i])
        except Exception as e:
            errors.append(f"thread {i}: {type(e).__name__}: {e}")

    pool = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(N_THREADS)]
    for t in pool:
        t.start()
    for t in pool:
        t.join(timeout=300)
    hung = [i for i, t in enumerate(pool) if t.is_alive()]
    mismatches = []
    for i, (ref, got) in enumerate(zip(single, results, strict=True)):
        if got is None:
            continue
        same_out = len(ref[0]) == len(got[0]) and all(
            np.array_equal(a, b) for a, b in zip(ref[0], got[0], strict=True))
        if not same_out or ref[1] != got[1] or ref[2] != got[2]:
            mismatches.append(programs[i][0])
    return {"hung": hung, "errors": errors, "mismatches": mismatches,
            "plans": [sorted(r[1].items()) for r in single]}


def digest() -> dict[str, Any]:
    import jax_use_donated as jud

    h = hashlib.sha256()
    for name, factory, donate, size in _programs():
        f = jud.jit(factory(), donate_argnums=donate)
        text = f.lower(*_args(name, size)).as_text()
        main = next(line for line in text.splitlines() if "func.func public @main" in line)
        h.update(main.encode())
        h.update(repr(sorted(f.plan(*_args(name, size)).parameter_pairs.items())).encode())
    return {"digest": h.hexdigest()}


def distributed(rank: int, port: int) -> dict[str, Any]:
    import jax

    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(coordinator_address=f"127.0.0.1:{port}", num_processes=2,
                               process_id=rank, initialization_timeout=60)
    import jax.numpy as jnp
    import numpy as np
    from jax.experimental import multihost_utils
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    import jax_use_donated as jud

    mesh = Mesh(np.array(jax.devices()).reshape(4), ("d",))
    rows = NamedSharding(mesh, PartitionSpec("d"))

    def step(p: Any, m: Any, v: Any, g: Any) -> Any:
        m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
        v = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
        p = jax.tree.map(lambda p, m, v: p - 1e-3 * m / (jnp.sqrt(v) + 1e-8), p, m, v)
        return m, v, p  # state first: JAX's in-order pairing copies

    def state(value: float) -> dict[str, Any]:
        local = {"w": np.full((4, 16), value, np.float32), "b": np.full((4,), value, np.float32)}
        return {k: jax.make_array_from_process_local_data(rows, x) for k, x in local.items()}

    def run(jitted: Any) -> list[Any]:
        out = jitted(state(1.0), state(0.1), state(0.2), state(0.5))
        return [np.asarray(multihost_utils.process_allgather(x, tiled=True))
                for x in jax.tree.leaves(out)]

    h = hashlib.sha256()
    want = run(jax.jit(step))
    same = True
    ours = jud.jit(step, donate_argnums=(0, 1, 2))
    got = run(ours)
    same &= all(np.allclose(a, b) for a, b in zip(want, got, strict=True))
    h.update(repr(sorted(ours.last_plan.parameter_pairs.items())).encode())
    switched = jax.jit(step, donate_argnums=(0, 1, 2))
    with jud.enabled():
        got = run(switched)
    same &= all(np.allclose(a, b) for a, b in zip(want, got, strict=True))
    h.update(repr(sorted(jud.recent_plans()[-1].parameter_pairs.items())).encode())
    pairs = ours.last_plan.parameter_pairs
    jax.distributed.shutdown()
    return {"rank": rank, "digest": h.hexdigest(), "same": bool(same),
            "pairs": sorted(pairs.items())}


def main(argv: list[str]) -> int:
    warnings.simplefilter("ignore")
    mode = argv[0]
    if mode == "threads":
        out = threads()
    elif mode == "digest":
        out = digest()
    elif mode == "distributed":
        out = distributed(int(argv[1]), int(argv[2]))
    else:
        raise SystemExit(f"unknown mode {mode}")
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    raise SystemExit(main(sys.argv[1:]))
