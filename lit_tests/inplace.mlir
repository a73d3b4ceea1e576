// In-place capability when the producer of a result itself reads the donor.
// RUN: jax-donate-opt %s --split-input-file -p jax-plan-donation 2>&1 | filecheck %s
// RUN: jax-donate-opt %s --split-input-file -p jax-plan-donation | %roundtrip-jaxlib | filecheck %s --check-prefix=JAXLIB

// Elementwise op of equal type: writes into its operand.
// CHECK-LABEL: func.func public @elementwise
// CHECK-SAME:    (%{{.*}}: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %{{.*}}: tensor<4xf32>)
// JAXLIB-LABEL: func.func public @elementwise
// JAXLIB-SAME:    (%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<4xf32>)
// JAXLIB-NEXT:    stablehlo.add %arg0, %arg1 : tensor<4xf32>
func.func public @elementwise(%a: tensor<4xf32> {jax.buffer_donor = true}, %c: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.add"(%a, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

// A transpose reads every element before it writes any: not in place.
// CHECK: warning: donated argument (%arg0: tensor<4x4xf32>) is not reused: every result of its type is written before its last read; result 0 is produced by stablehlo.transpose, which reads it and cannot write in place
// CHECK-LABEL: func.func public @transpose
// CHECK-SAME:    (%{{.*}}: tensor<4x4xf32>) -> tensor<4x4xf32>
func.func public @transpose(%a: tensor<4x4xf32> {jax.buffer_donor = true}) -> tensor<4x4xf32> {
  %0 = "stablehlo.transpose"(%a) <{permutation = array<i64: 1, 0>}> : (tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %0 : tensor<4x4xf32>
}

// -----

// dynamic_update_slice writes into operand 0, not into the update.
// CHECK: warning: donated argument 'upd' (%arg1: tensor<4xf32>) is not reused: every result of its type is written before its last read; result 0 is produced by stablehlo.dynamic_update_slice, which reads it and cannot write in place
// CHECK-LABEL: func.func public @dynamic_update_slice
// CHECK-SAME:    (%{{.*}}: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %{{.*}}: tensor<4xf32>, %{{.*}}: tensor<i32>)
func.func public @dynamic_update_slice(%a: tensor<4xf32> {jax.buffer_donor = true}, %u: tensor<4xf32> {jax.buffer_donor = true} loc("upd"), %i: tensor<i32>) -> tensor<4xf32> {
  %0 = "stablehlo.dynamic_update_slice"(%a, %u, %i) : (tensor<4xf32>, tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

// A while loop updates carry i in place into result i; returned in swapped order, each donor
// hosts the slot that returns its own carry.
// CHECK-LABEL: func.func public @while_carry
// CHECK-SAME:    (%{{.*}}: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %{{.*}}: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %{{.*}}: tensor<i32>)
func.func public @while_carry(%a: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %b: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %n: tensor<i32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %w:3 = "stablehlo.while"(%a, %b, %n) ({
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>, %j: tensor<i32>):
    %c = "stablehlo.compare"(%j, %j) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>, %j: tensor<i32>):
    %s = "stablehlo.add"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "stablehlo.return"(%s, %y, %j) : (tensor<4xf32>, tensor<4xf32>, tensor<i32>) -> ()
  }) : (tensor<4xf32>, tensor<4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<i32>)
  func.return %w#1, %w#0 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A donor read inside the loop body (a use from a nested region) is read by the while op
// itself until it ends: it cannot host the loop's result.
// CHECK: warning: donated argument 'k' (%arg1: tensor<4xf32>) is not reused: every result of its type is written before its last read; result 0 is produced by stablehlo.while, which reads it and cannot write in place
// CHECK-LABEL: func.func public @region_use
// CHECK-SAME:    (%{{.*}}: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %{{.*}}: tensor<4xf32>)
func.func public @region_use(%a: tensor<4xf32> {jax.buffer_donor = true}, %k: tensor<4xf32> {jax.buffer_donor = true} loc("k")) -> tensor<4xf32> {
  %w = "stablehlo.while"(%a) ({
  ^bb0(%x: tensor<4xf32>):
    %c = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<4xf32>):
    %s = "stablehlo.multiply"(%x, %k) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "stablehlo.return"(%s) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %w : tensor<4xf32>
}

// -----

// scatter writes into its input operand.
// CHECK-LABEL: func.func public @scatter
// CHECK-SAME:    (%{{.*}}: tensor<8xf32> {tf.aliasing_output = 0 : i32}, %{{.*}}: tensor<1x1xi32>, %{{.*}}: tensor<1xf32>)
func.func public @scatter(%a: tensor<8xf32> {jax.buffer_donor = true}, %idx: tensor<1x1xi32>, %upd: tensor<1xf32>) -> tensor<8xf32> {
  %0 = "stablehlo.scatter"(%a, %idx, %upd) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    "stablehlo.return"(%y) : (tensor<f32>) -> ()
  }) : (tensor<8xf32>, tensor<1x1xi32>, tensor<1xf32>) -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}

// -----

// custom_call writes in place exactly where output_operand_aliases says so.
// CHECK: k.py:2:3: warning: donated argument 'b' (%arg1: tensor<4xf32>) is not reused: every result of its type is written before its last read; result 1 is produced by stablehlo.custom_call at k.py:2:3, which reads it and cannot write in place
// CHECK-LABEL: func.func public @custom_call_alias
// CHECK-SAME:    (%{{.*}}: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %{{.*}}: tensor<4xf32>)
func.func public @custom_call_alias(%a: tensor<4xf32> {jax.buffer_donor = true}, %b: tensor<4xf32> {jax.buffer_donor = true} loc("b")) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "stablehlo.custom_call"(%a) <{call_target_name = "inplace_kernel", output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]}> : (tensor<4xf32>) -> tensor<4xf32> loc("k.py":1:3)
  %1 = "stablehlo.custom_call"(%b) <{call_target_name = "other_kernel"}> : (tensor<4xf32>) -> tensor<4xf32> loc("k.py":2:3)
  func.return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A call whose callee returns its argument unchanged forwards the donor: returned unchanged,
// the donor pairs with that slot for free.
// CHECK-LABEL: func.func public @call_forwarding
// CHECK-SAME:    (%{{.*}}: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %{{.*}}: tensor<4xf32> {tf.aliasing_output = 0 : i32})
func.func public @call_forwarding(%a: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %b: tensor<4xf32> {tf.aliasing_output = 1 : i32}) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = func.call @identity(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.negate"(%b) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %1, %0 : tensor<4xf32>, tensor<4xf32>
}
func.func private @identity(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.reshape"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
