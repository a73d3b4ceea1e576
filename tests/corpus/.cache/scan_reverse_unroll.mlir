module @jit__scan_reverse attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x3xf32>) -> (tensor<3xf32> {jax.result_info = "result[0]"}, tensor<6x3xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %1 = stablehlo.reshape %arg0 : (tensor<6x3xf32>) -> tensor<3x2x3xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x2x3xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %3:4 = stablehlo.while(%iterArg = %1, %iterArg_1 = %c, %iterArg_2 = %0, %iterArg_3 = %2) : tensor<3x2x3xf32>, tensor<i32>, tensor<3xf32>, tensor<3x2x3xf32>
    cond {
      %c_4 = stablehlo.constant dense<3> : tensor<i32>
      %5 = stablehlo.compare LT, %iterArg_1, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %5 : tensor<i1>
    } do {
      %c_4 = stablehlo.constant dense<3> : tensor<i32>
      %5 = stablehlo.subtract %c_4, %iterArg_1 : tensor<i32>
      %c_5 = stablehlo.constant dense<1> : tensor<i32>
      %6 = stablehlo.subtract %5, %c_5 : tensor<i32>
      %7 = func.call @dynamic_index_in_dim(%iterArg, %6) : (tensor<3x2x3xf32>, tensor<i32>) -> tensor<2x3xf32>
      %8 = stablehlo.slice %7 [1:2, 0:3] : (tensor<2x3xf32>) -> tensor<1x3xf32>
      %9 = stablehlo.reshape %8 : (tensor<1x3xf32>) -> tensor<3xf32>
      %10:2 = func.call @closed_call(%iterArg_2, %9) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
      %11 = stablehlo.slice %7 [0:1, 0:3] : (tensor<2x3xf32>) -> tensor<1x3xf32>
      %12 = stablehlo.reshape %11 : (tensor<1x3xf32>) -> tensor<3xf32>
      %13:2 = func.call @closed_call(%10#0, %12) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
      %14 = stablehlo.broadcast_in_dim %13#1, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
      %15 = stablehlo.broadcast_in_dim %10#1, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
      %16 = stablehlo.concatenate %14, %15, dim = 0 : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
      %17 = func.call @dynamic_update_index_in_dim(%iterArg_3, %16, %6) : (tensor<3x2x3xf32>, tensor<2x3xf32>, tensor<i32>) -> tensor<3x2x3xf32>
      %c_6 = stablehlo.constant dense<1> : tensor<i32>
      %18 = stablehlo.add %iterArg_1, %c_6 : tensor<i32>
      stablehlo.return %iterArg, %18, %13#0, %17 : tensor<3x2x3xf32>, tensor<i32>, tensor<3xf32>, tensor<3x2x3xf32>
    }
    %4 = stablehlo.reshape %3#3 : (tensor<3x2x3xf32>) -> tensor<6x3xf32>
    return %3#2, %4 : tensor<3xf32>, tensor<6x3xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<3x2x3xf32>, %arg1: tensor<i32>) -> tensor<2x3xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 2, 3] : (tensor<3x2x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x3xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x2x3xf32>) -> tensor<2x3xf32>
    return %1 : tensor<2x3xf32>
  }
  func.func private @closed_call(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<3xf32>
    %1 = stablehlo.multiply %arg0, %arg1 : tensor<3xf32>
    return %0, %1 : tensor<3xf32>, tensor<3xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<3x2x3xf32>, %arg1: tensor<2x3xf32>, %arg2: tensor<i32>) -> tensor<3x2x3xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<3x2x3xf32>, tensor<1x2x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<3x2x3xf32>
    return %1 : tensor<3x2x3xf32>
  }
}
