// Plain `xdsl-opt` finds this project's pass through the `xdsl.universe` entry point: the
// name jax-use-donated-arguments resolves to OUR pass (xDSL's upstream pass of that name has
// no `mode` option and never warns), and jax-verify-donation is available too.
// RUN: xdsl-opt --allow-unregistered-dialect %s -p 'jax-use-donated-arguments{mode=materialize}' 2>&1 | filecheck %s
// RUN: xdsl-opt --allow-unregistered-dialect %s -p jax-use-donated-arguments 2>&1 | filecheck %s --check-prefix=ALIAS
// RUN: xdsl-opt --allow-unregistered-dialect %s -p jax-verify-donation | filecheck %s --check-prefix=VERIFY
// RUN: xdsl-opt --allow-unregistered-dialect %s -p 'jax-use-donated-arguments{mode=materialize remove_matched_outputs=true}' 2>/dev/null | filecheck %s --check-prefix=UPSTREAM-SPELLING

// Warnings are MLIR-style on stderr, located at the input file where the IR has no location
// (universe.py installs this for xdsl-opt runs only; library users get DonationWarnings).
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

// VERIFY: func.func public @main(%{{.*}}: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %{{.*}}: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %{{.*}}: tensor<4xf32> {jax.buffer_donor = true})

// UPSTREAM-SPELLING: func.return %{{.*}} : tensor<4xi32>
func.func public @main(%a: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %b: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %u: tensor<4xf32> {jax.buffer_donor = true} loc("unused")) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi32>) {
  %0 = "stablehlo.multiply"(%b, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.add"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = "stablehlo.convert"(%1) : (tensor<4xf32>) -> tensor<4xi32>
  func.return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xi32>
}

// Plain xdsl-opt reads through our parser too: JAX's -inf constant survives (xDSL's own
// parser would print 4.28657869e+09).
// RUN: xdsl-opt --allow-unregistered-dialect %s | filecheck %s --check-prefix=HEX
// HEX: dense<{{0x[fF][fF]800000}}> : tensor<4xf32>
// HEX-NOT: e+09
func.func public @hex(%x: tensor<4xf32>) -> tensor<4xf32> {
  %cst = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<4xf32>}> : () -> tensor<4xf32>
  func.return %cst : tensor<4xf32>
}
