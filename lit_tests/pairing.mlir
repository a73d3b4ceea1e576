// Which donor hosts which result (alias mode, XLA's dataflow ordering).
// RUN: jax-donate-opt %s --split-input-file -p jax-plan-donation 2>/dev/null | filecheck %s
// RUN: jax-donate-opt %s --split-input-file -p jax-plan-donation 2>&1 >/dev/null | filecheck %s --check-prefix=WARN

// Simple donation: the buffer of %x hosts the only result.
// CHECK-LABEL: func.func public @simple
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32> {tf.aliasing_output = 0 : i32}) -> tensor<4xf32>
// CHECK-NEXT:    %[[R:.*]] = stablehlo.exponential %[[X]] : tensor<4xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func public @simple(%x: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
  %0 = "stablehlo.exponential"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

// Swap: result 0 is computed from %b, result 1 from %a. JAX pairs a->0, b->1 (argument order);
// each producer is elementwise and reads only its own donor, so the copy-free pairing is a->1,
// b->0, and JAX's pairs are rewritten.
// CHECK-LABEL: func.func public @swap
// CHECK-SAME:    (%{{.*}}: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %{{.*}}: tensor<4xf32> {tf.aliasing_output = 0 : i32})
func.func public @swap(%a: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %b: tensor<4xf32> {tf.aliasing_output = 1 : i32}) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "stablehlo.multiply"(%b, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.add"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// 3-cycle: result k reads donor k+1 (mod 3), and is produced after every other read.
// CHECK-LABEL: func.func public @cycle3
// CHECK-SAME:    {tf.aliasing_output = 2 : i32}
// CHECK-SAME:    {tf.aliasing_output = 0 : i32}
// CHECK-SAME:    {tf.aliasing_output = 1 : i32}
func.func public @cycle3(%a: tensor<8xf32> {jax.buffer_donor = true}, %b: tensor<8xf32> {jax.buffer_donor = true}, %c: tensor<8xf32> {jax.buffer_donor = true}) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = "stablehlo.negate"(%b) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = "stablehlo.negate"(%c) : (tensor<8xf32>) -> tensor<8xf32>
  %2 = "stablehlo.negate"(%a) : (tensor<8xf32>) -> tensor<8xf32>
  func.return %0, %1, %2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// A donor returned unchanged pairs with its own slot for free, even when JAX gave it another.
// CHECK-LABEL: func.func public @returned_donor
// CHECK-SAME:    (%[[A:.*]]: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %[[B:.*]]: tensor<4xf32> {tf.aliasing_output = 0 : i32})
// CHECK:         func.return %{{.*}}, %[[A]]
func.func public @returned_donor(%a: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %b: tensor<4xf32> {tf.aliasing_output = 1 : i32}) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "stablehlo.sine"(%b) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0, %a : tensor<4xf32>, tensor<4xf32>
}

// -----

// Duplicated return: %0 fills slot 0 in place in %a; slot 1 needs a copy anyway, and the dead
// donor %b receives it (it saves an allocation, as JAX's default does).
// CHECK-LABEL: func.func public @duplicated_return
// CHECK-SAME:    {tf.aliasing_output = 0 : i32}
// CHECK-SAME:    {tf.aliasing_output = 1 : i32}
func.func public @duplicated_return(%a: tensor<4xf32> {jax.buffer_donor = true}, %b: tensor<4xf32> {jax.buffer_donor = true}) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %0, %0 : tensor<4xf32>, tensor<4xf32>
}

// -----

// No result of the donor's type: the donation is dropped with a warning naming the argument.
// CHECK-LABEL: func.func public @no_matching_type
// CHECK-SAME:    (%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4xi32> {tf.aliasing_output = 0 : i32})
// WARN: warning: donated argument 'w' (%arg0: tensor<4xf32>) is not reused: no result has type tensor<4xf32>
func.func public @no_matching_type(%w: tensor<4xf32> {jax.buffer_donor = true} loc("w"), %i: tensor<4xi32> {jax.buffer_donor = true}) -> tensor<4xi32> {
  %0 = "stablehlo.convert"(%w) : (tensor<4xf32>) -> tensor<4xi32>
  %1 = "stablehlo.add"(%0, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  func.return %1 : tensor<4xi32>
}

// -----

// An unused donor still hosts a result when one is free; one too many is reported as unused.
// CHECK-LABEL: func.func public @unused_donor
// CHECK-SAME:    (%{{.*}}: tensor<2xf32> {tf.aliasing_output = 0 : i32}, %{{.*}}: tensor<2xf32>, %{{.*}}: tensor<2xf32>)
// WARN: warning: donated argument 'spare' (%arg1: tensor<2xf32>) is not reused: every result it could host is taken by another donor (%arg0 hosts result 0); it is never read
func.func public @unused_donor(%u: tensor<2xf32> {jax.buffer_donor = true}, %spare: tensor<2xf32> {jax.buffer_donor = true} loc("spare"), %c: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.abs"(%c) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

// Arguments that are not donated are never touched.
// CHECK-LABEL: func.func public @not_donated
// CHECK-SAME:    (%{{.*}}: tensor<4xf32> {mhlo.layout_mode = "default"}) -> tensor<4xf32>
func.func public @not_donated(%x: tensor<4xf32> {mhlo.layout_mode = "default"}) -> tensor<4xf32> {
  %0 = "stablehlo.exponential"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

