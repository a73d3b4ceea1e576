module @jit__nested_cf attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<i32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:3 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg1, %iterArg_1 = %arg0) : tensor<i32>, tensor<i32>, tensor<4xf32>
    cond {
      %1 = stablehlo.compare LT, %iterArg, %iterArg_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %c_2 = stablehlo.constant dense<1> : tensor<i32>
      %1 = stablehlo.add %iterArg, %c_2 : tensor<i32>
      %c_3 = stablehlo.constant dense<2> : tensor<i32>
      %2 = func.call @remainder(%iterArg, %c_3) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %c_4 = stablehlo.constant dense<0> : tensor<i32>
      %3 = stablehlo.compare EQ, %2, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %4 = stablehlo.convert %3 : (tensor<i1>) -> tensor<i32>
      %5 = "stablehlo.case"(%4) ({
        %c_5 = stablehlo.constant dense<0> : tensor<i32>
        %c_6 = stablehlo.constant dense<0> : tensor<i32>
        %6:3 = stablehlo.while(%iterArg_7 = %c_6, %iterArg_8 = %c_5, %iterArg_9 = %iterArg_1) : tensor<i32>, tensor<i32>, tensor<4xf32>
        cond {
          %c_10 = stablehlo.constant dense<2> : tensor<i32>
          %7 = stablehlo.compare LT, %iterArg_7, %c_10, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
          stablehlo.return %7 : tensor<i1>
        } do {
          %7:2 = func.call @closed_call(%iterArg_8, %iterArg_9) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
          %c_10 = stablehlo.constant dense<1> : tensor<i32>
          %8 = stablehlo.add %iterArg_7, %c_10 : tensor<i32>
          stablehlo.return %8, %7#0, %7#1 : tensor<i32>, tensor<i32>, tensor<4xf32>
        }
        stablehlo.return %6#2 : tensor<4xf32>
      }, {
        %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
        %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
        %7 = stablehlo.add %iterArg_1, %6 : tensor<4xf32>
        stablehlo.return %7 : tensor<4xf32>
      }) : (tensor<i32>) -> tensor<4xf32>
      stablehlo.return %1, %iterArg_0, %5 : tensor<i32>, tensor<i32>, tensor<4xf32>
    }
    return %0#2 : tensor<4xf32>
  }
  func.func private @remainder(%arg0: tensor<i32>, %arg1: tensor<i32>) -> tensor<i32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare EQ, %arg1, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %1 = call @_where(%0, %c_0, %arg1) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %2 = stablehlo.remainder %arg0, %1 : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.compare NE, %2, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.compare LT, %2, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.compare LT, %1, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %6 = stablehlo.compare NE, %4, %5, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %7 = stablehlo.and %6, %3 : tensor<i1>
    %8 = stablehlo.add %2, %1 : tensor<i32>
    %9 = stablehlo.select %7, %8, %2 : tensor<i1>, tensor<i32>
    return %9 : tensor<i32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
  func.func private @closed_call(%arg0: tensor<i32>, %arg1: tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg0, %c : tensor<i32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.multiply %arg1, %1 : tensor<4xf32>
    return %0, %2 : tensor<i32>, tensor<4xf32>
  }
}
