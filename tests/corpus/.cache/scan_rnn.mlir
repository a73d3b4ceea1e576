module @jit__scan_rnn attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x4xf32>, %arg1: tensor<4x4xf32>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<8xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2:5 = stablehlo.while(%iterArg = %arg0, %iterArg_1 = %arg1, %iterArg_2 = %c, %iterArg_3 = %0, %iterArg_4 = %1) : tensor<8x4xf32>, tensor<4x4xf32>, tensor<i32>, tensor<4xf32>, tensor<8xf32>
    cond {
      %c_5 = stablehlo.constant dense<8> : tensor<i32>
      %3 = stablehlo.compare LT, %iterArg_2, %c_5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %3 : tensor<i1>
    } do {
      %3 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_2) : (tensor<8x4xf32>, tensor<i32>) -> tensor<4xf32>
      %4:2 = func.call @closed_call(%iterArg_1, %iterArg_3, %3) : (tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>)
      %5 = func.call @dynamic_update_index_in_dim(%iterArg_4, %4#1, %iterArg_2) : (tensor<8xf32>, tensor<f32>, tensor<i32>) -> tensor<8xf32>
      %c_5 = stablehlo.constant dense<1> : tensor<i32>
      %6 = stablehlo.add %iterArg_2, %c_5 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_1, %6, %4#0, %5 : tensor<8x4xf32>, tensor<4x4xf32>, tensor<i32>, tensor<4xf32>, tensor<8xf32>
    }
    return %2#3, %2#4 : tensor<4xf32>, tensor<8xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<8x4xf32>, %arg1: tensor<i32>) -> tensor<4xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 4] : (tensor<8x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
  func.func private @closed_call(%arg0: tensor<4x4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
    %0 = stablehlo.dot_general %arg1, %arg0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
    %1 = stablehlo.add %0, %arg2 : tensor<4xf32>
    %2 = stablehlo.tanh %1 : tensor<4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.reduce(%2 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    return %2, %3 : tensor<4xf32>, tensor<f32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<8xf32>, %arg1: tensor<f32>, %arg2: tensor<i32>) -> tensor<8xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2 : (tensor<8xf32>, tensor<1xf32>, tensor<i32>) -> tensor<8xf32>
    return %1 : tensor<8xf32>
  }
}
