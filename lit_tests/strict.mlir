// strict=true: a donor that cannot be reused is an error, not a warning.
// RUN: jax-donate-opt %s --split-input-file --verify-diagnostics -p 'jax-plan-donation{strict=true}' | filecheck %s
// RUN: not jax-donate-opt %s -p 'jax-plan-donation{strict=true}' 2>&1 | filecheck %s --check-prefix=EXIT
// A bare boolean option means true, in both drivers:
// RUN: not jax-donate-opt %s -p 'jax-plan-donation{strict}' 2>&1 | filecheck %s --check-prefix=EXIT
// RUN: xdsl-opt -f jax %s --split-input-file --verify-diagnostics -p 'jax-plan-donation{strict}' | filecheck %s
// RUN: jax-donate-opt %s -p jax-plan-donation 2>&1 | filecheck %s --check-prefix=LAX

// CHECK: strict donation: 2 donated argument(s) of @main cannot be reused:
// CHECK-NEXT: donated argument 'idx' (%arg1: tensor<i32>) is not reused: no result has type tensor<i32>
// CHECK-NEXT: donated argument 'w' (%arg2: tensor<8xf32>) is not reused: every result it could host is taken by another donor (%arg0 hosts result 0); it is never read
// CHECK: "func.func"() <{sym_name = "main"
// CHECK-NEXT: ^^^^^^^^^^^
// EXIT: error: strict donation: 2 donated argument(s) of @main cannot be reused:
// EXIT-NOT: Traceback
// LAX-COUNT-2: warning: donated argument
// LAX: func.func public @main
func.func public @main(%x: tensor<8xf32> {jax.buffer_donor = true}, %i: tensor<i32> {jax.buffer_donor = true} loc("idx"), %w: tensor<8xf32> {jax.buffer_donor = true} loc("w")) -> tensor<8xf32> {
  %0 = "stablehlo.negate"(%x) : (tensor<8xf32>) -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}

// -----

// Every donor reused: strict mode is silent.
// CHECK-LABEL: func.func public @all_reused
// CHECK-SAME:    {tf.aliasing_output = 0 : i32}
func.func public @all_reused(%x: tensor<8xf32> {jax.buffer_donor = true}) -> tensor<8xf32> {
  %0 = "stablehlo.negate"(%x) : (tensor<8xf32>) -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}
