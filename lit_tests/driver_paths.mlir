// jax-donate-opt's two paths (--path=auto|jaxlib|xdsl): auto takes jaxlib for a donation pass
// on text with MLIR's own names, --verbose says which path ran; the rewrite is the same.
// RUN: jax-donate-opt %s -p jax-plan-donation --verbose 2>&1 >/dev/null | filecheck %s --check-prefix=AUTO
// RUN: jax-donate-opt %s -p jax-plan-donation --path=xdsl --verbose 2>&1 >/dev/null | filecheck %s --check-prefix=XDSL
// RUN: jax-donate-opt %s -p 'jax-plan-donation{mode=materialize}' --verbose 2>&1 >/dev/null | filecheck %s --check-prefix=MATERIALIZE
// RUN: not jax-donate-opt %s -p 'jax-plan-donation{mode=materialize}' --path=jaxlib 2>&1 | filecheck %s --check-prefix=REFUSED
// RUN: jax-donate-opt %s -p jax-plan-donation | filecheck %s --check-prefix=JAXLIB
// RUN: jax-donate-opt %s -p jax-plan-donation --path=xdsl | filecheck %s --check-prefix=XDSLOUT
// RUN: jax-donate-opt %s -p jax-plan-donation 2>&1 >/dev/null | filecheck %s --check-prefix=WARN
// RUN: jax-donate-opt %s -p jax-plan-donation --path=xdsl 2>&1 >/dev/null | filecheck %s --check-prefix=WARN

// AUTO: jax-donate-opt: path: jaxlib (checks {{[0-9.]+}} s, jaxlib {{[0-9.]+}} s, parse {{[0-9.]+}} s, model {{[0-9.]+}} s, plan {{[0-9.]+}} s, rewrite {{[0-9.]+}} s, print {{[0-9.]+}} s)
// XDSL: jax-donate-opt: path: xdsl (--path=xdsl)
// MATERIALIZE: jax-donate-opt: path: xdsl (jax-plan-donation{mode=materialize} changes the body (xDSL path))
// REFUSED: jax-donate-opt: error: --path=jaxlib cannot run this command: jax-plan-donation{mode=materialize} changes the body (xDSL path)

// JAXLIB:      module {
// JAXLIB-NEXT:   func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %arg1: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %arg2: tensor<8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// JAXLIB:          return %0, %1 : tensor<4xf32>, tensor<4xf32>
// XDSLOUT:      builtin.module {
// XDSLOUT-NEXT:   func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %arg1: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %arg2: tensor<8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// XDSLOUT:          func.return %0, %1 : tensor<4xf32>, tensor<4xf32>

// WARN: warning: donated argument 'u' (%arg2: tensor<8xf32>) is not reused: no result has type tensor<8xf32>; it is never read

func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32} loc("a"),
                       %arg1: tensor<4xf32> {tf.aliasing_output = 1 : i32},
                       %arg2: tensor<8xf32> {jax.buffer_donor = true} loc("u"))
    -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.multiply %arg1, %arg1 : tensor<4xf32> loc("f.py":3:4)
  %1 = stablehlo.add %arg0, %arg0 : tensor<4xf32> loc("f.py":4:4)
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
