module @jit__special_erf attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xf32>) -> (tensor<4x8xf32> {jax.result_info = "result[0]"}, tensor<4x8xf32> {jax.result_info = "result[1]"}, tensor<4x8xf32> {jax.result_info = "result[2]"}, tensor<4x8xf32> {jax.result_info = "result[3]"}, tensor<4x8xf32> {jax.result_info = "result[4]"}, tensor<4x8xf32> {jax.result_info = "result[5]"}) {
    %0 = chlo.erf %arg0 : tensor<4x8xf32> -> tensor<4x8xf32>
    %1 = chlo.erfc %arg0 : tensor<4x8xf32> -> tensor<4x8xf32>
    %2 = chlo.erf_inv %arg0 : tensor<4x8xf32> -> tensor<4x8xf32>
    %3 = chlo.lgamma %arg0 : tensor<4x8xf32> -> tensor<4x8xf32>
    %4 = chlo.digamma %arg0 : tensor<4x8xf32> -> tensor<4x8xf32>
    %5 = chlo.lgamma %arg0 : tensor<4x8xf32> -> tensor<4x8xf32>
    return %0, %1, %2, %3, %4, %5 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  }
}
