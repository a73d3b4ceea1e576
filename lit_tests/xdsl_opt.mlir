// Plain `xdsl-opt` finds this project's passes through the `xdsl.universe` entry point under
// their own names: jax-plan-donation and jax-verify-donation.
// RUN: xdsl-opt -f jax --allow-unregistered-dialect %s -p 'jax-plan-donation{mode=materialize}' 2>&1 | filecheck %s
// RUN: xdsl-opt -f jax --allow-unregistered-dialect %s -p jax-plan-donation 2>&1 | filecheck %s --check-prefix=ALIAS
// RUN: xdsl-opt --allow-unregistered-dialect %s -p jax-plan-donation 2>&1 | filecheck %s --check-prefix=MLIR-FRONTEND
// RUN: xdsl-opt --allow-unregistered-dialect -p 'jax-plan-donation{report}' < %s 2>&1 | filecheck %s --check-prefix=STDIN
// RUN: xdsl-opt --allow-unregistered-dialect %s -p jax-verify-donation | filecheck %s --check-prefix=VERIFY
// RUN: xdsl-opt --allow-unregistered-dialect %s -p 'jax-plan-donation{mode=materialize remove_matched_outputs=true}' 2>/dev/null | filecheck %s --check-prefix=SNAKE

// jax-use-donated-arguments stays xDSL's own pass, in both drivers: no warnings, no `mode`
// option, JAX's pairing materialized as given (here: the multiply's result into %a).
// RUN: xdsl-opt --allow-unregistered-dialect %s -p jax-use-donated-arguments 2>&1 | filecheck %s --check-prefix=UPSTREAM
// RUN: jax-donate-opt %s -p jax-use-donated-arguments 2>&1 | filecheck %s --check-prefix=UPSTREAM
// RUN: not jax-donate-opt %s -p 'jax-use-donated-arguments{mode=materialize}' 2>&1 | filecheck %s --check-prefix=UPSTREAM-OPTIONS

// Warnings are MLIR-style on stderr, located at the input file where the IR has no location
// (the `jax` frontend records its name; after xDSL's `mlir` frontend it is read from
// xdsl-opt's command line). In xdsl-opt runs only: library users get DonationWarnings.
// CHECK: {{.*}}xdsl_opt.mlir: warning: donated argument 'unused' (%arg2: tensor<4xf32>) is not reused: every result it could host is taken by another donor
// CHECK-NOT: DonationWarning
// CHECK-LABEL: func.func public @main
// CHECK-SAME:    (%[[A:.*]]: tensor<4xf32> {bufferization.writable = true}, %[[B:.*]]: tensor<4xf32> {bufferization.writable = true}, %{{.*}}: tensor<4xf32> {bufferization.writable = false})
// CHECK:         bufferization.materialize_in_destination %{{.*}} in %[[B]]
// CHECK-NEXT:    bufferization.materialize_in_destination %{{.*}} in %[[A]]

// ALIAS: xdsl_opt.mlir: warning: donated argument 'unused'
// ALIAS-NOT: DonationWarning
// ALIAS-LABEL: func.func public @main
// ALIAS-SAME:    (%{{.*}}: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %{{.*}}: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %{{.*}}: tensor<4xf32>)

// MLIR-FRONTEND: {{.*}}xdsl_opt.mlir: warning: donated argument 'unused'

// From stdin the input is `stdin`, as xDSL names it; `report` prints the donation report.
// STDIN:      stdin: warning: donated argument 'unused'
// STDIN-LABEL: donation report for @main: 2/3 donors reused without a copy
// STDIN:      1 donor not reused: the warning above says why
// MLIR-FRONTEND-NOT: DonationWarning

// VERIFY: func.func public @main(%{{.*}}: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %{{.*}}: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %{{.*}}: tensor<4xf32> {jax.buffer_donor = true})

// SNAKE: func.return %{{.*}} : tensor<4xi32>

// UPSTREAM-NOT: warning
// UPSTREAM-LABEL: func.func public @main
// UPSTREAM-SAME:    (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %{{.*}}: tensor<4xf32> {jax.buffer_donor = true})
// UPSTREAM:         bufferization.materialize_in_destination %{{.*}} in %[[A]]
// UPSTREAM-NEXT:    bufferization.materialize_in_destination %{{.*}} in %[[B]]
// UPSTREAM-OPTIONS: jax-donate-opt: error: Provided arguments ["mode"] not found in expected arguments ["remove_matched_outputs"]

// (An exponential, not a cheap add: XLA would recompute a cheap producer inside the convert,
// which then reads %a after its result overwrote it; measured, that pair costs a copy.)
func.func public @main(%a: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %b: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %u: tensor<4xf32> {jax.buffer_donor = true} loc("unused")) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi32>) {
  %0 = "stablehlo.multiply"(%b, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.exponential"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "stablehlo.convert"(%1) : (tensor<4xf32>) -> tensor<4xi32>
  func.return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xi32>
}

// xDSL's own `mlir` frontend is unchanged by this package, bugs included: it reads JAX's -inf
// constant as the integer 4286578688 (docs/xdsl_bugs.md). Our `jax` frontend and target keep
// the bits, in xdsl-opt (`-f jax -t jax`) as in jax-donate-opt (its default).
// RUN: xdsl-opt --allow-unregistered-dialect %s | filecheck %s --check-prefix=XDSL-HEX
// RUN: xdsl-opt -f jax -t jax --allow-unregistered-dialect %s | filecheck %s --check-prefix=HEX
// RUN: jax-donate-opt %s | filecheck %s --check-prefix=HEX
// RUN: jax-donate-opt -f mlir -t mlir %s | filecheck %s --check-prefix=XDSL-HEX
// XDSL-HEX: dense<4.28657869E+9> : tensor<4xf32>
// HEX: dense<{{0x[fF][fF]800000}}> : tensor<4xf32>
// HEX-NOT: E+9
func.func public @hex(%x: tensor<4xf32>) -> tensor<4xf32> {
  %cst = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<4xf32>}> : () -> tensor<4xf32>
  func.return %cst : tensor<4xf32>
}
