module @jit__custom_jvp attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = call @softplus(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32>
    %2 = stablehlo.multiply %1, %arg0 : tensor<4xf32>
    %3 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %5 = stablehlo.multiply %4, %3 : tensor<4xf32>
    %cst_0 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %7 = stablehlo.multiply %6, %2 : tensor<4xf32>
    %8 = stablehlo.add %arg0, %7 : tensor<4xf32>
    %cst_1 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %10 = stablehlo.multiply %9, %8 : tensor<4xf32>
    %11 = stablehlo.tanh %10 : tensor<4xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %13 = stablehlo.subtract %12, %11 : tensor<4xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %15 = stablehlo.add %14, %11 : tensor<4xf32>
    %cst_4 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %17 = stablehlo.multiply %16, %15 : tensor<4xf32>
    %18:2 = call @silu(%arg0) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %20 = call @silu_0(%18#0, %18#1, %arg0, %19) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %21 = stablehlo.multiply %arg0, %19 : tensor<4xf32>
    %22 = stablehlo.multiply %19, %17 : tensor<4xf32>
    %23 = stablehlo.add %20, %22 : tensor<4xf32>
    %cst_6 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %25 = stablehlo.multiply %24, %21 : tensor<4xf32>
    %26 = stablehlo.multiply %25, %13 : tensor<4xf32>
    %27 = stablehlo.multiply %26, %11 : tensor<4xf32>
    %28 = stablehlo.add %26, %27 : tensor<4xf32>
    %cst_7 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %30 = stablehlo.multiply %29, %28 : tensor<4xf32>
    %31 = stablehlo.add %23, %30 : tensor<4xf32>
    %cst_8 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %33 = stablehlo.multiply %32, %30 : tensor<4xf32>
    %34 = stablehlo.multiply %33, %5 : tensor<4xf32>
    %35 = stablehlo.add %31, %34 : tensor<4xf32>
    %36 = call @softplus_1(%0, %19) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %37 = stablehlo.add %35, %36 : tensor<4xf32>
    return %37 : tensor<4xf32>
  }
  func.func private @softplus(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<4xf32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %3 = stablehlo.subtract %arg0, %2 : tensor<4xf32>
    %4 = stablehlo.compare NE, %3, %3, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %6 = stablehlo.add %arg0, %5 : tensor<4xf32>
    %7 = stablehlo.abs %3 : tensor<4xf32>
    %8 = stablehlo.negate %7 : tensor<4xf32>
    %9 = stablehlo.exponential %8 : tensor<4xf32>
    %10 = stablehlo.log_plus_one %9 : tensor<4xf32>
    %11 = stablehlo.add %1, %10 : tensor<4xf32>
    %12 = stablehlo.select %4, %6, %11 : tensor<4xi1>, tensor<4xf32>
    %cst_0 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %14 = stablehlo.compare EQ, %arg0, %13, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %16 = stablehlo.select %14, %15, %arg0 : tensor<4xi1>, tensor<4xf32>
    %cst_2 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %18 = stablehlo.compare EQ, %12, %17, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %20 = stablehlo.select %18, %19, %12 : tensor<4xi1>, tensor<4xf32>
    %21 = stablehlo.subtract %16, %20 : tensor<4xf32>
    %22 = stablehlo.exponential %21 : tensor<4xf32>
    return %22 : tensor<4xf32>
  }
  func.func private @silu(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %0 = stablehlo.negate %arg0 : tensor<4xf32>
    %1 = stablehlo.exponential %0 : tensor<4xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %3 = stablehlo.add %2, %1 : tensor<4xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %5 = stablehlo.divide %4, %3 : tensor<4xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %7 = stablehlo.subtract %6, %5 : tensor<4xf32>
    %8 = stablehlo.multiply %5, %7 : tensor<4xf32>
    return %8, %5 : tensor<4xf32>, tensor<4xf32>
  }
  func.func private @silu_0(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>, %arg3: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.multiply %arg2, %arg3 : tensor<4xf32>
    %1 = stablehlo.multiply %arg3, %arg1 : tensor<4xf32>
    %2 = stablehlo.multiply %0, %arg0 : tensor<4xf32>
    %3 = stablehlo.add %1, %2 : tensor<4xf32>
    return %3 : tensor<4xf32>
  }
  func.func private @softplus_1(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.multiply %arg1, %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
