"""Scaling of ``jax-plan-donation`` against xDSL's parse time, side by side in one run.

Generates JAX-like modules (generic form with ``#loc`` debug locations defined after use, as
``as_text(debug_info=True)`` prints them; MLP-like layers with ``dot_general``, reductions with
regions, hex-float ``-inf`` constants, broadcasts and elementwise chains; weights and biases of
four different shapes donated and their updates returned in reverse order) of about 1k, 10k and
50k ops, then prints parse time, pass time (model building, planning, rewriting) and the ratio.
Target: pass time at most 5% of parse time, growing linearly.

The columns ``model``/``plan`` split the pass into the xDSL adapter (building the neutral
model) and the shared core (liveness and matching), measured separately on the same module.

Run: ``python benchmarks/pass_scaling.py [--sizes 1000 10000 50000] [--profile]``.

``--end-to-end`` measures whole processes instead, on real JAX text (:mod:`benchmarks.jax_modules`:
an N-layer MLP Adam step with reordered outputs, ``lower(...).as_text()``), side by side per
size: a Python process that only parses and prints the file with jaxlib (the physical
reference), ``jax-donate-opt FILE -p jax-plan-donation`` on the jaxlib path and on the xDSL
path, and xDSL's own generic parser reading the same module in generic form (parse only,
in-process). Each measurement stops at ``--cap`` seconds; a series whose time per op predicts
more than the cap at the next size is not run there. Writes ``benchmarks/results/
pass_scaling.md`` and the log-log chart ``pass_scaling.png``::

    python benchmarks/pass_scaling.py --end-to-end [--layers 15 145 1450 14500] [--cap 120]
        [--reps 3]

The fast series (the reference, the jaxlib path, the walk floor) run ``--reps`` times,
interleaved, and report the median run; the slow ones once.

``--xdsl-baseline DIR`` adds the xDSL path of another checkout (``git worktree add DIR REV``),
run with this interpreter in the same loop, and its ratio to this checkout's xDSL path.

``--jaxlib-baseline DIR`` runs an A/B of the jaxlib path instead (this checkout against
another one, e.g. ``git clone --no-checkout . DIR && git -C DIR checkout REV``): both started
by the same launcher, in alternating order, the median of the per-round ratios; writes
``benchmarks/results/jaxlib_path_ab.md``::

    python benchmarks/pass_scaling.py --end-to-end --jaxlib-baseline DIR [--layers 1450]
        [--reps 11] [--baseline-python PY]

A baseline from before the package's folders moved (99cea96 and earlier) needs its own
interpreter, ``--baseline-python``: a venv that sees this one's packages but installs the
baseline itself, so this checkout's editable install and ``xdsl.universe`` entry point stay out
of it (``benchmarks/baseline_venv.sh DIR`` makes one and prints its python).

``--print-ahead`` measures the jaxlib path with and without its print in a forked child
(:mod:`jax_use_donated.opt.print_ahead`), alternating ``--reps`` runs of each per size, and writes
the medians and their ratio to ``benchmarks/results/print_ahead.md``::

    python benchmarks/pass_scaling.py --print-ahead [--layers 1450 14500] [--reps 7]

``--region`` times the planner alone on the same steps (jaxlib model, built once per size),
side by side: the ``xla-cpu`` ordering, ``xla-cpu-region`` as the drop-in plans on CPU, and
``xla-cpu-region`` with its rounds of re-matching left to run (no greedy completion,
``EXACT_ROUNDS`` raised) on the sizes up to ``--exact-up-to``::

    python benchmarks/pass_scaling.py --region [--layers 15 30 60 145] [--exact-up-to 60]
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import os
import pstats
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from jax_use_donated.adapters.xdsl_ir import build_function_model, functions_with_donors
from jax_use_donated.analysis.orderings import Ordering
from jax_use_donated.analysis.plan import plan_donation
from jax_use_donated.diagnostics import collect_diagnostics
from jax_use_donated.opt.driver import JaxDonateOptMain
from jax_use_donated.xdsl_plugin.parser_printer import parse_module
from jax_use_donated.xdsl_plugin.plan_donation import JaxPlanDonation

WIDTHS = (64, 96, 128, 192)
BATCH = 32


def _t(*dims: int) -> str:
    return "tensor<" + "x".join(str(d) for d in dims) + "xf32>"


class _Gen:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.n = 0
        self.locs: list[str] = []

    def loc(self, line: int) -> str:
        self.locs.append(f'#loc{len(self.locs) + 1} = loc(callsite("layer"("model.py":{line}:9 '
                         f'to :30) at "train.py":{line % 97 + 1}:5))')
        return f"loc(#loc{len(self.locs)})"

    def op(self, text: str, line: int) -> str:
        name = f"%v{self.n}"
        self.n += 1
        self.lines.append(f"    {name} = {text} {self.loc(line)}")
        return name


def generate(target_ops: int) -> tuple[str, int]:
    """A JAX-like module of about ``target_ops`` ops; returns the text and the layer count."""
    ops_per_layer = 37
    layers = max(1, target_ops // ops_per_layer)
    g = _Gen()
    args: list[str] = [f"%x: {_t(BATCH, WIDTHS[0])}"]
    params: list[tuple[str, str, int]] = []
    for i in range(layers):
        w_in, w_out = WIDTHS[i % len(WIDTHS)], WIDTHS[(i + 1) % len(WIDTHS)]
        args.append(f'%w{i}: {_t(w_in, w_out)} {{jax.buffer_donor = true}} loc("params[{i}].w")')
        args.append(f'%b{i}: {_t(w_out)} {{jax.buffer_donor = true}} loc("params[{i}].b")')
        params.append((f"%w{i}", f"%b{i}", i))
    x = "%x"
    updates: list[tuple[str, str]] = []
    for w, b, i in params:
        w_in, w_out = WIDTHS[i % len(WIDTHS)], WIDTHS[(i + 1) % len(WIDTHS)]
        tx, ty, tw, tb = _t(BATCH, w_in), _t(BATCH, w_out), _t(w_in, w_out), _t(w_out)
        line = 10 + i % 50
        h = g.op(f'"stablehlo.dot_general"({x}, {w}) <{{dot_dimension_numbers = '
                 f"#stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions"
                 f" = [0]>}}> : ({tx}, {tw}) -> {ty}", line)
        bb = g.op(f'"stablehlo.broadcast_in_dim"({b}) <{{broadcast_dimensions = array<i64: 1>}}>'
                  f" : ({tb}) -> {ty}", line)
        h = g.op(f'"stablehlo.add"({h}, {bb}) : ({ty}, {ty}) -> {ty}', line)
        ninf = g.op('"stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () '
                    "-> tensor<f32>", line)
        red = g.op(f'"stablehlo.reduce"({h}, {ninf}) <{{dimensions = array<i64: 1>}}> ({{\n'
                   "    ^bb0(%p: tensor<f32>, %q: tensor<f32>):\n"
                   '      %m = "stablehlo.maximum"(%p, %q) : (tensor<f32>, tensor<f32>) -> '
                   "tensor<f32>\n"
                   '      "stablehlo.return"(%m) : (tensor<f32>) -> ()\n'
                   f"    }}) : ({ty}, tensor<f32>) -> {_t(BATCH)}", line)
        rb = g.op(f'"stablehlo.broadcast_in_dim"({red}) <{{broadcast_dimensions = array<i64: 0>}}>'
                  f" : ({_t(BATCH)}) -> {ty}", line)
        h = g.op(f'"stablehlo.subtract"({h}, {rb}) : ({ty}, {ty}) -> {ty}', line)
        for fn in ("exponential", "tanh", "negate", "abs", "sqrt", "log_plus_one", "logistic",
                   "sine", "cosine", "exponential_minus_one"):
            h = g.op(f'"stablehlo.{fn}"({h}) : ({ty}) -> {ty}', line + 1)
        half = g.op('"stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () '
                    "-> tensor<f32>", line + 1)
        hb = g.op(f'"stablehlo.broadcast_in_dim"({half}) <{{broadcast_dimensions = array<i64>}}>'
                  f" : (tensor<f32>) -> {ty}", line + 1)
        h = g.op(f'"stablehlo.multiply"({h}, {hb}) : ({ty}, {ty}) -> {ty}', line + 1)
        # "Gradient" and update of the layer's parameters.
        ht = g.op(f'"stablehlo.transpose"({x}) <{{permutation = array<i64: 1, 0>}}> : ({tx}) -> '
                  f"{_t(w_in, BATCH)}", line + 2)
        gw = g.op(f'"stablehlo.dot_general"({ht}, {h}) <{{dot_dimension_numbers = '
                  f"#stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions"
                  f" = [0]>}}> : ({_t(w_in, BATCH)}, {ty}) -> {tw}", line + 2)
        lr = g.op('"stablehlo.constant"() <{value = dense<1.000000e-03> : tensor<f32>}> : () '
                  "-> tensor<f32>", line + 2)
        lrw = g.op(f'"stablehlo.broadcast_in_dim"({lr}) <{{broadcast_dimensions = array<i64>}}>'
                   f" : (tensor<f32>) -> {tw}", line + 2)
        gw = g.op(f'"stablehlo.multiply"({gw}, {lrw}) : ({tw}, {tw}) -> {tw}', line + 2)
        w_new = g.op(f'"stablehlo.subtract"({w}, {gw}) : ({tw}, {tw}) -> {tw}', line + 2)
        gb = g.op(f'"stablehlo.reduce"({h}, {ninf}) <{{dimensions = array<i64: 0>}}> ({{\n'
                  "    ^bb0(%p: tensor<f32>, %q: tensor<f32>):\n"
                  '      %s = "stablehlo.add"(%p, %q) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n'
                  '      "stablehlo.return"(%s) : (tensor<f32>) -> ()\n'
                  f"    }}) : ({ty}, tensor<f32>) -> {tb}", line + 3)
        lrb = g.op(f'"stablehlo.broadcast_in_dim"({lr}) <{{broadcast_dimensions = array<i64>}}>'
                   f" : (tensor<f32>) -> {tb}", line + 3)
        gb = g.op(f'"stablehlo.multiply"({gb}, {lrb}) : ({tb}, {tb}) -> {tb}', line + 3)
        b_new = g.op(f'"stablehlo.subtract"({b}, {gb}) : ({tb}, {tb}) -> {tb}', line + 3)
        updates.append((w_new, tw))
        updates.append((b_new, tb))
        x = h
    # Results: the updated parameters in reverse order, then the activations.
    results = [*reversed(updates), (x, _t(BATCH, WIDTHS[layers % len(WIDTHS)]))]
    ret_vals = ", ".join(v for v, _ in results)
    ret_types = ", ".join(t for _, t in results)
    text = "\n".join([
        '#loc0 = loc("model.py":1:1)',
        "module @jit_train_step {",
        f"  func.func public @main({', '.join(args)}) -> ({ret_types}) {{",
        *g.lines,
        f"    func.return {ret_vals} : {ret_types} loc(#loc0)",
        "  } loc(#loc0)",
        "} loc(#loc0)",
        *g.locs,
        "",
    ])
    return text, layers


def _count_ops(module: ModuleOp) -> int:
    return sum(1 for _ in module.walk())


def phases(module: ModuleOp) -> tuple[float, float]:
    """Seconds to build the model (adapter) and to plan (core: liveness + matching), measured
    on the unmodified module before the pass runs."""
    gc.disable()
    try:
        (func,) = list(functions_with_donors(module))
        t0 = time.perf_counter()
        fn = build_function_model(func)
        t1 = time.perf_counter()
        plan_donation(fn)
        t2 = time.perf_counter()
    finally:
        gc.enable()
    return t1 - t0, t2 - t1


def measure(ctx: Context, target: int, profile: bool
            ) -> tuple[int, int, float, float, float, float]:
    text, layers = generate(target)
    t0 = time.perf_counter()
    module = parse_module(ctx, text, "bench.mlir")
    t1 = time.perf_counter()
    model_s, plan_s = phases(module)
    pass_ = JaxPlanDonation()
    profiler = cProfile.Profile() if profile else None
    with collect_diagnostics():
        t2 = time.perf_counter()
        if profiler is not None:
            profiler.enable()
        pass_.apply(ctx, module)
        if profiler is not None:
            profiler.disable()
        t3 = time.perf_counter()
    if profiler is not None:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(18)
        print(out.getvalue())
    return _count_ops(module), 2 * layers, t1 - t0, t3 - t2, model_s, plan_s


# --------------------------------------------------------------------------------------------
# Whole processes on real JAX text

RESULTS = Path(__file__).resolve().parent / "results"
REFERENCE = """
import sys
from jaxlib.mlir import ir
from jaxlib.mlir._mlir_libs import _jax_mlir_ext
from jaxlib.mlir.dialects import chlo, mhlo, sdy, stablehlo
registry = ir.DialectRegistry()
_jax_mlir_ext.register_dialects(registry)
ctx = ir.Context()
ctx.append_dialect_registry(registry)
ctx.load_all_available_dialects()
sdy.register_dialect(ctx); mhlo.register_mhlo_dialect(ctx)
chlo.register_dialect(ctx); stablehlo.register_dialect(ctx)
with open(sys.argv[1], "rb") as f:
    module = ir.Module.parse(f.read(), context=ctx)
with open(sys.argv[2], "w") as out:
    out.write(module.operation.get_asm(enable_debug_info=False))
"""
"""The physical reference: jaxlib's parse and print alone, with the context our path uses."""

REFERENCE_WALK = REFERENCE.replace("with open(sys.argv[2]", """\
for func in module.body.operations:
    for block in func.operation.regions[0].blocks:
        for view in block.operations:
            op = view.operation
            op.name, list(op.operands), [r.type for r in op.results]
with open(sys.argv[2]""")
"""The reference plus the least a Python analysis reads through jaxlib's bindings: the name,
operands and result types of every op of every function body, once (nested regions not
even entered). jaxlib exports no MLIR C API symbols, so no compiled
walker can be linked against its MLIR; this is the floor of the jaxlib path's model step."""


@dataclass
class Timed:
    seconds: float | None
    """Wall seconds; ``None`` when not run or past the cap."""
    rss_mib: float | None = None
    note: str = ""
    detail: dict[str, float] = field(default_factory=dict)
    runs: list[float] = field(default_factory=list)
    """Every run's seconds (the repeated series), in run order."""
    cpu: float | None = None
    """CPU seconds (user and system) of the process and the children it waited for."""


def timed_process(cmd: list[str], cap: float) -> Timed:
    """Wall time and peak RSS of one process (``None`` past ``cap`` seconds)."""
    if Path("/usr/bin/time").exists():
        cmd = ["/usr/bin/time", "-f", "maxrss %M kB", *cmd]
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _, err = proc.communicate(timeout=cap)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return Timed(None, note=f"> {cap:.0f} s")
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        return Timed(None, note=f"exit {proc.returncode}: {err.decode()[-200:]}")
    detail = {k: float(v) for k, v in re.findall(r"([\w-]+) ([0-9.]+) s\b", err.decode())}
    rss = re.search(r"maxrss (\d+) kB", err.decode())
    return Timed(wall, int(rss.group(1)) / 1024 if rss else None, detail=detail, cpu=cpu)


def xdsl_generic_parse(text_file: Path, cap: float) -> Timed:
    """xDSL's own parser (generic form, unregistered ops) on the module, in a subprocess."""
    code = (
        "import sys, time\n"
        "from xdsl.context import Context\n"
        "from xdsl.parser import Parser\n"
        "from xdsl.dialects.builtin import Builtin\n"
        "from xdsl.dialects.func import Func\n"
        "ctx = Context(allow_unregistered=True)\n"
        "ctx.load_dialect(Builtin); ctx.load_dialect(Func)\n"
        "text = open(sys.argv[1]).read()\n"
        "t = time.perf_counter()\n"
        "Parser(ctx, text).parse_module()\n"
        "print(f'parse {time.perf_counter() - t:.3f} s', file=sys.stderr)\n")
    timed = timed_process([sys.executable, "-c", code, str(text_file)], cap)
    return Timed(timed.detail.get("parse"), note=timed.note)


def generic_text(path: Path) -> Path:
    """The module in MLIR's generic form, printed by jaxlib (cached next to ``path``)."""
    out = path.with_suffix(".generic.mlir")
    if not out.exists():
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        from jaxlib.mlir import ir

        from jax_use_donated.opt.jaxlib_path import make_context

        module = ir.Module.parse(path.read_bytes(), context=make_context())
        out.write_text(str(module.operation.get_asm(print_generic_op_form=True,
                                                    enable_debug_info=False)))
    return out


BASELINE_DRIVER = """
import sys
sys.path.insert(0, sys.argv.pop(1))
from jax_use_donated.opt import driver
sys.argv[0] = "jax-donate-opt"
if hasattr(driver, "console_main"):
    driver.console_main()
sys.exit(driver.main())
"""
"""``jax-donate-opt`` from the checkout named by the first argument."""


CLI_LAUNCHER = """
import sys
sys.path.insert(0, sys.argv.pop(1))
sys.argv[0] = "jax-donate-opt"
try:
    from jax_use_donated.opt.cli import main
except ModuleNotFoundError:  # a checkout from before the folders (99cea96 and earlier)
    from jax_use_donated.cli import main
main()
"""
"""The ``jax-donate-opt`` command (its first module, which forks the text route's child early)
from the checkout named by the first argument, before or after the package's folders moved."""


def jaxlib_ab(layers: Sequence[int], baseline: Path, reps: int, cap: float,
              baseline_python: str | None = None) -> str:
    """The jaxlib path of this checkout against ``baseline``'s (another checkout), both
    started alike (:data:`CLI_LAUNCHER`), in ``reps`` rounds per size that run the reference
    (jaxlib's parse and print), this checkout and the baseline, the two in alternating order;
    the ratio is the median of the per-round ratios. ``baseline_python`` runs the baseline
    under another interpreter: one whose environment installs the baseline, so that neither
    this checkout's editable install nor its ``xdsl.universe`` entry point reaches it (a
    checkout whose modules moved needs that). Writes ``benchmarks/results/jaxlib_path_ab.md``."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from benchmarks.jax_modules import count_ops, train_step_text

    root = Path(__file__).resolve().parent.parent

    def rev(path: Path) -> str:
        done = subprocess.run(["git", "-C", str(path), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=False)
        return done.stdout.strip() or path.name

    ours_rev, base_rev = rev(root), rev(baseline)
    dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--",
                            "jax_use_donated"], capture_output=True, text=True,
                           check=False).stdout.strip()
    ours_name = f"{ours_rev}{' + uncommitted changes' if dirty else ''}"
    lines = [
        "# jax-donate-opt's jaxlib path: this checkout against a baseline checkout",
        "",
        f"Command: `python benchmarks/pass_scaling.py --end-to-end --jaxlib-baseline "
        f"<checkout of {base_rev}> --layers {' '.join(map(str, layers))} --reps {reps}"
        f"{' --baseline-python <its venv>' if baseline_python else ''}` "
        "(N-layer MLP Adam step, outputs reordered, `jax.jit(...).lower(...).as_text()`; "
        "`jax-donate-opt FILE -p jax-plan-donation --path=jaxlib -o /dev/null`, both "
        "checkouts started by the same launcher"
        + (" (the baseline with its venv's interpreter, the same Python and packages)"
           if baseline_python else " with this interpreter") + "; whole processes, wall "
        f"seconds, and CPU seconds (user and system, the forked children included); {reps} "
        f"rounds per size, each the reference, then the two in alternating order; on a shared "
        f"{os.cpu_count()}-core machine, load average at the start "
        f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}, at the end LOAD_END).",
        "",
        f"| layers | ops | measure | reference (jaxlib parse+print) | {ours_name} | {base_rev} "
        f"| {ours_rev} / {base_rev}: median of per-round ratios | quartiles of the ratios |",
        "|---:|---:|---|---:|---:|---:|---:|---|",
    ]
    for n in layers:
        path = train_step_text(n)
        ops = count_ops(path.read_text())
        reference = [sys.executable, "-c", REFERENCE, str(path), os.devnull]

        def tool(checkout: Path, path: Path = path) -> list[str]:
            python = baseline_python if checkout == baseline and baseline_python else sys.executable
            return [python, "-c", CLI_LAUNCHER, str(checkout), str(path), "-p",
                    "jax-plan-donation", "--path=jaxlib", "-o", os.devnull]

        runs: dict[tuple[str, str], list[float]] = {
            (who, what): [] for who in ("ref", "ours", "base") for what in ("wall", "cpu")}
        for r in range(reps):
            order = [("ours", root), ("base", baseline)]
            if r % 2:
                order.reverse()
            jobs = [("ref", reference), *((name, tool(checkout)) for name, checkout in order)]
            for name, cmd in jobs:
                timed = timed_process(cmd, cap)
                if timed.seconds is None or timed.cpu is None:
                    raise SystemExit(f"{name} at {n} layers: {timed.note}")
                runs[name, "wall"].append(timed.seconds)
                runs[name, "cpu"].append(timed.cpu)
        for what in ("wall", "cpu"):
            ratios = sorted(o / b for o, b in zip(runs["ours", what], runs["base", what],
                                                  strict=True))
            quartiles = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
            lines.append(
                f"| {n} | {ops} | {what} s | {statistics.median(runs['ref', what]):.2f} | "
                f"{statistics.median(runs['ours', what]):.2f} | "
                f"{statistics.median(runs['base', what]):.2f} | "
                f"{statistics.median(ratios):.3f}x | {quartiles[0]:.3f} to {quartiles[-1]:.3f} |")
            print(lines[-1], flush=True)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    text = "\n".join(lines).replace("LOAD_END", load) + "\n"
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "jaxlib_path_ab.md").write_text(text)
    return text


REPEATED = ("jaxlib parse+print", "jax-donate-opt jaxlib path", "jaxlib parse+walk+print")
"""The fast series: run ``reps`` times, interleaved, per size; the cell is the median run."""


def _median_run(runs: list[Timed]) -> Timed:
    done = sorted((r for r in runs if r.seconds is not None), key=lambda r: r.seconds or 0.0)
    if len(done) != len(runs):
        return runs[-1]
    median = done[len(done) // 2]
    median.runs = [r.seconds for r in runs if r.seconds is not None]
    return median


def _ratio(fast: Timed, ref: Timed) -> float | None:
    """The median of the per-round ratios of two repeated series (runs interleaved, so each
    round's pair saw the same machine), else the ratio of the cells."""
    if fast.runs and len(fast.runs) == len(ref.runs):
        return statistics.median(f / r for f, r in zip(fast.runs, ref.runs, strict=True))
    return fast.seconds / ref.seconds if fast.seconds and ref.seconds else None


def end_to_end(layers: Sequence[int], cap: float, baseline: Path | None = None,
               reps: int = 3) -> str:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from benchmarks.jax_modules import count_ops, train_step_text

    tool = str(Path(sys.executable).with_name("jax-donate-opt"))
    series: tuple[str, ...] = (
        "jaxlib parse+print", "jax-donate-opt jaxlib path", "jax-donate-opt xDSL path",
        "xDSL generic parse", "jaxlib parse+walk+print")
    if baseline is not None:
        rev = subprocess.run(["git", "-C", str(baseline), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        series = (*series, f"xDSL path at {rev}")
    baseline_name = series[-1]
    rows: list[tuple[int, int, list[Timed], float | None]] = []
    stop: dict[str, bool] = {}
    last: dict[str, tuple[float, int]] = {}
    """Series -> (seconds, ops) of its last measurement."""
    for n in layers:
        path = train_step_text(n)
        text = path.read_text()
        ops = count_ops(text)
        cells: list[Timed] = []
        null = os.devnull
        cmds: dict[str, list[str]] = {
            series[0]: [sys.executable, "-c", REFERENCE, str(path), null],
            series[1]: [tool, str(path), "-p", "jax-plan-donation", "--path=jaxlib",
                        "--verbose", "-o", null],
            series[2]: [tool, str(path), "-p", "jax-plan-donation", "--path=xdsl", "-o", null],
            series[4]: [sys.executable, "-c", REFERENCE_WALK, str(path), null],
        }
        if baseline is not None:
            cmds[baseline_name] = [sys.executable, "-c", BASELINE_DRIVER, str(baseline), str(path),
                               "-p", "jax-plan-donation", "--path=xdsl", "-o", null]
        repeated: dict[str, list[Timed]] = {name: [] for name in REPEATED}
        for _ in range(reps - 1):  # all but the last run of the fast series, interleaved
            for name in REPEATED:
                repeated[name].append(timed_process(cmds[name], cap))
        for name in series:
            seconds, at = last.get(name, (0.0, 1))
            predicted = seconds * ops / at  # linear, startup included: an upper bound
            if stop.get(name) or (predicted > 2 * cap and seconds > 5):
                stop[name] = True
                cells.append(Timed(None, note=f"skipped (predicted {predicted:.0f} s)"))
                continue
            if name == series[3]:
                timed = xdsl_generic_parse(generic_text(path), cap)
            else:
                timed = timed_process(cmds[name], cap)
            if name in repeated:
                timed = _median_run([*repeated[name], timed])
            if timed.seconds is None:
                stop[name] = True
            else:
                last[name] = (timed.seconds, ops)
            cells.append(timed)
        rows.append((n, ops, cells, len(text) / 1e6))
        report(rows, series, cap, reps)  # after each size: a run cut short keeps what it measured
        print(f"{n} layers, {ops} ops: " + ", ".join(
            f"{name} {c.seconds:.2f} s" if c.seconds is not None else f"{name} {c.note}"
            for name, c in zip(series, cells, strict=True)), flush=True)
    return report(rows, series, cap, reps)


def report(rows: list[tuple[int, int, list[Timed], float | None]], series: Sequence[str],
           cap: float, reps: int = 1) -> str:
    lines = [
        "# jax-donate-opt end to end: jaxlib path, xDSL path, jaxlib and xDSL parsers",
        "",
        "Command: `python benchmarks/pass_scaling.py --end-to-end"
        + (f" --xdsl-baseline <worktree of {series[5].split()[-1]}>" if len(series) > 5 else "")
        + "` (N-layer MLP Adam step, "
        "outputs reordered, `jax.jit(...).lower(...).as_text()`; whole processes, wall seconds, "
        f"cap {cap:.0f} s; the median of {reps} interleaved runs of "
        + ", ".join(REPEATED) + " (their ratios: the median of the per-round ratios), "
        "one run of the others"
        + f", on a shared {os.cpu_count()}-core machine, load average "
        f"at the end {', '.join(f'{x:.1f}' for x in os.getloadavg())}).",
        "",
        "| layers | ops | MB | " + " | ".join(series) + " | jaxlib path / reference | "
        "walk floor / reference | "
        + ("xDSL path / baseline | " if len(series) > 5 else "")
        + "jaxlib path's own timings (s) | peak RSS MiB (ref / jaxlib path / xDSL "
        "path) |",
        "|---:|---:|---:|" + "---:|" * len(series) + "---:|---:|"
        + ("---:|" if len(series) > 5 else "") + "---|---|",
    ]
    for n, ops, cells, mb in rows:
        fmt = [f"{c.seconds:.2f}" if c.seconds is not None else (c.note or "-") for c in cells]
        r = _ratio(cells[1], cells[0])
        ratio = f"{r:.2f}x" if r is not None else "-"
        r = _ratio(cells[4], cells[0]) if len(cells) > 4 else None
        floor_ratio = f"{r:.2f}x" if r is not None else "-"
        baseline_ratio = ""
        if len(series) > 5:
            ours, base = cells[2].seconds, cells[5].seconds
            baseline_ratio = f" {ours / base:.2f}x |" if ours and base else " - |"
        d = cells[1].detail
        phases = ", ".join(f"{k} {d[k]:.2f}" for k in ("parse", "read", "model", "plan",
                                                        "print", "wait") if k in d) or "-"
        rss = " / ".join(f"{c.rss_mib:.0f}" if c.rss_mib else "-" for c in cells[:3])
        lines.append(f"| {n} | {ops} | {mb:.1f} | " + " | ".join(fmt)
                     + f" | {ratio} | {floor_ratio} |{baseline_ratio} {phases} | {rss} |")
    text = "\n".join(lines) + "\n"
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "pass_scaling.md").write_text(text)
    chart(rows, series)
    return text


def chart(rows: list[tuple[int, int, list[Timed], float | None]], series: Sequence[str]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for i, name in enumerate(series):
        pts = [(ops, cells[i].seconds) for _, ops, cells, _ in rows
               if cells[i].seconds is not None]
        if pts:
            ax.loglog([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
    ax.set_xlabel("ops in the module")
    ax.set_ylabel("seconds (wall)")
    ax.set_title("MLP Adam step: jax-donate-opt and the parsers")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(RESULTS / "pass_scaling.png", dpi=120)


DEFAULT_LAYERS = [15, 145, 1450, 14500]

DRIVER_WITHOUT_PRINT_AHEAD = """
import sys
from jax_use_donated.opt import driver, print_ahead
print_ahead.MIN_BYTES = 1 << 62
sys.argv[0] = "jax-donate-opt"
driver.console_main()
"""
"""``jax-donate-opt`` with the print in a forked child switched off."""


def print_ahead_ab(layers: Sequence[int], reps: int, cap: float) -> str:
    """Median wall seconds of the jaxlib path with and without printing ahead, alternating."""
    import statistics

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from benchmarks.jax_modules import count_ops, train_step_text

    tool = str(Path(sys.executable).with_name("jax-donate-opt"))
    rows: list[str] = []
    for n in layers:
        path = train_step_text(n)
        ops = count_ops(path.read_text())
        args = [str(path), "-p", "jax-plan-donation", "--path=jaxlib", "-o", os.devnull]
        runs: dict[str, list[float]] = {"on": [], "off": []}
        for _ in range(reps):
            for mode, cmd in (("on", [tool, *args]),
                              ("off", [sys.executable, "-c", DRIVER_WITHOUT_PRINT_AHEAD, *args])):
                timed = timed_process(cmd, cap)
                if timed.seconds is not None:
                    runs[mode].append(timed.seconds)
        on, off = runs["on"], runs["off"]
        if not on or not off:
            rows.append(f"| {n} | {ops} | - | - | - |")
            continue
        mon, moff = statistics.median(on), statistics.median(off)
        rows.append(f"| {n} | {ops} | {mon:.2f} ({min(on):.2f}-{max(on):.2f}) | "
                    f"{moff:.2f} ({min(off):.2f}-{max(off):.2f}) | {mon / moff:.2f} |")
        print(rows[-1], flush=True)
    text = "\n".join([
        "# jax-donate-opt jaxlib path: printing ahead in a forked child, on and off",
        "",
        f"Command: `python benchmarks/pass_scaling.py --print-ahead --layers "
        f"{' '.join(map(str, layers))} --reps {reps}` (N-layer MLP Adam step as in "
        "`pass_scaling.md`; whole processes, wall seconds, the two commands alternating; "
        f"{os.cpu_count()}-core machine, load average at the end "
        f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}).",
        "",
        "| layers | ops | on: median (min-max) s | off: median (min-max) s | on / off |",
        "|---:|---:|---:|---:|---:|",
        *rows,
    ]) + "\n"
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "print_ahead.md").write_text(text)
    return text


def _timed_plan(fn: Any, ordering: Ordering) -> tuple[float, Any]:
    gc.collect()
    start = time.perf_counter()
    plan = plan_donation(fn, ordering)
    return time.perf_counter() - start, plan


def region_planning(layers: Sequence[int], exact_up_to: int) -> str:
    """The ``--region`` table: per layer count, planning seconds under each ordering (the
    same model), the region plan's rounds and pairs, and the ratios."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from benchmarks.jax_modules import train_step_text
    from jax_use_donated.adapters.jaxlib_ir import ModuleAdapter
    from jax_use_donated.analysis import plan as plan_module
    from jax_use_donated.opt import jaxlib_path

    lines = [f"{'layers':>6} {'ops':>7} {'donors':>6} {'xla-cpu s':>9} {'region s':>9} "
             f"{'rounds':>6} {'pairs':>5} {'uncapped s':>10} {'rounds':>6} {'pairs':>5} "
             f"{'uncapped/region':>15}"]
    ctx = jaxlib_path.make_context()
    for n in layers:
        module = jaxlib_path.parse(train_step_text(n).read_bytes(), ctx=ctx)
        func = next(iter(jaxlib_path.functions_with_donors(module)))
        fn = ModuleAdapter(module.operation).build(func)

        dataflow_s, _ = _timed_plan(fn, "xla-cpu")
        region_s, region = _timed_plan(fn, "xla-cpu-region")
        line = (f"{n:>6} {len(fn.ops):>7} {len(fn.donors):>6} {dataflow_s:>9.3f} "
                f"{region_s:>9.3f} {region.rounds:>6} {len(region.pairs):>5}")
        if n <= exact_up_to:
            cap = plan_module.EXACT_ROUNDS
            plan_module.EXACT_ROUNDS = 10**9
            try:
                exact_s, exact = _timed_plan(fn, "xla-cpu-region")
            finally:
                plan_module.EXACT_ROUNDS = cap
            line += (f" {exact_s:>10.3f} {exact.rounds:>6} {len(exact.pairs):>5} "
                     f"{exact_s / region_s:>14.1f}x")
        lines.append(line)
    table = "\n".join(lines)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "region_planning.md").write_text(
        "# Planning under the region ordering\n\n"
        f"Command: `python benchmarks/pass_scaling.py --region --layers "
        f"{' '.join(map(str, layers))} --exact-up-to {exact_up_to}` (the N-layer Adam MLP step "
        "of `benchmarks/jax_modules.py`, outputs `(v, m, params, loss)`; the jaxlib model, "
        "ops after CSE; planner seconds, one run each on a shared "
        f"{os.cpu_count()}-core machine; \"uncapped\": the rounds of re-matching left to run, "
        "no greedy completion).\n\n```\n" + table + "\n```\n")
    return table


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 50000])
    parser.add_argument("--profile", action="store_true", help="cProfile the pass")
    parser.add_argument("--end-to-end", action="store_true",
                        help="whole processes on real JAX text (see the module docstring)")
    parser.add_argument("--layers", type=int, nargs="+", default=DEFAULT_LAYERS)
    parser.add_argument("--cap", type=float, default=120.0,
                        help="seconds per measurement at most")
    parser.add_argument("--xdsl-baseline", type=Path, default=None,
                        help="--end-to-end: also run the xDSL path of this checkout")
    parser.add_argument("--jaxlib-baseline", type=Path, default=None,
                        help="--end-to-end: only the jaxlib path, against this checkout's "
                        "(A/B, results/jaxlib_path_ab.md)")
    parser.add_argument("--baseline-python", default=None,
                        help="--jaxlib-baseline: the interpreter to run the baseline with "
                        "(benchmarks/baseline_venv.sh makes one)")
    parser.add_argument("--print-ahead", action="store_true",
                        help="the jaxlib path with and without its print in a forked child")
    parser.add_argument("--reps", type=int, default=None,
                        help="--print-ahead: runs of each (default 7); --end-to-end: runs of "
                        "the fast series (default 3)")
    parser.add_argument("--region", action="store_true",
                        help="planner time under the region ordering (module docstring)")
    parser.add_argument("--exact-up-to", type=int, default=60,
                        help="--region: layers up to which the rounds also run uncapped")
    args = parser.parse_args(argv)
    if args.region:
        print(region_planning(args.layers if args.layers != DEFAULT_LAYERS else [15, 30, 60, 145],
                              args.exact_up_to))
        return
    if args.print_ahead:
        print(print_ahead_ab(args.layers if args.layers != DEFAULT_LAYERS else [1450, 14500],
                             args.reps or 7, args.cap))
        return
    if args.end_to_end and args.jaxlib_baseline is not None:
        print(jaxlib_ab(args.layers if args.layers != DEFAULT_LAYERS else [1450],
                        args.jaxlib_baseline, args.reps or 11, args.cap,
                        args.baseline_python))
        return
    if args.end_to_end:
        print(end_to_end(args.layers, args.cap, args.xdsl_baseline,
                         args.reps or 3))
        return
    ctx = JaxDonateOptMain(args=[]).ctx
    measure(ctx, 200, False)  # warm up: load dialects, fill caches of the parser
    rows = [measure(ctx, n, args.profile) for n in args.sizes]
    print(f"{'ops':>8} {'donors':>7} {'parse s':>9} {'pass s':>8} {'pass/parse':>11} "
          f"{'parse ops/s':>12} {'pass us/op':>11} {'model us/op':>12} {'plan us/op':>11}")
    for ops, donors, parse_s, pass_s, model_s, plan_s in rows:
        print(f"{ops:>8} {donors:>7} {parse_s:>9.3f} {pass_s:>8.3f} {pass_s / parse_s:>10.1%} "
              f"{ops / parse_s:>12.0f} {1e6 * pass_s / ops:>11.2f} {1e6 * model_s / ops:>12.2f} "
              f"{1e6 * plan_s / ops:>11.2f}")
    if len(rows) > 1:
        first, last = rows[0], rows[-1]
        growth = (last[3] / last[0]) / (first[3] / first[0])
        print(f"pass time per op, largest vs smallest module: {growth:.2f}x (1.0 = linear)")
        model_growth = (last[4] / last[0]) / (first[4] / first[0])
        plan_growth = (last[5] / last[0]) / (first[5] / first[0])
        print(f"  of which model building (adapter): {model_growth:.2f}x, "
              f"planning (core): {plan_growth:.2f}x")


if __name__ == "__main__":
    main()
