module @jit__resnet_block attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x8x8x4xf32>, %arg1: tensor<3x3x4x4xf32>, %arg2: tensor<4xf32>, %arg3: tensor<4xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<3x3x4x4xf32> {jax.result_info = "result[1][0]"}, tensor<4xf32> {jax.result_info = "result[1][1]"}, tensor<4xf32> {jax.result_info = "result[1][2]"}) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x4xf32>, tensor<3x3x4x4xf32>) -> tensor<2x8x8x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %cst_0 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %3 = stablehlo.divide %1, %2 : tensor<4xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %4:4 = call @_var(%0, %c) : (tensor<2x8x8x4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<2x8x8x4xf32>, tensor<f32>, tensor<i1>)
    %5 = stablehlo.broadcast_in_dim %3, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %7 = stablehlo.subtract %0, %6 : tensor<2x8x8x4xf32>
    %cst_1 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %9 = stablehlo.add %4#0, %8 : tensor<4xf32>
    %10 = stablehlo.rsqrt %9 : tensor<4xf32>
    %11 = stablehlo.divide %10, %9 : tensor<4xf32>
    %cst_2 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %13 = stablehlo.multiply %12, %11 : tensor<4xf32>
    %14 = stablehlo.broadcast_in_dim %10, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %16 = stablehlo.multiply %7, %15 : tensor<2x8x8x4xf32>
    %17 = stablehlo.broadcast_in_dim %arg2, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %19 = stablehlo.multiply %16, %18 : tensor<2x8x8x4xf32>
    %20 = stablehlo.broadcast_in_dim %arg3, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %22 = stablehlo.add %19, %21 : tensor<2x8x8x4xf32>
    %23 = stablehlo.add %22, %arg0 : tensor<2x8x8x4xf32>
    %24 = call @relu(%23) : (tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %26 = stablehlo.compare GT, %23, %25, FLOAT : (tensor<2x8x8x4xf32>, tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xi1>
    %27 = stablehlo.multiply %24, %24 : tensor<2x8x8x4xf32>
    %cst_4 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %29 = stablehlo.multiply %28, %24 : tensor<2x8x8x4xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %30 = stablehlo.reduce(%27 init: %cst_5) applies stablehlo.add across dimensions = [0, 1, 2, 3] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<f32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %32 = stablehlo.multiply %31, %29 : tensor<2x8x8x4xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %34 = stablehlo.select %26, %32, %33 : tensor<2x8x8x4xi1>, tensor<2x8x8x4xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %35 = stablehlo.reduce(%34 init: %cst_8) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %36 = stablehlo.reshape %35 : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %37 = stablehlo.reduce(%36 init: %cst_9) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x4xf32>, tensor<f32>) -> tensor<4xf32>
    %38 = stablehlo.multiply %16, %34 : tensor<2x8x8x4xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %39 = stablehlo.reduce(%38 init: %cst_10) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %40 = stablehlo.reshape %39 : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %41 = stablehlo.broadcast_in_dim %17, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %42 = stablehlo.multiply %34, %41 : tensor<2x8x8x4xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %43 = stablehlo.reduce(%40 init: %cst_11) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x4xf32>, tensor<f32>) -> tensor<4xf32>
    %44 = stablehlo.multiply %7, %42 : tensor<2x8x8x4xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %45 = stablehlo.reduce(%44 init: %cst_12) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %46 = stablehlo.reshape %45 : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %47 = stablehlo.broadcast_in_dim %14, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %48 = stablehlo.multiply %42, %47 : tensor<2x8x8x4xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %49 = stablehlo.reduce(%46 init: %cst_13) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x4xf32>, tensor<f32>) -> tensor<4xf32>
    %50 = stablehlo.multiply %49, %13 : tensor<4xf32>
    %51 = stablehlo.negate %48 : tensor<2x8x8x4xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %52 = stablehlo.reduce(%51 init: %cst_14) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %53 = stablehlo.reshape %52 : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %54 = stablehlo.reduce(%53 init: %cst_15) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x4xf32>, tensor<f32>) -> tensor<4xf32>
    %55 = call @_var_0(%4#1, %4#2, %4#3, %50) : (tensor<2x8x8x4xf32>, tensor<f32>, tensor<i1>, tensor<4xf32>) -> tensor<2x8x8x4xf32>
    %56 = stablehlo.add %48, %55 : tensor<2x8x8x4xf32>
    %cst_16 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %57 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %58 = stablehlo.divide %54, %57 : tensor<4xf32>
    %59 = stablehlo.broadcast_in_dim %58, dims = [3] : (tensor<4xf32>) -> tensor<2x8x8x4xf32>
    %60 = stablehlo.add %56, %59 : tensor<2x8x8x4xf32>
    %61 = stablehlo.convolution(%arg0, %60) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x4xf32>, tensor<2x8x8x4xf32>) -> tensor<3x3x4x4xf32>
    return %30, %61, %43, %37 : tensor<f32>, tensor<3x3x4x4xf32>, tensor<4xf32>, tensor<4xf32>
  }
  func.func private @_var(%arg0: tensor<2x8x8x4xf32>, %arg1: tensor<i32>) -> (tensor<4xf32>, tensor<2x8x8x4xf32>, tensor<f32>, tensor<i1>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %cst_0 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x1x1x4xf32>
    %3 = stablehlo.divide %1, %2 : tensor<1x1x1x4xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<2x8x8x4xf32>
    %6 = chlo.square %5 : tensor<2x8x8x4xf32> -> tensor<2x8x8x4xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %8 = stablehlo.multiply %7, %5 : tensor<2x8x8x4xf32>
    %9 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %cst_2 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %10 = stablehlo.subtract %cst_2, %9 : tensor<f32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%6 init: %cst_3) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %12 = stablehlo.broadcast_in_dim %10, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %13 = stablehlo.divide %11, %12 : tensor<4xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.compare GT, %10, %cst_4, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_5 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %15 = call @_where(%14, %13, %cst_5) : (tensor<i1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %15, %8, %10, %14 : tensor<4xf32>, tensor<2x8x8x4xf32>, tensor<f32>, tensor<i1>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<4xf32>, %arg2: tensor<f32>) -> tensor<4xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<i1>, tensor<4xf32>
    return %2 : tensor<4xf32>
  }
  func.func private @relu(%arg0: tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<2x8x8x4xf32>
    return %1 : tensor<2x8x8x4xf32>
  }
  func.func private @_var_0(%arg0: tensor<2x8x8x4xf32>, %arg1: tensor<f32>, %arg2: tensor<i1>, %arg3: tensor<4xf32>) -> tensor<2x8x8x4xf32> {
    %0 = call @_where_1(%arg2, %arg3) : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.divide %0, %1 : tensor<4xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [3] : (tensor<4xf32>) -> tensor<2x8x8x4xf32>
    %4 = stablehlo.multiply %3, %arg0 : tensor<2x8x8x4xf32>
    %5 = stablehlo.negate %4 : tensor<2x8x8x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.reduce(%5 init: %cst) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %7 = stablehlo.reshape %6 : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %cst_0 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x1x1x4xf32>
    %9 = stablehlo.divide %7, %8 : tensor<1x1x1x4xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst_1) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x4xf32>, tensor<f32>) -> tensor<4xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [3] : (tensor<4xf32>) -> tensor<2x8x8x4xf32>
    %12 = stablehlo.add %4, %11 : tensor<2x8x8x4xf32>
    return %12 : tensor<2x8x8x4xf32>
  }
  func.func private @_where_1(%arg0: tensor<i1>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.select %arg0, %arg1, %0 : tensor<i1>, tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
