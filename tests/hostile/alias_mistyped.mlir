func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf32>) {
  %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
  %1 = stablehlo.convert %arg1 : (tensor<4xf32>) -> tensor<4xi32>
  return %1, %0 : tensor<4xi32>, tensor<4xf32>
}
