module @jit__jvp_vmap attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32>) -> (tensor<f32> {jax.result_info = "result[0][0]"}, tensor<f32> {jax.result_info = "result[0][1]"}, tensor<3x3xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %1 = stablehlo.sine %arg0 : tensor<3xf32>
    %2 = stablehlo.cosine %arg0 : tensor<3xf32>
    %3 = stablehlo.multiply %0, %2 : tensor<3xf32>
    %4 = stablehlo.multiply %1, %1 : tensor<3xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %6 = stablehlo.multiply %5, %1 : tensor<3xf32>
    %7 = stablehlo.multiply %3, %6 : tensor<3xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.reduce(%4 init: %cst_1) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%7 init: %cst_2) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
    %10 = stablehlo.iota dim = 0 : tensor<3x3xi32>
    %11 = stablehlo.iota dim = 1 : tensor<3x3xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %12 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3x3xi32>
    %13 = stablehlo.add %10, %12 : tensor<3x3xi32>
    %14 = stablehlo.compare EQ, %13, %11, SIGNED : (tensor<3x3xi32>, tensor<3x3xi32>) -> tensor<3x3xi1>
    %15 = stablehlo.convert %14 : (tensor<3x3xi1>) -> tensor<3x3xf32>
    %16 = stablehlo.slice %15 [0:3, 0:3] : (tensor<3x3xf32>) -> tensor<3x3xf32>
    %17 = stablehlo.convert %16 : tensor<3x3xf32>
    %18 = stablehlo.sine %arg0 : tensor<3xf32>
    %19 = stablehlo.cosine %arg0 : tensor<3xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<3x3xf32>
    %22 = stablehlo.multiply %17, %21 : tensor<3x3xf32>
    %23 = stablehlo.cosine %arg0 : tensor<3xf32>
    %24 = stablehlo.sine %arg0 : tensor<3xf32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<3x3xf32>
    %27 = stablehlo.multiply %17, %26 : tensor<3x3xf32>
    %28 = stablehlo.negate %27 : tensor<3x3xf32>
    %cst_3 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %30 = stablehlo.multiply %29, %18 : tensor<3xf32>
    %cst_4 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<3x3xf32>
    %32 = stablehlo.multiply %31, %22 : tensor<3x3xf32>
    %33 = stablehlo.iota dim = 0 : tensor<1x1xi32>
    %34 = stablehlo.iota dim = 1 : tensor<1x1xi32>
    %c_5 = stablehlo.constant dense<0> : tensor<i32>
    %35 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i32>) -> tensor<1x1xi32>
    %36 = stablehlo.add %33, %35 : tensor<1x1xi32>
    %37 = stablehlo.compare EQ, %36, %34, SIGNED : (tensor<1x1xi32>, tensor<1x1xi32>) -> tensor<1x1xi1>
    %38 = stablehlo.convert %37 : (tensor<1x1xi1>) -> tensor<1x1xf32>
    %39 = stablehlo.slice %38 [0:1, 0:1] : (tensor<1x1xf32>) -> tensor<1x1xf32>
    %40 = stablehlo.reshape %39 : (tensor<1x1xf32>) -> tensor<1xf32>
    %41 = stablehlo.convert %40 : tensor<1xf32>
    %42 = stablehlo.broadcast_in_dim %41, dims = [0] : (tensor<1xf32>) -> tensor<1x3xf32>
    %43 = stablehlo.broadcast_in_dim %30, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
    %44 = stablehlo.broadcast_in_dim %32, dims = [0, 2] : (tensor<3x3xf32>) -> tensor<3x1x3xf32>
    %45 = stablehlo.multiply %42, %43 : tensor<1x3xf32>
    %46 = stablehlo.broadcast_in_dim %42, dims = [1, 2] : (tensor<1x3xf32>) -> tensor<1x1x3xf32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [0, 1, 2] : (tensor<1x1x3xf32>) -> tensor<3x1x3xf32>
    %48 = stablehlo.multiply %47, %44 : tensor<3x1x3xf32>
    %49 = stablehlo.broadcast_in_dim %23, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
    %50 = stablehlo.broadcast_in_dim %28, dims = [0, 2] : (tensor<3x3xf32>) -> tensor<3x1x3xf32>
    %51 = stablehlo.broadcast_in_dim %49, dims = [1, 2] : (tensor<1x3xf32>) -> tensor<1x1x3xf32>
    %52 = stablehlo.broadcast_in_dim %51, dims = [0, 1, 2] : (tensor<1x1x3xf32>) -> tensor<3x1x3xf32>
    %53 = stablehlo.multiply %48, %52 : tensor<3x1x3xf32>
    %54 = stablehlo.broadcast_in_dim %45, dims = [1, 2] : (tensor<1x3xf32>) -> tensor<1x1x3xf32>
    %55 = stablehlo.broadcast_in_dim %54, dims = [0, 1, 2] : (tensor<1x1x3xf32>) -> tensor<3x1x3xf32>
    %56 = stablehlo.multiply %55, %50 : tensor<3x1x3xf32>
    %57 = stablehlo.add %53, %56 : tensor<3x1x3xf32>
    %58 = stablehlo.slice %57 [0:3, 0:1, 0:3] : (tensor<3x1x3xf32>) -> tensor<3x1x3xf32>
    %59 = stablehlo.reshape %58 : (tensor<3x1x3xf32>) -> tensor<3x3xf32>
    %60 = stablehlo.transpose %59, dims = [1, 0] : (tensor<3x3xf32>) -> tensor<3x3xf32>
    %61 = stablehlo.slice %60 [0:3, 0:3] : (tensor<3x3xf32>) -> tensor<3x3xf32>
    return %8, %9, %61 : tensor<f32>, tensor<f32>, tensor<3x3xf32>
  }
}
