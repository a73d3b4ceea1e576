module @jit__convert_bitcast attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>) -> (tensor<8xbf16> {jax.result_info = "result[0]"}, tensor<8xi8> {jax.result_info = "result[1]"}, tensor<8xui32> {jax.result_info = "result[2]"}, tensor<8xcomplex<f32>> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<8xf32>) -> tensor<8xbf16>
    %1 = stablehlo.convert %arg0 : (tensor<8xf32>) -> tensor<8xi8>
    %2 = stablehlo.bitcast_convert %arg0 : (tensor<8xf32>) -> tensor<8xui32>
    %3 = stablehlo.convert %arg0 : (tensor<8xf32>) -> tensor<8xf16>
    %4 = stablehlo.convert %3 : (tensor<8xf16>) -> tensor<8xcomplex<f32>>
    return %0, %1, %2, %4 : tensor<8xbf16>, tensor<8xi8>, tensor<8xui32>, tensor<8xcomplex<f32>>
  }
}
