// Malformed donation attributes and unsupported functions are errors anchored on the op.
// RUN: jax-donate-opt %s --split-input-file --verify-diagnostics -p jax-plan-donation | filecheck %s
// RUN: not jax-donate-opt %s -p jax-plan-donation 2>&1 | filecheck %s --check-prefix=EXIT

// EXIT: {{.*}}invalid.mlir: error: argument %arg0: 'jax.buffer_donor' must be a boolean (true or false), got 3
// EXIT-NOT: Traceback

// CHECK: argument %arg0: 'jax.buffer_donor' must be a boolean (true or false), got 3
// CHECK:      "func.func"() <{sym_name = "not_bool"
// CHECK-NEXT: ^^^^^^^^^^^
// CHECK-NEXT: | argument %arg0: 'jax.buffer_donor' must be a boolean
func.func public @not_bool(%a: tensor<4xf32> {jax.buffer_donor = 3 : i32}) -> tensor<4xf32> {
  func.return %a : tensor<4xf32>
}

// -----

// CHECK: argument 'x' (%arg0): 'tf.aliasing_output' must be an integer result index, got "zero"
func.func public @not_integer(%a: tensor<4xf32> {tf.aliasing_output = "zero"} loc("x")) -> tensor<4xf32> {
  func.return %a : tensor<4xf32>
}

// -----

// CHECK: argument %arg0 of @out_of_range: 'tf.aliasing_output = 2' is out of range: the function has 1 result(s)
func.func public @out_of_range(%a: tensor<4xf32> {tf.aliasing_output = 2 : i32}) -> tensor<4xf32> {
  func.return %a : tensor<4xf32>
}

// -----

// CHECK: arguments %arg0 and %arg1 of @two_alias_one both alias result 0
func.func public @two_alias_one(%a: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %b: tensor<4xf32> {tf.aliasing_output = 0 : i32}) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %0, %0 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK: argument %arg0 of @non_tensor is donated but has type !stablehlo.token; only ranked tensors can be donated
func.func public @non_tensor(%t: !stablehlo.token {jax.buffer_donor = true}, %a: tensor<4xf32>) -> tensor<4xf32> {
  func.return %a : tensor<4xf32>
}

// -----

// CHECK: argument %arg0 of @unranked is donated but has type tensor<*xf32>; only ranked tensors can be donated
func.func public @unranked(%u: tensor<*xf32> {jax.buffer_donor = true}, %a: tensor<4xf32>) -> tensor<4xf32> {
  func.return %a : tensor<4xf32>
}

// -----

// CHECK: @multi_block has donated arguments but 2 blocks; donation analysis needs a single-block function body (structured control flow)
func.func public @multi_block(%a: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
  "cf.br"()[^bb1] : () -> ()
^bb1:
  func.return %a : tensor<4xf32>
}

// -----

// RUN: not jax-donate-opt %s -p 'jax-plan-donation{mode=inplace}' 2>&1 | filecheck %s --check-prefix=MODE
// MODE: error: jax-plan-donation: unknown mode 'inplace'; expected one of alias, materialize
// RUN: not jax-donate-opt %s -p 'jax-plan-donation{no-such-option=true}' 2>&1 | filecheck %s --check-prefix=OPTION
// OPTION: jax-donate-opt: error:
// OPTION-SAME: jax-plan-donation: unknown option 'no-such-option'; options: mode, keep-unpaired-donors, keep-existing-aliases, strict, remove-matched-outputs, xla-fallback, fusion-safe
// OPTION-NOT: Traceback
// A value that is no boolean is refused, the option named in kebab-case.
// RUN: not jax-donate-opt %s -p 'jax-plan-donation{keep_unpaired_donors=yes}' 2>&1 | filecheck %s --check-prefix=BOOL
// BOOL: jax-donate-opt: error: jax-plan-donation: option 'keep-unpaired-donors' takes true or false (a bare 'keep-unpaired-donors' means true), got yes
func.func public @bad_mode(%a: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
  func.return %a : tensor<4xf32>
}
