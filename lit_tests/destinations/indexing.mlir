// RUN: xdsl-opt %s -p jax-reuse-donated-destinations --split-input-file | filecheck %s
// RUN: xdsl-opt %s -p jax-reuse-donated-destinations --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=WARN

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>

// Identity indexing maps: the generic reads the donor only at the element it writes.
// CHECK-LABEL: func.func @identity
// CHECK-SAME:    (%[[A:.*]]: tensor<4x4xf32> {{.*}}tf.aliasing_output = 0
// CHECK:         linalg.generic {{.*}} ins(%[[A]] : tensor<4x4xf32>) outs(%[[A]] : tensor<4x4xf32>)
func.func @identity(%a: tensor<4x4xf32> {jax.buffer_donor = true}) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  func.return %r : tensor<4x4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>

// A transpose reads other elements than it writes: no in-place write, a warning instead.
// WARN:          warning: donated argument (%arg0: tensor<4x4xf32>) is not reused: every result of its type is written before its last read; result 0 is produced by linalg.generic, which reads it and cannot write in place
// CHECK-LABEL: func.func @transpose
// CHECK-SAME:    (%[[A:.*]]: tensor<4x4xf32> {bufferization.writable = true, jax.buffer_donor = true})
// CHECK:         %[[E:.*]] = tensor.empty()
// CHECK:         linalg.generic {{.*}} ins(%[[A]] : tensor<4x4xf32>) outs(%[[E]] : tensor<4x4xf32>)
func.func @transpose(%a: tensor<4x4xf32> {jax.buffer_donor = true}) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x4xf32>
  func.return %r : tensor<4x4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>

// The transpose is a temporary: the donor is dead after it, so the elementwise consumer
// writes the result into the donor.
// CHECK-LABEL: func.func @transpose_then_add
// CHECK-SAME:    (%[[A:.*]]: tensor<4x4xf32> {bufferization.writable = true, tf.aliasing_output = 0 : i32})
// CHECK:         %[[E:.*]] = tensor.empty()
// CHECK:         %[[T:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<4x4xf32>) outs(%[[E]] : tensor<4x4xf32>)
// CHECK:         linalg.add ins(%[[T]], %[[T]] : {{.*}}) outs(%[[A]] : tensor<4x4xf32>)
func.func @transpose_then_add(%a: tensor<4x4xf32> {jax.buffer_donor = true}) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %t = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x4xf32>
  %e1 = tensor.empty() : tensor<4x4xf32>
  %r = linalg.add ins(%t, %t : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e1 : tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %r : tensor<4x4xf32>
}
