"""Prove ``jax-plan-donation{mode=materialize}`` output by bufferizing and running it upstream.

:func:`check_materialized` takes the pass's output (StableHLO or linalg on tensors with
``bufferization.materialize_in_destination``; xDSL's ``"test.op"`` allowed) and one function
of it, and checks, in upstream MLIR (the ``torch-mlir`` wheel, :mod:`.upstream`):

* statically, on the output as printed: every result is materialized into at most one
  argument, no argument receives two results, and no argument something writes into (a
  ``materialize_in_destination`` whose destination is the argument, a view of it or another
  materialization into it) is marked ``bufferization.writable = false``;
* ``stablehlo-legalize-to-linalg`` (where StableHLO is left, bufferization still runs with
  ``allow-unknown-ops``, and execution is skipped), then ``eliminate-empty-tensors`` and
  ``one-shot-bufferize`` with function boundaries succeed;
* where the function can run (no unknown op left, inputs given, element types numpy knows):
  JIT-run on copies of the inputs, every result equals the expected one, each argument a
  result was materialized into is returned as that result's buffer and holds it after the call,
  and every argument marked ``bufferization.writable = false`` is unchanged.

:func:`concretize_test_ops` turns xDSL's ``%r = "test.op"() : () -> tensor<...>`` into a
``linalg.fill`` of a distinct constant, so xDSL's own test inputs can run too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from jax_use_donated.oracle import upstream
from jax_use_donated.oracle.reference import arrays_match

MATERIALIZE = "bufferization.materialize_in_destination"
WRITABLE = "bufferization.writable"
VIEW_OPS = frozenset({
    "tensor.extract_slice", "tensor.expand_shape", "tensor.collapse_shape", "tensor.cast",
    "tensor.reshape", "stablehlo.reshape",
})
"""Ops whose result bufferizes to a view of operand 0 (kept apart from the pass's own table,
:data:`jax_use_donated.xdsl_plugin.plan_donation.VIEW_OPS`, so that this check is independent)."""

_NUMPY = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i1": np.bool_,
          "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
          "ui8": np.uint8, "ui32": np.uint32}


@dataclass
class MaterializeCheck:
    """What :func:`check_materialized` found; :attr:`ok` when there are no problems."""

    function: str
    destinations: dict[int, int] = field(default_factory=dict)
    """output result index -> the argument it is materialized into."""
    returned_args: dict[int, int] = field(default_factory=dict)
    """output result index -> the argument it returns unchanged."""
    through_views: set[int] = field(default_factory=set)
    """Results of :attr:`destinations` materialized into a view of the argument."""
    written: set[int] = field(default_factory=set)
    """Arguments some ``materialize_in_destination`` writes into."""
    read_only: set[int] = field(default_factory=set)
    """Arguments marked ``bufferization.writable = false``."""
    writable: set[int] = field(default_factory=set)
    """Arguments marked ``bufferization.writable = true``."""
    bufferized: bool = False
    executed: bool = False
    not_run: str | None = None
    """Why the function was bufferized but not run (``None`` when it ran)."""
    copies: int = 0
    allocs: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _function(module: Any, name: str) -> Any:
    for view in module.body.operations:
        op = view.operation
        if op.name == "func.func" and upstream.ir.StringAttr(
                op.attributes["sym_name"]).value == name:
            return op
    raise upstream.OracleError(f"no function @{name} in the module")


def function_names(text: str, unregistered: bool = True) -> list[str]:
    """The defined ``func.func``s of a module, in order."""
    module = upstream.parse(text, unregistered)
    return [upstream.ir.StringAttr(v.operation.attributes["sym_name"]).value
            for v in module.body.operations
            if v.operation.name == "func.func" and len(v.operation.regions[0].blocks)]


def rewritten_functions(text: str) -> list[str]:
    """The defined ``func.func``s that carry ``bufferization.writable`` on an argument (what
    ``mode=materialize`` marks on every function it rewrites)."""
    module = upstream.parse(text, unregistered=True)
    names: list[str] = []
    for view in module.body.operations:
        op = view.operation
        if op.name == "func.func" and "arg_attrs" in op.attributes and any(
                WRITABLE in upstream.ir.DictAttr(d)
                for d in upstream.ir.ArrayAttr(op.attributes["arg_attrs"])):
            names.append(upstream.ir.StringAttr(op.attributes["sym_name"]).value)
    return names


def _root(value: Any, block: Any, views: list[bool] | None = None) -> int | None:
    """The argument of ``block`` whose buffer ``value`` is (through materializations and
    views), or ``None``; appends ``True`` to ``views`` when a view is on the way."""
    ir = upstream.ir
    while True:
        if isinstance(value.owner, ir.Block):
            return ir.BlockArgument(value).arg_number if value.owner == block else None
        op = value.owner
        if op.name == MATERIALIZE:
            value = op.operands[1]
        elif op.name in VIEW_OPS and len(op.operands):
            value = op.operands[0]
            if views is not None:
                views.append(True)
        else:
            return None


def _static(func: Any, report: MaterializeCheck) -> None:
    ir = upstream.ir
    block = func.regions[0].blocks[0]
    arg_attrs = (ir.ArrayAttr(func.attributes["arg_attrs"])
                 if "arg_attrs" in func.attributes else [])
    for i, attrs in enumerate(arg_attrs):
        d = ir.DictAttr(attrs)
        if WRITABLE in d:
            (report.writable if ir.BoolAttr(d[WRITABLE]).value else report.read_only).add(i)

    def visit(op: Any) -> Any:
        if op.name == MATERIALIZE:
            root = _root(op.operands[1], block)
            if root is not None:
                report.written.add(root)
        return ir.WalkResult.ADVANCE

    func.walk(visit)
    for i in sorted(report.written & report.read_only):
        report.problems.append(f"%arg{i} is written by a {MATERIALIZE} but marked "
                               f"{WRITABLE} = false")
    ret = block.operations[len(block.operations) - 1]
    returned = list(ret.operands)
    owner: dict[int, Any] = {}
    for k, v in enumerate(returned):
        if isinstance(v.owner, ir.Block) and v.owner == block:
            report.returned_args[k] = ir.BlockArgument(v).arg_number
        value, dests, views = v, [], []
        while not isinstance(v.owner, ir.Block) and v.owner.name in (MATERIALIZE, *VIEW_OPS):
            op = v.owner
            if op.name == MATERIALIZE:
                root = _root(op.operands[1], block, views)
                if root is not None:
                    dests.append(root)
            v = op.operands[0]
            if any(v == r for r in returned):
                break  # another result's value (and destination): this one copies it
        if len(dests) > 1:
            report.problems.append(f"result {k} is materialized into "
                                   f"{len(dests)} arguments: "
                                   + ", ".join(f"%arg{d}" for d in dests))
        if dests:
            report.destinations[k] = dests[0]
            if views:
                report.through_views.add(k)
            if dests[0] in owner and owner[dests[0]] != value:
                report.problems.append(f"two different results are materialized into "
                                       f"%arg{dests[0]} (result {k} is one)")
            owner.setdefault(dests[0], value)


def new_pairs(input_text: str, output_text: str, function: str) -> dict[int, int]:
    """argument -> result of the pairs a materialize-mode run added, read off its output
    (without ``remove-matched-outputs``): results materialized into an argument that the input
    did not already materialize, and results that return a donor now marked writable
    unchanged (it hosts its own value)."""
    before, after = MaterializeCheck(function), MaterializeCheck(function)
    for text, report in ((input_text, before), (output_text, after)):
        module = upstream.parse(text, unregistered=True)  # keeps the function alive
        _static(_function(module, function), report)
    pairs: dict[int, int] = {}
    for k, d in sorted(after.destinations.items()):  # a value returned twice: its first
        if before.destinations.get(k) != d:          # position is the pair
            pairs.setdefault(d, k)
    for k, d in sorted(after.returned_args.items()):
        if d in after.writable and d not in after.written and k not in after.destinations \
                and d not in pairs:
            pairs[d] = k
    return pairs


def _dtype(t: Any) -> tuple[tuple[int, ...], Any] | None:
    ir = upstream.ir
    try:
        rt = ir.RankedTensorType(t)
    except (TypeError, ValueError):
        return None
    if not rt.has_static_shape:
        return None
    dtype = _NUMPY.get(str(rt.element_type))
    return (tuple(rt.shape), dtype) if dtype is not None else None


def random_inputs(text: str, function: str, seed: int = 0) -> list[np.ndarray] | None:
    """Random arrays for ``function``'s arguments, or ``None`` when one is not a static tensor
    of an element type numpy has."""
    module = upstream.parse(text, unregistered=True)
    func = _function(module, function)
    rng = np.random.default_rng(seed)
    arrays: list[np.ndarray] = []
    for arg in func.regions[0].blocks[0].arguments:
        spec = _dtype(arg.type)
        if spec is None:
            return None
        shape, dtype = spec
        if np.dtype(dtype).kind == "f":
            arrays.append(rng.uniform(-2, 2, shape).astype(dtype))
        elif np.dtype(dtype).kind == "b":
            arrays.append(rng.integers(0, 2, shape).astype(dtype))
        else:
            arrays.append(rng.integers(-5, 6, shape).astype(dtype))
    return arrays


_TEST_OP = re.compile(
    r'^(?P<indent>\s*)(?P<name>%[\w.$-]+) = "test\.op"\(\) : \(\) -> '
    r"(?P<type>tensor<(?:\d+x)*(?P<elem>f16|f32|f64|i32|i64)>)\s*$", re.M)


def concretize_test_ops(text: str) -> str:
    """Replace each zero-operand ``"test.op"`` producing a static tensor with a
    ``linalg.fill`` of a distinct constant (``1.0``, ``2.0``, ... in order), so the function can
    run; other ``"test.op"``s stay (and then it cannot)::

        %res = "test.op"() : () -> tensor<2x3xf32>
        // becomes
        %res__c = arith.constant 1.0 : f32
        %res__e = tensor.empty() : tensor<2x3xf32>
        %res = linalg.fill ins(%res__c : f32) outs(%res__e : tensor<2x3xf32>) -> tensor<2x3xf32>
    """
    count = [0]

    def fill(m: re.Match[str]) -> str:
        count[0] += 1
        i, name, t, elem = m["indent"], m["name"], m["type"], m["elem"]
        value = f"{count[0]}.0" if elem.startswith("f") else str(count[0])
        return (f"{i}{name}__c = arith.constant {value} : {elem}\n"
                f"{i}{name}__e = tensor.empty() : {t}\n"
                f"{i}{name} = linalg.fill ins({name}__c : {elem}) outs({name}__e : {t}) -> {t}")

    return _TEST_OP.sub(fill, text)


def lower_to_linalg(text: str) -> tuple[str, list[str]]:
    """``stablehlo-legalize-to-linalg`` on every function (generic form out); also returns the
    names of the StableHLO and unregistered ops left, which bufferization leaves alone."""
    module = upstream.parse(text, unregistered=True)
    upstream.run_pipeline(module, upstream.LEGALIZE)
    left: set[str] = set()

    def visit(op: Any) -> Any:
        name = op.name
        if name.startswith("stablehlo.") or name.startswith("chlo.") or name.startswith(
                "test.") or not op.context.is_registered_operation(name):
            left.add(name)
        return upstream.ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return module.operation.get_asm(print_generic_op_form=True), sorted(left)


def check_materialized(
    text: str,
    function: str,
    inputs: Sequence[np.ndarray] | None = None,
    expected: Sequence[np.ndarray] | None = None,
    *,
    held: dict[int, np.ndarray] | None = None,
    exact: bool = False,
    rtol: float = 1e-5,
    atol: float = 1e-6,
) -> MaterializeCheck:
    """Check ``function`` of the pass output ``text`` (see the module docstring).

    ``expected`` lists the output function's results; ``held`` maps an argument to what it
    must hold after the call although no returned result says so (a result that
    ``remove-matched-outputs`` dropped). Without ``inputs`` and ``expected`` only the static
    checks and bufferization run.
    """
    report = MaterializeCheck(function)
    try:
        module = upstream.parse(text, unregistered=True)
        _static(_function(module, function), report)
        linalg, left = lower_to_linalg(text)
        unknown = bool(left)
        b = upstream.bufferize(linalg, function, unknown_ops=unknown)
    except upstream.OracleError as err:
        report.problems.append(str(err))
        return report
    report.bufferized = True
    report.copies, report.allocs = b.copies, b.allocs
    if unknown:
        report.not_run = f"ops left after legalization: {', '.join(left)}"
    elif inputs is None or expected is None:
        report.not_run = "no inputs given"
    elif b.num_results != len(expected):
        report.problems.append(f"{b.num_results} results, expected {len(expected)}")
    if report.not_run is not None or report.problems:
        return report
    assert inputs is not None and expected is not None
    try:
        compiled = upstream.compile_bufferized(b, function)
    except upstream.OracleError as err:
        report.problems.append(f"lowering the bufferized function failed: {err}")
        return report
    originals = [np.array(a, order="C") for a in inputs]
    arrays = [a.copy() for a in originals]
    outputs = upstream.execute(compiled, arrays, list(expected))
    report.executed = True
    for k, (got, want) in enumerate(zip(outputs, expected, strict=True)):
        if not arrays_match(got, want, exact=exact, rtol=rtol, atol=atol):
            report.problems.append(f"result {k} differs from the expected numbers:\n"
                                   f"  got  {got!r}\n  want {want!r}")
    for k, d in sorted(report.destinations.items()):
        if k in report.through_views:  # returned as a view: compare the argument's bytes
            if arrays[d].size == np.asarray(expected[k]).size and not arrays_match(
                    arrays[d].reshape(np.shape(expected[k])), expected[k], exact=exact,
                    rtol=rtol, atol=atol):
                report.problems.append(f"the array passed for %arg{d} does not hold "
                                       f"result {k}")
        elif b.returned_args.get(k) != d:
            report.problems.append(f"result {k} is materialized into %arg{d} but not "
                                   "returned in its buffer after bufferization")
        elif not arrays_match(arrays[d], expected[k], exact=exact, rtol=rtol, atol=atol):
            report.problems.append(f"the array passed for %arg{d} does not hold result {k}")
    for d, want in sorted((held or {}).items()):
        if not arrays_match(arrays[d], want, exact=exact, rtol=rtol, atol=atol):
            report.problems.append(f"the array passed for %arg{d} does not hold its "
                                   "materialized result")
    for i in sorted(report.read_only):
        if arrays[i].tobytes() != originals[i].tobytes():
            report.problems.append(f"%arg{i} is marked {WRITABLE} = false but the call "
                                   "changed it")
    return report


def reference_outputs(text: str, function: str, inputs: Sequence[np.ndarray]
                      ) -> list[np.ndarray]:
    """Run ``function`` of an input module as it is (its arguments writable, as upstream
    assumes by default) on copies of ``inputs``: the expected numbers for inputs that have no
    JAX program behind them. Raises :class:`.upstream.OracleError` when it cannot run."""
    linalg, left = lower_to_linalg(text)
    if left:
        raise upstream.OracleError(f"ops left after legalization: {', '.join(left)}")
    b = upstream.bufferize(linalg, function)
    compiled = upstream.compile_bufferized(b, function)
    templates = _result_templates(text, function)
    return upstream.execute(compiled, [np.array(a, order="C") for a in inputs], templates)


def _result_templates(text: str, function: str) -> list[np.ndarray]:
    module = upstream.parse(text, unregistered=True)
    ftype = upstream.ir.FunctionType(upstream.ir.TypeAttr(
        _function(module, function).attributes["function_type"]).value)
    templates: list[np.ndarray] = []
    for t in ftype.results:
        spec = _dtype(t)
        if spec is None:
            raise upstream.OracleError(f"cannot make an array of {t}")
        templates.append(np.zeros(spec[0], spec[1]))
    return templates
