// RUN: xdsl-opt --split-input-file %s | xdsl-opt --split-input-file | filecheck %s
// RUN: jax-donate-opt --split-input-file --print-op-generic %s | jax-donate-opt --split-input-file | filecheck %s
// Round trip of default-valued attributes (elided as MLIR does) and empty operand lists, in
// pretty and generic form. Inputs and CHECK lines are
// jaxlib's own printing (tests/test_stablehlo_dialect.py re-checks them against jaxlib).

func.func @edge(%x: tensor<4xf32>, %t: !stablehlo.token, %i: tensor<i32>, %m: tensor<4x4xf32>) -> () {
  %ch0 = stablehlo.cholesky %m, lower = false : tensor<4x4xf32>
  %ch1 = stablehlo.cholesky %m : tensor<4x4xf32>
  %0 = stablehlo.after_all : !stablehlo.token
  %1 = stablehlo.tuple : tuple<>
  stablehlo.custom_call @nothing() {has_side_effect = true} : () -> ()
  %2 = stablehlo.optimization_barrier %x : tensor<4xf32>
  %3 = stablehlo.dynamic_slice %x, %i, sizes = [2] : (tensor<4xf32>, tensor<i32>) -> tensor<2xf32>
  %6 = stablehlo.compare EQ, %x, %x, NOTYPE : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %7 = stablehlo.dot_general %x, %x, contracting_dims = [] x [] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  %8 = stablehlo.dot_general %x, %x, batching_dims = [0] x [0], contracting_dims = [] x [] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %9 = stablehlo.dot %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %10 = stablehlo.reduce_precision %x, format = e8m0 : tensor<4xf32>
  %11 = stablehlo.slice %x [0:4:1] : (tensor<4xf32>) -> tensor<4xf32>
  %12 = stablehlo.transpose %x, dims = [0] {mhlo.x = "y"} : (tensor<4xf32>) -> tensor<4xf32>
  %13 = stablehlo.custom_call @"odd target"(%x) {backend_config = "", called_computations = [@edge]} : (tensor<4xf32>) -> tensor<4xf32>
  %14 = stablehlo.composite "my.c" %x {decomposition = @dec} : (tensor<4xf32>) -> tensor<4xf32>
  %15:2 = stablehlo.while(%iterArg = %x, %iterArg_0 = %i) : tensor<4xf32>, tensor<i32>
  cond {
    %c = stablehlo.compare LT, %iterArg_0, %iterArg_0 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    stablehlo.return %iterArg, %iterArg_0 : tensor<4xf32>, tensor<i32>
  }
  %16 = stablehlo.get_dimension_size %x, dim = 0 : (tensor<4xf32>) -> tensor<i32>
  %17 = stablehlo.iota dim = 0 {mhlo.sharding = "x"} : tensor<4xi32>
  %18 = stablehlo.convert %i : (tensor<i32>) -> tensor<f32>
  return
}
func.func private @dec(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

func.func @edge2(%x: tensor<4xf32>) -> () {
  %0 = stablehlo.custom_call @a(%x) {has_side_effect = false, api_version = 1 : i32, called_computations = [], output_operand_aliases = [], backend_config = ""} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.custom_call @b(%x) {api_version = 4 : i32, backend_config = {}} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = stablehlo.composite "my.c" {decomposition = @dec, version = 0 : i32, composite_attributes = {}} : () -> tensor<4xf32>
  %3 = "stablehlo.sort"(%x) <{dimension = -1 : i64, is_stable = false}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  %4 = stablehlo.custom_call @c(%x) {has_side_effect = true, api_version = 2 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  return
}
func.func private @dec() -> tensor<4xf32> {
  %c = stablehlo.constant dense<1.0> : tensor<4xf32>
  return %c : tensor<4xf32>
}

// CHECK: func.func @edge(%x: tensor<4xf32>, %t: !stablehlo.token, %i: tensor<i32>, %m: tensor<4x4xf32>) {
// CHECK: %ch0 = stablehlo.cholesky %m : tensor<4x4xf32>
// CHECK: %ch1 = stablehlo.cholesky %m : tensor<4x4xf32>
// CHECK: %0 = stablehlo.after_all  : !stablehlo.token
// CHECK: %1 = stablehlo.tuple  : tuple<>
// CHECK: stablehlo.custom_call @nothing() {has_side_effect = true} : () -> ()
// CHECK: %2 = stablehlo.optimization_barrier %x : tensor<4xf32>
// CHECK: %3 = stablehlo.dynamic_slice %x, %i, sizes = [2] : (tensor<4xf32>, tensor<i32>) -> tensor<2xf32>
// CHECK: %4 = stablehlo.compare EQ, %x, %x, NOTYPE : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK: %5 = stablehlo.dot_general %x, %x, contracting_dims = [] x [] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
// CHECK: %6 = stablehlo.dot_general %x, %x, batching_dims = [0] x [0], contracting_dims = [] x [] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: %7 = stablehlo.dot %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
// CHECK: %8 = stablehlo.reduce_precision %x, format = e8m0 : tensor<4xf32>
// CHECK: %9 = stablehlo.slice %x [0:4] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: %10 = stablehlo.transpose %x, dims = [0] {mhlo.x = "y"} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: %11 = stablehlo.custom_call @"odd target"(%x) {backend_config = "", called_computations = [@edge]} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: %12 = stablehlo.composite "my.c" %x {decomposition = @dec} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: {{%13:2|%13, %14}} = stablehlo.while(%iterArg = %x, %iterArg_1 = %i) : tensor<4xf32>, tensor<i32>
// CHECK-NEXT: cond {
// CHECK: %c = stablehlo.compare LT, %iterArg_1, %iterArg_1 : (tensor<i32>, tensor<i32>) -> tensor<i1>
// CHECK: stablehlo.return %c : tensor<i1>
// CHECK: } do {
// CHECK: stablehlo.return %iterArg, %iterArg_1 : tensor<4xf32>, tensor<i32>
// CHECK: %15 = stablehlo.get_dimension_size %x, dim = 0 : (tensor<4xf32>) -> tensor<i32>
// CHECK: %16 = stablehlo.iota dim = 0 {mhlo.sharding = "x"} : tensor<4xi32>
// CHECK: %17 = stablehlo.convert %i : (tensor<i32>) -> tensor<f32>
// CHECK: %0 = stablehlo.custom_call @a(%x) {backend_config = ""} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: %1 = stablehlo.custom_call @b(%x) {api_version = 4 : i32, backend_config = {}} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: %2 = stablehlo.composite "my.c"  {decomposition = @dec} : () -> tensor<4xf32>
// CHECK: %3 = "stablehlo.sort"(%x) <{dimension = -1 : i64, is_stable = false}> ({
// CHECK: %c = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK: stablehlo.return %c : tensor<i1>
// CHECK: %4 = stablehlo.custom_call @c(%x) {api_version = 2 : i32, has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: %c = stablehlo.constant dense<1.000000e+00> : tensor<4xf32>
