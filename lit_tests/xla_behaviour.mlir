// What XLA does before it assigns buffers, modelled by the pairing rules: loops take their
// carries at entry, one-trip loops are inlined, dead ops are removed, max(x, x) and
// select(p, x, x) fold to x (also through a call), and ops that always overwrite an operand
// make XLA copy an operand it may not write.
// RUN: jax-donate-opt %s --split-input-file -p jax-plan-donation 2>&1 | filecheck %s
// RUN: jax-donate-opt %s --split-input-file -p jax-plan-donation | %roundtrip-jaxlib | filecheck %s --check-prefix=JAXLIB

// A donor passed to two carries of a three-trip loop hosts the carry it starts (JAX's pair):
// the loop copies the other carry at entry.
// CHECK-LABEL: func.func public @donor_in_two_carries
// CHECK-SAME:    (%{{.*}}: tensor<4xi32> {tf.aliasing_output = 0 : i32})
// JAXLIB-LABEL: func.func public @donor_in_two_carries
// JAXLIB-SAME:    (%arg0: tensor<4xi32> {tf.aliasing_output = 0 : i32})
func.func public @donor_in_two_carries(%x: tensor<4xi32> {tf.aliasing_output = 0 : i32}) -> (tensor<4xi32>, tensor<4xi32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %w:3 = stablehlo.while(%i = %c0, %a = %x, %b = %x) : tensor<i32>, tensor<4xi32>, tensor<4xi32>
  cond {
    %c3 = stablehlo.constant dense<3> : tensor<i32>
    %p = stablehlo.compare LT, %i, %c3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %m = stablehlo.maximum %a, %b : tensor<4xi32>
    %z = stablehlo.subtract %b, %b : tensor<4xi32>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %n, %m, %z : tensor<i32>, tensor<4xi32>, tensor<4xi32>
  }
  %sq = stablehlo.multiply %w#2, %w#2 : tensor<4xi32>
  return %w#1, %sq : tensor<4xi32>, tensor<4xi32>
}

// -----

// The same loop with one trip: XLA inlines the body, so no carry is written in place and the
// donor, read by the loop, cannot host a result the body computes.
// CHECK: warning: donated argument (%arg0: tensor<4xi32>) is not reused: every result of its type is written before its last read; result 0 is produced by stablehlo.while, which reads it and cannot write in place
// CHECK-LABEL: func.func public @one_trip_loop
// CHECK-SAME:    (%{{.*}}: tensor<4xi32>)
func.func public @one_trip_loop(%x: tensor<4xi32> {tf.aliasing_output = 0 : i32}) -> (tensor<4xi32>, tensor<4xi32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %w:3 = stablehlo.while(%i = %c0, %a = %x, %b = %x) : tensor<i32>, tensor<4xi32>, tensor<4xi32>
  cond {
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %p = stablehlo.compare LT, %i, %c1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %m = stablehlo.add %a, %b : tensor<4xi32>
    %z = stablehlo.subtract %b, %b : tensor<4xi32>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %n, %m, %z : tensor<i32>, tensor<4xi32>, tensor<4xi32>
  }
  return %w#1, %w#2 : tensor<4xi32>, tensor<4xi32>
}

// -----

// A one-trip loop (counter from 0, below 1, plus 1 per trip) is summarised like a callee:
// max(a, b) of the donor passed twice is the donor, so result 0 is %x itself and %x hosts it
// for free (XLA: 0 copies; unpaired 1 copy; %x with result 1: 2 copies and 16 temp bytes).
// CHECK-LABEL: func.func public @one_trip_loop_returns_its_carry
// CHECK-SAME:    (%{{.*}}: tensor<4xi32> {tf.aliasing_output = 0 : i32})
// JAXLIB-LABEL: func.func public @one_trip_loop_returns_its_carry
// JAXLIB-SAME:    (%arg0: tensor<4xi32> {tf.aliasing_output = 0 : i32})
func.func public @one_trip_loop_returns_its_carry(%x: tensor<4xi32> {jax.buffer_donor = true}) -> (tensor<4xi32>, tensor<4xi32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %w:3 = stablehlo.while(%i = %c0, %a = %x, %b = %x) : tensor<i32>, tensor<4xi32>, tensor<4xi32>
  cond {
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %p = stablehlo.compare LT, %i, %c1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %m = stablehlo.maximum %a, %b : tensor<4xi32>
    %z = stablehlo.subtract %b, %b : tensor<4xi32>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %n, %m, %z : tensor<i32>, tensor<4xi32>, tensor<4xi32>
  }
  return %w#1, %w#2 : tensor<4xi32>, tensor<4xi32>
}

// -----

// With a counter step of 2 the trip count is not proven to be one: no summary, and the loop
// reads the donor like the one above.
// CHECK: warning: donated argument (%arg0: tensor<4xi32>) is not reused
// CHECK-LABEL: func.func public @loop_with_step_two
// CHECK-SAME:    (%{{.*}}: tensor<4xi32>)
func.func public @loop_with_step_two(%x: tensor<4xi32> {jax.buffer_donor = true}) -> (tensor<4xi32>, tensor<4xi32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %w:3 = stablehlo.while(%i = %c0, %a = %x, %b = %x) : tensor<i32>, tensor<4xi32>, tensor<4xi32>
  cond {
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %p = stablehlo.compare LT, %i, %c1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %m = stablehlo.maximum %a, %b : tensor<4xi32>
    %z = stablehlo.subtract %b, %b : tensor<4xi32>
    %c2 = stablehlo.constant dense<2> : tensor<i32>
    %n = stablehlo.add %i, %c2 : tensor<i32>
    stablehlo.return %n, %m, %z : tensor<i32>, tensor<4xi32>, tensor<4xi32>
  }
  return %w#1, %w#2 : tensor<4xi32>, tensor<4xi32>
}

// -----

// A call whose callee has no side effects and whose result nothing uses is dead, as XLA
// inlines and removes it: its read of the donor does not block the in-place update
// (XLA: 0 copies; with the donor left unpaired, 1).
// CHECK-LABEL: func.func public @dead_pure_call
// CHECK-SAME:    (%{{.*}}: tensor<2x8xf16> {tf.aliasing_output = 0 : i32})
// JAXLIB-LABEL: func.func public @dead_pure_call
// JAXLIB-SAME:    (%arg0: tensor<2x8xf16> {tf.aliasing_output = 0 : i32})
func.func public @dead_pure_call(%x: tensor<2x8xf16> {jax.buffer_donor = true}) -> tensor<2x8xf16> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.dynamic_slice %x, %c, %c, sizes = [1, 4] : (tensor<2x8xf16>, tensor<i32>, tensor<i32>) -> tensor<1x4xf16>
  %1 = stablehlo.dynamic_update_slice %x, %0, %c, %c : (tensor<2x8xf16>, tensor<1x4xf16>, tensor<i32>, tensor<i32>) -> tensor<2x8xf16>
  %2 = stablehlo.compare GT, %x, %x, FLOAT : (tensor<2x8xf16>, tensor<2x8xf16>) -> tensor<2x8xi1>
  %3 = func.call @_where(%2, %x, %x) : (tensor<2x8xi1>, tensor<2x8xf16>, tensor<2x8xf16>) -> tensor<2x8xf16>
  return %1 : tensor<2x8xf16>
}
func.func private @_where(%p: tensor<2x8xi1>, %a: tensor<2x8xf16>, %b: tensor<2x8xf16>) -> tensor<2x8xf16> {
  %0 = stablehlo.select %p, %a, %b : tensor<2x8xi1>, tensor<2x8xf16>
  return %0 : tensor<2x8xf16>
}

// -----

// A dead call of a callee with a side effect still runs, and reads the donor first.
// CHECK: warning: donated argument (%arg0: tensor<2x8xf16>) is not reused
// CHECK-LABEL: func.func public @dead_call_with_effect
// CHECK-SAME:    (%{{.*}}: tensor<2x8xf16>)
func.func public @dead_call_with_effect(%x: tensor<2x8xf16> {jax.buffer_donor = true}) -> tensor<2x8xf16> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.dynamic_slice %x, %c, %c, sizes = [1, 4] : (tensor<2x8xf16>, tensor<i32>, tensor<i32>) -> tensor<1x4xf16>
  %1 = stablehlo.dynamic_update_slice %x, %0, %c, %c : (tensor<2x8xf16>, tensor<1x4xf16>, tensor<i32>, tensor<i32>) -> tensor<2x8xf16>
  %3 = func.call @log(%x) : (tensor<2x8xf16>) -> tensor<2x8xf16>
  return %1 : tensor<2x8xf16>
}
func.func private @log(%a: tensor<2x8xf16>) -> tensor<2x8xf16> {
  %0 = stablehlo.custom_call @print(%a) {has_side_effect = true} : (tensor<2x8xf16>) -> tensor<2x8xf16>
  return %0 : tensor<2x8xf16>
}

// -----

// A dead negate of the donor (its only user, a reshape, is unused) is not a read.
// CHECK-LABEL: func.func public @dead_read
// CHECK-SAME:    (%{{.*}}: tensor<4xf32> {tf.aliasing_output = 0 : i32})
func.func public @dead_read(%x: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
  %0 = stablehlo.negate %x : tensor<4xf32>
  %1 = stablehlo.reshape %0 : (tensor<4xf32>) -> tensor<2x2xf32>
  %2 = stablehlo.multiply %x, %x : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// max(x, x) is x: returning it returns the donor, which hosts it for free; select(p, y, y)
// inside a call is y at this call site, so y hosts that result.
// CHECK-LABEL: func.func public @folded_identities
// CHECK-SAME:    (%{{.*}}: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %{{.*}}: tensor<4xf32> {tf.aliasing_output = 2 : i32})
func.func public @folded_identities(%x: tensor<4xf32> {jax.buffer_donor = true}, %y: tensor<4xf32> {jax.buffer_donor = true}) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %n = stablehlo.negate %y : tensor<4xf32>
  %m = stablehlo.maximum %x, %x : tensor<4xf32>
  %p = stablehlo.compare GT, %y, %y, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %s = func.call @where(%p, %y, %y) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %n, %m, %s : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
func.func private @where(%p: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.select %p, %a, %b : tensor<4xi1>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Both results are safe for the cache; the update's result is preferred over JAX's first
// match, since XLA would otherwise copy the cache before updating it.
// CHECK-LABEL: func.func public @prefer_overwriting_op
// CHECK-SAME:    (%{{.*}}: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %{{.*}}: tensor<1xf32>, %{{.*}}: tensor<i32>, %{{.*}}: tensor<4xf32>)
func.func public @prefer_overwriting_op(%cache: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %u: tensor<1xf32>, %i: tensor<i32>, %e: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %n = stablehlo.negate %e : tensor<4xf32>
  %r = stablehlo.dynamic_update_slice %cache, %u, %i : (tensor<4xf32>, tensor<1xf32>, tensor<i32>) -> tensor<4xf32>
  return %n, %r : tensor<4xf32>, tensor<4xf32>
}
