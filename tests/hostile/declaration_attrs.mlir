func.func private @external(tensor<4xf32> {jax.buffer_donor = true}, tensor<2xi32>) -> (tensor<4xf32> {jax.result_info = "r"}, tensor<2xi32>)
func.func private @sink(tensor<4xf32> {tf.aliasing_output = 0 : i32, mhlo.sharding = "{replicated}"})
func.func private @named(%arg0: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32>
func.func public @main(%arg0: tensor<4xf32> {jax.buffer_donor = true}, %arg1: tensor<2xi32>) -> tensor<4xf32> {
  %0:2 = func.call @external(%arg0, %arg1) : (tensor<4xf32>, tensor<2xi32>) -> (tensor<4xf32>, tensor<2xi32>)
  %1 = func.call @named(%0#0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
