module @jit__remat_policy attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x8xf32>) -> (tensor<8x8xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    %1 = stablehlo.reduce_precision %0, format = e8m23 : tensor<8x8xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %3:3 = stablehlo.optimization_barrier %1, %arg0, %2 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
    %4 = stablehlo.tanh %3#0 : tensor<8x8xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %6 = stablehlo.subtract %5, %4 : tensor<8x8xf32>
    %7 = stablehlo.dot_general %3#2, %4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    %8 = stablehlo.transpose %7, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %9 = stablehlo.dot_general %3#2, %3#1, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    %10 = stablehlo.multiply %9, %6 : tensor<8x8xf32>
    %11 = stablehlo.multiply %10, %4 : tensor<8x8xf32>
    %12 = stablehlo.add %10, %11 : tensor<8x8xf32>
    %13 = stablehlo.dot_general %12, %3#1, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    %14 = stablehlo.transpose %13, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %15 = stablehlo.add %8, %14 : tensor<8x8xf32>
    %16 = stablehlo.dot_general %12, %3#1, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    %17 = stablehlo.add %15, %16 : tensor<8x8xf32>
    return %17 : tensor<8x8xf32>
  }
}
