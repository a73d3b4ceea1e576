func.func public @main(%arg0: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
  "cf.br"()[^bb1] : () -> ()
^bb1:
  "cf.br"()[^bb1] : () -> ()
^bb1:
  func.return %arg0 : tensor<4xf32>
}
