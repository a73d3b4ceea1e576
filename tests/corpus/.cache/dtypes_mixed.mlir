module @jit__dtypes_mixed attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf16>, %arg1: tensor<4xui8>, %arg2: tensor<4xi1>) -> (tensor<4xf16> {jax.result_info = "result[0]"}, tensor<4xui8> {jax.result_info = "result[1]"}, tensor<4xi1> {jax.result_info = "result[2]"}, tensor<4xf8E4M3FN> {jax.result_info = "result[3]"}, tensor<4xi4> {jax.result_info = "result[4]"}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f16>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f16>) -> tensor<4xf16>
    %1 = stablehlo.multiply %arg0, %0 : tensor<4xf16>
    %c = stablehlo.constant dense<1> : tensor<ui8>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui8>) -> tensor<4xui8>
    %3 = stablehlo.add %arg1, %2 : tensor<4xui8>
    %4 = stablehlo.not %arg2 : tensor<4xi1>
    %5 = stablehlo.convert %arg0 : (tensor<4xf16>) -> tensor<4xf8E4M3FN>
    %6 = stablehlo.convert %arg1 : (tensor<4xui8>) -> tensor<4xi4>
    return %1, %3, %4, %5, %6 : tensor<4xf16>, tensor<4xui8>, tensor<4xi1>, tensor<4xf8E4M3FN>, tensor<4xi4>
  }
}
