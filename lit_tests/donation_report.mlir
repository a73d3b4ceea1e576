// The donation report, read by a person: each thing said once (the warnings say why a donor is
// not reused, the report counts and compares), the ordering the numbers assume named in words
// with the way to XLA's region-analysis numbers, long on request (--verbose).
// The same bytes from the jaxlib path, the xDSL path, the pass's `report` option in
// jax-donate-opt and in plain xdsl-opt.
//
// RUN: jax-donate-opt %s -p jax-plan-donation --donation-report -o /dev/null 2>&1 | filecheck %s
// RUN: jax-donate-opt %s -p jax-plan-donation --donation-report=text --path=xdsl -o /dev/null 2>&1 | filecheck %s
// RUN: jax-donate-opt %s -p 'jax-plan-donation{report}' -o /dev/null 2>&1 | filecheck %s
// RUN: xdsl-opt -f jax -t jax %s -p 'jax-plan-donation{report=true}' -o /dev/null 2>&1 | filecheck %s
// RUN: jax-donate-opt %s -p jax-plan-donation --donation-report --verbose -o /dev/null 2>&1 | filecheck %s --check-prefix=LONG
// RUN: xdsl-opt -f jax -t jax %s -p 'jax-plan-donation{report=verbose}' -o /dev/null 2>&1 | filecheck %s --check-prefix=LONG
// RUN: jax-donate-opt %s -p 'jax-plan-donation{ordering=xla-cpu-region}' --donation-report -o /dev/null 2>&1 | filecheck %s --check-prefix=REGION
// RUN: jax-donate-opt %s -p 'jax-plan-donation{mode=materialize}' --donation-report -o /dev/null 2>&1 | filecheck %s --check-prefix=PROGRAM
// RUN: jax-donate-opt %s -p jax-plan-donation --donation-report=json -o /dev/null 2>&1 | filecheck %s --check-prefix=JSON
// RUN: jax-donate-opt %s -p jax-plan-donation --donation-report=json=%t.json -o /dev/null 2>&1 | filecheck %s --check-prefix=TO-FILE
// RUN: filecheck %s --check-prefix=JSON < %t.json
// RUN: jax-donate-opt %s --print-debuginfo -p 'jax-plan-donation{keep-unpaired-donors}' | jax-donate-opt -p jax-verify-donation --donation-report -o /dev/null 2>&1 | filecheck %s --check-prefix=VERIFY
// RUN: jax-donate-opt %s --donation-report -o /dev/null 2>&1 | filecheck %s --check-prefix=NO-PASS
// RUN: not jax-donate-opt %s -p jax-plan-donation --donation-report=html 2>&1 | filecheck %s --check-prefix=HTML
// RUN: not jax-donate-opt %s -p jax-plan-donation --donation-report=yaml 2>&1 | filecheck %s --check-prefix=UNKNOWN

// Each warning once, then the report, which does not repeat them.
// CHECK:      step.py:6:8: warning: donated argument 'buf' (%arg2: tensor<4xf32>) is not reused: every result of its type is written before its last read; result 2 is produced by stablehlo.negate at step.py:5:8 while stablehlo.abs at step.py:6:8 still reads it
// CHECK-NEXT: donation_report.mlir: warning: donated argument 'count' (%arg3: tensor<i32>) is not reused: no result has type tensor<i32>; it is never read
// CHECK-LABEL: donation report for @main: 2/4 donors reused without a copy, 32 B of 52 B
// CHECK-NEXT:    ordering: XLA's default copy insertion (a donor's other reads must feed the write)
// CHECK-NEXT:    jax.jit's pairing: 3/4 donors, 48 B, 0 without a copy (0 B): 3 overwrite a buffer still read, which XLA copies
// CHECK-NEXT:  argument           type           bytes  jax.jit          planned   reason
// CHECK-NEXT:  params (%arg0)     tensor<4xf32>  16 B   result 0 (copy)  result 1  paired
// CHECK-NEXT:  opt_state (%arg1)  tensor<4xf32>  16 B   result 1 (copy)  result 0  paired
// CHECK-NEXT:  buf (%arg2)        tensor<4xf32>  16 B   result 2 (copy)  -         read-after-write
// CHECK-NEXT:  count (%arg3)      tensor<i32>    4 B    -                -         no-compatible-result (unused)
// CHECK-NEXT:  2 donors not reused: the warnings above say why
// CHECK-NEXT:  hint: these numbers are for XLA's default copy insertion; XLA:CPU with region analysis (jud.jit's default on one CPU device) runs independent reads before a write and may reuse more donors: -p 'jax-plan-donation{ordering=xla-cpu-region}'
// CHECK-NOT:   {{.}}

// --verbose (report=verbose in xdsl-opt): the same report, then what its words mean.
// LONG-LABEL: donation report for @main: 2/4 donors reused without a copy, 32 B of 52 B
// LONG:       2 donors not reused: the warnings above say why
// LONG-NEXT:  what the report says:
// LONG-NEXT:    ordering xla-cpu  XLA's default copy insertion (XLA:CPU; verified against its executables): a
// LONG-NEXT:                      donor hosts a result only if every other read of the donor is a data-dependence
// LONG:         jax.jit           the result jax.jit pairs the argument with: the input's tf.aliasing_output, else
// LONG:         planned           the result this plan gives the argument: written only after every other read of
// LONG:         reason            paired; read-after-write: every result it could host is written while it is
// LONG:         donors            the arguments the text marks as donated (tf.aliasing_output, jax.buffer_donor);
// LONG-NEXT:                      an argument jax.jit was asked to donate but found no output for carries no mark
// LONG-NEXT:                      in the text (jax.jit warned 'Some donated buffers were not usable') and is not
// LONG-NEXT:                      counted here; jud.jit plans while JAX lowers, and sees it
// LONG-NEXT:  hint: these numbers are for XLA's default copy insertion;

// With region analysis every f32 donor is reused, and no hint is left to give.
// REGION:      warning: donated argument 'count'
// REGION-LABEL: donation report for @main: 3/4 donors reused without a copy, 48 B of 52 B
// REGION-NEXT:   ordering: XLA:CPU with region analysis (independent reads run before the write)
// REGION-NEXT:   jax.jit's pairing: 3/4 donors, 48 B
// REGION-NEXT: argument           type           bytes  jax.jit   planned   reason
// REGION-NEXT: params (%arg0)     tensor<4xf32>  16 B   result 0  result 0  paired
// REGION-NEXT: opt_state (%arg1)  tensor<4xf32>  16 B   result 1  result 3  paired
// REGION-NEXT: buf (%arg2)        tensor<4xf32>  16 B   result 2  result 2  paired
// REGION-NEXT: count (%arg3)      tensor<i32>    4 B    -         -         no-compatible-result (unused)
// REGION-NEXT: 1 donor not reused: the warning above says why
// REGION-NOT:  hint

// In block order (mode=materialize, for bufferization) copies are not XLA's.
// PROGRAM-LABEL: donation report for @main: 3/4 donors reused without a copy, 48 B of 52 B
// PROGRAM-NEXT:    ordering: block order (as after bufferization)
// PROGRAM-NEXT:    jax.jit's pairing: 3/4 donors, 48 B, 1 without a copy (16 B): 2 overwrite a buffer still read, which need a copy
// PROGRAM-NOT:   hint

// As JSON, one versioned document per line: per function the totals, per donor the facts.
// JSON:      {"schema": "jax-use-donated/donation-report", "version": 1, "input": "{{.*}}donation_report.mlir", "details": [{"function": "main",
// JSON-SAME: "ordering": {"name": "xla-cpu", "kind": "dataflow", "verified": true,
// JSON-SAME: "donors": 4, "reused": 2, "donated_bytes": 52, "reused_bytes": 32, "jax_pairing": {"donors": 3, "bytes": 48, "copied": [0, 1, 2]}, "warned": true,
// JSON-SAME: {"index": 2, "name": "buf", "location": null, "type": "tensor<4xf32>", "bytes": 16, "jax_result": 2, "jax_copied": true, "result": null, "reason": "read-after-write", "unused": false,
// JSON-SAME: "blockers": [{"kind": "read-after-write", "result": 2, "writer": {"op": "stablehlo.negate", "location": "step.py:5:8"}, "reader": {"op": "stablehlo.abs", "location": "step.py:6:8"}}]}
// JSON-SAME: "hints": [{"id": "region-ordering", "text": "these numbers are for XLA's default copy insertion;

// The report goes to the file; stderr keeps the warnings only.
// TO-FILE:     warning: donated argument 'buf'
// TO-FILE-NEXT: warning: donated argument 'count'{{.*}}
// TO-FILE-NOT: {{.}}

// jax-verify-donation warns of nothing: its report says why each donor is not reused.
// VERIFY-LABEL: donation report for @main: 2/4 donors reused without a copy, 32 B of 52 B
// VERIFY:       buf (%arg2)        tensor<4xf32>  16 B   result 2  -         read-after-write
// VERIFY:         donated argument 'buf' (%arg2: tensor<4xf32>) is not reused: every result of its type is written before its last read
// VERIFY-NEXT:    donated argument 'count' (%arg3: tensor<i32>) is not reused: no result has type tensor<i32>; it is never read
// VERIFY-NOT:   not reused: the warning

// NO-PASS: donation report: nothing to report: the pipeline has no donation pass (jax-plan-donation, jax-verify-donation, jax-reuse-donated-destinations)
// HTML: jax-donate-opt: error: argument --donation-report: 'html' writes a page to a file: name it, e.g. html=report.html
// UNKNOWN: jax-donate-opt: error: argument --donation-report: unknown report format 'yaml'; expected text, json (optionally =FILE, e.g. json=report.json)

module @jit_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32} loc("params"), %arg1: tensor<4xf32> {tf.aliasing_output = 1 : i32} loc("opt_state"), %arg2: tensor<4xf32> {tf.aliasing_output = 2 : i32} loc("buf"), %arg3: tensor<i32> {jax.buffer_donor = true} loc("count")) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
    %0 = stablehlo.multiply %arg1, %arg1 : tensor<4xf32> loc("step.py":3:8)
    %1 = stablehlo.add %arg0, %arg0 : tensor<4xf32> loc("step.py":4:8)
    %2 = stablehlo.negate %arg2 : tensor<4xf32> loc("step.py":5:8)
    %3 = stablehlo.abs %arg2 : tensor<4xf32> loc("step.py":6:8)
    return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
}
