// RUN: xdsl-opt --split-input-file %s | xdsl-opt --split-input-file | filecheck %s
// RUN: jax-donate-opt --split-input-file --print-op-generic %s | jax-donate-opt --split-input-file | filecheck %s
// Round trip of the regions ops in pretty and generic form. Inputs and CHECK lines are
// jaxlib's own printing (tests/test_stablehlo_dialect.py re-checks them against jaxlib).

module {
  func.func public @main(%arg0: tensor<4x4xf32>) -> (tensor<4xi32> {jax.result_info = "result"}) {
    %0 = call @argmax(%arg0) : (tensor<4x4xf32>) -> tensor<4xi32>
    return %0 : tensor<4xi32>
  }
  func.func private @argmax(%arg0: tensor<4x4xf32>) -> tensor<4xi32> {
    %0 = stablehlo.iota dim = 0 : tensor<4x4xi32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [0] : (tensor<4x4xf32>, tensor<4x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %2 = stablehlo.compare GT, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
    }
    return %1#1 : tensor<4xi32>
  }
}

// -----

module {
  func.func public @main(%arg0: tensor<4x4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

module {
  func.func public @main(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0) : tensor<i32>, tensor<4x4xf32>
    cond {
      %c_1 = stablehlo.constant dense<3> : tensor<i32>
      %1 = stablehlo.compare LT, %iterArg, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = func.call @closed_call(%iterArg_0) : (tensor<4x4xf32>) -> tensor<4x4xf32>
      %c_1 = stablehlo.constant dense<1> : tensor<i32>
      %2 = stablehlo.add %iterArg, %c_1 : tensor<i32>
      stablehlo.return %2, %1 : tensor<i32>, tensor<4x4xf32>
    }
    return %0#1 : tensor<4x4xf32>
  }
  func.func private @closed_call(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<4x4xf32>
    return %1 : tensor<4x4xf32>
  }
}

// -----

module {
  func.func public @main(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.slice %arg0 [0:1, 0:1] : (tensor<4x4xf32>) -> tensor<1x1xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x1xf32>) -> tensor<f32>
    %2 = stablehlo.convert %1 : (tensor<f32>) -> tensor<i32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<2> : tensor<i32>
    %3 = stablehlo.clamp %c, %2, %c_0 : tensor<i32>
    %4 = "stablehlo.case"(%3) ({
      stablehlo.return %arg0 : tensor<4x4xf32>
    }, {
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
      %6 = stablehlo.multiply %arg0, %5 : tensor<4x4xf32>
      stablehlo.return %6 : tensor<4x4xf32>
    }, {
      %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
      %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
      %6 = stablehlo.multiply %arg0, %5 : tensor<4x4xf32>
      stablehlo.return %6 : tensor<4x4xf32>
    }) : (tensor<i32>) -> tensor<4x4xf32>
    return %4 : tensor<4x4xf32>
  }
}

// -----

module {
  func.func public @main(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32> {jax.result_info = "result"}) {
    %0 = call @sort(%arg0) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }
  func.func private @sort(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %1 = stablehlo.compare EQ, %arg1, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %2 = stablehlo.select %1, %cst_0, %arg1 : tensor<i1>, tensor<f32>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %4 = stablehlo.select %3, %cst_1, %2 : tensor<i1>, tensor<f32>
      %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %5 = stablehlo.compare EQ, %arg2, %cst_2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %6 = stablehlo.select %5, %cst_3, %arg2 : tensor<i1>, tensor<f32>
      %7 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %8 = stablehlo.select %7, %cst_4, %6 : tensor<i1>, tensor<f32>
      %9 = stablehlo.compare LT, %4, %8, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %9 : tensor<i1>
    }) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }
}

// -----

module {
  func.func public @main(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<[0, 2]> : tensor<2xi32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %1 = stablehlo.compare LT, %c, %0, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %c_1 = stablehlo.constant dense<4> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %3 = stablehlo.add %c, %2 : tensor<2xi32>
    %4 = stablehlo.select %1, %3, %c : tensor<2xi1>, tensor<2xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<2xi32>) -> tensor<2x1xi32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %7 = "stablehlo.scatter"(%arg0, %5, %6) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %8 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %8 : tensor<f32>
    }) : (tensor<4x4xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<4x4xf32>
    return %7 : tensor<4x4xf32>
  }
}

// -----

module {
  func.func public @main(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.pad %arg0, %cst_0, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = "stablehlo.select_and_scatter"(%1, %0, %cst_1) <{padding = dense<0> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %4 = stablehlo.compare GE, %arg1, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %4 : tensor<i1>
    }, {
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %4 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %4 : tensor<f32>
    }) : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x4xf32>
    %3 = stablehlo.slice %2 [0:4, 0:4] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    return %3 : tensor<4x4xf32>
  }
}

// -----

module {
  func.func public @main(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.slice %arg0 [0:1, 0:1] : (tensor<4x4xf32>) -> tensor<1x1xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x1xf32>) -> tensor<f32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.compare GT, %1, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %3 = stablehlo.convert %2 : (tensor<i1>) -> tensor<i32>
    %4 = "stablehlo.case"(%3) ({
      %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
      %6 = stablehlo.subtract %arg0, %5 : tensor<4x4xf32>
      stablehlo.return %6 : tensor<4x4xf32>
    }, {
      %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
      %6 = stablehlo.add %arg0, %5 : tensor<4x4xf32>
      stablehlo.return %6 : tensor<4x4xf32>
    }) : (tensor<i32>) -> tensor<4x4xf32>
    return %4 : tensor<4x4xf32>
  }
}

// -----

func.func @extra(%x: tensor<4x4xf32>, %p: tensor<i1>, %i: tensor<2x1xi32>, %s: tensor<f32>, %f4: tensor<4xf32>, %ss: tensor<2xi64>, %pad: tensor<2x2xi64>) -> () {
  %0 = "stablehlo.if"(%p) ({
    stablehlo.return %x : tensor<4x4xf32>
  }, {
    %n = stablehlo.negate %x : tensor<4x4xf32>
    stablehlo.return %n : tensor<4x4xf32>
  }) : (tensor<i1>) -> tensor<4x4xf32>
  %1 = "stablehlo.map"(%x, %x) <{dimensions = array<i64: 0, 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.multiply %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %2:2 = "stablehlo.reduce_window"(%x, %x, %s, %s) <{padding = dense<[[1, 0], [0, 1]]> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>, %d: tensor<f32>):
    %m = stablehlo.maximum %a, %c : tensor<f32>
    %n = stablehlo.minimum %b, %d : tensor<f32>
    stablehlo.return %m, %n : tensor<f32>, tensor<f32>
  }) : (tensor<4x4xf32>, tensor<4x4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
  %3 = stablehlo.reduce(%x init: %s) across dimensions = [0, 1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<f32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %m = stablehlo.subtract %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }
  %4 = stablehlo.reduce(%x init: %s) applies stablehlo.maximum across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
  %5:2 = stablehlo.reduce(%x init: %s), (%x init: %s) across dimensions = [1] : (tensor<4x4xf32>, tensor<4x4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
   reducer(%a: tensor<f32>, %c: tensor<f32>) (%b: tensor<f32>, %d: tensor<f32>)  {
    %m = stablehlo.add %a, %c : tensor<f32>
    stablehlo.return %m, %b : tensor<f32>, tensor<f32>
  }
  %6 = "stablehlo.dynamic_gather"(%x, %i, %ss) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>}> : (tensor<4x4xf32>, tensor<2x1xi32>, tensor<2xi64>) -> tensor<2x4xf32>
  %w = stablehlo.reshape %x : (tensor<4x4xf32>) -> tensor<4x4x1x1xf32>
  %xx = stablehlo.reshape %x : (tensor<4x4xf32>) -> tensor<1x4x4x1xf32>
  %7 = "stablehlo.dynamic_conv"(%xx, %w, %pad) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, window_strides = array<i64: 1, 1>}> : (tensor<1x4x4x1xf32>, tensor<4x4x1x1xf32>, tensor<2x2xi64>) -> tensor<1x?x?x1xf32>
  %8 = "stablehlo.batch_norm_inference"(%x, %f4, %f4, %f4, %f4) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  %9:3 = "stablehlo.batch_norm_grad"(%x, %f4, %f4, %f4, %x) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>)
  %10 = "stablehlo.async_start"(%x) ({
  ^bb0(%ax: tensor<4x4xf32>):
    %g = "stablehlo.all_gather"(%ax) <{all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4x4xf32>) -> tensor<4x8xf32>
    "stablehlo.return"(%g) : (tensor<4x8xf32>) -> ()
  }) : (tensor<4x4xf32>) -> !stablehlo.future<tensor<4x8xf32>>
  %11 = "stablehlo.async_done"(%10) : (!stablehlo.future<tensor<4x8xf32>>) -> tensor<4x8xf32>
  %12 = stablehlo.convolution(%xx, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], lhs_dilate = [1, 2], reverse = [true, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<4x4x1x1xf32>) -> tensor<1x1x4x1xf32>
  %13 = stablehlo.convolution(%xx, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<4x4x1x1xf32>) -> tensor<1x1x1x1xf32>
  %14 = stablehlo.while(%iterArg = %s) : tensor<f32> attributes {mhlo.frontend_attributes = {a = "b"}}
  cond {
    %c = stablehlo.compare LT, %iterArg, %iterArg : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    stablehlo.return %iterArg : tensor<f32>
  }
  %15 = stablehlo.fft %f4, type = RFFT, length = [4] : (tensor<4xf32>) -> tensor<3xcomplex<f32>>
  return
}

// CHECK: %0 = stablehlo.iota dim = 0 : tensor<4x4xi32>
// CHECK: %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK: %c = stablehlo.constant dense<0> : tensor<i32>
// CHECK: {{%1:2|%1, %2}} = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [0] : (tensor<4x4xf32>, tensor<4x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
// CHECK-NEXT: reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
// CHECK: %3 = stablehlo.compare GT, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK: %4 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK: %5 = stablehlo.or %3, %4 : tensor<i1>
// CHECK: %6 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK: %7 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
// CHECK: %8 = stablehlo.and %6, %7 : tensor<i1>
// CHECK: %9 = stablehlo.or %5, %8 : tensor<i1>
// CHECK: %10 = stablehlo.select %5, %arg1, %arg3 : tensor<i1>, tensor<f32>
// CHECK: %11 = stablehlo.select %9, %arg2, %arg4 : tensor<i1>, tensor<i32>
// CHECK: stablehlo.return %10, %11 : tensor<f32>, tensor<i32>
// CHECK: %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: %c = stablehlo.constant dense<0> : tensor<i32>
// CHECK: {{%0:2|%0, %1}} = stablehlo.while(%iterArg = %c, %iterArg_1 = %arg0) : tensor<i32>, tensor<4x4xf32>
// CHECK-NEXT: cond {
// CHECK: %c_1 = stablehlo.constant dense<3> : tensor<i32>
// CHECK: %2 = stablehlo.compare LT, %iterArg, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
// CHECK: stablehlo.return %2 : tensor<i1>
// CHECK: } do {
// CHECK: %c_2 = stablehlo.constant dense<1> : tensor<i32>
// CHECK: %4 = stablehlo.add %iterArg, %c_2 : tensor<i32>
// CHECK: stablehlo.return %4, %3 : tensor<i32>, tensor<4x4xf32>
// CHECK: %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
// CHECK: %1 = stablehlo.multiply %arg0, %0 : tensor<4x4xf32>
// CHECK: %0 = stablehlo.slice %arg0 [0:1, 0:1] : (tensor<4x4xf32>) -> tensor<1x1xf32>
// CHECK: %1 = stablehlo.reshape %0 : (tensor<1x1xf32>) -> tensor<f32>
// CHECK: %2 = stablehlo.convert %1 : (tensor<f32>) -> tensor<i32>
// CHECK: %c = stablehlo.constant dense<0> : tensor<i32>
// CHECK: %c_1 = stablehlo.constant dense<2> : tensor<i32>
// CHECK: %3 = stablehlo.clamp %c, %2, %c_1 : tensor<i32>
// CHECK: %4 = "stablehlo.case"(%3) ({
// CHECK: stablehlo.return %arg0 : tensor<4x4xf32>
// CHECK: %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
// CHECK: %6 = stablehlo.multiply %arg0, %5 : tensor<4x4xf32>
// CHECK: stablehlo.return %6 : tensor<4x4xf32>
// CHECK: %cst_1 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
// CHECK: %7 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
// CHECK: %8 = stablehlo.multiply %arg0, %7 : tensor<4x4xf32>
// CHECK: stablehlo.return %8 : tensor<4x4xf32>
// CHECK: %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
// CHECK: %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %1 = stablehlo.compare EQ, %arg1, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK: %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %2 = stablehlo.select %1, %cst_1, %arg1 : tensor<i1>, tensor<f32>
// CHECK: %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK: %cst_2 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
// CHECK: %4 = stablehlo.select %3, %cst_2, %2 : tensor<i1>, tensor<f32>
// CHECK: %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %5 = stablehlo.compare EQ, %arg2, %cst_3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK: %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %6 = stablehlo.select %5, %cst_4, %arg2 : tensor<i1>, tensor<f32>
// CHECK: %7 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK: %cst_5 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
// CHECK: %8 = stablehlo.select %7, %cst_5, %6 : tensor<i1>, tensor<f32>
// CHECK: %9 = stablehlo.compare LT, %4, %8, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK: stablehlo.return %9 : tensor<i1>
// CHECK: %c = stablehlo.constant dense<[0, 2]> : tensor<2xi32>
// CHECK: %c_1 = stablehlo.constant dense<0> : tensor<i32>
// CHECK: %0 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<2xi32>
// CHECK: %1 = stablehlo.compare LT, %c, %0, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
// CHECK: %c_2 = stablehlo.constant dense<4> : tensor<i32>
// CHECK: %2 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<2xi32>
// CHECK: %3 = stablehlo.add %c, %2 : tensor<2xi32>
// CHECK: %4 = stablehlo.select %1, %3, %c : tensor<2xi1>, tensor<2xi32>
// CHECK: %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<2xi32>) -> tensor<2x1xi32>
// CHECK: %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
// CHECK: %7 = "stablehlo.scatter"(%arg0, %5, %6) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
// CHECK: %8 = stablehlo.add %arg1, %arg2 : tensor<f32>
// CHECK: stablehlo.return %8 : tensor<f32>
// CHECK: %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
// CHECK: %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK: %1 = stablehlo.pad %arg0, %cst_1, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
// CHECK: %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %2 = "stablehlo.select_and_scatter"(%1, %0, %cst_2) <{padding = dense<0> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
// CHECK: %3 = stablehlo.compare GE, %arg1, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK: stablehlo.return %3 : tensor<i1>
// CHECK: %4 = stablehlo.add %arg1_1, %arg2_1 : tensor<f32>
// CHECK: stablehlo.return %4 : tensor<f32>
// CHECK: %5 = stablehlo.slice %2 [0:4, 0:4] : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: %0 = stablehlo.slice %arg0 [0:1, 0:1] : (tensor<4x4xf32>) -> tensor<1x1xf32>
// CHECK: %1 = stablehlo.reshape %0 : (tensor<1x1xf32>) -> tensor<f32>
// CHECK: %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %2 = stablehlo.compare GT, %1, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK: %3 = stablehlo.convert %2 : (tensor<i1>) -> tensor<i32>
// CHECK: %4 = "stablehlo.case"(%3) ({
// CHECK: %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
// CHECK: %6 = stablehlo.subtract %arg0, %5 : tensor<4x4xf32>
// CHECK: stablehlo.return %6 : tensor<4x4xf32>
// CHECK: %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %7 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
// CHECK: %8 = stablehlo.add %arg0, %7 : tensor<4x4xf32>
// CHECK: stablehlo.return %8 : tensor<4x4xf32>
// CHECK: %0 = "stablehlo.if"(%p) ({
// CHECK: stablehlo.return %x : tensor<4x4xf32>
// CHECK: %n = stablehlo.negate %x : tensor<4x4xf32>
// CHECK: stablehlo.return %n : tensor<4x4xf32>
// CHECK: %1 = "stablehlo.map"(%x, %x) <{dimensions = array<i64: 0, 1>}> ({
// CHECK: %m = stablehlo.multiply %a, %b : tensor<f32>
// CHECK: stablehlo.return %m : tensor<f32>
// CHECK: {{%2:2|%2, %3}} = "stablehlo.reduce_window"(%x, %x, %s, %s) <{padding = dense<{{\[\[}}1, 0], [0, 1]]> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>}> ({
// CHECK: %m_1 = stablehlo.maximum %a_1, %c : tensor<f32>
// CHECK: %n_1 = stablehlo.minimum %b_1, %d : tensor<f32>
// CHECK: stablehlo.return %m_1, %n_1 : tensor<f32>, tensor<f32>
// CHECK: %4 = stablehlo.reduce(%x init: %s) across dimensions = [0, 1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT: reducer(%a_2: tensor<f32>, %b_2: tensor<f32>)  {
// CHECK: %m_2 = stablehlo.subtract %a_2, %b_2 : tensor<f32>
// CHECK: stablehlo.return %m_2 : tensor<f32>
// CHECK: %5 = stablehlo.reduce(%x init: %s) applies stablehlo.maximum across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: {{%6:2|%6, %7}} = stablehlo.reduce(%x init: %s), (%x init: %s) across dimensions = [1] : (tensor<4x4xf32>, tensor<4x4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: reducer(%a_3: tensor<f32>, %c_1: tensor<f32>) (%b_3: tensor<f32>, %d_1: tensor<f32>)  {
// CHECK: %m_3 = stablehlo.add %a_3, %c_1 : tensor<f32>
// CHECK: stablehlo.return %m_3, %b_3 : tensor<f32>, tensor<f32>
// CHECK: %8 = "stablehlo.dynamic_gather"(%x, %i, %ss) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>}> : (tensor<4x4xf32>, tensor<2x1xi32>, tensor<2xi64>) -> tensor<2x4xf32>
// CHECK: %w = stablehlo.reshape %x : (tensor<4x4xf32>) -> tensor<4x4x1x1xf32>
// CHECK: %xx = stablehlo.reshape %x : (tensor<4x4xf32>) -> tensor<1x4x4x1xf32>
// CHECK: %9 = "stablehlo.dynamic_conv"(%xx, %w, %pad) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, window_strides = array<i64: 1, 1>}> : (tensor<1x4x4x1xf32>, tensor<4x4x1x1xf32>, tensor<2x2xi64>) -> tensor<1x?x?x1xf32>
// CHECK: %10 = "stablehlo.batch_norm_inference"(%x, %f4, %f4, %f4, %f4) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
// CHECK: {{%11:3|%11, %12, %13}} = "stablehlo.batch_norm_grad"(%x, %f4, %f4, %f4, %x) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK: %14 = "stablehlo.async_start"(%x) ({
// CHECK: %g = "stablehlo.all_gather"(%ax) <{all_gather_dim = 1 : i64, replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>}> : (tensor<4x4xf32>) -> tensor<4x8xf32>
// CHECK: stablehlo.return %g : tensor<4x8xf32>
// CHECK: }) : (tensor<4x4xf32>) -> !stablehlo.future<tensor<4x8xf32>>
// CHECK: %15 = "stablehlo.async_done"(%14) : (!stablehlo.future<tensor<4x8xf32>>) -> tensor<4x8xf32>
// CHECK: %16 = stablehlo.convolution(%xx, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], lhs_dilate = [1, 2], reverse = [true, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<4x4x1x1xf32>) -> tensor<1x1x4x1xf32>
// CHECK: %17 = stablehlo.convolution(%xx, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<4x4x1x1xf32>) -> tensor<1x1x1x1xf32>
// CHECK: %18 = stablehlo.while(%iterArg = %s) : tensor<f32> attributes {mhlo.frontend_attributes = {a = "b"}}
// CHECK-NEXT: cond {
// CHECK: %c_2 = stablehlo.compare LT, %iterArg, %iterArg : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK: stablehlo.return %c_2 : tensor<i1>
// CHECK: } do {
// CHECK: stablehlo.return %iterArg : tensor<f32>
// CHECK: %19 = stablehlo.fft %f4, type = RFFT, length = [4] : (tensor<4xf32>) -> tensor<3xcomplex<f32>>
