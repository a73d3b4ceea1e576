module @jit__iota_clamp_round attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<10xf32>) -> (tensor<10xf32> {jax.result_info = "result[0]"}, tensor<10xf32> {jax.result_info = "result[1]"}, tensor<10xf32> {jax.result_info = "result[2]"}, tensor<10xf32> {jax.result_info = "result[3]"}, tensor<10xi32> {jax.result_info = "result[4]"}, tensor<10xf32> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.iota dim = 0 : tensor<10xi32>
    %cst = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %1 = call @clip(%arg0, %cst, %cst_0) : (tensor<10xf32>, tensor<f32>, tensor<f32>) -> tensor<10xf32>
    %2 = call @round(%arg0) : (tensor<10xf32>) -> tensor<10xf32>
    %3 = stablehlo.floor %arg0 : tensor<10xf32>
    %4 = stablehlo.ceil %arg0 : tensor<10xf32>
    %c = stablehlo.constant dense<2> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<10xi32>
    %6 = stablehlo.multiply %0, %5 : tensor<10xi32>
    %7 = stablehlo.round_nearest_even %arg0 : tensor<10xf32>
    return %1, %2, %3, %4, %6, %7 : tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xi32>, tensor<10xf32>
  }
  func.func private @clip(%arg0: tensor<10xf32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<10xf32> {
    %0 = stablehlo.convert %arg1 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %2 = stablehlo.maximum %1, %arg0 : tensor<10xf32>
    %3 = stablehlo.convert %arg2 : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %5 = stablehlo.minimum %4, %2 : tensor<10xf32>
    return %5 : tensor<10xf32>
  }
  func.func private @round(%arg0: tensor<10xf32>) -> tensor<10xf32> {
    %0 = stablehlo.round_nearest_even %arg0 : tensor<10xf32>
    return %0 : tensor<10xf32>
  }
}
