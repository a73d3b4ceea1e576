func.func public @main(%arg0: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
  %0 = stablehlo.negate %arg0 : tensor<4xf32> loc("model.py: an unterminated location string that goes on and on
  return %0 : tensor<4xf32>
}
