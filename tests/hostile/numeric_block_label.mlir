func.func public @main(%arg0: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
  "cf.br"()[^4] : () -> ()
^4:
  func.return %arg0 : tensor<4xf32>
}
