"""Checks of ``jax_use_donated.jit`` on 4 host devices; run by ``test_jit_sharded.py`` in a
subprocess (the device count must be set before JAX is imported). Exits non-zero on failure."""

from __future__ import annotations

import os

os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "")
                           + " --xla_force_host_platform_device_count=4")

import sys
import warnings
from pathlib import Path

import jax
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import jax_use_donated as jud
from benchmarks.catalogue import SHARDED, by_name
from jax_use_donated.dropin.hlo_alias import aliases_from_hlo_text

N = int(os.environ.get("JUD_SHARDED_N", "32"))


def shard_pointers(x: jax.Array) -> list[int]:
    return [s.data.unsafe_buffer_pointer() for s in x.addressable_shards]


def check_program(name: str) -> None:
    program = by_name(name)
    with program.context():
        expected = jax.jit(program.fun)(*program.args(N))
        jax_record = jax.jit(program.fun, donate_argnums=program.donate_argnums).lower(
            *program.args(N)).as_text()
        wrapper = jud.jit(program.fun, donate_argnums=program.donate_argnums)
        args = program.args(N)
        leaves = jax.tree.leaves(args)
        pointers = [shard_pointers(leaf) for leaf in leaves]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", jud.DonationWarning)
            out = wrapper(*args)
        compiled = wrapper.lower(*program.args(N)).compile()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", jud.DonationWarning)
            measured = wrapper.plan(*program.args(N))
    assert wrapper.fallback_reason is None, wrapper.fallback_reason
    wrong = [(x.path, x.predicted, x.measured) for x in measured.disagreements]
    assert measured.measured and not wrong, (name, wrong)
    jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-5), out, expected)
    record = wrapper.records[-1]
    actual = aliases_from_hlo_text(compiled.as_text())
    assert actual == record.expected, (name, actual, record.expected)
    assert record.plan.pairs, name  # every sharded catalogue program has copy-free pairs
    assert [leaf.is_deleted() for leaf in leaves] == [i in actual for i in range(len(leaves))]
    out_leaves = jax.tree.leaves(out)
    for d, k in actual.items():
        assert shard_pointers(out_leaves[k]) == pointers[d], (name, d, k)
        assert out_leaves[k].sharding.is_equivalent_to(leaves[d].sharding, 2)
    # What JAX itself emits: with an Auto mesh and no out_shardings every donated argument
    # becomes a buffer donor; with an Explicit mesh JAX pairs by type.
    donor_kinds = {kind for kind, _ in record.jax_attrs.values()}
    if program.mesh == "auto":
        assert donor_kinds == {"jax.buffer_donor"}, donor_kinds
        assert "jax.buffer_donor = true" in jax_record
    else:
        assert donor_kinds == {"tf.aliasing_output"}, donor_kinds
    print(f"ok {name}: pairs {record.plan.pairs}")


def check_sharding_mismatch() -> None:
    """A donor sharded along rows cannot host a result replicated on every device."""
    mesh = jax.make_mesh((4,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,))
    rows, replicated = NamedSharding(mesh, P("x")), NamedSharding(mesh, P())
    program = by_name("swap")
    with jax.set_mesh(mesh):
        args = [jax.device_put(a, rows) for a in program.make(N)]
        wrapper = jud.jit(program.fun, donate_argnums=(0, 1),
                          out_shardings=(replicated, rows))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = wrapper(*args)
    record = wrapper.records[-1]
    assert record.plan.pairs == {0: 1}, record.plan.pairs  # a -> a*3 (rows); b cannot host b*2
    messages = [str(w.message) for w in caught if issubclass(w.category, jud.DonationWarning)]
    assert any("donated argument 'b'" in m and "is not reused" in m for m in messages), messages
    assert out[0].sharding.is_equivalent_to(replicated, 2)
    print("ok sharding mismatch")


def check_constraint_result() -> None:
    """A result placed by a sharding constraint has the constraint's sharding, not the donor's:
    a donor sharded along rows must not host a result the constraint replicates (XLA refused
    to compile that alias: per-device sizes differ), and the call runs."""
    mesh = jax.make_mesh((4,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
    rows, replicated = NamedSharding(mesh, P("x")), NamedSharding(mesh, P())
    step = jud.jit(lambda a: jax.lax.with_sharding_constraint(a, replicated),
                   donate_argnums=0)
    x = jax.device_put(np.arange(28.0, dtype=np.float32).reshape(4, 7), rows)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = step(x)
        plan = step.plan(jax.device_put(np.ones((4, 7), np.float32), rows))
    assert np.array_equal(np.asarray(out), np.arange(28.0).reshape(4, 7))
    assert not plan.disagreements, plan.disagreements
    print("ok constraint result")


def main() -> int:
    assert jax.device_count() == 4, jax.devices()
    for program in SHARDED:
        check_program(program.name)
    check_sharding_mismatch()
    check_constraint_result()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
