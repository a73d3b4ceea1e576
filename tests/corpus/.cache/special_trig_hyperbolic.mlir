module @jit__special_trig attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>, %arg1: tensor<8xcomplex<f32>>) -> (tensor<8xf32> {jax.result_info = "result[0]"}, tensor<8xf32> {jax.result_info = "result[1]"}, tensor<8xf32> {jax.result_info = "result[2]"}, tensor<8xf32> {jax.result_info = "result[3]"}, tensor<8xf32> {jax.result_info = "result[4]"}, tensor<8xf32> {jax.result_info = "result[5]"}, tensor<8xf32> {jax.result_info = "result[6]"}, tensor<8xf32> {jax.result_info = "result[7]"}, tensor<8xf32> {jax.result_info = "result[8]"}, tensor<8xcomplex<f32>> {jax.result_info = "result[9]"}, tensor<8xcomplex<f32>> {jax.result_info = "result[10]"}, tensor<8xcomplex<f32>> {jax.result_info = "result[11]"}) {
    %0 = chlo.sinh %arg0 : tensor<8xf32> -> tensor<8xf32>
    %1 = chlo.cosh %arg0 : tensor<8xf32> -> tensor<8xf32>
    %2 = stablehlo.tan %arg0 : tensor<8xf32>
    %3 = chlo.acos %arg0 : tensor<8xf32> -> tensor<8xf32>
    %4 = chlo.asin %arg0 : tensor<8xf32> -> tensor<8xf32>
    %5 = chlo.atan %arg0 : tensor<8xf32> -> tensor<8xf32>
    %6 = call @arccosh(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
    %7 = chlo.asinh %arg0 : tensor<8xf32> -> tensor<8xf32>
    %8 = chlo.atanh %arg0 : tensor<8xf32> -> tensor<8xf32>
    %9 = chlo.asin %arg1 : tensor<8xcomplex<f32>> -> tensor<8xcomplex<f32>>
    %10 = chlo.acos %arg1 : tensor<8xcomplex<f32>> -> tensor<8xcomplex<f32>>
    %11 = stablehlo.tan %arg1 : tensor<8xcomplex<f32>>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xcomplex<f32>>, tensor<8xcomplex<f32>>, tensor<8xcomplex<f32>>
  }
  func.func private @arccosh(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    %0 = chlo.acosh %arg0 : tensor<8xf32> -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}
