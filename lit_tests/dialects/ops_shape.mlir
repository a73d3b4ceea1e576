// RUN: xdsl-opt --split-input-file %s | xdsl-opt --split-input-file | filecheck %s
// RUN: jax-donate-opt --split-input-file --print-op-generic %s | jax-donate-opt --split-input-file | filecheck %s
// Round trip of the shape ops in pretty and generic form. Inputs and CHECK lines are
// jaxlib's own printing (tests/test_stablehlo_dialect.py re-checks them against jaxlib).

func.func @shape(%x: tensor<4x4xf32>, %s: tensor<f32>, %i: tensor<i32>, %d: tensor<?x4xf32>, %sh: tensor<2xi64>, %b: tensor<?x4xf32, #stablehlo.bounds<8, ?>>) -> () {
  %0 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
  %1 = stablehlo.broadcast %x, sizes = [2] : (tensor<4x4xf32>) -> tensor<2x4x4xf32>
  %2 = stablehlo.transpose %x, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %3 = stablehlo.reshape %x : (tensor<4x4xf32>) -> tensor<16xf32>
  %4 = stablehlo.iota dim = 0 : tensor<4x4xi32>
  %5 = stablehlo.slice %x [0:2, 1:4:2] : (tensor<4x4xf32>) -> tensor<2x2xf32>
  %6 = stablehlo.pad %x, %s, low = [0, 1], high = [1, 0], interior = [0, 0] : (tensor<4x4xf32>, tensor<f32>) -> tensor<5x5xf32>
  %7 = stablehlo.concatenate %x, %x, dim = 0 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %8 = stablehlo.reverse %x, dims = [0] : tensor<4x4xf32>
  %9 = stablehlo.dynamic_slice %x, %i, %i, sizes = [2, 2] : (tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
  %10 = stablehlo.dynamic_update_slice %x, %9, %i, %i : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
  %11 = stablehlo.get_dimension_size %d, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %12 = stablehlo.set_dimension_size %x, %i, dim = 0 : (tensor<4x4xf32>, tensor<i32>) -> tensor<?x4xf32, #stablehlo.bounds<4, ?>>
  %13 = stablehlo.dynamic_reshape %d, %sh : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %14 = stablehlo.dynamic_broadcast_in_dim %s, %sh, dims = [] : (tensor<f32>, tensor<2xi64>) -> tensor<?x?xf32>
  %15 = stablehlo.dynamic_iota %sh, dim = 0 : (tensor<2xi64>) -> tensor<?x?xi32>
  %16 = stablehlo.real_dynamic_slice %d, %sh, %sh, %sh : (tensor<?x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  %17 = stablehlo.dynamic_pad %d, %s, %sh, %sh, %sh : (tensor<?x4xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  %18 = stablehlo.bitcast_convert %x : (tensor<4x4xf32>) -> tensor<4x4xi32>
  %19 = stablehlo.concatenate %x, dim = 1 : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %20 = "stablehlo.dynamic_broadcast_in_dim"(%s, %sh) {broadcast_dimensions = array<i64>, known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64>} : (tensor<f32>, tensor<2xi64>) -> tensor<?x?xf32>
  %21 = stablehlo.abs %b : tensor<?x4xf32, #stablehlo.bounds<8, ?>>
  %22 = stablehlo.reshape %x {mhlo.frontend_attributes = {a = "b"}} : (tensor<4x4xf32>) -> tensor<2x8xf32>
  %23 = stablehlo.slice %x [0:4, 0:4] : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %24 = "stablehlo.torch_index_select"(%x, %i) {dim = 0 : i64, batch_dims = 0 : i64} : (tensor<4x4xf32>, tensor<i32>) -> tensor<4xf32>
  %25 = stablehlo.iota dim = 0 : tensor<4xf32>
  return
}

// CHECK: func.func @shape(%x: tensor<4x4xf32>, %s: tensor<f32>, %i: tensor<i32>, %d: tensor<?x4xf32>, %sh: tensor<2xi64>, %b: tensor<?x4xf32, #stablehlo.bounds<8, ?>>) {
// CHECK: %0 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
// CHECK: %1 = stablehlo.broadcast %x, sizes = [2] : (tensor<4x4xf32>) -> tensor<2x4x4xf32>
// CHECK: %2 = stablehlo.transpose %x, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: %3 = stablehlo.reshape %x : (tensor<4x4xf32>) -> tensor<16xf32>
// CHECK: %4 = stablehlo.iota dim = 0 : tensor<4x4xi32>
// CHECK: %5 = stablehlo.slice %x [0:2, 1:4:2] : (tensor<4x4xf32>) -> tensor<2x2xf32>
// CHECK: %6 = stablehlo.pad %x, %s, low = [0, 1], high = [1, 0], interior = [0, 0] : (tensor<4x4xf32>, tensor<f32>) -> tensor<5x5xf32>
// CHECK: %7 = stablehlo.concatenate %x, %x, dim = 0 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
// CHECK: %8 = stablehlo.reverse %x, dims = [0] : tensor<4x4xf32>
// CHECK: %9 = stablehlo.dynamic_slice %x, %i, %i, sizes = [2, 2] : (tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
// CHECK: %10 = stablehlo.dynamic_update_slice %x, %9, %i, %i : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
// CHECK: %11 = stablehlo.get_dimension_size %d, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
// CHECK: %12 = stablehlo.set_dimension_size %x, %i, dim = 0 : (tensor<4x4xf32>, tensor<i32>) -> tensor<?x4xf32, #stablehlo.bounds<4, ?>>
// CHECK: %13 = stablehlo.dynamic_reshape %d, %sh : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
// CHECK: %14 = stablehlo.dynamic_broadcast_in_dim %s, %sh, dims = [] : (tensor<f32>, tensor<2xi64>) -> tensor<?x?xf32>
// CHECK: %15 = stablehlo.dynamic_iota %sh, dim = 0 : (tensor<2xi64>) -> tensor<?x?xi32>
// CHECK: %16 = stablehlo.real_dynamic_slice %d, %sh, %sh, %sh : (tensor<?x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
// CHECK: %17 = stablehlo.dynamic_pad %d, %s, %sh, %sh, %sh : (tensor<?x4xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
// CHECK: %18 = stablehlo.bitcast_convert %x : (tensor<4x4xf32>) -> tensor<4x4xi32>
// CHECK: %19 = stablehlo.concatenate %x, dim = 1 : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: %20 = stablehlo.dynamic_broadcast_in_dim %s, %sh, dims = [] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64>} : (tensor<f32>, tensor<2xi64>) -> tensor<?x?xf32>
// CHECK: %21 = stablehlo.abs %b : tensor<?x4xf32, #stablehlo.bounds<8, ?>>
// CHECK: %22 = stablehlo.reshape %x {mhlo.frontend_attributes = {a = "b"}} : (tensor<4x4xf32>) -> tensor<2x8xf32>
// CHECK: %23 = stablehlo.slice %x [0:4, 0:4] : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: %24 = "stablehlo.torch_index_select"(%x, %i) <{batch_dims = 0 : i64, dim = 0 : i64}> : (tensor<4x4xf32>, tensor<i32>) -> tensor<4xf32>
// CHECK: %25 = stablehlo.iota dim = 0 : tensor<4xf32>
