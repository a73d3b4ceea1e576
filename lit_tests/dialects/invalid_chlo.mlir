// RUN: xdsl-opt --split-input-file --verify-diagnostics --parsing-diagnostics %s | filecheck %s
// Verifier and parser diagnostics of the CHLO dialect: each names the op and what is wrong.

func.func @erf_int(%a: tensor<4xi32>) -> tensor<4xi32> {
  %0 = chlo.erf %a : tensor<4xi32> -> tensor<4xi32>
  func.return %0 : tensor<4xi32>
}
// CHECK: 'chlo.erf' operand must be a tensor of float values, got tensor<4xi32>

// -----

func.func @unary_shape(%a: tensor<4xf32>) -> tensor<5xf32> {
  %0 = chlo.lgamma %a : tensor<4xf32> -> tensor<5xf32>
  func.return %0 : tensor<5xf32>
}
// CHECK: 'chlo.lgamma' requires the same shape for all operands and results

// -----

func.func @is_inf_result(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = chlo.is_inf %a : tensor<4xf32> -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// CHECK: 'chlo.is_inf' result must be a tensor of i1, got tensor<4xf32>

// -----

func.func @broadcast_mismatch(%a: tensor<4x8xf32>, %b: tensor<3xf32>) -> tensor<4x8xf32> {
  %0 = chlo.broadcast_add %a, %b : (tensor<4x8xf32>, tensor<3xf32>) -> tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}
// CHECK: 'chlo.broadcast_add' cannot broadcast dimensions 8 and 3

// -----

func.func @broadcast_dims(%a: tensor<4x8xf32>, %b: tensor<4xf32>) -> tensor<4x8xf32> {
  %0 = chlo.broadcast_multiply %a, %b {broadcast_dimensions = array<i64: 0, 1>} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}
// CHECK: 'chlo.broadcast_multiply' broadcast_dimensions size (2) does not match the lower rank (1)

// -----

func.func @broadcast_result(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<8x8xf32> {
  %0 = chlo.broadcast_subtract %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
  func.return %0 : tensor<8x8xf32>
}
// CHECK: 'chlo.broadcast_subtract' result shape [8, 8] does not match the broadcast shape [4, 8]

// -----

func.func @compare_result(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = chlo.broadcast_compare %a, %b {comparison_direction = #chlo<comparison_direction LT>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// CHECK: 'chlo.broadcast_compare' result must be a tensor of i1, got tensor<4xf32>

// -----

func.func @compare_direction(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  %0 = chlo.broadcast_compare %a, %b {comparison_direction = #chlo<comparison_direction LESS>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  func.return %0 : tensor<4xi1>
}
// CHECK: Expected `EQ`, `NE`, `GE`, `GT`, `LE`, or `LT`.

// -----

func.func @top_k_too_big(%a: tensor<4x2xf32>) -> (tensor<4x3xf32>, tensor<4x3xi32>) {
  %values, %indices = chlo.top_k(%a, k = 3) : tensor<4x2xf32> -> (tensor<4x3xf32>, tensor<4x3xi32>)
  func.return %values, %indices : tensor<4x3xf32>, tensor<4x3xi32>
}
// CHECK: 'chlo.top_k' operand's last dimension (2) is smaller than k = 3

// -----

func.func @top_k_shape(%a: tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x3xi32>) {
  %values, %indices = chlo.top_k(%a, k = 3) : tensor<4x8xf32> -> (tensor<4x2xf32>, tensor<4x3xi32>)
  func.return %values, %indices : tensor<4x2xf32>, tensor<4x3xi32>
}
// CHECK: 'chlo.top_k' values shape [4, 2] should be [4, 3]

// -----

func.func @top_k_indices(%a: tensor<8xf32>) -> (tensor<3xf32>, tensor<3xi64>) {
  %values, %indices = chlo.top_k(%a, k = 3) : tensor<8xf32> -> (tensor<3xf32>, tensor<3xi64>)
  func.return %values, %indices : tensor<3xf32>, tensor<3xi64>
}
// CHECK: 'chlo.top_k' indices must be i32, got i64

// -----

func.func @constant_type() -> tensor<3xf32> {
  %0 = "chlo.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
// CHECK: 'chlo.constant' result type tensor<3xf32> differs from the value's tensor<2xf32>

// -----

func.func @constant_like_type(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "chlo.constant_like"(%a) <{value = 1 : i32}> : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// CHECK: 'chlo.constant_like' value type i32 differs from the result element type f32

// -----

func.func @ragged_dot(%l: tensor<11x5xf32>, %r: tensor<3x5x7xf32>, %g: tensor<3xi32>) -> tensor<11x7xf32> {
  %0 = "chlo.ragged_dot"(%l, %r, %g) <{ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [], rhs_group_dimensions = [0]>}> : (tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<3xi32>) -> tensor<11x7xf32>
  func.return %0 : tensor<11x7xf32>
}
// CHECK: 'chlo.ragged_dot' needs exactly one lhs ragged dimension

// -----

func.func @ragged_dot_field(%l: tensor<11x5xf32>) {
  "test.op"() {d = #chlo.ragged_dot<lhs_batch = [0]>} : () -> ()
  func.return
}
// CHECK: unknown #chlo.ragged_dot field 'lhs_batch'
