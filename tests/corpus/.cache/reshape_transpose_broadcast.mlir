module @jit__reshape_transpose_broadcast attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3x4xf32>) -> (tensor<4x5x6xf32> {jax.result_info = "result[0]"}, tensor<2x3x4xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.reshape %arg0 : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
    %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<6x4xf32>) -> tensor<4x6xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 2] : (tensor<4x6xf32>) -> tensor<4x1x6xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1, 2] : (tensor<4x1x6xf32>) -> tensor<4x5x6xf32>
    %4 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2, 3] : (tensor<2x3x4xf32>) -> tensor<1x2x3x4xf32>
    %5 = stablehlo.reshape %4 : (tensor<1x2x3x4xf32>) -> tensor<2x3x4xf32>
    return %3, %5 : tensor<4x5x6xf32>, tensor<2x3x4xf32>
  }
}
