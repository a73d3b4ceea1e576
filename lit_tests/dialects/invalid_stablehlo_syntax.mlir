// RUN: xdsl-opt --split-input-file --parsing-diagnostics %s | filecheck %s
// Syntax errors in StableHLO's custom formats are reported at the offending token.

func.func @bad_conv_dims(%a: tensor<1x4x4x1xf32>) -> () {
  %0 = stablehlo.convolution(%a, %a) dim_numbers = [b, 0, 0, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<1x4x4x1xf32>) -> tensor<1x4x4x1xf32>
  return
}
// CHECK: convolution dimension numbers: unexpected or repeated '0', expected 'b', 'f' and spatial indices

// -----

func.func @bad_precision(%a: tensor<4xf32>) -> () {
  %0 = stablehlo.reduce_precision %a, format = e5x10 : tensor<4xf32>
  return
}
// CHECK: expected a format like e5m10, got 'e5x10'

// -----

func.func @bad_dot(%a: tensor<4x4xf32>) -> () {
  %0 = stablehlo.dot_general %a, %a, contracting = [1] x [0] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return
}
// CHECK: stablehlo.dot_general: unexpected 'contracting', expected batching_dims, contracting_dims, precision or algorithm

// -----

func.func @bad_compare(%a: tensor<4xf32>) -> () {
  %0 = stablehlo.compare GTE, %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return
}
// CHECK: Expected `EQ`, `NE`, `GE`, `GT`, `LE`, or `LT`

// -----

func.func @bad_gather(%a: tensor<4xf32>, %i: tensor<1xi32>) -> () {
  %0 = "stablehlo.gather"(%a, %i) <{dimension_numbers = #stablehlo.gather<offset_dim = [0]>, slice_sizes = array<i64: 1>}> : (tensor<4xf32>, tensor<1xi32>) -> tensor<1xf32>
  return
}
// CHECK: unknown field 'offset_dim' in #stablehlo.gather; expected one of offset_dims, collapsed_slice_dims, operand_batching_dims, start_indices_batching_dims, start_index_map, index_vector_dim

// -----

func.func @bad_constant_range() -> () {
  %0 = stablehlo.constant dense<300> : tensor<i8>
  return
}
// CHECK: integer constant 300 out of range for i8

// -----

func.func @bad_constant_shape() -> () {
  %0 = stablehlo.constant dense<[[1, 2], [3]]> : tensor<2x2xi32>
  return
}
// CHECK: dense literal does not match the shape of tensor<2x2xi32>

// -----

func.func @bad_constant_element() -> () {
  %0 = stablehlo.constant dense<1.5> : tensor<2xi32>
  return
}
// CHECK: invalid element in dense literal for tensor<2xi32>

// -----

func.func @too_many_operands(%x: tensor<4xf32>) -> () {
  %0 = stablehlo.reshape %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<2x2xf32>
  return
}
// CHECK: Expected ':'

// -----

func.func @too_few_operands(%x: tensor<4xf32>) -> () {
  %0 = stablehlo.dynamic_update_slice %x : (tensor<4xf32>) -> tensor<4xf32>
  return
}
// CHECK: stablehlo.dynamic_update_slice: expected at least 2 operands, got 1

// -----

func.func @too_many_results(%x: tensor<4xf32>) -> () {
  %0:2 = stablehlo.reshape %x : (tensor<4xf32>) -> (tensor<2x2xf32>, tensor<4xf32>)
  return
}
// CHECK: stablehlo.reshape: expected 1 result, got 2
