func.func public @main(%arg0: tensor<4xf32> {jax.buffer_donor = true}) -> (tensor<4xf32>, tensor<f32>, tensor<2xbf16>, tensor<f64>) {
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %cst_0 = stablehlo.constant dense<0x7FC00000> : tensor<4xf32>
  %cst_1 = stablehlo.constant dense<[0x7F80, 0xFFC1]> : tensor<2xbf16>
  %cst_2 = stablehlo.constant dense<0x7FF0000000000001> : tensor<f64>
  %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %1 = stablehlo.maximum %arg0, %0 : tensor<4xf32>
  %2 = stablehlo.add %1, %cst_0 : tensor<4xf32>
  return %2, %cst, %cst_1, %cst_2 : tensor<4xf32>, tensor<f32>, tensor<2xbf16>, tensor<f64>
}
