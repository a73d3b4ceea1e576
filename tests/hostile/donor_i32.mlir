func.func public @main(%arg0: tensor<4xf32> {jax.buffer_donor = 1 : i32}, %arg1: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
  %1 = stablehlo.multiply %arg1, %arg1 : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
