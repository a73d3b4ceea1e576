module @jit__elementwise attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<4x8xf32>) -> (tensor<4x8xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.tanh %arg0 : tensor<4x8xf32>
    %1 = stablehlo.multiply %0, %arg1 : tensor<4x8xf32>
    %2 = stablehlo.exponential %arg0 : tensor<4x8xf32>
    %3 = stablehlo.add %1, %2 : tensor<4x8xf32>
    %4 = stablehlo.abs %arg1 : tensor<4x8xf32>
    %5 = stablehlo.log_plus_one %4 : tensor<4x8xf32>
    %6 = stablehlo.multiply %arg0, %arg0 : tensor<4x8xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %8 = stablehlo.add %7, %6 : tensor<4x8xf32>
    %9 = stablehlo.divide %5, %8 : tensor<4x8xf32>
    %10 = stablehlo.subtract %3, %9 : tensor<4x8xf32>
    return %10 : tensor<4x8xf32>
  }
}
