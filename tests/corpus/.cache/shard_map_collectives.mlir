module @jit__shmap_collectives attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<16x4xf32>) -> (tensor<16x4xf32> {jax.result_info = "result[0]"}, tensor<64x4xf32> {jax.result_info = "result[1]"}) {
    %0:2 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg1: tensor<4x4xf32>) {
      %1 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %14 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %14 : tensor<f32>
      }) : (tensor<4x4xf32>) -> tensor<4x4xf32>
      %2 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %14 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
        stablehlo.return %14 : tensor<f32>
      }) : (tensor<4x4xf32>) -> tensor<4x4xf32>
      %3 = "stablehlo.all_gather"(%arg1) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<4x4xf32>) -> tensor<16x4xf32>
      %4 = "stablehlo.collective_permute"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<4x4xf32>) -> tensor<4x4xf32>
      %c = stablehlo.constant dense<1> : tensor<ui32>
      %c_0 = stablehlo.constant dense<4> : tensor<ui32>
      %5 = stablehlo.partition_id : tensor<ui32>
      %6 = stablehlo.divide %5, %c : tensor<ui32>
      %7 = stablehlo.remainder %6, %c_0 : tensor<ui32>
      %8 = stablehlo.convert %7 : (tensor<ui32>) -> tensor<i32>
      %9 = stablehlo.add %1, %2 : tensor<4x4xf32>
      %10 = stablehlo.add %9, %4 : tensor<4x4xf32>
      %11 = stablehlo.convert %8 : (tensor<i32>) -> tensor<f32>
      %12 = stablehlo.broadcast_in_dim %11, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
      %13 = stablehlo.add %10, %12 : tensor<4x4xf32>
      sdy.return %13, %3 : tensor<4x4xf32>, tensor<16x4xf32>
    } : (tensor<16x4xf32>) -> (tensor<16x4xf32>, tensor<64x4xf32>)
    return %0#0, %0#1 : tensor<16x4xf32>, tensor<64x4xf32>
  }
}
