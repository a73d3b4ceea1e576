"""The donation report as data: one JSON schema for the drop-in and ``jax-donate-opt``.

IR-free (it imports only :mod:`jax_use_donated.analysis`), so the driver can import it without
JAX. ``jud.plan(step, *args).to_dict()`` gives one function record; the driver's
``--donation-report=json`` gives one per planned function, built from the analysis plan by
:func:`plan_records`. Every record is JSON-ready (``json.loads(json.dumps(d)) == d``)::

    {
      "schema": "jax_use_donated.donation_report", "version": 1,
      "function": "jit(step)", "front_end": "jit", "library": "flax.nnx",
      "ordering": "xla-cpu-region", "measured": true, "fallback_reason": null,
      "parameter_pairs": [[0, 0], [1, 1]], "buffer_donors": [],
      "summary": {"donated": 2, "donated_bytes": 160, "reused": 2, "reused_bytes": 160,
                  "copy_free": 2, "copied": 0, "not_donated": 0, "removed": 0,
                  "jax_copy_free": 2, "wasted": 0, "unusable": 0},
      "leaves": [
        {"path": "model.l1.kernel", "user_path": true, "jax_path": "model.states[0][1]",
         "leaf": 1, "parameter": 1,
         "type": "tensor<4x8xf32>", "dtype": "float32", "shape": [4, 8], "bytes": 128,
         "ours": {"status": "reused", "result": 1, "result_path": "model.l1.kernel"},
         "jax": {"pairing": "alias", "result": 1, "result_path": "model.l1.kernel",
                 "copy_free": true},
         "predicted": "copy-free", "measured": "copy-free", "evidence": "",
         "verdict": "reused", "reason": "paired", "message": "...", "location": null,
         "problem": null},
        ...
      ]
    }

Per leaf: ``path`` the user's name (``user_path`` false: the library's internal path, kept
where the library hides the leaf), ``jax_path`` JAX's; ``leaf`` its index among the flat
dynamic arguments and ``parameter`` the executable's parameter (``null``: removed by jit);
``dtype`` (NumPy's name), ``shape`` (``null`` per dynamic dimension) and ``bytes``; ``ours``
the plan (``status`` one of :data:`STATUSES`); ``jax`` JAX's own pairing (``pairing`` one of
:data:`JAX_PAIRINGS`, ``copy_free`` ``null`` where not evaluated); ``predicted`` and
``measured`` outcomes (:data:`OUTCOMES`; ``measured`` ``null`` until compiled, and always in
the driver); ``verdict`` the explain table's status (:data:`VERDICTS`); ``reason``
(:data:`REASONS`); ``location`` the blocking read's ``file:line:col``; ``problem`` how the
drop-in reports it (:data:`PROBLEMS`, ``null``: nothing to report). :func:`validate` checks a
record against the schema (keys and types).

A second record kind, :data:`ADVICE_SCHEMA_NAME` (version :data:`ADVICE_VERSION`), holds one
function's advice: ``jax-donate-opt --advise`` with ``--donation-report=json`` adds one per
advised function under the report document's ``advice`` (:func:`predicted_advice_record`; the
driver predicts, so ``measured`` and every ``verified`` are false)::

    {
      "schema": "jax_use_donated.advice", "version": 1,
      "function": "main", "front_end": "jax-donate-opt", "ordering": "xla-cpu",
      "measured": false, "together_bytes": 16,
      "suggestions": [
        {"path": "grads", "leaf": 1, "action": "donate", "donated": false, "bytes": 16,
         "bytes_saved": 16, "verified": false, "result": 1,
         "reason": "it would host result 1 without a copy", "location": null},
        ...
      ]
    }

Per suggestion: ``path`` the argument's name (``loc("...")``, else ``%argN``), ``leaf`` its
index; ``action`` one of :data:`ADVICE_ACTIONS`; ``donated`` whether it is donated already;
``bytes`` its size; ``bytes_saved`` what following the suggestion alone saves (predicted here;
0 for ``none``); ``verified`` whether that was compiled and measured; ``result`` the result it
would host (``donate``) or is blocked from; ``reason`` why, in words (a ``donate`` holds only
if the caller does not use the argument after the call); ``location`` the blocking read's
``file:line:col``. ``together_bytes``: the bytes every ``donate`` suggestion reuses when
applied together (planned jointly: suggestions competing for one result do not add up).
:func:`validate_advice` checks a record.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from jax_use_donated.analysis.model import FunctionModel
from jax_use_donated.analysis.plan import DonationPlan
from jax_use_donated.analysis.xla_fallback import XlaFallback

if TYPE_CHECKING:
    from jax_use_donated.analysis.advice import PredictedAdvice

SCHEMA_NAME = "jax_use_donated.donation_report"
SCHEMA_VERSION = 1
"""Bumped when a key is removed or changes meaning (new keys do not bump it)."""

STATUSES = ("reused", "copied", "buffer donor", "not reused", "removed")
VERDICTS = ("reused", "reused with a copy", "buffer donor", "not reused", "removed")
JAX_PAIRINGS = ("alias", "buffer donor", "none", "removed")
OUTCOMES = ("copy-free", "copied", "not donated")
REASONS = ("paired", "no-compatible-result", "read-after-write", "returned", "outnumbered",
           "unused")
PROBLEMS = ("wasted", "unusable")
FRONT_ENDS = ("jit", "jax-donate-opt")

ADVICE_SCHEMA_NAME = "jax_use_donated.advice"
ADVICE_VERSION = 1
"""The advice record's version: bumped when a key is removed or changes meaning."""
ADVICE_ACTIONS = ("donate", "reorder", "restructure", "none")

_PREDICTED = {"reused": "copy-free", "copied": "copied", "not reused": "not donated"}
_VERDICT = {"copied": "reused with a copy"}

# MLIR element types -> NumPy dtype names.
_DTYPES = {
    "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
    "i1": "bool", "i4": "int4", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "ui4": "uint4", "ui8": "uint8", "ui16": "uint16", "ui32": "uint32", "ui64": "uint64",
    "complex<f32>": "complex64", "complex<f64>": "complex128",
    "f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2", "f8E4M3FNUZ": "float8_e4m3fnuz",
    "f8E5M2FNUZ": "float8_e5m2fnuz", "f8E4M3B11FNUZ": "float8_e4m3b11fnuz",
}

_TENSOR = re.compile(r"^tensor<(?P<dims>(?:[0-9?]+x)*)(?P<elem>[^,>]+(?:<[^>]*>)?)(?:,.*)?>$")
_SHAPED = re.compile(r"^(?P<elem>[a-z]+[0-9]*)\[(?P<dims>[0-9, ?]*)\]")


def format_bytes(n: int | None) -> str:
    """``512 B``, ``16.0 KiB``; ``?`` for dynamic shapes."""
    if n is None:
        return "?"
    if n < 1024:
        return f"{n} B"
    size = float(n)
    for unit in ("KiB", "MiB", "GiB"):
        size /= 1024
        if size < 1024 or unit == "GiB":
            return f"{size:.1f} {unit}"
    return f"{size:.1f} GiB"


def dtype_and_shape(type_text: str) -> tuple[str | None, list[int | None] | None]:
    """NumPy dtype name and shape of a tensor type as lowered (``tensor<4x8xf32>`` ->
    ``("float32", [4, 8])``) or as JAX prints an aval (``float32[4,8]``); ``(None, None)`` for
    other types."""
    m = _TENSOR.match(type_text.strip())
    if m is not None:
        dims = [None if d == "?" else int(d) for d in m.group("dims").split("x") if d]
        elem = m.group("elem")
        return _DTYPES.get(elem, elem), dims
    m = _SHAPED.match(type_text.strip())
    if m is not None:
        dims = [None if d.strip() == "?" else int(d) for d in m.group("dims").split(",")
                if d.strip()]
        return m.group("elem"), dims
    return None, None


def leaf_record(*, path: str, user_path: bool, jax_path: str, leaf: int | None,
                parameter: int | None, type_text: str, nbytes: int | None, status: str,
                result: int | None, result_path: str | None, jax_pairing: str,
                jax_result: int | None, jax_result_path: str | None,
                jax_copy_free: bool | None, predicted: str | None, measured: str | None,
                evidence: str, reason: str, message: str, location: str | None,
                problem: str | None) -> dict[str, Any]:
    """One donated leaf in the schema (every front end builds its leaves with this)."""
    dtype, shape = dtype_and_shape(type_text)
    return {
        "path": path, "user_path": user_path, "jax_path": jax_path,
        "leaf": leaf, "parameter": parameter,
        "type": type_text, "dtype": dtype, "shape": shape, "bytes": nbytes,
        "ours": {"status": status, "result": result, "result_path": result_path},
        "jax": {"pairing": jax_pairing, "result": jax_result, "result_path": jax_result_path,
                "copy_free": jax_copy_free},
        "predicted": predicted, "measured": measured, "evidence": evidence,
        "verdict": _VERDICT.get(status, status), "reason": reason, "message": message,
        "location": location, "problem": problem,
    }


def function_record(*, function: str, front_end: str, library: str | None, ordering: str,
                    measured: bool, fallback_reason: str | None,
                    leaves: Sequence[dict[str, Any]], parameter_pairs: Mapping[int, int],
                    buffer_donors: Iterable[int]) -> dict[str, Any]:
    """One function's report in the schema, with its summary computed from ``leaves``."""
    outcomes = [x["measured"] if x["measured"] is not None else x["predicted"] for x in leaves]
    reused = [x for x in leaves if x["ours"]["status"] == "reused"]
    return {
        "schema": SCHEMA_NAME, "version": SCHEMA_VERSION,
        "function": function, "front_end": front_end, "library": library,
        "ordering": ordering, "measured": measured, "fallback_reason": fallback_reason,
        "parameter_pairs": [[int(p), int(k)] for p, k in sorted(parameter_pairs.items())],
        "buffer_donors": sorted(int(d) for d in buffer_donors),
        "summary": {
            "donated": len(leaves),
            "donated_bytes": sum(x["bytes"] or 0 for x in leaves),
            "reused": len(reused),
            "reused_bytes": sum(x["bytes"] or 0 for x in reused),
            "copy_free": outcomes.count("copy-free"),
            "copied": outcomes.count("copied"),
            "not_donated": outcomes.count("not donated"),
            "removed": sum(1 for x in leaves if x["ours"]["status"] == "removed"),
            "jax_copy_free": sum(1 for x in leaves if x["jax"]["copy_free"]),
            "wasted": sum(1 for x in leaves if x["problem"] == "wasted"),
            "unusable": sum(1 for x in leaves if x["problem"] == "unusable"),
        },
        "leaves": list(leaves),
    }


def problem_of(status: str, outcome: str | None, reason: str, jax_pairing: str) -> str | None:
    """How a leaf is reported (see ``LeafDonation.problem``): ``"wasted"`` (actionable: XLA
    copies it, or a late read blocks it from a result JAX's pairing gave it), ``"unusable"``
    (expected: nothing can host it), ``None`` (reused copy-free)."""
    if status == "removed":
        return "unusable"
    if outcome == "copy-free":
        return None
    if outcome == "copied":
        return "wasted"
    if reason in ("read-after-write", "returned") and jax_pairing != "none":
        return "wasted"
    return "unusable" if reason != "paired" else None


def plan_records(fn: FunctionModel, plan: DonationPlan, fallback: XlaFallback | None = None,
                 *, result_names: Sequence[str | None] | None = None,
                 function: str | None = None) -> dict[str, Any]:
    """One function's report from an analysis plan (``jax-donate-opt``): the same schema as
    ``CallPlan.to_dict()``, with nothing measured. ``fallback``: what unpaired donors keep for
    XLA (the driver's ``xla-fallback``); ``result_names``: display names of the results
    (``jax.result_info``), else ``result N``. JAX's pairing is the input's own
    ``tf.aliasing_output``, else JAX's greedy pairing by type::

        fn, plan = ...  # planning.plan_functions(...)
        json.dumps(plan_records(fn, plan))
    """
    fallback = fallback if fallback is not None else XlaFallback()
    results = list(result_names or [])

    def result_label(k: int | None) -> str | None:
        if k is None:
            return None
        name = results[k] if 0 <= k < len(results) else None
        return name or f"result {k}"

    leaves: list[dict[str, Any]] = []
    for v in plan.verdicts:
        arg = v.arg
        d = arg.index
        k = plan.pairs.get(d)
        kept = fallback.kept_pairs.get(d)
        host = k if k is not None else kept
        if k is not None:
            status = "reused"
        elif kept is not None:
            status = "copied"
        elif d in fallback.buffer_donors:
            status = "buffer donor"
        else:
            status = "not reused"
        jax_k = arg.donation.alias_index if arg.donation.alias_index is not None else (
            plan.jax_pairs.get(d))
        if jax_k is not None:
            jax_copy_free: bool | None = (True if jax_k == k else None if plan.checker is None
                                          else plan.checker.blocker(d, jax_k) is None)
            jax_pairing = "alias"
        else:
            jax_copy_free, jax_pairing = None, "none"
        reason = "paired" if k is not None else v.reason.value
        note = fallback.notes.get(d) if k is None else None
        reader = next((b.reader for b in v.blockers if b.reader is not None), None)
        predicted = _PREDICTED.get(status)
        leaves.append(leaf_record(
            path=arg.display_name, user_path=arg.loc.name is not None,
            jax_path=arg.display_name, leaf=d, parameter=d, type_text=arg.type_text,
            nbytes=arg.tensor.nbytes if arg.tensor is not None else None, status=status,
            result=host, result_path=result_label(host), jax_pairing=jax_pairing,
            jax_result=jax_k, jax_result_path=result_label(jax_k),
            jax_copy_free=jax_copy_free, predicted=predicted, measured=None, evidence="",
            reason=reason, message=v.message + (f"; {note}" if note else ""),
            location=reader.loc.text if reader is not None and k is None else None,
            problem=problem_of(status, predicted, reason, jax_pairing)))
    return function_record(
        function=function or fn.name, front_end="jax-donate-opt", library=None,
        ordering=plan.ordering, measured=False, fallback_reason=None, leaves=leaves,
        parameter_pairs=fallback.all_pairs(plan), buffer_donors=fallback.buffer_donors)


def suggestion_record(*, path: str, leaf: int | None, action: str, donated: bool,
                      nbytes: int | None, bytes_saved: int, verified: bool, result: int | None,
                      reason: str, location: str | None) -> dict[str, Any]:
    """One suggestion of an advice record."""
    return {"path": path, "leaf": leaf, "action": action, "donated": donated, "bytes": nbytes,
            "bytes_saved": int(bytes_saved), "verified": verified, "result": result,
            "reason": reason, "location": location}


def advice_record(*, function: str, front_end: str, ordering: str, measured: bool,
                  suggestions: Sequence[dict[str, Any]], together_bytes: int
                  ) -> dict[str, Any]:
    """One function's advice in the schema (:data:`ADVICE_SCHEMA_NAME`)."""
    return {"schema": ADVICE_SCHEMA_NAME, "version": ADVICE_VERSION, "function": function,
            "front_end": front_end, "ordering": ordering, "measured": measured,
            "together_bytes": int(together_bytes), "suggestions": list(suggestions)}


def predicted_advice_record(fn: FunctionModel, plan: DonationPlan,
                            advice: Sequence[PredictedAdvice], together: int = 0
                            ) -> dict[str, Any]:
    """``jax-donate-opt``'s advice for ``fn`` (:func:`.advice.predict_advice` against
    ``plan``) as an advice record: predicted, so nothing in it is verified; ``together``: the
    joint saving of its ``donate`` suggestions."""
    return advice_record(
        function=fn.name, front_end="jax-donate-opt", ordering=str(plan.ordering),
        measured=False, together_bytes=together,
        suggestions=[suggestion_record(
            path=a.name, leaf=a.arg, action=a.action, donated=a.donated, nbytes=a.nbytes,
            bytes_saved=a.bytes_saved, verified=False, result=a.result, reason=a.reason,
            location=a.reader.loc.text if a.reader is not None else None) for a in advice])


# --------------------------------------------------------------------------------------------
# The schema, checked

_NULLABLE_INT = (int, type(None))
_NULLABLE_STR = (str, type(None))
_NULLABLE_BOOL = (bool, type(None))

FUNCTION_KEYS: dict[str, tuple[type, ...]] = {
    "schema": (str,), "version": (int,), "function": (str,), "front_end": (str,),
    "library": _NULLABLE_STR, "ordering": (str,), "measured": (bool,),
    "fallback_reason": _NULLABLE_STR, "parameter_pairs": (list,), "buffer_donors": (list,),
    "summary": (dict,), "leaves": (list,),
}
SUMMARY_KEYS: dict[str, tuple[type, ...]] = {
    k: (int,) for k in ("donated", "donated_bytes", "reused", "reused_bytes", "copy_free",
                        "copied", "not_donated", "removed", "jax_copy_free", "wasted",
                        "unusable")}
LEAF_KEYS: dict[str, tuple[type, ...]] = {
    "path": (str,), "user_path": (bool,), "jax_path": (str,), "leaf": _NULLABLE_INT,
    "parameter": _NULLABLE_INT, "type": (str,), "dtype": _NULLABLE_STR,
    "shape": (list, type(None)), "bytes": _NULLABLE_INT, "ours": (dict,), "jax": (dict,),
    "predicted": _NULLABLE_STR, "measured": _NULLABLE_STR, "evidence": (str,),
    "verdict": (str,), "reason": (str,), "message": (str,), "location": _NULLABLE_STR,
    "problem": _NULLABLE_STR,
}
OURS_KEYS: dict[str, tuple[type, ...]] = {
    "status": (str,), "result": _NULLABLE_INT, "result_path": _NULLABLE_STR}
JAX_KEYS: dict[str, tuple[type, ...]] = {
    "pairing": (str,), "result": _NULLABLE_INT, "result_path": _NULLABLE_STR,
    "copy_free": _NULLABLE_BOOL}
_VALUES: dict[str, tuple[str, ...]] = {
    "front_end": FRONT_ENDS, "status": STATUSES, "pairing": JAX_PAIRINGS,
    "predicted": OUTCOMES, "measured": OUTCOMES, "verdict": VERDICTS, "reason": REASONS,
    "problem": PROBLEMS}
ADVICE_KEYS: dict[str, tuple[type, ...]] = {
    "schema": (str,), "version": (int,), "function": (str,), "front_end": (str,),
    "ordering": (str,), "measured": (bool,), "together_bytes": (int,), "suggestions": (list,)}
SUGGESTION_KEYS: dict[str, tuple[type, ...]] = {
    "path": (str,), "leaf": _NULLABLE_INT, "action": (str,), "donated": (bool,),
    "bytes": _NULLABLE_INT, "bytes_saved": (int,), "verified": (bool,), "result": _NULLABLE_INT,
    "reason": (str,), "location": _NULLABLE_STR}
_ADVICE_VALUES: dict[str, tuple[str, ...]] = {"front_end": FRONT_ENDS, "action": ADVICE_ACTIONS}


def validate(record: Mapping[str, Any]) -> list[str]:
    """What in ``record`` breaks the schema (``[]``: it conforms): missing or extra keys,
    values of the wrong type or outside their enumeration."""
    problems: list[str] = []
    _check(record, FUNCTION_KEYS, "", problems)
    if record.get("schema") != SCHEMA_NAME:
        problems.append(f"schema: {record.get('schema')!r} is not {SCHEMA_NAME!r}")
    if isinstance(record.get("summary"), Mapping):
        _check(record["summary"], SUMMARY_KEYS, "summary.", problems)
    for i, pair in enumerate(record.get("parameter_pairs") or []):
        if not (isinstance(pair, list) and len(pair) == 2
                and all(isinstance(x, int) for x in pair)):
            problems.append(f"parameter_pairs[{i}]: not a [parameter, output] pair")
    for i, leaf in enumerate(record.get("leaves") or []):
        where = f"leaves[{i}]."
        if not isinstance(leaf, Mapping):
            problems.append(f"leaves[{i}]: not an object")
            continue
        _check(leaf, LEAF_KEYS, where, problems)
        if isinstance(leaf.get("ours"), Mapping):
            _check(leaf["ours"], OURS_KEYS, where + "ours.", problems)
        if isinstance(leaf.get("jax"), Mapping):
            _check(leaf["jax"], JAX_KEYS, where + "jax.", problems)
        shape = leaf.get("shape")
        if isinstance(shape, list) and not all(isinstance(d, _NULLABLE_INT) for d in shape):
            problems.append(f"{where}shape: dimensions must be integers or null")
    return problems


def validate_advice(record: Mapping[str, Any]) -> list[str]:
    """What in an advice ``record`` breaks its schema (``[]``: it conforms)."""
    problems: list[str] = []
    _check(record, ADVICE_KEYS, "", problems, _ADVICE_VALUES)
    if record.get("schema") != ADVICE_SCHEMA_NAME:
        problems.append(f"schema: {record.get('schema')!r} is not {ADVICE_SCHEMA_NAME!r}")
    for i, item in enumerate(record.get("suggestions") or []):
        if not isinstance(item, Mapping):
            problems.append(f"suggestions[{i}]: not an object")
            continue
        _check(item, SUGGESTION_KEYS, f"suggestions[{i}].", problems, _ADVICE_VALUES)
    return problems


def _check(obj: Mapping[str, Any], keys: Mapping[str, tuple[type, ...]], where: str,
           problems: list[str], values: Mapping[str, tuple[str, ...]] | None = None) -> None:
    values = _VALUES if values is None else values
    for key, types in keys.items():
        if key not in obj:
            problems.append(f"{where}{key}: missing")
            continue
        value = obj[key]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            problems.append(f"{where}{key}: {type(value).__name__} is not "
                            + " or ".join(t.__name__ for t in types))
        elif isinstance(value, str) and key in values and value not in values[key]:
            problems.append(f"{where}{key}: {value!r} is not one of {values[key]}")
    for key in obj:
        if key not in keys:
            problems.append(f"{where}{key}: not in the schema")
