// Backend options of alias mode: xla-fallback (XLA copies where an alias is unsafe, so an
// unpaired donor may keep JAX's own pairing) and fusion-safe (IREE takes aliases as forced
// in-place results and fuses producers into that kernel).
// RUN: jax-donate-opt %s --split-input-file -p jax-plan-donation 2>&1 | filecheck %s --check-prefix=PLAIN
// RUN: jax-donate-opt %s --split-input-file -p 'jax-plan-donation{xla-fallback=true}' 2>&1 | filecheck %s --check-prefix=XLA
// RUN: jax-donate-opt %s --split-input-file -p 'jax-plan-donation{fusion-safe=true}' 2>&1 | filecheck %s --check-prefix=FUSED
// RUN: jax-donate-opt %s --split-input-file -p 'jax-plan-donation{fusion-safe=true}' | %roundtrip-jaxlib
// The two options exclude each other.
// RUN: not jax-donate-opt %s -p 'jax-plan-donation{xla-fallback=true fusion-safe=true}' 2>&1 | filecheck %s --check-prefix=BOTH
// BOTH: xla-fallback keeps JAX's unsafe pairs, which a fusing backend (fusion-safe=true) would compute wrongly; choose one
// BOTH-NOT: Traceback

// JAX aliased %a to result 0, but the convert reads %a and is no ancestor of the negate that
// produces result 0. Plain alias mode drops the pair; for XLA the pair may stay (XLA copies
// %a first, exactly as with JAX's default), and the warning says so.
// PLAIN: warning: donated argument 'a' (%arg0: tensor<4xf32>) is not reused: every result of its type is written before its last read; result 0 is produced by stablehlo.negate at f.py:3:7 while stablehlo.convert at f.py:4:7 still reads it
// PLAIN-NOT: keeps JAX's pairing
// PLAIN-LABEL: func.func public @unsafe_jax_pair
// PLAIN-SAME:    (%{{[^:]*}}: tensor<4xf32>, %{{[^:]*}}: tensor<4xf32>)
// XLA: warning: {{.*}} still reads it; it keeps JAX's pairing with result 0, for which XLA inserts a copy
// XLA-LABEL: func.func public @unsafe_jax_pair
// XLA-SAME:    (%{{[^:]*}}: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %{{[^:]*}}: tensor<4xf32>)
func.func public @unsafe_jax_pair(%a: tensor<4xf32> {tf.aliasing_output = 0 : i32} loc("a"), %c: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0 = "stablehlo.negate"(%c) : (tensor<4xf32>) -> tensor<4xf32> loc("f.py":3:7)
  %1 = "stablehlo.convert"(%a) : (tensor<4xf32>) -> tensor<4xi32> loc("f.py":4:7)
  func.return %0, %1 : tensor<4xf32>, tensor<4xi32>
}

// -----

// (a, b) -> (a + 2, b.T * 2): b -> 1 is safe for XLA (the transpose is an ancestor of the
// multiply), but a fused transpose-multiply kernel would read b at (j, i) after writing (i, j).
// PLAIN-LABEL: func.func public @transposed_read
// PLAIN-SAME:    (%{{[^:]*}}: tensor<2x2xf32> {tf.aliasing_output = 0 : i32}, %{{[^:]*}}: tensor<2x2xf32> {tf.aliasing_output = 1 : i32})
// FUSED: warning: donated argument (%arg1: tensor<2x2xf32>) is not reused: every result of its type is written before its last read; result 1 is produced by stablehlo.multiply, and a fusing backend would read it at other positions inside the kernel that overwrites it
// FUSED-LABEL: func.func public @transposed_read
// FUSED-SAME:    (%{{[^:]*}}: tensor<2x2xf32> {tf.aliasing_output = 0 : i32}, %{{[^:]*}}: tensor<2x2xf32>)
func.func public @transposed_read(%a: tensor<2x2xf32> {jax.buffer_donor = true}, %b: tensor<2x2xf32> {jax.buffer_donor = true}) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %t = "stablehlo.transpose"(%b) <{permutation = array<i64: 1, 0>}> : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %two = "stablehlo.constant"() <{value = dense<2.0> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  %0 = "stablehlo.multiply"(%t, %two) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = "stablehlo.add"(%a, %two) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %1, %0 : tensor<2x2xf32>, tensor<2x2xf32>
}
