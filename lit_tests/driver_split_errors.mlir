// F7: --split-input-file reports every malformed chunk (as mlir-opt does), prints the good
// ones, and fails at the end; parse errors are located at their line in this file.
// RUN: not jax-donate-opt %s --split-input-file -p jax-plan-donation 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=ERR < %t.err

// CHECK-LABEL: func.func public @good
// CHECK-SAME:    tf.aliasing_output = 0 : i32
// CHECK:       // -----
// CHECK-NEXT:  // -----
// CHECK-NEXT:  // -----
// CHECK-NEXT:  // -----
// CHECK-NEXT:  builtin.module
// CHECK-LABEL: func.func public @also_good
// CHECK:       // -----
// CHECK-NOT:   @bad

// ERR:      {{.*}}driver_split_errors.mlir: error: argument %arg0: 'jax.buffer_donor' must be a boolean (true or false), got "yes"
// ERR-NEXT: {{.*}}driver_split_errors.mlir:33:39: error: Expected shape type.
// ERR:      {{.*}}driver_split_errors.mlir:37:3: error: Operation mystery.op is not registered
// ERR:      {{.*}}driver_split_errors.mlir: error: '@nowhere' could not be found in symbol table
// ERR-NOT:  error:

func.func public @good(%arg0: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
  %0 = stablehlo.negate %arg0 : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// -----
func.func public @bad_donor(%arg0: tensor<4xf32> {jax.buffer_donor = "yes"}) -> tensor<4xf32> {
  func.return %arg0 : tensor<4xf32>
}
// -----
func.func public @bad_syntax(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.abs %arg0 : tensor<4xf3
}
// -----
func.func public @bad_op(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  mystery.op
}
// -----
func.func public @also_good(%arg0: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
  %0 = stablehlo.abs %arg0 : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// -----
func.func public @bad_callee(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @nowhere(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
