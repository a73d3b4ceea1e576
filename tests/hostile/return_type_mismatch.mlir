func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32}) -> tensor<8xf32> {
  return %arg0 : tensor<4xf32>
}
