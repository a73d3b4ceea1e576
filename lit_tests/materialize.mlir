// mode=materialize: destination-passing output for bufferization pipelines (program order),
// in the shape of xDSL's upstream pass: one materialize_in_destination per reused donor,
// right before the return, in result order.
// RUN: jax-donate-opt %s --split-input-file -p 'jax-plan-donation{mode=materialize}' 2>/dev/null | filecheck %s
// RUN: jax-donate-opt %s --split-input-file -p 'jax-plan-donation{mode=materialize remove-matched-outputs=true}' --verify-diagnostics 2>/dev/null | filecheck %s --check-prefix=REMOVE
// RUN: jax-donate-opt %s --split-input-file -p 'jax-plan-donation{mode=materialize keep-unpaired-donors=true}' 2>/dev/null | filecheck %s --check-prefix=KEEP
// RUN: jax-donate-opt %s --split-input-file -p 'jax-plan-donation{mode=materialize},jax-plan-donation{mode=materialize}' 2>/dev/null | filecheck %s --check-prefix=TWICE
// RUN: jax-donate-opt %s --split-input-file -p 'jax-plan-donation{mode=materialize keep-unpaired-donors=true},jax-plan-donation{mode=materialize}' 2>/dev/null | filecheck %s --check-prefix=KEEPTWICE
// RUN: jax-donate-opt %s --split-input-file -p 'jax-plan-donation{mode=materialize}' 2>&1 >/dev/null | filecheck %s --check-prefix=WARN
// RUN: jax-donate-opt %s --split-input-file -p 'jax-plan-donation{mode=materialize keep-existing-aliases=true}' --verify-diagnostics 2>/dev/null | filecheck %s --check-prefix=KEA
// Every function here also goes through upstream one-shot bufferization and runs
// (tests/test_materialize_bufferizes.py).

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

// An unpaired donor is not writable (nor donated) unless keep-unpaired-donors is set. A second
// run does not give the kept donor the result the first run materialized (M1: it did, so result
// 0 had two destinations).
// KEEPTWICE-LABEL: func.func public @unpaired
// KEEPTWICE-SAME:    (%{{.*}}: tensor<4xf32> {bufferization.writable = true}, %{{.*}}: tensor<4xf32> {bufferization.writable = false})
// KEEPTWICE-COUNT-1: bufferization.materialize_in_destination
// KEEPTWICE-NEXT:    func.return
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

// -----

// M1: a result the input already materializes into an argument keeps that one destination, and
// that argument stays writable (was: materialized again into %d, %c marked read-only, and
// one-shot bufferization failed with "would write to read-only buffer").
// CHECK-LABEL: func.func public @already_materialized
// CHECK-SAME:    (%[[C:.*]]: tensor<4xf32> {bufferization.writable = true}, %{{.*}}: tensor<4xf32> {bufferization.writable = false}, %{{.*}}: tensor<4xf32> {bufferization.writable = false})
// CHECK-NEXT:    %[[N:.*]] = stablehlo.negate
// CHECK-NEXT:    %[[M:.*]] = bufferization.materialize_in_destination %[[N]] in %[[C]]
// CHECK-NEXT:    func.return %[[M]] : tensor<4xf32>
// WARN: warning: donated argument (%arg1: tensor<4xf32>) is not reused: every result of its type already has a destination in the input (result 0 into %arg0)
func.func public @already_materialized(%c: tensor<4xf32>, %d: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.negate"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = bufferization.materialize_in_destination %0 in %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %1 : tensor<4xf32>
}

// -----

// M1: written through a view is written.
// CHECK-LABEL: func.func public @through_a_view
// CHECK-SAME:    (%{{.*}}: tensor<4xf32> {bufferization.writable = true}, %{{.*}}: tensor<2x2xf32> {bufferization.writable = false}, %{{.*}}: tensor<2x2xf32> {bufferization.writable = false})
// CHECK-COUNT-1: bufferization.materialize_in_destination
// CHECK-NEXT:    func.return
func.func public @through_a_view(%c: tensor<4xf32>, %d: tensor<2x2xf32> {jax.buffer_donor = true}, %x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %v = "stablehlo.reshape"(%c) : (tensor<4xf32>) -> tensor<2x2xf32>
  %0 = "stablehlo.negate"(%x) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = bufferization.materialize_in_destination %0 in %v : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %1 : tensor<2x2xf32>
}

// -----

// M2: one value returned three times is materialized once; the second donor copies the first
// destination, and the unpaired position returns the first destination too (was: %0
// materialized twice and returned as is, which eliminate-empty-tensors turns into a
// read-after-write conflict one-shot bufferization cannot avoid).
// CHECK-LABEL: func.func public @same_value_twice
// CHECK:         %[[N:.*]] = stablehlo.negate
// CHECK-NEXT:    %[[MA:.*]] = bufferization.materialize_in_destination %[[N]] in %[[A:[^ ]*]]
// CHECK-NEXT:    %[[MB:.*]] = bufferization.materialize_in_destination %[[MA]] in %[[B:[^ ]*]]
// CHECK-NEXT:    func.return %[[MA]], %[[MB]], %[[MA]] :
// REMOVE-LABEL: func.func public @same_value_twice
// REMOVE-SAME:    -> tensor<4xf32>
// REMOVE:         %[[MA:.*]] = bufferization.materialize_in_destination
// REMOVE-NEXT:    bufferization.materialize_in_destination %[[MA]]
// REMOVE-NEXT:    func.return %[[MA]] : tensor<4xf32>
func.func public @same_value_twice(%a: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %b: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = "stablehlo.negate"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0, %0, %0 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// M3: %b is overwritten in place by the dynamic_update_slice that makes result 1, so it cannot
// also receive result 0 (max(%b, %b), which XLA would fold to %b itself): one-shot
// bufferization refused that with "cannot avoid RaW conflict". Left unpaired, with the reason.
// CHECK-LABEL: func.func public @overwritten_elsewhere
// CHECK-SAME:    (%{{.*}}: tensor<4xf32> {bufferization.writable = false}, %{{.*}}: tensor<2xf32> {bufferization.writable = false})
// CHECK-NOT:     bufferization.materialize_in_destination
// CHECK:         func.return
// KEA: keep-existing-aliases: argument %arg0 of @overwritten_elsewhere aliases result 0, but result 1 is produced by stablehlo.dynamic_update_slice, which overwrites it in place, so bufferization cannot also materialize result 0 into it
// WARN: warning: donated argument (%arg0: tensor<4xf32>) is not reused: result 1 is produced by stablehlo.dynamic_update_slice, which overwrites it in place, so bufferization cannot also materialize result 0 into it
func.func public @overwritten_elsewhere(%b: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %s: tensor<2xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %i = stablehlo.constant dense<0> : tensor<i32>
  %m = "stablehlo.maximum"(%b, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %u = "stablehlo.dynamic_update_slice"(%b, %s, %i) : (tensor<4xf32>, tensor<2xf32>, tensor<i32>) -> tensor<4xf32>
  func.return %m, %u : tensor<4xf32>, tensor<4xf32>
}

// -----

// M4: tf.aliasing_output only marks a donor here, as in xDSL's own pass (whose tests give
// several arguments "= 0"): no error, both donors reused. bufferization.writable is set on
// tensors only.
// CHECK-LABEL: func.func public @repeated_alias
// CHECK-SAME:    (%{{.*}}: tensor<4xf32> {bufferization.writable = true}, %{{.*}}: tensor<4xf32> {bufferization.writable = true}, %{{.*}}: !stablehlo.token)
// CHECK-COUNT-2: bufferization.materialize_in_destination
func.func public @repeated_alias(%a: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %b: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %t: !stablehlo.token) -> (tensor<4xf32>, tensor<4xf32>, !stablehlo.token) {
  %0 = "stablehlo.negate"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.abs"(%b) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0, %1, %t : tensor<4xf32>, tensor<4xf32>, !stablehlo.token
}

// -----

// M2 (campaign): a donor returned unchanged hosts itself; a second donor for the same value
// copies it, and the first position keeps returning the donor (was: redirected to the copy,
// so the donor's own pair was lost).
// CHECK-LABEL: func.func public @self_and_copy
// CHECK-SAME:    (%[[A:.*]]: tensor<2x2xf32> {bufferization.writable = true}, %[[B:.*]]: tensor<2x2xf32> {bufferization.writable = true})
// CHECK-NEXT:    %[[M:.*]] = bufferization.materialize_in_destination %[[A]] in %[[B]]
// CHECK-NEXT:    func.return %[[A]], %[[M]] :
func.func public @self_and_copy(%a: tensor<2x2xf32> {jax.buffer_donor = true}, %b: tensor<2x2xf32> {jax.buffer_donor = true}) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  func.return %a, %a : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// M5 (campaign): with remove-matched-outputs a donor that hosts its own value (returned
// unchanged) is no longer returned, so nothing kept upstream from writing the dead
// dynamic_update_slice into it in place: the caller's array lost the result. A
// materialization of the donor into itself now keeps it.
// REMOVE-LABEL: func.func public @self_hosted_removed
// REMOVE-SAME:    (%[[B:.*]]: tensor<4xf32> {bufferization.writable = true}, %{{.*}}: tensor<2xf32> {bufferization.writable = false}) -> tensor<2xf32>
// REMOVE:         bufferization.materialize_in_destination %[[B]] in %[[B]]
// REMOVE-NEXT:    func.return %{{.*}} : tensor<2xf32>
// CHECK-LABEL: func.func public @self_hosted_removed
// CHECK-NOT:     bufferization.materialize_in_destination
// CHECK:         func.return
func.func public @self_hosted_removed(%b: tensor<4xf32> {jax.buffer_donor = true}, %s: tensor<2xf32>) -> (tensor<2xf32>, tensor<4xf32>) {
  %i = stablehlo.constant dense<1> : tensor<i32>
  %u = "stablehlo.dynamic_update_slice"(%b, %s, %i) : (tensor<4xf32>, tensor<2xf32>, tensor<i32>) -> tensor<4xf32>
  %n = "stablehlo.negate"(%s) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %n, %b : tensor<2xf32>, tensor<4xf32>
}

// -----

// M5: ... but not when a kept result still returns the donor (then the self-materialization
// is a read-after-write conflict upstream refuses, and the return keeps the value anyway).
// REMOVE-LABEL: func.func public @self_hosted_still_returned
// REMOVE-NOT:     bufferization.materialize_in_destination
// REMOVE:         func.return %{{.*}} : tensor<4xf32>
func.func public @self_hosted_still_returned(%b: tensor<4xf32> {jax.buffer_donor = true}) -> (tensor<4xf32>, tensor<4xf32>) {
  func.return %b, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

// M6 (campaign run 4): @inner returns its second argument, so %r#1 is %d's buffer; with %d
// hosting result 0 (which XLA sees as %d itself, through the other call), materializing into
// %d and then returning %r#1 was refused by one-shot bufferization ("cannot avoid RaW
// conflict" on the call). Left unpaired, with the reason.
// CHECK-LABEL: func.func public @shared_through_calls
// CHECK-SAME:    (%{{.*}}: tensor<4xf32> {bufferization.writable = false}, %{{.*}}: tensor<4xf32> {bufferization.writable = false})
// CHECK-NOT:     bufferization.materialize_in_destination
// CHECK:         func.return
// WARN: warning: donated argument (%arg0: tensor<4xf32>) is not reused: result 1 may return its buffer too, so bufferization cannot also materialize result 0 into it
func.func public @shared_through_calls(%d: tensor<4xf32> {jax.buffer_donor = true}, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = func.call @inner(%x, %d) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  %s:2 = func.call @inner(%d, %d) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  func.return %s#1, %r#1 : tensor<4xf32>, tensor<4xf32>
}
func.func private @inner(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %0, %b : tensor<4xf32>, tensor<4xf32>
}
