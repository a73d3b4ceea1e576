// Every CHLO op, in MLIR's exact custom syntax: printed back unchanged, re-read from our own
// output and from our generic form, and accepted by jaxlib. jax-donate-opt reads hex floats
// (0x7F800000 = +inf) right; plain xdsl-opt finds the dialect through the entry point.
// RUN: jax-donate-opt %s | jax-donate-opt | filecheck %s
// RUN: jax-donate-opt %s --print-op-generic | jax-donate-opt | filecheck %s
// RUN: jax-donate-opt %s | %roundtrip-jaxlib | filecheck %s --check-prefix=JAXLIB
// RUN: xdsl-opt %s | filecheck %s --check-prefix=XDSL

// XDSL: %values, %indices = chlo.top_k(%x, k = 3) : tensor<4x16xf32> -> (tensor<4x3xf32>, tensor<4x3xi32>)

// CHECK-LABEL: func.func @unary
// JAXLIB-LABEL: func.func @unary
func.func @unary(%x: tensor<4x8xf32>, %z: tensor<4xcomplex<f32>>) -> tensor<4x8xf32> {
  // CHECK-NEXT: %0 = chlo.erf %x : tensor<4x8xf32> -> tensor<4x8xf32>
  // JAXLIB-NEXT: %0 = chlo.erf %arg0 : tensor<4x8xf32> -> tensor<4x8xf32>
  %0 = chlo.erf %x : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK-NEXT: %1 = chlo.erf_inv %0 : tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = chlo.erf_inv %0 : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK-NEXT: %2 = chlo.erfc %1 : tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = chlo.erfc %1 : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK-NEXT: %3 = chlo.lgamma %2 : tensor<4x8xf32> -> tensor<4x8xf32>
  %3 = chlo.lgamma %2 : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK-NEXT: %4 = chlo.digamma %3 : tensor<4x8xf32> -> tensor<4x8xf32>
  %4 = chlo.digamma %3 : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK-NEXT: %5 = chlo.bessel_i1e %4 : tensor<4x8xf32> -> tensor<4x8xf32>
  %5 = chlo.bessel_i1e %4 : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK-NEXT: %6 = chlo.sinh %5 : tensor<4x8xf32> -> tensor<4x8xf32>
  %6 = chlo.sinh %5 : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK-NEXT: %7 = chlo.cosh %6 : tensor<4x8xf32> -> tensor<4x8xf32>
  %7 = chlo.cosh %6 : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK-NEXT: %8 = chlo.tan %7 : tensor<4x8xf32> -> tensor<4x8xf32>
  %8 = chlo.tan %7 : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK-NEXT: %9 = chlo.acos %8 : tensor<4x8xf32> -> tensor<4x8xf32>
  %9 = chlo.acos %8 : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK-NEXT: %10 = chlo.acosh %9 : tensor<4x8xf32> -> tensor<4x8xf32>
  %10 = chlo.acosh %9 : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK-NEXT: %11 = chlo.asin %10 : tensor<4x8xf32> -> tensor<4x8xf32>
  %11 = chlo.asin %10 : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK-NEXT: %12 = chlo.asinh %11 : tensor<4x8xf32> -> tensor<4x8xf32>
  %12 = chlo.asinh %11 : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK-NEXT: %13 = chlo.atan %12 : tensor<4x8xf32> -> tensor<4x8xf32>
  %13 = chlo.atan %12 : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK-NEXT: %14 = chlo.atanh %13 : tensor<4x8xf32> -> tensor<4x8xf32>
  %14 = chlo.atanh %13 : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK-NEXT: %15 = chlo.square %14 {mhlo.frontend_attributes = {x = "1"}} : tensor<4x8xf32> -> tensor<4x8xf32>
  %15 = chlo.square %14 {mhlo.frontend_attributes = {x = "1"}} : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK-NEXT: %16 = chlo.conj %z : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
  %16 = chlo.conj %z : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
  // CHECK-NEXT: %17 = chlo._asin_acos_kernel %16 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
  %17 = chlo._asin_acos_kernel %16 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
  // CHECK-NEXT: %18 = chlo.asin %17 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
  %18 = chlo.asin %17 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
  func.return %15 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @predicates
func.func @predicates(%x: tensor<?x8xf32>) -> (tensor<?x8xi1>, tensor<?x8xi1>, tensor<?x8xi1>) {
  // CHECK-NEXT: %0 = chlo.is_inf %x : tensor<?x8xf32> -> tensor<?x8xi1>
  %0 = chlo.is_inf %x : tensor<?x8xf32> -> tensor<?x8xi1>
  // CHECK-NEXT: %1 = chlo.is_neg_inf %x : tensor<?x8xf32> -> tensor<?x8xi1>
  %1 = chlo.is_neg_inf %x : tensor<?x8xf32> -> tensor<?x8xi1>
  // CHECK-NEXT: %2 = chlo.is_pos_inf %x : tensor<?x8xf32> -> tensor<?x8xi1>
  %2 = chlo.is_pos_inf %x : tensor<?x8xf32> -> tensor<?x8xi1>
  func.return %0, %1, %2 : tensor<?x8xi1>, tensor<?x8xi1>, tensor<?x8xi1>
}

// CHECK-LABEL: func.func @binary
func.func @binary(%a: tensor<8xf32>, %b: tensor<8xf32>, %i: tensor<8xi32>) -> tensor<8xf32> {
  // CHECK-NEXT: %0 = chlo.next_after %a, %b : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %0 = chlo.next_after %a, %b : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  // CHECK-NEXT: %1 = chlo.polygamma %0, %b : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %1 = chlo.polygamma %0, %b : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  // CHECK-NEXT: %2 = chlo.zeta %1, %b : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %2 = chlo.zeta %1, %b : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  // CHECK-NEXT: %3 = chlo.mulhi %i, %i : tensor<8xi32>, tensor<8xi32> -> tensor<8xi32>
  %3 = chlo.mulhi %i, %i : tensor<8xi32>, tensor<8xi32> -> tensor<8xi32>
  func.return %2 : tensor<8xf32>
}

// CHECK-LABEL: func.func @broadcasting
// JAXLIB-LABEL: func.func @broadcasting
func.func @broadcasting(%m: tensor<4x8xf32>, %v: tensor<8xf32>, %c: tensor<4xf32>, %p: tensor<4x8xi1>, %i: tensor<4x8xi32>) -> tensor<4x8xf32> {
  // CHECK-NEXT: %0 = chlo.broadcast_add %m, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %0 = chlo.broadcast_add %m, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: %1 = chlo.broadcast_multiply %0, %c {broadcast_dimensions = array<i64: 0>} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  // JAXLIB: chlo.broadcast_multiply %0, %arg2 {broadcast_dimensions = array<i64: 0>} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  %1 = chlo.broadcast_multiply %0, %c {broadcast_dimensions = array<i64: 0>} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: %2 = chlo.broadcast_subtract %1, %m : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = chlo.broadcast_subtract %1, %m : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: %3 = chlo.broadcast_divide %2, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %3 = chlo.broadcast_divide %2, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: %4 = chlo.broadcast_maximum %3, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %4 = chlo.broadcast_maximum %3, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: %5 = chlo.broadcast_minimum %4, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %5 = chlo.broadcast_minimum %4, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: %6 = chlo.broadcast_power %5, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %6 = chlo.broadcast_power %5, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: %7 = chlo.broadcast_remainder %6, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %7 = chlo.broadcast_remainder %6, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: %8 = chlo.broadcast_atan2 %7, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %8 = chlo.broadcast_atan2 %7, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: %9 = chlo.broadcast_next_after %8, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %9 = chlo.broadcast_next_after %8, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: %10 = chlo.broadcast_polygamma %9, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %10 = chlo.broadcast_polygamma %9, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: %11 = chlo.broadcast_zeta %10, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %11 = chlo.broadcast_zeta %10, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: %12 = chlo.broadcast_compare %11, %v {comparison_direction = #chlo<comparison_direction LT>} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  %12 = chlo.broadcast_compare %11, %v {comparison_direction = #chlo<comparison_direction LT>} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  // CHECK-NEXT: %13 = chlo.broadcast_compare %11, %c {broadcast_dimensions = array<i64: 0>, compare_type = #chlo<comparison_type TOTALORDER>, comparison_direction = #chlo<comparison_direction GE>} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xi1>
  // JAXLIB: chlo.broadcast_compare {{.*}} {broadcast_dimensions = array<i64: 0>, compare_type = #chlo<comparison_type TOTALORDER>, comparison_direction = #chlo<comparison_direction GE>}
  %13 = chlo.broadcast_compare %11, %c {broadcast_dimensions = array<i64: 0>, compare_type = #chlo<comparison_type TOTALORDER>, comparison_direction = #chlo<comparison_direction GE>} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xi1>
  // CHECK-NEXT: %14 = chlo.broadcast_and %12, %p : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
  %14 = chlo.broadcast_and %12, %p : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
  // CHECK-NEXT: %15 = chlo.broadcast_or %14, %13 : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
  %15 = chlo.broadcast_or %14, %13 : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
  // CHECK-NEXT: %16 = chlo.broadcast_xor %15, %p : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
  %16 = chlo.broadcast_xor %15, %p : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
  // CHECK-NEXT: %17 = chlo.broadcast_shift_left %i, %i : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  %17 = chlo.broadcast_shift_left %i, %i : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  // CHECK-NEXT: %18 = chlo.broadcast_shift_right_arithmetic %17, %i : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  %18 = chlo.broadcast_shift_right_arithmetic %17, %i : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  // CHECK-NEXT: %19 = chlo.broadcast_shift_right_logical %18, %i : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  %19 = chlo.broadcast_shift_right_logical %18, %i : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  // CHECK-NEXT: %20 = chlo.broadcast_complex %m, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xcomplex<f32>>
  %20 = chlo.broadcast_complex %m, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xcomplex<f32>>
  // CHECK-NEXT: %21 = chlo.broadcast_select %16, %m, %v : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %21 = chlo.broadcast_select %16, %m, %v : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  func.return %21 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @misc
// JAXLIB-LABEL: func.func @misc
func.func @misc(%x: tensor<4x16xf32>, %l: tensor<11x5xf32>, %r: tensor<3x5x7xf32>, %g: tensor<3xi32>) -> (tensor<4x3xf32>, tensor<4x3xi32>) {
  // CHECK-NEXT: %values, %indices = chlo.top_k(%x, k = 3) : tensor<4x16xf32> -> (tensor<4x3xf32>, tensor<4x3xi32>)
  // JAXLIB-NEXT: %values, %indices = chlo.top_k(%arg0, k = 3) : tensor<4x16xf32> -> (tensor<4x3xf32>, tensor<4x3xi32>)
  %values, %indices = chlo.top_k(%x, k = 3) : tensor<4x16xf32> -> (tensor<4x3xf32>, tensor<4x3xi32>)
  // CHECK-NEXT: %0 = chlo.constant dense<[1.000000e+00, 0x7F800000]> : tensor<2xf32>
  // JAXLIB-NEXT: chlo.constant dense<[1.000000e+00, 0x7F800000]> : tensor<2xf32>
  %0 = chlo.constant dense<[1.0, 0x7F800000]> : tensor<2xf32>
  // CHECK-NEXT: %1 = "chlo.constant_like"(%x) <{value = 0xFF800000 : f32}> : (tensor<4x16xf32>) -> tensor<4x16xf32>
  // JAXLIB-NEXT: "chlo.constant_like"(%arg0) <{value = 0xFF800000 : f32}> : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %1 = "chlo.constant_like"(%x) <{value = 0xFF800000 : f32}> : (tensor<4x16xf32>) -> tensor<4x16xf32>
  // CHECK-NEXT: %2 = "chlo.ragged_dot"(%l, %r, %g) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision HIGHEST>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<3xi32>) -> tensor<11x7xf32>
  // JAXLIB-NEXT: "chlo.ragged_dot"
  %2 = "chlo.ragged_dot"(%l, %r, %g) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision HIGHEST>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<3xi32>) -> tensor<11x7xf32>
  func.return %values, %indices : tensor<4x3xf32>, tensor<4x3xi32>
}

// CHECK-LABEL: func.func @scan
// JAXLIB-LABEL: func.func @scan
func.func @scan(%xs: tensor<5x3xf32>, %c: tensor<3xf32>) -> (tensor<5x3xf32>, tensor<3xf32>) {
  // CHECK-NEXT: %0:2 = chlo.scan(%xs) inits (%c) dimension=0  attributes {is_reverse = true} {
  // CHECK-NEXT: ^bb0(%input: tensor<3xf32>, %carry: tensor<3xf32>):
  // CHECK-NEXT:   %2 = stablehlo.add %input, %carry : tensor<3xf32>
  // CHECK-NEXT:   stablehlo.return %2, %2 : tensor<3xf32>, tensor<3xf32>
  // CHECK-NEXT: } : (tensor<5x3xf32>, tensor<3xf32>) -> (tensor<5x3xf32>, tensor<3xf32>)
  // JAXLIB-NEXT: %0:2 = chlo.scan(%arg0) inits (%arg1) dimension=0  attributes {is_reverse = true} {
  %0:2 = chlo.scan(%xs) inits (%c) dimension=0  attributes {is_reverse = true} {
  ^bb0(%input: tensor<3xf32>, %carry: tensor<3xf32>):
    %1 = stablehlo.add %input, %carry : tensor<3xf32>
    stablehlo.return %1, %1 : tensor<3xf32>, tensor<3xf32>
  } : (tensor<5x3xf32>, tensor<3xf32>) -> (tensor<5x3xf32>, tensor<3xf32>)
  // CHECK-NEXT: %3 = chlo.scan(%xs) inits () dimension=0  {
  %2 = chlo.scan(%xs) inits () dimension=0  {
  ^bb0(%input: tensor<3xf32>):
    stablehlo.return %input : tensor<3xf32>
  } : (tensor<5x3xf32>) -> tensor<5x3xf32>
  func.return %0#0, %0#1 : tensor<5x3xf32>, tensor<3xf32>
}
