module @jit__one_hot attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xi32>, %arg1: tensor<10x4xf32>) -> (tensor<6x4xf32> {jax.result_info = "result[0]"}, tensor<6x4xf32> {jax.result_info = "result[1]"}) {
    %0 = call @_one_hot(%arg0) : (tensor<6xi32>) -> tensor<6x10xf32>
    %1 = stablehlo.dot_general %0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x10xf32>, tensor<10x4xf32>) -> tensor<6x4xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %3 = stablehlo.compare LT, %arg0, %2, SIGNED : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %c_0 = stablehlo.constant dense<10> : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %5 = stablehlo.add %arg0, %4 : tensor<6xi32>
    %6 = stablehlo.select %3, %5, %arg0 : tensor<6xi1>, tensor<6xi32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %8 = "stablehlo.gather"(%arg1, %7) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 4>}> : (tensor<10x4xf32>, tensor<6x1xi32>) -> tensor<6x4xf32>
    return %1, %8 : tensor<6x4xf32>, tensor<6x4xf32>
  }
  func.func private @_one_hot(%arg0: tensor<6xi32>) -> tensor<6x10xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %1 = stablehlo.iota dim = 1 : tensor<1x10xi32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<6x1xi32>) -> tensor<6x10xi32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x10xi32>) -> tensor<6x10xi32>
    %4 = stablehlo.compare EQ, %2, %3, SIGNED : (tensor<6x10xi32>, tensor<6x10xi32>) -> tensor<6x10xi1>
    %5 = stablehlo.convert %4 : (tensor<6x10xi1>) -> tensor<6x10xf32>
    return %5 : tensor<6x10xf32>
  }
}
