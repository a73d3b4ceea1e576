"""The donation report as data (``jax_use_donated.analysis.report_schema``): ``CallPlan.to_dict()`` and
the builder ``jax-donate-opt`` uses, ``plan_records``, give one JSON schema; its keys and types
are pinned here, it round-trips through JSON, and its verdicts are ``explain``'s."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import jax
import jax.numpy as jnp
import optax
import pytest

import jax_use_donated as jud
from jax_use_donated.adapters.jaxlib_ir import function_model, module_function, result_names
from jax_use_donated.analysis import plan_donation, report_schema
from jax_use_donated.analysis.xla_fallback import xla_fallback

pytest.importorskip("flax.nnx", reason="flax is an optional dependency (the bench extra)")
from flax import nnx

FUNCTION_KEYS = {"schema", "version", "function", "front_end", "library", "ordering",
                 "measured", "fallback_reason", "parameter_pairs", "buffer_donors", "summary",
                 "leaves"}
SUMMARY_KEYS = {"donated", "donated_bytes", "reused", "reused_bytes", "copy_free", "copied",
                "not_donated", "removed", "jax_copy_free", "wasted", "unusable"}
LEAF_KEYS = {"path", "user_path", "jax_path", "leaf", "parameter", "type", "dtype", "shape",
             "bytes", "ours", "jax", "predicted", "measured", "evidence", "verdict", "reason",
             "message", "location", "problem"}


def step(params: dict[str, jax.Array], opt: dict[str, jax.Array], x: jax.Array,
         g: dict[str, jax.Array]) -> tuple[dict[str, jax.Array], dict[str, jax.Array]]:
    m = {k: 0.9 * opt[k] + g[k] for k in opt}
    p = {k: params[k] - 0.1 * m[k] + x.sum() for k in params}
    return m, {"w": p["w"], "b": p["b"].T}  # state first; b's update is a transpose


def _args() -> tuple[Any, ...]:
    tree = {"w": jnp.ones((8, 8)), "b": jnp.ones((4, 4))}
    return tree, dict(tree), jnp.ones((3,), jnp.bfloat16), dict(tree)


def _check_schema(d: dict[str, Any]) -> None:
    assert report_schema.validate(d) == []
    assert set(d) == FUNCTION_KEYS and set(d["summary"]) == SUMMARY_KEYS
    for leaf in d["leaves"]:
        assert set(leaf) == LEAF_KEYS
        assert set(leaf["ours"]) == {"status", "result", "result_path"}
        assert set(leaf["jax"]) == {"pairing", "result", "result_path", "copy_free"}
    assert json.loads(json.dumps(d)) == d
    assert (d["schema"], d["version"]) == ("jax_use_donated.donation_report", 1)


def test_plan_to_dict_is_the_schema_and_agrees_with_explain() -> None:
    jitted = jud.jit(step, donate_argnums=(0, 1, 2))
    plan = jitted.plan(*_args())
    d = plan.to_dict()
    _check_schema(d)
    assert d["function"] == "jit(step)" and d["front_end"] == "jit" and d["measured"] is True
    assert d["library"] is None and d["ordering"] == jitted.records[-1].plan.ordering
    by_path = {leaf["path"]: leaf for leaf in d["leaves"]}
    w = by_path["params['w']"]
    assert (w["dtype"], w["shape"], w["bytes"], w["type"]) == (
        "float32", [8, 8], 256, "tensor<8x8xf32>")
    assert w["ours"] == {"status": "reused", "result": 3, "result_path": "result[1]['w']"}
    assert w["jax"]["pairing"] == "alias" and w["jax"]["result_path"] == "result[0]['w']"
    assert (w["predicted"], w["measured"], w["verdict"], w["problem"]) == (
        "copy-free", "copy-free", "reused", None)
    x = by_path["x"]
    assert (x["dtype"], x["shape"], x["bytes"]) == ("bfloat16", [3], 6)
    assert (x["ours"]["status"], x["reason"], x["jax"]["pairing"], x["problem"]) == (
        "not reused", "no-compatible-result", "none", "unusable")
    assert x["measured"] == "not donated"
    # the verdicts and measurements are explain's, leaf by leaf
    report = jitted.explain(*_args())
    assert [(r.path, r.status, r.measured) for r in report.rows] == [
        (leaf["path"], leaf["verdict"], leaf["measured"]) for leaf in d["leaves"]]
    assert [r.jax_copy_free for r in report.rows] == [
        bool(leaf["jax"]["copy_free"]) for leaf in d["leaves"]]
    summary = d["summary"]
    assert summary["donated"] == 5 and summary["reused"] == len(report.reused)
    assert summary["reused_bytes"] == report.reused_bytes
    assert summary["copy_free"] + summary["copied"] + summary["not_donated"] == 5
    assert d["parameter_pairs"] == [[p, k] for p, k in sorted(plan.parameter_pairs.items())]


def test_plan_to_dict_under_nnx_names_the_user_s_leaves() -> None:
    class MLP(nnx.Module):
        def __init__(self, rngs: nnx.Rngs) -> None:
            self.l1 = nnx.Linear(4, 8, rngs=rngs)

    @nnx.jit(donate_argnums=(0, 1))
    def train(model: MLP, optimizer: nnx.Optimizer, x: jax.Array) -> jax.Array:
        loss, grads = nnx.value_and_grad(lambda m: (m.l1(x) ** 2).mean())(model)
        optimizer.update(model, grads)
        return loss

    model = MLP(nnx.Rngs(0))
    d = jud.plan(train, model, nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param),
                 jnp.ones((2, 4))).to_dict()
    _check_schema(d)
    assert d["library"] == "flax.nnx"
    paths = [leaf["path"] for leaf in d["leaves"]]
    assert "model.l1.kernel" in paths and "optimizer.opt_state[0].mu['l1']['bias']" in paths
    kernel = next(leaf for leaf in d["leaves"] if leaf["path"] == "model.l1.kernel")
    assert kernel["user_path"] is True and kernel["jax_path"].startswith("model.states[")
    step_leaf = next(leaf for leaf in d["leaves"] if leaf["path"] == "optimizer.step")
    assert step_leaf["dtype"] == "uint32" and step_leaf["shape"] == []


def test_the_driver_s_builder_gives_the_same_schema_from_an_analysis_plan() -> None:
    """``plan_records`` on the model and plan the driver has (``FunctionModel``,
    ``DonationPlan``): the same schema and, for the same ordering, the same leaves as the
    drop-in's (minus the measurement)."""
    lowered = jax.jit(step, donate_argnums=(0, 1, 2)).lower(*_args())
    module = lowered.compiler_ir()
    assert module is not None
    main = module_function(module)
    assert main is not None
    fn = function_model(main)
    plan = plan_donation(fn, "xla-cpu-region")
    # as the driver's xla-fallback=true: an unpaired donor keeps JAX's (copying) pair
    fallback = xla_fallback(plan, {a.index: a.donation.alias_index for a in fn.donors
                                   if a.donation.alias_index is not None}, set())
    d = report_schema.plan_records(fn, plan, fallback, result_names=result_names(main))
    _check_schema(d)
    assert d["front_end"] == "jax-donate-opt" and d["measured"] is False
    assert d["function"] == "main" and d["ordering"] == "xla-cpu-region"
    assert all(leaf["measured"] is None for leaf in d["leaves"])
    # JAX marks no donation on x (no result has its type), so the module the driver reads has
    # four donors; the drop-in also reports x
    ours = jud.jit(step, donate_argnums=(0, 1, 2)).plan(*_args()).to_dict()
    assert [leaf["path"] for leaf in ours["leaves"]][4:] == ["x"]
    fields = ("path", "type", "dtype", "shape", "bytes", "predicted", "reason", "verdict",
              "problem")
    assert [tuple(leaf[f] for f in fields) for leaf in d["leaves"]] == [
        tuple(leaf[f] for f in fields) for leaf in ours["leaves"][:4]]
    assert [leaf["ours"] for leaf in d["leaves"]] == [leaf["ours"] for leaf in ours["leaves"][:4]]
    assert [leaf["jax"] for leaf in d["leaves"]] == [leaf["jax"] for leaf in ours["leaves"][:4]]
    assert json.loads(json.dumps(d)) == d


def test_validate_names_what_breaks_the_schema() -> None:
    d = jud.jit(step, donate_argnums=(0, 1, 2)).plan(*_args()).to_dict()
    broken = json.loads(json.dumps(d))
    del broken["leaves"][0]["bytes"]
    broken["leaves"][1]["measured"] = "maybe"
    broken["leaves"][2]["shape"] = "8x8"
    broken["extra"] = 1
    assert report_schema.validate(broken) == [
        "extra: not in the schema",
        "leaves[0].bytes: missing",
        "leaves[1].measured: 'maybe' is not one of ('copy-free', 'copied', 'not donated')",
        "leaves[2].shape: str is not list or NoneType",
    ]


def test_dtype_and_shape() -> None:
    assert report_schema.dtype_and_shape("tensor<4x8xf32>") == ("float32", [4, 8])
    assert report_schema.dtype_and_shape("tensor<ui32>") == ("uint32", [])
    assert report_schema.dtype_and_shape("tensor<?x3xbf16>") == ("bfloat16", [None, 3])
    assert report_schema.dtype_and_shape("float32[4,4]") == ("float32", [4, 4])
    assert report_schema.dtype_and_shape("!stablehlo.token") == (None, None)


def test_the_schema_module_imports_no_ir_library() -> None:
    """The driver imports it before (or without) JAX: it must pull in neither JAX, jaxlib nor
    xDSL."""
    code = ("import sys, jax_use_donated.analysis.report_schema; "
            "print(sorted(m for m in ('jax', 'jaxlib', 'xdsl') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_advice_records_are_checked_by_their_own_schema() -> None:
    """The advice record ``jax-donate-opt --advise --donation-report=json`` writes per function
    (``advice``): keys, types and actions pinned, JSON round trip."""
    record = report_schema.advice_record(
        function="main", front_end="jax-donate-opt", ordering="xla-cpu", measured=False,
        together_bytes=16, suggestions=[report_schema.suggestion_record(
            path="grads", leaf=1, action="donate", donated=False, nbytes=16, bytes_saved=16,
            verified=False, result=1, reason="it would host result 1 without a copy",
            location=None)])
    assert report_schema.validate_advice(record) == []
    assert (record["schema"], record["version"]) == ("jax_use_donated.advice", 1)
    assert set(record["suggestions"][0]) == {"path", "leaf", "action", "donated", "bytes",
                                             "bytes_saved", "verified", "result", "reason",
                                             "location"}
    assert json.loads(json.dumps(record)) == record
    broken = json.loads(json.dumps(record))
    del broken["suggestions"][0]["bytes_saved"]
    broken["suggestions"][0]["action"] = "maybe"
    broken["suggestions"][0]["verified"] = "no"
    broken["schema"] = report_schema.SCHEMA_NAME
    assert report_schema.validate_advice(broken) == [
        "schema: 'jax_use_donated.donation_report' is not 'jax_use_donated.advice'",
        "suggestions[0].action: 'maybe' is not one of ('donate', 'reorder', 'restructure', "
        "'none')",
        "suggestions[0].bytes_saved: missing",
        "suggestions[0].verified: str is not bool",
    ]
