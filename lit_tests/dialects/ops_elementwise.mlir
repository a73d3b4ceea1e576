// RUN: xdsl-opt --split-input-file %s | xdsl-opt --split-input-file | filecheck %s
// RUN: jax-donate-opt --split-input-file --print-op-generic %s | jax-donate-opt --split-input-file | filecheck %s
// Round trip of the elementwise ops in pretty and generic form. Inputs and CHECK lines are
// jaxlib's own printing (tests/test_stablehlo_dialect.py re-checks them against jaxlib).

func.func @unary(%f: tensor<4xf32>, %i: tensor<4xi32>, %c: tensor<4xcomplex<f32>>, %p: tensor<4xi1>, %u: tensor<4xui32>) -> () {
  %0 = stablehlo.abs %f : tensor<4xf32>
  %1 = stablehlo.abs %c : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %2 = stablehlo.cbrt %f : tensor<4xf32>
  %3 = stablehlo.ceil %f : tensor<4xf32>
  %4 = stablehlo.convert %i : (tensor<4xi32>) -> tensor<4xf32>
  %5 = stablehlo.count_leading_zeros %i : tensor<4xi32>
  %6 = stablehlo.cosine %f : tensor<4xf32>
  %7 = stablehlo.exponential %f : tensor<4xf32>
  %8 = stablehlo.exponential_minus_one %f : tensor<4xf32>
  %9 = stablehlo.floor %f : tensor<4xf32>
  %10 = stablehlo.imag %c : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %11 = stablehlo.is_finite %f : (tensor<4xf32>) -> tensor<4xi1>
  %12 = stablehlo.log %f : tensor<4xf32>
  %13 = stablehlo.log_plus_one %f : tensor<4xf32>
  %14 = stablehlo.logistic %f : tensor<4xf32>
  %15 = stablehlo.not %p : tensor<4xi1>
  %16 = stablehlo.negate %i : tensor<4xi32>
  %17 = stablehlo.popcnt %u : tensor<4xui32>
  %18 = stablehlo.real %c : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %19 = stablehlo.round_nearest_afz %f : tensor<4xf32>
  %20 = stablehlo.round_nearest_even %f : tensor<4xf32>
  %21 = stablehlo.rsqrt %f : tensor<4xf32>
  %22 = stablehlo.sign %f : tensor<4xf32>
  %23 = stablehlo.sine %f : tensor<4xf32>
  %24 = stablehlo.sqrt %f : tensor<4xf32>
  %25 = stablehlo.tan %f : tensor<4xf32>
  %26 = stablehlo.tanh %f : tensor<4xf32>
  %27 = "stablehlo.exponential"(%f) {result_accuracy = #stablehlo.result_accuracy<atol = 1.000000e-05, rtol = 0.000000e+00, ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : (tensor<4xf32>) -> tensor<4xf32>
  %28 = "stablehlo.sine"(%f) {result_accuracy = #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<HIGHEST>>} : (tensor<4xf32>) -> tensor<4xf32>
  %29 = stablehlo.convert %f : tensor<4xf32>
  %30 = stablehlo.negate %f {mhlo.sharding = "{replicated}"} : tensor<4xf32>
  %31 = stablehlo.abs %i : tensor<4xi32>
  %34 = stablehlo.reduce_precision %f, format = e5m10 : tensor<4xf32>
  %35 = stablehlo.sqrt %f : (tensor<4xf32>) -> tensor<?xf32>
  return
}
func.func @binary(%f: tensor<4xf32>, %i: tensor<4xi32>, %p: tensor<4xi1>, %s: tensor<f32>) -> () {
  %0 = stablehlo.add %f, %f : tensor<4xf32>
  %1 = stablehlo.atan2 %f, %f : tensor<4xf32>
  %2 = stablehlo.complex %f, %f : tensor<4xcomplex<f32>>
  %3 = stablehlo.divide %f, %f : tensor<4xf32>
  %4 = stablehlo.maximum %f, %f : tensor<4xf32>
  %5 = stablehlo.minimum %f, %f : tensor<4xf32>
  %6 = stablehlo.multiply %f, %f : tensor<4xf32>
  %7 = stablehlo.power %f, %f : tensor<4xf32>
  %8 = stablehlo.remainder %i, %i : tensor<4xi32>
  %9 = stablehlo.shift_left %i, %i : tensor<4xi32>
  %10 = stablehlo.shift_right_arithmetic %i, %i : tensor<4xi32>
  %11 = stablehlo.shift_right_logical %i, %i : tensor<4xi32>
  %12 = stablehlo.subtract %f, %f : tensor<4xf32>
  %13 = stablehlo.and %p, %p : tensor<4xi1>
  %14 = stablehlo.or %i, %i : tensor<4xi32>
  %15 = stablehlo.xor %i, %i : tensor<4xi32>
  %16 = stablehlo.compare GT, %f, %f, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %17 = stablehlo.compare EQ, %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %18 = stablehlo.compare LT, %f, %f, TOTALORDER : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %19 = stablehlo.select %p, %f, %f : tensor<4xi1>, tensor<4xf32>
  %20 = stablehlo.clamp %s, %f, %s : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %21 = stablehlo.clamp %f, %f, %f : tensor<4xf32>
  %22 = stablehlo.add %f, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<?xf32>
  %23 = stablehlo.compare NE, %i, %i, UNSIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %24 = stablehlo.compare GE, %i, %i, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %25 = stablehlo.compare LE, %f, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %26 = stablehlo.select %p, %i, %i : (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %pp = stablehlo.constant dense<true> : tensor<i1>
  %27 = stablehlo.select %pp, %i, %i : tensor<i1>, tensor<4xi32>
  return
}

// CHECK: %0 = stablehlo.abs %f : tensor<4xf32>
// CHECK: %1 = stablehlo.abs %c : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
// CHECK: %2 = stablehlo.cbrt %f : tensor<4xf32>
// CHECK: %3 = stablehlo.ceil %f : tensor<4xf32>
// CHECK: %4 = stablehlo.convert %i : (tensor<4xi32>) -> tensor<4xf32>
// CHECK: %5 = stablehlo.count_leading_zeros %i : tensor<4xi32>
// CHECK: %6 = stablehlo.cosine %f : tensor<4xf32>
// CHECK: %7 = stablehlo.exponential %f : tensor<4xf32>
// CHECK: %8 = stablehlo.exponential_minus_one %f : tensor<4xf32>
// CHECK: %9 = stablehlo.floor %f : tensor<4xf32>
// CHECK: %10 = stablehlo.imag %c : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
// CHECK: %11 = stablehlo.is_finite %f : (tensor<4xf32>) -> tensor<4xi1>
// CHECK: %12 = stablehlo.log %f : tensor<4xf32>
// CHECK: %13 = stablehlo.log_plus_one %f : tensor<4xf32>
// CHECK: %14 = stablehlo.logistic %f : tensor<4xf32>
// CHECK: %15 = stablehlo.not %p : tensor<4xi1>
// CHECK: %16 = stablehlo.negate %i : tensor<4xi32>
// CHECK: %17 = stablehlo.popcnt %u : tensor<4xui32>
// CHECK: %18 = stablehlo.real %c : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
// CHECK: %19 = stablehlo.round_nearest_afz %f : tensor<4xf32>
// CHECK: %20 = stablehlo.round_nearest_even %f : tensor<4xf32>
// CHECK: %21 = stablehlo.rsqrt %f : tensor<4xf32>
// CHECK: %22 = stablehlo.sign %f : tensor<4xf32>
// CHECK: %23 = stablehlo.sine %f : tensor<4xf32>
// CHECK: %24 = stablehlo.sqrt %f : tensor<4xf32>
// CHECK: %25 = stablehlo.tan %f : tensor<4xf32>
// CHECK: %26 = stablehlo.tanh %f : tensor<4xf32>
// CHECK: %27 = stablehlo.exponential %f {result_accuracy = #stablehlo.result_accuracy<atol = 1.000000e-05, ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<4xf32>
// CHECK: %28 = stablehlo.sine %f {result_accuracy = #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<HIGHEST>>} : tensor<4xf32>
// CHECK: %29 = stablehlo.convert %f : tensor<4xf32>
// CHECK: %30 = stablehlo.negate %f {mhlo.sharding = "{replicated}"} : tensor<4xf32>
// CHECK: %31 = stablehlo.abs %i : tensor<4xi32>
// CHECK: %32 = stablehlo.reduce_precision %f, format = e5m10 : tensor<4xf32>
// CHECK: %33 = stablehlo.sqrt %f : (tensor<4xf32>) -> tensor<?xf32>
// CHECK: %0 = stablehlo.add %f, %f : tensor<4xf32>
// CHECK: %1 = stablehlo.atan2 %f, %f : tensor<4xf32>
// CHECK: %2 = stablehlo.complex %f, %f : tensor<4xcomplex<f32>>
// CHECK: %3 = stablehlo.divide %f, %f : tensor<4xf32>
// CHECK: %4 = stablehlo.maximum %f, %f : tensor<4xf32>
// CHECK: %5 = stablehlo.minimum %f, %f : tensor<4xf32>
// CHECK: %6 = stablehlo.multiply %f, %f : tensor<4xf32>
// CHECK: %7 = stablehlo.power %f, %f : tensor<4xf32>
// CHECK: %8 = stablehlo.remainder %i, %i : tensor<4xi32>
// CHECK: %9 = stablehlo.shift_left %i, %i : tensor<4xi32>
// CHECK: %10 = stablehlo.shift_right_arithmetic %i, %i : tensor<4xi32>
// CHECK: %11 = stablehlo.shift_right_logical %i, %i : tensor<4xi32>
// CHECK: %12 = stablehlo.subtract %f, %f : tensor<4xf32>
// CHECK: %13 = stablehlo.and %p, %p : tensor<4xi1>
// CHECK: %14 = stablehlo.or %i, %i : tensor<4xi32>
// CHECK: %15 = stablehlo.xor %i, %i : tensor<4xi32>
// CHECK: %16 = stablehlo.compare GT, %f, %f, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK: %17 = stablehlo.compare EQ, %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
// CHECK: %18 = stablehlo.compare LT, %f, %f, TOTALORDER : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK: %19 = stablehlo.select %p, %f, %f : tensor<4xi1>, tensor<4xf32>
// CHECK: %20 = stablehlo.clamp %s, %f, %s : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: %21 = stablehlo.clamp %f, %f, %f : tensor<4xf32>
// CHECK: %22 = stablehlo.add %f, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<?xf32>
// CHECK: %23 = stablehlo.compare NE, %i, %i, UNSIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
// CHECK: %24 = stablehlo.compare GE, %i, %i, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
// CHECK: %25 = stablehlo.compare LE, %f, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK: %26 = stablehlo.select %p, %i, %i : tensor<4xi1>, tensor<4xi32>
// CHECK: %pp = stablehlo.constant dense<true> : tensor<i1>
// CHECK: %27 = stablehlo.select %pp, %i, %i : tensor<i1>, tensor<4xi32>

// -----
// stablehlo.exp2, stablehlo.log2 and stablehlo.fma (jaxlib >= 0.12.1 registers them:
// tests/jax_versions.py, OPS_SINCE).

func.func @exp2_log2_fma(%f: tensor<4xf32>, %s: tensor<f32>) {
  %0 = stablehlo.exp2 %f : tensor<4xf32>
  %1 = stablehlo.log2 %f : tensor<4xf32>
  %2 = stablehlo.exp2 %f {result_accuracy = #stablehlo.result_accuracy<ulps = 2, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<4xf32>
  %3 = stablehlo.fma %f, %0, %1 : tensor<4xf32>
  %4 = stablehlo.fma %s, %s, %s : tensor<f32>
  %5 = stablehlo.fma %f, %f, %f : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?xf32>
  return
}

// CHECK-LABEL: func.func @exp2_log2_fma(%f: tensor<4xf32>, %s: tensor<f32>) {
// CHECK-NEXT: %0 = stablehlo.exp2 %f : tensor<4xf32>
// CHECK-NEXT: %1 = stablehlo.log2 %f : tensor<4xf32>
// CHECK-NEXT: %2 = stablehlo.exp2 %f {result_accuracy = #stablehlo.result_accuracy<ulps = 2, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<4xf32>
// CHECK-NEXT: %3 = stablehlo.fma %f, %0, %1 : tensor<4xf32>
// CHECK-NEXT: %4 = stablehlo.fma %s, %s, %s : tensor<f32>
// CHECK-NEXT: %5 = stablehlo.fma %f, %f, %f : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?xf32>
// CHECK-NEXT: return
