// Text exported without debug_info=True: rows name the argument by its number alone (not
// `%arg1 (%arg1)`), and the report says how to export the names and source lines, once.
// The same bytes from the jaxlib path and the xDSL path.
//
// RUN: jax-donate-opt %s -p jax-plan-donation --donation-report -o /dev/null 2>&1 | filecheck %s
// RUN: jax-donate-opt %s -p jax-plan-donation --donation-report --path=xdsl -o /dev/null 2>&1 | filecheck %s
// RUN: jax-donate-opt %s -p jax-plan-donation --donation-report --split-input-file -o /dev/null 2>&1 | filecheck %s --check-prefix=SPLIT

// CHECK:      donation_report_no_debug_info.mlir: warning: donated argument (%arg1: tensor<4xf32>) is not reused: every result of its type is written before its last read; result 1 is produced by stablehlo.negate while stablehlo.abs still reads it
// CHECK-LABEL: donation report for @main: 1/2 donors reused without a copy, 16 B of 32 B
// CHECK-NEXT:    ordering: XLA's default copy insertion (a donor's other reads must feed the write)
// CHECK-NEXT:    jax.jit's pairing: 2/2 donors, 32 B, 1 without a copy (16 B): 1 overwrites a buffer still read, which XLA copies
// CHECK-NEXT:  argument  type           bytes  jax.jit          planned   reason
// CHECK-NEXT:  %arg0     tensor<4xf32>  16 B   result 0         result 0  paired
// CHECK-NEXT:  %arg1     tensor<4xf32>  16 B   result 1 (copy)  -         read-after-write
// CHECK-NEXT:  1 donor not reused: the warning above says why
// CHECK-NEXT:  hint: these numbers are for XLA's default copy insertion; XLA:CPU with region analysis (jud.jit's default on one CPU device) runs independent reads before a write and may reuse more donors: -p 'jax-plan-donation{ordering=xla-cpu-region}'
// CHECK-NEXT:  hint: arguments without names or source lines: export the text with jax.jit(f).lower(...).as_text(debug_info=True) for pytree paths and the Python line of each read
// CHECK-NOT:   {{.}}

// One report per chunk (xDSL path), the second chunk without donors.
// SPLIT-LABEL: donation report for @main: 1/2 donors reused without a copy
// SPLIT:       hint: arguments without names or source lines
// SPLIT-NEXT:  donation report for {{.*}}donation_report_no_debug_info.mlir: nothing to report: no function has donated arguments (jax.buffer_donor or tf.aliasing_output; jax.jit marks none where it found no output for a donated argument)

module @jit_f {
  func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<4xf32> {tf.aliasing_output = 1 : i32}) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32>
    %1 = stablehlo.negate %arg1 : tensor<4xf32>
    %2 = stablehlo.abs %arg1 : tensor<4xf32>
    return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
}

// -----

module @jit_g {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.negate %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
