func.func public @first(%arg0: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
  %0 = stablehlo.negate %arg0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}
// -----
func.func public @bad_donor(%arg0: tensor<4xf32> {jax.buffer_donor = "yes"}) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}
// -----
func.func public @bad_syntax(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.abs %arg0 : tensor<4xf3
}
// -----
func.func public @middle(%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32}) -> tensor<4xf32> {
  %0 = stablehlo.abs %arg0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}
// -----
func.func public @bad_callee(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @nowhere(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// -----
func.func public @bad_op(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.frobnicate %arg0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}
