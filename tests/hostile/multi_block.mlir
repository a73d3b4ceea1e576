func.func public @main(%arg0: tensor<4xf32> {jax.buffer_donor = true}, %arg1: i1) -> tensor<4xf32> {
  cf.cond_br %arg1, ^bb1, ^bb2
^bb1:
  %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
  return %0 : tensor<4xf32>
^bb2:
  return %arg0 : tensor<4xf32>
}
