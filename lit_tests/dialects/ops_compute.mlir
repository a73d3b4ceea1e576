// RUN: xdsl-opt --split-input-file %s | xdsl-opt --split-input-file | filecheck %s
// RUN: jax-donate-opt --split-input-file --print-op-generic %s | jax-donate-opt --split-input-file | filecheck %s
// Round trip of the compute ops in pretty and generic form. Inputs and CHECK lines are
// jaxlib's own printing (tests/test_stablehlo_dialect.py re-checks them against jaxlib).

module {
  func.func public @main(%arg0: tensor<4x4xf32>) -> (tensor<1x1x4x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<4x4xf32>) -> tensor<1x1x4x4xf32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<4x4xf32>) -> tensor<1x1x4x4xf32>
    %2 = stablehlo.convolution(%0, %1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 2], [1, 2]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
    return %2 : tensor<1x1x4x4xf32>
  }
}

// -----

module {
  func.func public @main(%arg0: tensor<4x4xf32>) -> (tensor<1x4x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<4x4xf32>) -> tensor<1x4x4xf32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<4x4xf32>) -> tensor<1x4x4xf32>
    %2 = stablehlo.dot_general %0, %1, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<1x4x4xf32>, tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
    return %2 : tensor<1x4x4xf32>
  }
}

// -----

module {
  func.func public @main(%arg0: tensor<4x4xf32>) -> (tensor<4x4xcomplex<f32>> {jax.result_info = "result"}) {
    %0 = call @fft(%arg0) : (tensor<4x4xf32>) -> tensor<4x4xcomplex<f32>>
    return %0 : tensor<4x4xcomplex<f32>>
  }
  func.func private @fft(%arg0: tensor<4x4xf32>) -> tensor<4x4xcomplex<f32>> {
    %0 = stablehlo.convert %arg0 : (tensor<4x4xf32>) -> tensor<4x4xcomplex<f32>>
    %1 = stablehlo.fft %0, type = FFT, length = [4] : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    return %1 : tensor<4x4xcomplex<f32>>
  }
}

// -----

module {
  func.func public @main(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.composite "my.double" %arg0 {decomposition = @my.double} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }
  func.func private @my.double(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<4x4xf32>
    return %1 : tensor<4x4xf32>
  }
}

// -----

module {
  func.func public @main(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32> {jax.result_info = "result[0]"}, tensor<4x4xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<4x4xf32>
    %2:2 = stablehlo.optimization_barrier %arg0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
    return %2#0, %2#1 : tensor<4x4xf32>, tensor<4x4xf32>
  }
}

// -----

module {
  func.func public @main(%arg0: tensor<4x4xf32>) -> (tensor<2x4xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<[0, 2]> : tensor<2xi32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %1 = stablehlo.compare LT, %c, %0, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %c_1 = stablehlo.constant dense<4> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %3 = stablehlo.add %c, %2 : tensor<2xi32>
    %4 = stablehlo.select %1, %3, %c : tensor<2xi1>, tensor<2xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<2xi32>) -> tensor<2x1xi32>
    %6 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 4>}> : (tensor<4x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
    return %6 : tensor<2x4xf32>
  }
}

// -----

module {
  func.func public @main(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %c, %c_0 : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
    return %1 : tensor<4x4xf32>
  }
}

// CHECK: %0 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<4x4xf32>) -> tensor<1x1x4x4xf32>
// CHECK: %1 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<4x4xf32>) -> tensor<1x1x4x4xf32>
// CHECK: %2 = stablehlo.convolution(%0, %1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = {{\[\[}}1, 2], [1, 2]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
// CHECK: %0 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<4x4xf32>) -> tensor<1x4x4xf32>
// CHECK: %1 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<4x4xf32>) -> tensor<1x4x4xf32>
// CHECK: %2 = stablehlo.dot_general %0, %1, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<1x4x4xf32>, tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
// CHECK: %0 = stablehlo.convert %arg0 : (tensor<4x4xf32>) -> tensor<4x4xcomplex<f32>>
// CHECK: %1 = stablehlo.fft %0, type = FFT, length = [4] : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
// CHECK: %0 = stablehlo.composite "my.double" %arg0 {decomposition = @my.double} : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
// CHECK: %1 = stablehlo.multiply %arg0, %0 : tensor<4x4xf32>
// CHECK: %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
// CHECK: %1 = stablehlo.add %arg0, %0 : tensor<4x4xf32>
// CHECK: {{%2:2|%2, %3}} = stablehlo.optimization_barrier %arg0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
// CHECK: %c = stablehlo.constant dense<[0, 2]> : tensor<2xi32>
// CHECK: %c_1 = stablehlo.constant dense<0> : tensor<i32>
// CHECK: %0 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<2xi32>
// CHECK: %1 = stablehlo.compare LT, %c, %0, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
// CHECK: %c_2 = stablehlo.constant dense<4> : tensor<i32>
// CHECK: %2 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<2xi32>
// CHECK: %3 = stablehlo.add %c, %2 : tensor<2xi32>
// CHECK: %4 = stablehlo.select %1, %3, %c : tensor<2xi1>, tensor<2xi32>
// CHECK: %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<2xi32>) -> tensor<2x1xi32>
// CHECK: %6 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 4>}> : (tensor<4x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
// CHECK: %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
// CHECK: %c = stablehlo.constant dense<1> : tensor<i32>
// CHECK: %c_1 = stablehlo.constant dense<1> : tensor<i32>
// CHECK: %1 = stablehlo.dynamic_update_slice %arg0, %0, %c, %c_1 : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
