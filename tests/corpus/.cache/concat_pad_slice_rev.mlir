module @jit__concat_pad_slice_rev attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x4xf32>, %arg1: tensor<4x4xf32>) -> (tensor<2x3xf32> {jax.result_info = "result[0]"}, tensor<4x4xf32> {jax.result_info = "result[1]"}, tensor<2x3xf32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.concatenate %arg0, %arg1, dim = 1 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x8xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.pad %0, %cst, low = [1, 0], high = [2, -1], interior = [1, 0] : (tensor<4x8xf32>, tensor<f32>) -> tensor<10x7xf32>
    %2 = stablehlo.slice %1 [1:5:2, 0:7:3] : (tensor<10x7xf32>) -> tensor<2x3xf32>
    %3 = call @_flip(%arg0) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %4 = stablehlo.slice %arg1 [0:3:2, 1:4] : (tensor<4x4xf32>) -> tensor<2x3xf32>
    return %2, %3, %4 : tensor<2x3xf32>, tensor<4x4xf32>, tensor<2x3xf32>
  }
  func.func private @_flip(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %0 = stablehlo.reverse %arg0, dims = [0] : tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }
}
