module @jit__sharded_train_step attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<8x8xf32> {jax.buffer_donor = true, sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}, %arg1: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<8x8xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg1, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
    %1 = stablehlo.tanh %0 : tensor<16x8xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %3 = stablehlo.subtract %2, %1 : tensor<16x8xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %5 = stablehlo.multiply %4, %1 : tensor<16x8xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_2 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %6 = stablehlo.divide %cst_1, %cst_2 : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %8 = stablehlo.multiply %7, %5 : tensor<16x8xf32>
    %9 = stablehlo.multiply %8, %3 : tensor<16x8xf32>
    %10 = stablehlo.multiply %9, %1 : tensor<16x8xf32>
    %11 = stablehlo.add %9, %10 : tensor<16x8xf32>
    %12 = stablehlo.dot_general %11, %arg1, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
    %13 = stablehlo.transpose %12, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %cst_3 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %15 = stablehlo.multiply %14, %13 : tensor<8x8xf32>
    %16 = stablehlo.subtract %arg0, %15 : tensor<8x8xf32>
    return %16 : tensor<8x8xf32>
  }
}
