func.func public @bad_donor(%arg0: tensor<4xf32> {jax.buffer_donor = 3 : i32}) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}
// -----
func.func public @fine(%arg0: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
  %0 = stablehlo.negate %arg0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}
// -----
func.func public @bad_alias(%arg0: tensor<4xf32> {tf.aliasing_output = 5 : i32}) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}
