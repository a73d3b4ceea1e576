func.func public @main(%arg0: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
  return %0 : tens
