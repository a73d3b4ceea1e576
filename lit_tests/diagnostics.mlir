// Warnings for donors that cannot be reused: MLIR-style `file:line:col: warning:` on stderr,
// with the argument's name and type, the reason, and the blocking op with its source line.
// RUN: jax-donate-opt %s --split-input-file -p jax-plan-donation 2>&1 >/dev/null | filecheck %s
// RUN: jax-donate-opt %s --split-input-file -p 'jax-plan-donation{keep-unpaired-donors=true}' 2>/dev/null | filecheck %s --check-prefix=KEEP

// A donor returned (through a reshape) must keep its value: it hosts nothing else.
// CHECK: warning: donated argument 'params' (%arg0: tensor<4xf32>) is not reused: it is returned as result 0, so its value must survive
// KEEP-LABEL: func.func public @returned
// KEEP-SAME:    (%{{.*}}: tensor<4xf32> {jax.buffer_donor = true}, %{{.*}}: tensor<4xf32>)
func.func public @returned(%a: tensor<4xf32> {jax.buffer_donor = true} loc("params"), %c: tensor<4xf32>) -> (tensor<2x2xf32>, tensor<4xf32>) {
  %0 = "stablehlo.reshape"(%a) : (tensor<4xf32>) -> tensor<2x2xf32>
  %1 = "stablehlo.negate"(%c) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0, %1 : tensor<2x2xf32>, tensor<4xf32>
}

// -----

// Callsite locations (as JAX records them): the innermost frame is the user's line.
// CHECK: user.py:7:12: warning: donated argument 'x' (%arg0: tensor<4xf32>) is not reused: every result of its type is written before its last read; result 0 is produced by stablehlo.cosine at user.py:6:9 while stablehlo.sine at user.py:7:12 still reads it
func.func public @callsite(%x: tensor<4xf32> {jax.buffer_donor = true} loc("x"), %c: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0 = "stablehlo.cosine"(%c) : (tensor<4xf32>) -> tensor<4xf32> loc("jit(f)/cos"(callsite("f"("user.py":6:9) at "<module>"("main.py":20:1))))
  %1 = "stablehlo.sine"(%x) : (tensor<4xf32>) -> tensor<4xf32> loc(callsite(#inner at #outer))
  %2 = "stablehlo.convert"(%1) : (tensor<4xf32>) -> tensor<4xi32> loc(fused["fused.py":1:1, "other.py":2:2])
  func.return %0, %2 : tensor<4xf32>, tensor<4xi32>
}
#inner = loc("f"("user.py":7:12 to :20))
#outer = loc("<module>"("main.py":20:1))

// -----

// Fused locations (with metadata) use their first file location; more donors than results.
// CHECK: fused.py:1:1: warning: donated argument (%arg1: tensor<4xf32>) is not reused: every result it could host is taken by another donor (%arg0 hosts result 0)
func.func public @outnumbered(%a: tensor<4xf32> {jax.buffer_donor = true}, %b: tensor<4xf32> {jax.buffer_donor = true} loc(fused<"meta">["fused.py":1:1, "other.py":2:2])) -> tensor<4xf32> {
  %0 = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc(fused<"meta">["fused.py":1:1, "other.py":2:2])
  func.return %0 : tensor<4xf32>
}

// -----

// Unused donor with no result of its type.
// CHECK: warning: donated argument 'scratch' (%arg0: tensor<16xi8>) is not reused: no result has type tensor<16xi8>; it is never read
func.func public @unused(%s: tensor<16xi8> {jax.buffer_donor = true} loc("scratch"), %c: tensor<4xf32>) -> tensor<4xf32> {
  func.return %c : tensor<4xf32>
}
