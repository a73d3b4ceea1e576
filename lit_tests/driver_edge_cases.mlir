// Edge cases of the drivers' reading and printing (docs/reliability.md, findings F3-F7).

// F3: declarations keep their argument and result attributes, printed as MLIR prints them
// (unnamed arguments), by jax-donate-opt and plain xdsl-opt (`-f jax -t jax`) alike, and read
// back by both the driver and jaxlib.
// RUN: jax-donate-opt %s -p jax-plan-donation | filecheck %s
// RUN: xdsl-opt -f jax -t jax %s -p jax-plan-donation | filecheck %s
// RUN: jax-donate-opt %s | jax-donate-opt | filecheck %s
// RUN: jax-donate-opt %s | %roundtrip-jaxlib | filecheck %s --check-prefix=JAXLIB

// CHECK:      func.func private @external(tensor<4xf32> {jax.buffer_donor = true}, tensor<2xi32>) -> (tensor<4xf32> {jax.result_info = "r"}, tensor<2xi32>)
// CHECK-NEXT: func.func private @consume(tensor<4xf32> {jax.buffer_donor = true})
// CHECK-NEXT: func.func public @main

// JAXLIB:      func.func private @external(tensor<4xf32> {jax.buffer_donor = true}, tensor<2xi32>) -> (tensor<4xf32> {jax.result_info = "r"}, tensor<2xi32>)
// JAXLIB-NEXT: func.func private @consume(tensor<4xf32> {jax.buffer_donor = true})

func.func private @external(tensor<4xf32> {jax.buffer_donor = true}, tensor<2xi32>) -> (tensor<4xf32> {jax.result_info = "r"}, tensor<2xi32>)
func.func private @consume(tensor<4xf32> {jax.buffer_donor = true}) -> ()
func.func public @main(%arg0: tensor<4xf32> {jax.buffer_donor = true}, %arg1: tensor<2xi32>) -> tensor<4xf32> {
  %0:2 = func.call @external(%arg0, %arg1) : (tensor<4xf32>, tensor<2xi32>) -> (tensor<4xf32>, tensor<2xi32>)
  %1 = stablehlo.negate %0#0 : tensor<4xf32>
  func.return %1 : tensor<4xf32>
}

// F7: an input without operations (comments, blank lines) is an empty module, exit 0.
// RUN: echo "// nothing here" | jax-donate-opt --path=xdsl -p jax-plan-donation | filecheck %s --check-prefix=EMPTY
// RUN: echo "// nothing here" | jax-donate-opt -p jax-plan-donation | filecheck %s --check-prefix=EMPTY-JAXLIB
// RUN: echo "" | jax-donate-opt | %roundtrip-jaxlib | filecheck %s --check-prefix=EMPTY-JAXLIB
// EMPTY:      builtin.module {
// EMPTY-NEXT: }
// EMPTY-JAXLIB: module {

// F4: diagnostics name the input, or <stdin>, where the IR has no location.
// RUN: echo 'func.func @f(%a: tensor<4xf32> {jax.buffer_donor = 1 : i32}) -> tensor<4xf32> { func.return %a : tensor<4xf32> }' | not jax-donate-opt -p jax-plan-donation 2>&1 | filecheck %s --check-prefix=STDIN
// STDIN: <stdin>: error: argument %arg0: 'jax.buffer_donor' must be a boolean (true or false), got 1
// RUN: echo 'func.func @f(%a: tensor<4xf3) { func.return }' | not jax-donate-opt 2>&1 | filecheck %s --check-prefix=STDIN-PARSE
// STDIN-PARSE:      <stdin>:1:27: error: Expected shape type.
// STDIN-PARSE-NEXT: func.func @f(%a: tensor<4xf3) { func.return }
// STDIN-PARSE-NEXT: {{^ {26}\^+$}}

// F6: with --allow-unregistered-dialect, a pretty-form unknown op is named and located.
// RUN: echo 'func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> { %0 = stablehlo.frobnicate %a : tensor<4xf32>  func.return %0 : tensor<4xf32> }' | not jax-donate-opt --allow-unregistered-dialect 2>&1 | filecheck %s --check-prefix=UNKNOWN
// UNKNOWN: <stdin>:1:57: error: unknown operation 'stablehlo.frobnicate': not registered in the stablehlo dialect; --allow-unregistered-dialect keeps unknown ops in the generic form only
// UNKNOWN-NOT: builtin.unregistered
