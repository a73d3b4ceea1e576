module @jit__float_ops_misc attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>) -> (tensor<8xf32> {jax.result_info = "result[0]"}, tensor<8xf32> {jax.result_info = "result[1]"}, tensor<8xf32> {jax.result_info = "result[2]"}, tensor<8xf32> {jax.result_info = "result[3]"}, tensor<8xf32> {jax.result_info = "result[4]"}, tensor<8xf32> {jax.result_info = "result[5]"}, tensor<8xf32> {jax.result_info = "result[6]"}, tensor<8xf32> {jax.result_info = "result[7]"}, tensor<8xi1> {jax.result_info = "result[8]"}, tensor<8xf32> {jax.result_info = "result[9]"}) {
    %0 = stablehlo.atan2 %arg0, %arg1 : tensor<8xf32>
    %1 = stablehlo.power %arg0, %arg1 : tensor<8xf32>
    %2 = stablehlo.sqrt %arg0 : tensor<8xf32>
    %3 = stablehlo.rsqrt %arg0 : tensor<8xf32>
    %4 = stablehlo.cbrt %arg0 : tensor<8xf32>
    %5 = stablehlo.exponential_minus_one %arg0 : tensor<8xf32>
    %6 = stablehlo.sign %arg0 : tensor<8xf32>
    %7 = chlo.next_after %arg0, %arg1 : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
    %8 = stablehlo.is_finite %arg0 : (tensor<8xf32>) -> tensor<8xi1>
    %9 = stablehlo.reduce_precision %arg0, format = e5m10 : tensor<8xf32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xi1>, tensor<8xf32>
  }
}
