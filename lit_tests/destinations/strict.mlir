// RUN: not jax-donate-opt %s -p 'jax-reuse-donated-destinations{strict=true}' 2>&1 | filecheck %s

// CHECK: strict destination reuse in @captured: donated argument (%arg0: tensor<4xf32>) is used by test.op
func.func @captured(%a: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
  "test.op"(%a) : (tensor<4xf32>) -> ()
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
