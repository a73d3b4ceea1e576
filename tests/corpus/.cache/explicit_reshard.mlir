module @jit__explicit_reshard attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<8x8xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"x"}, {}]> : tensor<8x8xf32>
    %2 = stablehlo.multiply %arg0, %1 : tensor<8x8xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{"x"}, {}]> : tensor<8x8xf32>
    %4 = sdy.sharding_constraint %3 <@mesh, [{}, {"x"}]> : tensor<8x8xf32>
    return %4 : tensor<8x8xf32>
  }
}
