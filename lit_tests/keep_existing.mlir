// keep-existing-aliases=true keeps the input's tf.aliasing_output pairs and only checks them;
// jax-verify-donation checks them without changing anything.
// RUN: jax-donate-opt %s --split-input-file --verify-diagnostics -p 'jax-plan-donation{keep-existing-aliases=true}' 2>/dev/null | filecheck %s
// RUN: jax-donate-opt %s --split-input-file --verify-diagnostics -p jax-verify-donation 2>/dev/null | filecheck %s --check-prefix=VERIFY

// A safe pair is kept as given, even where the planner alone might choose another equally
// good one; the remaining donor is planned around it.
// CHECK-LABEL: func.func public @safe
// CHECK-SAME:    (%{{.*}}: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %{{.*}}: tensor<4xf32> {tf.aliasing_output = 0 : i32})
// VERIFY-LABEL: func.func public @safe
// VERIFY-SAME:    (%{{.*}}: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %{{.*}}: tensor<4xf32> {jax.buffer_donor = true})
func.func public @safe(%a: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %b: tensor<4xf32> {jax.buffer_donor = true}) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "stablehlo.exponential"(%b) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.log"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// JAX's greedy pair a -> 0 overwrites %a while the add still reads it: refused.
// CHECK: argument %arg0 of @unsafe aliases result 0, which is unsafe: result 0 is produced by stablehlo.multiply at g.py:1:1 while stablehlo.add at g.py:2:1 still reads it
// CHECK: "stablehlo.add"
// CHECK-NEXT: ^^^^^^^^^^^^^^
// VERIFY: argument %arg0 of @unsafe aliases result 0, which is unsafe: result 0 is produced by stablehlo.multiply at g.py:1:1 while stablehlo.add at g.py:2:1 still reads it
func.func public @unsafe(%a: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %b: tensor<4xf32> {tf.aliasing_output = 1 : i32}) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "stablehlo.multiply"(%b, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("g.py":1:1)
  %1 = "stablehlo.add"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("g.py":2:1)
  func.return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A pair of different types is refused with both types named.
// CHECK: argument 'p' (%arg0) of @mistyped aliases result 0, but tensor<4xf32> cannot hold tensor<4xi32>
// VERIFY: argument 'p' (%arg0) of @mistyped aliases result 0, but tensor<4xf32> cannot hold tensor<4xi32>
func.func public @mistyped(%p: tensor<4xf32> {tf.aliasing_output = 0 : i32} loc("p")) -> tensor<4xi32> {
  %0 = "stablehlo.convert"(%p) : (tensor<4xf32>) -> tensor<4xi32>
  func.return %0 : tensor<4xi32>
}
