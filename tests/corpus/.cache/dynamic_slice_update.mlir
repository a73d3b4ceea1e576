module @jit__dynamic_slice attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x8xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<i32>, %arg2: tensor<4x8xf32>) -> (tensor<16x8xf32> {jax.result_info = "result[0]"}, tensor<4x4xf32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare LT, %arg1, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<16> : tensor<i32>
    %1 = stablehlo.add %arg1, %c_0 : tensor<i32>
    %2 = stablehlo.select %0, %1, %arg1 : tensor<i1>, tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.dynamic_update_slice %arg0, %arg2, %2, %c_1 : (tensor<16x8xf32>, tensor<4x8xf32>, tensor<i32>, tensor<i32>) -> tensor<16x8xf32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.compare LT, %arg1, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_3 = stablehlo.constant dense<16> : tensor<i32>
    %5 = stablehlo.add %arg1, %c_3 : tensor<i32>
    %6 = stablehlo.select %4, %5, %arg1 : tensor<i1>, tensor<i32>
    %c_4 = stablehlo.constant dense<2> : tensor<i32>
    %7 = stablehlo.dynamic_slice %3, %6, %c_4, sizes = [4, 4] : (tensor<16x8xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
    return %3, %7 : tensor<16x8xf32>, tensor<4x4xf32>
  }
}
