func.func public @main(%arg0: tensor<?xf32> {jax.buffer_donor = true}, %arg1: tensor<?xf32> {jax.buffer_donor = true}) -> (tensor<?xf32>, tensor<?xf32>) {
  %0 = stablehlo.add %arg0, %arg1 : tensor<?xf32>
  %1 = stablehlo.multiply %arg1, %arg1 : tensor<?xf32>
  return %1, %0 : tensor<?xf32>, tensor<?xf32>
}
