// RUN: xdsl-opt %s -p jax-reuse-donated-destinations --split-input-file | filecheck %s

// Elementwise chain: the donor hosts the temporary (read only at the element written), then
// the result, threaded through SSA.
// CHECK-LABEL: func.func @chain
// CHECK-SAME:    (%[[A:.*]]: tensor<4xf32> {bufferization.writable = true, tf.aliasing_output = 0 : i32}, %[[B:.*]]: tensor<4xf32> {bufferization.writable = false})
// CHECK-NOT:     tensor.empty
// CHECK:         %[[T:.*]] = linalg.add ins(%[[A]], %[[B]] : {{.*}}) outs(%[[A]] : tensor<4xf32>)
// CHECK:         %[[R:.*]] = linalg.mul ins(%[[T]], %[[B]] : {{.*}}) outs(%[[T]] : tensor<4xf32>)
// CHECK:         func.return %[[R]]
func.func @chain(%a: tensor<4xf32> {jax.buffer_donor = true}, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e0 = tensor.empty() : tensor<4xf32>
  %t = linalg.add ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e0 : tensor<4xf32>) -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %r = linalg.mul ins(%t, %b : tensor<4xf32>, tensor<4xf32>) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// Swap: JAX paired a -> 0, but result 0 is written before a's last read; a hosts result 1.
// CHECK-LABEL: func.func @swap
// CHECK-SAME:    (%[[A:.*]]: tensor<4xf32> {bufferization.writable = true, tf.aliasing_output = 1 : i32}, %[[B:.*]]: tensor<4xf32> {bufferization.writable = true, tf.aliasing_output = 0 : i32})
// CHECK:         %[[X:.*]] = linalg.add ins(%[[B]], %[[B]] : {{.*}}) outs(%[[B]] : tensor<4xf32>)
// CHECK:         %[[Y:.*]] = linalg.mul ins(%[[A]], %[[A]] : {{.*}}) outs(%[[A]] : tensor<4xf32>)
// CHECK:         func.return %[[X]], %[[Y]]
func.func @swap(%a: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %b: tensor<4xf32> {tf.aliasing_output = 1 : i32}) -> (tensor<4xf32>, tensor<4xf32>) {
  %e0 = tensor.empty() : tensor<4xf32>
  %x = linalg.add ins(%b, %b : tensor<4xf32>, tensor<4xf32>) outs(%e0 : tensor<4xf32>) -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %y = linalg.mul ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  func.return %x, %y : tensor<4xf32>, tensor<4xf32>
}

// -----

// Negative: the donor is read after the op (by the second op), so the first destination
// stays a tensor.empty; the second op may write into it (last read, elementwise).
// CHECK-LABEL: func.func @read_later
// CHECK-SAME:    (%[[A:.*]]: tensor<4xf32> {{.*}}, %[[B:.*]]: tensor<4xf32> {{.*}})
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK:         %[[X:.*]] = linalg.add ins(%[[B]], %[[B]] : {{.*}}) outs(%[[E]] : tensor<4xf32>)
// CHECK:         linalg.mul ins(%[[A]], %[[X]] : {{.*}}) outs(%[[A]] : tensor<4xf32>)
func.func @read_later(%a: tensor<4xf32> {jax.buffer_donor = true}, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e0 = tensor.empty() : tensor<4xf32>
  %x = linalg.add ins(%b, %b : tensor<4xf32>, tensor<4xf32>) outs(%e0 : tensor<4xf32>) -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %y = linalg.mul ins(%a, %x : tensor<4xf32>, tensor<4xf32>) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// Chain reuse, linear scan: %t1 moves into the donor (its last read); %t2 overlaps %t1 and
// stays fresh; the result takes %t1's buffer at %t1's last (elementwise) read.
// CHECK-LABEL: func.func @overlap
// CHECK-SAME:    (%[[A:.*]]: tensor<4xf32> {{.*}}, %[[B:.*]]: tensor<4xf32> {{.*}})
// CHECK:         %[[T1:.*]] = linalg.add ins(%[[A]], %[[B]] : {{.*}}) outs(%[[A]] : tensor<4xf32>)
// CHECK:         %[[E:.*]] = tensor.empty()
// CHECK:         %[[T2:.*]] = linalg.mul ins(%[[B]], %[[B]] : {{.*}}) outs(%[[E]] : tensor<4xf32>)
// CHECK:         %[[R:.*]] = linalg.sub ins(%[[T1]], %[[T2]] : {{.*}}) outs(%[[T1]] : tensor<4xf32>)
// CHECK:         func.return %[[R]]
func.func @overlap(%a: tensor<4xf32> {jax.buffer_donor = true}, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e0 = tensor.empty() : tensor<4xf32>
  %t1 = linalg.add ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e0 : tensor<4xf32>) -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %t2 = linalg.mul ins(%b, %b : tensor<4xf32>, tensor<4xf32>) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %r = linalg.sub ins(%t1, %t2 : tensor<4xf32>, tensor<4xf32>) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// A donor with no result of its type still hosts temporaries after its last read.
// CHECK-LABEL: func.func @temps_only
// CHECK-SAME:    (%[[A:.*]]: tensor<4xf32> {bufferization.writable = true, jax.buffer_donor = true})
// CHECK:         %[[T:.*]] = linalg.mul ins(%[[A]], %[[A]] : {{.*}}) outs(%[[A]] : tensor<4xf32>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<f32>
// CHECK:         linalg.reduce ins(%[[T]]
func.func @temps_only(%a: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<f32> {
  %e0 = tensor.empty() : tensor<4xf32>
  %t = linalg.mul ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%e0 : tensor<4xf32>) -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<f32>
  %zero = arith.constant 0.0 : f32
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<f32>) -> tensor<f32>
  %s = linalg.reduce ins(%t : tensor<4xf32>) outs(%f : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %sum = arith.addf %in, %acc : f32
      linalg.yield %sum : f32
    }
  func.return %s : tensor<f32>
}
