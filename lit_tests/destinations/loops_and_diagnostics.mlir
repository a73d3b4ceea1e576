// RUN: xdsl-opt %s -p jax-reuse-donated-destinations --split-input-file | filecheck %s
// RUN: xdsl-opt %s -p jax-reuse-donated-destinations --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=WARN

// Inside an scf.for body the iteration argument is dead after the elementwise read: the
// yielded value is written into it (no per-iteration allocation).
// CHECK-LABEL: func.func @loop
// CHECK:         scf.for {{.*}} iter_args(%[[IT:.*]] = %{{.*}}) -> (tensor<4xf32>)
// CHECK-NOT:       tensor.empty
// CHECK:           %[[N:.*]] = linalg.add ins(%[[IT]], %[[IT]] : {{.*}}) outs(%[[IT]] : tensor<4xf32>)
// CHECK:           scf.yield %[[N]]
func.func @loop(%a: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
  %lb = arith.constant 0 : index
  %ub = arith.constant 3 : index
  %st = arith.constant 1 : index
  %r = scf.for %i = %lb to %ub step %st iter_args(%it = %a) -> (tensor<4xf32>) {
    %e = tensor.empty() : tensor<4xf32>
    %n = linalg.add ins(%it, %it : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %n : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}

// -----

// In a loop: the first iteration argument is read after the new value is produced, so
// that value stays fresh; the second one is dead by then and hosts its yielded value.
// CHECK-LABEL: func.func @loop_read_after
// CHECK:         scf.for {{.*}} iter_args(%[[IT:.*]] = %{{.*}}, %[[ACC:.*]] = %{{.*}})
// CHECK:           %[[E:.*]] = tensor.empty()
// CHECK:           %[[N:.*]] = linalg.add {{.*}} outs(%[[E]] : tensor<4xf32>)
// CHECK:           linalg.mul ins(%[[IT]], %[[N]] : {{.*}}) outs(%[[ACC]] : tensor<4xf32>)
func.func @loop_read_after(%a: tensor<4xf32> {jax.buffer_donor = true}, %b: tensor<4xf32> {jax.buffer_donor = true}) -> (tensor<4xf32>, tensor<4xf32>) {
  %lb = arith.constant 0 : index
  %ub = arith.constant 3 : index
  %st = arith.constant 1 : index
  %r:2 = scf.for %i = %lb to %ub step %st iter_args(%it = %a, %acc = %b) -> (tensor<4xf32>, tensor<4xf32>) {
    %e = tensor.empty() : tensor<4xf32>
    %n = linalg.add ins(%acc, %acc : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %e2 = tensor.empty() : tensor<4xf32>
    %m = linalg.mul ins(%it, %n : tensor<4xf32>, tensor<4xf32>) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %n, %m : tensor<4xf32>, tensor<4xf32>
  }
  func.return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Negative: the loop's initial value is a caller buffer that is not donated (not writable),
// so the loop must not write into its iteration argument.
// CHECK-LABEL: func.func @loop_init_not_writable
// CHECK-SAME:    %{{.*}}: tensor<4xf32> {bufferization.writable = false}
// CHECK:         scf.for
// CHECK:           %[[E:.*]] = tensor.empty()
// CHECK:           linalg.add {{.*}} outs(%[[E]] : tensor<4xf32>)
func.func @loop_init_not_writable(%a: tensor<4xf32> {jax.buffer_donor = true}, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %lb = arith.constant 0 : index
  %ub = arith.constant 3 : index
  %st = arith.constant 1 : index
  %r = scf.for %i = %lb to %ub step %st iter_args(%it = %b) -> (tensor<4xf32>) {
    %e = tensor.empty() : tensor<4xf32>
    %n = linalg.add ins(%it, %it : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %n : tensor<4xf32>
  }
  %e1 = tensor.empty() : tensor<4xf32>
  %s = linalg.add ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  func.return %r, %s : tensor<4xf32>, tensor<4xf32>
}

// -----

// A donor captured by an op of unknown effects is left alone, with a warning.
// WARN: warning: donated argument (%arg0: tensor<4xf32>) is used by test.op, whose effect on its buffer is unknown; its buffer is not reused
// CHECK-LABEL: func.func @captured
// CHECK:         %[[E:.*]] = tensor.empty()
// CHECK:         linalg.add {{.*}} outs(%[[E]] : tensor<4xf32>)
func.func @captured(%a: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
  "test.op"(%a) : (tensor<4xf32>) -> ()
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// The result's destination is not a tensor.empty (a fill of a constant tensor): warning.
// WARN: warning: result 0 cannot be written into donated argument (%arg0: tensor<4xf32>): its destination is not a tensor.empty (it comes from arith.constant)
// CHECK-LABEL: func.func @not_empty
func.func @not_empty(%a: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
  %c = arith.constant dense<1.0> : tensor<4xf32>
  %r = linalg.add ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%c : tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
