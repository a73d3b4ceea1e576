// RUN: xdsl-opt --split-input-file --verify-diagnostics %s | filecheck %s
// Verifier diagnostics of the StableHLO dialect: each case names the op and the bad value.

func.func @add_shape(%a: tensor<4xf32>, %b: tensor<5xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : (tensor<4xf32>, tensor<5xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// CHECK: 'stablehlo.add' requires the same shape for all operands and results: operand #0 is 4 but operand #1 is 5

// -----

func.func @transpose_perm(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = stablehlo.transpose %a, dims = [0, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
// CHECK: 'stablehlo.transpose' permutation [0, 0] is not a permutation of 0..1

// -----

func.func @reshape_count(%a: tensor<2x3xf32>) -> tensor<5xf32> {
  %0 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}
// CHECK: 'stablehlo.reshape' operand has 6 elements but result has 5

// -----

func.func @bcast(%a: tensor<3xf32>) -> tensor<2x4xf32> {
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
// CHECK: 'stablehlo.broadcast_in_dim' operand dimension 0 of size 3 cannot broadcast to result dimension 1 of size 4

// -----

func.func @dot(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}
// CHECK: 'stablehlo.dot_general' contracting dimension sizes differ: lhs dim 1 is 3, rhs dim 0 is 4

// -----

func.func @slice(%a: tensor<4xf32>) -> tensor<2xf32> {
  %0 = stablehlo.slice %a [3:6] : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
// CHECK: 'stablehlo.slice' slice 3:6 is out of bounds for dimension 0 of size 4

// -----

func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<4x3xf32> {
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
// CHECK: 'stablehlo.concatenate' input #1 dimension 1 is 4, expected 3

// -----

func.func @cmp(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.compare LT, %a, %a, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// CHECK: 'stablehlo.compare' result must be a tensor of i1, got tensor<4xf32>

// -----

func.func @while_types(%a: tensor<i32>) -> tensor<i32> {
  %0 = stablehlo.while(%iterArg = %a) : tensor<i32>
  cond {
    %c = stablehlo.compare LT, %iterArg, %iterArg : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %f = stablehlo.convert %iterArg : (tensor<i32>) -> tensor<f32>
    stablehlo.return %iterArg : tensor<i32>
  }
  %1 = stablehlo.reduce(%a init: %a) across dimensions = [3] : (tensor<i32>, tensor<i32>) -> tensor<i32>
   reducer(%x: tensor<i32>, %y: tensor<i32>)  {
    stablehlo.return %x : tensor<i32>
  }
  return %1 : tensor<i32>
}
// CHECK: 'stablehlo.reduce' dimension 3 is out of range for input #0 of rank 0

// -----

func.func @if_branch(%p: tensor<i1>, %a: tensor<f32>, %b: tensor<i32>) -> tensor<f32> {
  %0 = "stablehlo.if"(%p) ({
    stablehlo.return %a : tensor<f32>
  }, {
    stablehlo.return %b : tensor<i32>
  }) : (tensor<i1>) -> tensor<f32>
  return %0 : tensor<f32>
}
// CHECK: 'stablehlo.if' branch #1 returns (tensor<i32>) but the op results are (tensor<f32>)

// -----

func.func @case_index(%i: tensor<i64>, %a: tensor<f32>) -> tensor<f32> {
  %0 = "stablehlo.case"(%i) ({
    stablehlo.return %a : tensor<f32>
  }) : (tensor<i64>) -> tensor<f32>
  return %0 : tensor<f32>
}
// CHECK: 'stablehlo.case' index must be tensor<i32>, got tensor<i64>

// -----

func.func @sort_comparator(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.sort"(%a) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%x: tensor<f32>):
    %c = stablehlo.compare LT, %x, %x : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// CHECK: 'stablehlo.sort' comparator must take 2 scalar arguments

// -----

func.func @alias(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @foo(%a) {output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 3, operand_tuple_indices = []>]} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// CHECK: 'stablehlo.custom_call' output_operand_alias operand_index 3 is out of range for 1 operands

