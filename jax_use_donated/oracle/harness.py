"""Prove the destination rewrite by execution: JAX program -> StableHLO -> (upstream) linalg ->
(xDSL) ``jax-reuse-donated-destinations`` -> (upstream) bufferize -> JIT run.

The baseline ("before") is the same linalg module with only ``bufferization.writable`` set
(:func:`mark_writable`), so the comparison isolates the destination rewrite.

:func:`check_program` returns an :class:`OracleReport` whose :attr:`OracleReport.problems` is
empty exactly when: every number equals JAX's; every pair the pass reports
(``tf.aliasing_output = k`` on a writable donor) is returned as that argument's buffer and the
numpy array passed for it holds result ``k`` after the call; bufferization after the pass inserts
no more copies than without it (a copy our rewrite forces is a read-after-write conflict it
created). :func:`wrong_rewrite` makes a deliberately unsafe rewrite to test this harness.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from jax_use_donated.adapters.xdsl_ir import functions_with_donors
from jax_use_donated.analysis.errors import ALIASING_OUTPUT, BUFFER_DONOR
from jax_use_donated.diagnostics import Diagnostic, collect_diagnostics
from jax_use_donated.oracle.reference import arrays_match, jax_reference, mismatched_results
from jax_use_donated.xdsl_plugin.parser_printer import parse_module, print_module
from jax_use_donated.xdsl_plugin.reuse_donated_destinations import (
    WRITABLE,
    JaxReuseDonatedDestinations,
)

Rewrite = Callable[[str], str]


def xdsl_context() -> Context:
    ctx = Context(allow_unregistered=True)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return ctx


def apply_pass(text: str, module_pass: ModulePass) -> tuple[str, list[Diagnostic]]:
    """Parse ``text`` in xDSL, apply ``module_pass``, verify, print generic form; returns the
    output and the diagnostics the pass emitted."""
    ctx = xdsl_context()
    module = parse_module(ctx, text)
    with collect_diagnostics() as sink:
        module_pass.apply(ctx, module)
    module.verify()
    return print_module(module, generic=True), sink.diagnostics


def run_pass(linalg_text: str, strict: bool = False, temporaries: bool = True
             ) -> tuple[str, list[Diagnostic]]:
    """``jax-reuse-donated-destinations`` on linalg text (see :func:`apply_pass`)."""
    return apply_pass(linalg_text,
                      JaxReuseDonatedDestinations(strict=strict, temporaries=temporaries))


def mark_writable(linalg_text: str) -> str:
    """The baseline without our rewrite: only ``bufferization.writable`` (true on donors, false
    on other arguments), without which upstream may write into caller buffers."""
    ctx = xdsl_context()
    module = parse_module(ctx, linalg_text)
    for func in functions_with_donors(module):
        given = func.arg_attrs.data if func.arg_attrs is not None else ()
        attrs = [dict(given[i].data) if i < len(given) else {}
                 for i in range(len(func.function_type.inputs.data))]
        for d in attrs:
            d[WRITABLE] = IntegerAttr.from_bool(BUFFER_DONOR in d or ALIASING_OUTPUT in d)
        func.arg_attrs = ArrayAttr([DictionaryAttr(d) for d in attrs])
    return print_module(module, generic=True)


def wrong_rewrite(linalg_text: str) -> str:
    """A deliberately unsafe rewrite: the first destination-passing op whose init is a
    ``tensor.empty`` of a donor's type writes into that donor although the donor is still read
    by a later op. Raises ``ValueError`` when the program offers no such op."""
    ctx = xdsl_context()
    module = parse_module(ctx, linalg_text)
    func = next(o for o in module.walk() if isinstance(o, FuncOp) and o.sym_name.data == "main")
    block = func.body.blocks.first
    assert block is not None
    ops = list(block.ops)
    position = {op: i for i, op in enumerate(ops)}
    attrs = func.arg_attrs.data if func.arg_attrs is not None else ()
    donors = [a for i, a in enumerate(block.args)
              if i < len(attrs) and ("tf.aliasing_output" in attrs[i].data
                                     or "jax.buffer_donor" in attrs[i].data)]
    for op in ops:
        for pos, v in enumerate(op.operands):
            empty = v.owner
            if not (isinstance(empty, Operation) and empty.name == "tensor.empty"):
                continue
            if not op.name.startswith("linalg."):
                continue
            for d in donors:
                later = [position[_top(u.operation, block)] for u in d.uses]
                if d.type == v.type and any(i > position[op] for i in later):
                    operands = list(op.operands)
                    operands[pos] = d
                    op.operands = operands
                    return print_module(module, generic=True)
    raise ValueError("no destination can be moved into a donor before its last read")


def _top(op: Operation, block: object) -> Operation:
    while op.parent_block() is not block:
        parent = op.parent_op()
        assert parent is not None
        op = parent
    return op


_ALIAS = re.compile(r"(\d+)")


def realised_pairs(text: str) -> dict[int, int]:
    """donor -> result from the pass output's ``tf.aliasing_output`` on ``@main``."""
    ctx = xdsl_context()
    module: ModuleOp = parse_module(ctx, text)
    func = next(o for o in module.walk() if isinstance(o, FuncOp) and o.sym_name.data == "main")
    pairs: dict[int, int] = {}
    for i, d in enumerate(func.arg_attrs.data if func.arg_attrs is not None else ()):
        m = _ALIAS.search(str(d.data.get("tf.aliasing_output", "")))
        if m and "bufferization.writable" in d.data:
            pairs[i] = int(m.group(1))
    return pairs


@dataclass
class OracleReport:
    name: str
    allocs_before: int = 0
    copies_before: int = 0
    allocs_after: int = 0
    copies_after: int = 0
    conflicts_before: int = 0
    conflicts_after: int = 0
    moved_destinations: int = 0
    """``tensor.empty`` destinations the rewrite moved into donated buffers."""
    pairs: dict[int, int] = field(default_factory=dict)
    in_place: dict[int, bool] = field(default_factory=dict)
    """donor -> whether the numpy array passed for it held its result after the call."""
    numbers_equal: bool = False
    problems: list[str] = field(default_factory=list)
    diagnostics: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def check_program(
    name: str,
    fun: Callable[..., object],
    args: Sequence[object],
    donate_argnums: Sequence[int],
    rewrite: Rewrite | None = None,
    rtol: float = 1e-5,
    atol: float = 1e-6,
) -> OracleReport:
    """Run the whole pipeline on ``fun(*args)`` (``args`` may be pytrees; the function's
    arguments are their leaves); ``rewrite`` replaces our pass (to test the harness)."""
    # Imported here: it needs torch-mlir (the ``oracle`` extra), the rest of this module does not.
    from jax_use_donated.oracle import upstream

    report = OracleReport(name)
    reference = jax_reference(fun, args, donate_argnums)
    expected = reference.expected
    linalg = upstream.legalize_to_linalg(reference.stablehlo_text)

    before = upstream.bufferize(mark_writable(linalg))
    report.allocs_before, report.copies_before = before.allocs, before.copies
    if rewrite is None:
        rewritten, diags = run_pass(linalg)
        report.diagnostics = [d.format() for d in diags]
    else:
        rewritten = rewrite(linalg)
    report.moved_destinations = linalg.count('"tensor.empty"') - rewritten.count(
        '"tensor.empty"')
    report.pairs = realised_pairs(rewritten)
    after = upstream.bufferize(rewritten)
    report.allocs_after, report.copies_after = after.allocs, after.copies
    report.conflicts_before, report.conflicts_after = before.out_of_place, after.out_of_place
    if after.copies > before.copies or after.out_of_place > before.out_of_place:
        report.problems.append(
            f"after the rewrite bufferization makes {after.out_of_place} operand(s) out of place "
            f"and {after.copies} copies ({before.out_of_place} and {before.copies} before): the "
            "rewrite created a read-after-write conflict")

    compiled = upstream.compile_bufferized(after)
    inputs = [a.copy() for a in reference.leaves]
    outputs = upstream.execute(compiled, inputs, expected)
    bad = mismatched_results(outputs, expected, rtol=rtol, atol=atol)
    report.numbers_equal = not bad
    if bad:
        report.problems.append(f"results {bad} differ from JAX's")
    for d, k in report.pairs.items():
        hosted = after.returned_args.get(k) == d
        holds = arrays_match(inputs[d], expected[k], rtol=rtol, atol=atol)
        report.in_place[d] = hosted and holds
        if not hosted:
            report.problems.append(f"result {k} is not returned in the buffer of %arg{d}")
        elif not holds:
            report.problems.append(f"the array passed for %arg{d} does not hold result {k}")
    return report
