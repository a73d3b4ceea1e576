module @jit__complex_ops attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xcomplex<f32>>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<4xf32> {jax.result_info = "result[1]"}, tensor<4xcomplex<f32>> {jax.result_info = "result[2]"}, tensor<4xf32> {jax.result_info = "result[3]"}, tensor<4xf32> {jax.result_info = "result[4]"}, tensor<4xcomplex<f32>> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.real %arg0 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %1 = stablehlo.imag %arg0 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %2 = stablehlo.real %arg0 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %3 = stablehlo.imag %arg0 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %4 = stablehlo.negate %3 : tensor<4xf32>
    %5 = stablehlo.complex %2, %4 : tensor<4xcomplex<f32>>
    %6 = stablehlo.abs %arg0 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %7 = call @angle(%arg0) : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %8 = stablehlo.multiply %arg0, %arg0 : tensor<4xcomplex<f32>>
    return %0, %1, %5, %6, %7, %8 : tensor<4xf32>, tensor<4xf32>, tensor<4xcomplex<f32>>, tensor<4xf32>, tensor<4xf32>, tensor<4xcomplex<f32>>
  }
  func.func private @angle(%arg0: tensor<4xcomplex<f32>>) -> tensor<4xf32> {
    %0 = stablehlo.real %arg0 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %1 = stablehlo.imag %arg0 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %2 = stablehlo.atan2 %1, %0 : tensor<4xf32>
    return %2 : tensor<4xf32>
  }
}
