// jax-donate-opt --advise: per public function, which undonated arguments could host a result
// copy-free if donated, and why each unused donor stays unused; predicted from the module; in
// the JSON report too (advice).
// RUN: jax-donate-opt %s -p jax-plan-donation --advise -o /dev/null 2>&1 | filecheck %s
// RUN: jax-donate-opt %s --advise -o /dev/null 2>&1 | filecheck %s
// RUN: jax-donate-opt %s -p jax-plan-donation --advise --donation-report=html=%t.html -o /dev/null 2>&1 | filecheck %s
// RUN: filecheck %s --check-prefix=PAGE < %t.html
// RUN: jax-donate-opt %s -p jax-plan-donation --donation-report=html=%t2.html -o /dev/null 2>&1 | filecheck %s --check-prefix=NO-ADVICE --allow-empty
// RUN: filecheck %s --check-prefix=PAGE2 < %t2.html
// RUN: jax-donate-opt %s -p jax-plan-donation --advise --donation-report=json=%t.json -o /dev/null 2>&1 | filecheck %s
// RUN: filecheck %s --check-prefix=JSON < %t.json

// CHECK:      advice for @main (predicted from the module, unverified: nothing compiled or measured)
// CHECK-NEXT:   ordering: XLA's default copy insertion (a donor's other reads must feed the write)
// CHECK-NEXT:   argument       action  saves  why
// CHECK-NEXT:   grads (%arg1)  donate  16 B   it would host result 1 without a copy (if the caller does not use it after the call)
// CHECK-NEXT:   count (%arg2)  none    -      no result has its size (4 B, tensor<i32>); it is never read
// CHECK-NEXT:   total: donating the 1 argument above together would reuse 16 B more (predicted, planned jointly)
// CHECK-NEXT: note: predicted from the module, unverified: nothing compiled or measured; jax_use_donated.advise(f, *args) compiles and measures each suggestion
// CHECK-NOT:  advice for

// PAGE:      <h1>Donations in {{.*}}advise.mlir</h1>
// PAGE:      <h2>Donations of @main</h2>
// PAGE:      n/a: not measured: jax-donate-opt reads a module file and compiles nothing
// PAGE:      <h3>Advice</h3>
// PAGE:      <td>grads</td><td>donate</td><td>16 B</td><td>no (predicted)</td>
// PAGE:      data-path="params"
// PAGE-NOT:  <script

// JSON: "advice": [{"schema": "jax_use_donated.advice", "version": 1, "function": "main", "front_end": "jax-donate-opt", "ordering": "dataflow", "measured": false, "together_bytes": 16, "suggestions": [
// JSON-SAME: {"path": "grads", "leaf": 1, "action": "donate", "donated": false, "bytes": 16, "bytes_saved": 16, "verified": false, "result": 1, "reason": "it would host result 1 without a copy", "location": null}
// JSON-SAME: {"path": "count", "leaf": 2, "action": "none", "donated": true, "bytes": 4, "bytes_saved": 0, "verified": false, "result": null,

// NO-ADVICE-NOT: advice for
// PAGE2:     data-path="params"
// PAGE2-NOT: <h3>Advice</h3>

module @jit_step {
  func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32} loc("params"), %arg1: tensor<4xf32> loc("grads"), %arg2: tensor<i32> {jax.buffer_donor = true} loc("count")) -> (tensor<4xf32>, tensor<4xf32>) {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32> loc("step.py":3:8)
    %1 = stablehlo.subtract %arg0, %0 : tensor<4xf32> loc("step.py":4:8)
    %2 = stablehlo.add %arg1, %arg1 : tensor<4xf32> loc("step.py":5:8)
    return %1, %2 : tensor<4xf32>, tensor<4xf32>
  }
}
