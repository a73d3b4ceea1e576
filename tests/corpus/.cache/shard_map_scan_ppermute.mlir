module @jit__shmap_scan_collective attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8xf32>) -> (tensor<8xf32> {jax.result_info = "result[0]"}, tensor<12xi32> {jax.result_info = "result[1]"}) {
    %0:2 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>, <@mesh, [{"x"}]>] manual_axes={"x"} (%arg1: tensor<2xf32>) {
      %c = stablehlo.constant dense<0> : tensor<i32>
      %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3xi32>
      %c_0 = stablehlo.constant dense<0> : tensor<i32>
      %2:3 = stablehlo.while(%iterArg = %c_0, %iterArg_1 = %arg1, %iterArg_2 = %1) : tensor<i32>, tensor<2xf32>, tensor<3xi32>
      cond {
        %c_3 = stablehlo.constant dense<3> : tensor<i32>
        %3 = stablehlo.compare LT, %iterArg, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %3 : tensor<i1>
      } do {
        %3:2 = func.call @closed_call(%iterArg_1) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<i32>)
        %4 = func.call @dynamic_update_index_in_dim(%iterArg_2, %3#1, %iterArg) : (tensor<3xi32>, tensor<i32>, tensor<i32>) -> tensor<3xi32>
        %c_3 = stablehlo.constant dense<1> : tensor<i32>
        %5 = stablehlo.add %iterArg, %c_3 : tensor<i32>
        stablehlo.return %5, %3#0, %4 : tensor<i32>, tensor<2xf32>, tensor<3xi32>
      }
      sdy.return %2#1, %2#2 : tensor<2xf32>, tensor<3xi32>
    } : (tensor<8xf32>) -> (tensor<8xf32>, tensor<12xi32>)
    return %0#0, %0#1 : tensor<8xf32>, tensor<12xi32>
  }
  func.func private @closed_call(%arg0: tensor<2xf32>) -> (tensor<2xf32>, tensor<i32>) {
    %0 = "stablehlo.collective_permute"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<2xf32>) -> tensor<2xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %2 = stablehlo.add %0, %1 : tensor<2xf32>
    %c = stablehlo.constant dense<1> : tensor<ui32>
    %c_0 = stablehlo.constant dense<4> : tensor<ui32>
    %3 = stablehlo.partition_id : tensor<ui32>
    %4 = stablehlo.divide %3, %c : tensor<ui32>
    %5 = stablehlo.remainder %4, %c_0 : tensor<ui32>
    %6 = stablehlo.convert %5 : (tensor<ui32>) -> tensor<i32>
    return %2, %6 : tensor<2xf32>, tensor<i32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<3xi32>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<3xi32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2 : (tensor<3xi32>, tensor<1xi32>, tensor<i32>) -> tensor<3xi32>
    return %1 : tensor<3xi32>
  }
}
