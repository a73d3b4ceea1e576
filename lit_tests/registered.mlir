// Registered (pretty-form) StableHLO next to unregistered ops: with the StableHLO dialect
// installed, unregistered ops need --allow-unregistered-dialect and are treated conservatively.
// JAX's pretty form (registered StableHLO ops) and an unknown op, treated conservatively: it
// reads %b and may not write in place, so %b hosts nothing; %a hosts the add.
// RUN: jax-donate-opt %s --allow-unregistered-dialect -p jax-plan-donation 2>/dev/null | filecheck %s
// RUN: jax-donate-opt %s --allow-unregistered-dialect -p jax-plan-donation 2>&1 >/dev/null | filecheck %s --check-prefix=UNKNOWN
// RUN: not jax-donate-opt %s -p jax-plan-donation 2>&1 | filecheck %s --check-prefix=UNREGISTERED
// UNKNOWN: warning: donated argument (%arg1: tensor<4xf32>) is not reused: every result of its type is written before its last read; result 1 is produced by mystery.kernel, which reads it and cannot write in place
// UNREGISTERED: Operation mystery.kernel is not registered
// CHECK-LABEL: func.func public @pretty_and_unknown
// CHECK-SAME:    (%[[A:.*]]: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %[[B:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[S:.*]] = stablehlo.add %[[A]], %[[A]] : tensor<4xf32>
// CHECK-NEXT:    %{{.*}} = "mystery.kernel"(%[[B]])
func.func public @pretty_and_unknown(%a: tensor<4xf32> {jax.buffer_donor = true}, %b: tensor<4xf32> {jax.buffer_donor = true}) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  %1 = "mystery.kernel"(%b) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
