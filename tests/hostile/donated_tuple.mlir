func.func public @main(%arg0: tuple<tensor<4xf32>, tensor<4xf32>> {jax.buffer_donor = true}) -> tensor<4xf32> {
  %0 = stablehlo.get_tuple_element %arg0[0] : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
