// mode=materialize: destination-passing output for bufferization pipelines (program order),
// in the shape of xDSL's upstream pass: one materialize_in_destination per reused donor,
// right before the return, in result order.
// RUN: jax-donate-opt %s --split-input-file -p 'jax-plan-donation{mode=materialize}' 2>/dev/null | filecheck %s
// RUN: jax-donate-opt %s --split-input-file -p 'jax-plan-donation{mode=materialize remove-matched-outputs=true}' --verify-diagnostics 2>/dev/null | filecheck %s --check-prefix=REMOVE
// RUN: jax-donate-opt %s --split-input-file -p 'jax-plan-donation{mode=materialize keep-unpaired-donors=true}' 2>/dev/null | filecheck %s --check-prefix=KEEP
// RUN: jax-donate-opt %s --split-input-file -p 'jax-plan-donation{mode=materialize},jax-plan-donation{mode=materialize}' 2>/dev/null | filecheck %s --check-prefix=TWICE

// CHECK-LABEL: func.func public @swap
// CHECK-SAME:    (%[[A:.*]]: tensor<4xf32> {bufferization.writable = true}, %[[B:.*]]: tensor<4xf32> {bufferization.writable = true}, %[[C:.*]]: tensor<4xf32> {bufferization.writable = false})
// CHECK-NEXT:    %[[X:.*]] = stablehlo.multiply %[[B]], %[[C]] : tensor<4xf32>
// CHECK-NEXT:    %[[Y:.*]] = stablehlo.add %[[A]], %[[C]] : tensor<4xf32>
// CHECK-NEXT:    stablehlo.convert %[[C]] : (tensor<4xf32>) -> tensor<4xi32>
// CHECK-NEXT:    %[[MX:.*]] = bufferization.materialize_in_destination %[[X]] in %[[B]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[MY:.*]] = bufferization.materialize_in_destination %[[Y]] in %[[A]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[MX]], %[[MY]], %{{.*}} : tensor<4xf32>, tensor<4xf32>, tensor<4xi32>

// REMOVE-LABEL: func.func public @swap
// REMOVE-SAME:    -> (tensor<4xi32> {jax.result_info = "result[2]"})
// REMOVE:         bufferization.materialize_in_destination
// REMOVE-NEXT:    bufferization.materialize_in_destination
// REMOVE-NEXT:    func.return %{{.*}} : tensor<4xi32>

// Donors and not-donated arguments are marked; the second run finds nothing left to do.
// TWICE-LABEL: func.func public @swap
// TWICE-COUNT-2: bufferization.materialize_in_destination
// TWICE-NOT:     bufferization.materialize_in_destination
// TWICE:         func.return
func.func public @swap(%a: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %b: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %c: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<4xf32> {jax.result_info = "result[1]"}, tensor<4xi32> {jax.result_info = "result[2]"}) {
  %0 = "stablehlo.multiply"(%b, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.add"(%a, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = "stablehlo.convert"(%c) : (tensor<4xf32>) -> tensor<4xi32>
  func.return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xi32>
}

// -----

// An unpaired donor is not writable (nor donated) unless keep-unpaired-donors is set.
// CHECK-LABEL: func.func public @unpaired
// CHECK-SAME:    (%{{.*}}: tensor<4xf32> {bufferization.writable = true}, %{{.*}}: tensor<4xf32> {bufferization.writable = false})
// KEEP-LABEL: func.func public @unpaired
// KEEP-SAME:    (%{{.*}}: tensor<4xf32> {bufferization.writable = true}, %{{.*}}: tensor<4xf32> {jax.buffer_donor = true, bufferization.writable = true})
func.func public @unpaired(%a: tensor<4xf32> {jax.buffer_donor = true}, %b: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
  %0 = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

// remove-matched-outputs updates every call of a changed function.
// REMOVE-LABEL: func.func public @caller
// REMOVE-NEXT:    %[[R:.*]] = func.call @callee(%{{.*}}, %{{.*}}) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi32>
// REMOVE-NEXT:    func.return %[[R]] : tensor<4xi32>
// REMOVE-LABEL: func.func private @callee
// REMOVE-SAME:    -> tensor<4xi32>
// REMOVE:         %[[M:.*]] = bufferization.materialize_in_destination
// REMOVE-NEXT:    func.return %{{.*}} : tensor<4xi32>
func.func public @caller(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xi32> {
  %0, %1 = func.call @callee(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>)
  func.return %1 : tensor<4xi32>
}
func.func private @callee(%a: tensor<4xf32> {jax.buffer_donor = true}, %c: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0 = "stablehlo.subtract"(%a, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.convert"(%c) : (tensor<4xf32>) -> tensor<4xi32>
  func.return %0, %1 : tensor<4xf32>, tensor<4xi32>
}

// -----

// A caller that uses a result to be removed cannot be updated: refused, nothing changed.
// REMOVE: remove-matched-outputs: cannot remove result 0 of @used_callee: this call uses it; run without remove-matched-outputs or stop using the result
// REMOVE: "func.call"
// REMOVE-NEXT: ^^^^^^^^^^^
func.func public @user(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @used_callee(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
func.func private @used_callee(%a: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
  %0 = "stablehlo.sqrt"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
