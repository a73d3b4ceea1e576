// The ordering= option of jax-plan-donation: one copy-insertion model per backend configuration
// (jax_use_donated/analysis/orderings.py), and calls analysed as XLA inlines them.
// RUN: jax-donate-opt %s --split-input-file -p 'jax-plan-donation{ordering=xla-cpu}' 2>&1 | filecheck %s --check-prefix=CPU
// RUN: jax-donate-opt %s --split-input-file -p 'jax-plan-donation{ordering=dataflow}' 2>&1 | filecheck %s --check-prefix=CPU
// RUN: jax-donate-opt %s --split-input-file -p 'jax-plan-donation{ordering=xla-cpu-region}' 2>&1 | filecheck %s --check-prefix=REGION
// RUN: not jax-donate-opt %s --split-input-file -p 'jax-plan-donation{mode=materialize ordering=xla-cpu-region}' 2>&1 | filecheck %s --check-prefix=MAT
// RUN: not jax-donate-opt %s --split-input-file -p 'jax-plan-donation{ordering=xla-cpu-sched}' 2>&1 | filecheck %s --check-prefix=BAD

// MAT: mode=materialize runs in block order; ordering=xla-cpu-region applies to mode=alias
// BAD: unknown ordering 'xla-cpu-sched'; expected one of auto, xla-cpu, xla-cpu-region, xla-gpu, xla-gpu-region, tpu, program, dataflow

// The backward dot still reads %w while the update does not depend on it: XLA:CPU's default
// copy insertion copies %w; with region analysis the read is ordered before the write.
// CPU: warning: donated argument 'w' (%arg0: tensor<4x4xf32>) is not reused
// CPU-LABEL: func.func public @backward_read
// CPU-SAME:    (%w: tensor<4x4xf32>, %x: tensor<4x4xf32>)
// REGION-NOT: warning
// REGION-LABEL: func.func public @backward_read
// REGION-SAME:    (%w: tensor<4x4xf32> {tf.aliasing_output = 0 : i32}, %x: tensor<4x4xf32>)
func.func public @backward_read(%w: tensor<4x4xf32> {jax.buffer_donor = true} loc("w"), %x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %0 = "stablehlo.dot_general"(%x, %w) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>}> : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = "stablehlo.subtract"(%w, %x) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %1, %0 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// The swap: both crossed pairs are free in every model (each donor is read only by the op
// writing the other one's result).
// CPU-LABEL: func.func public @swap
// CPU-SAME:    {tf.aliasing_output = 1 : i32}{{.*}}{tf.aliasing_output = 0 : i32}
// REGION-LABEL: func.func public @swap
// REGION-SAME:    {tf.aliasing_output = 1 : i32}{{.*}}{tf.aliasing_output = 0 : i32}
func.func public @swap(%a: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %b: tensor<4xf32> {tf.aliasing_output = 1 : i32}) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "stablehlo.add"(%b, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.multiply"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A step called as an inner jit (one func.call): inlined, the optimizer state returned first
// pairs by liveness as in the flat program (as a summarised call it reused nothing).
// CPU-NOT: warning
// CPU-LABEL: func.func public @nested_step
// CPU-SAME:    (%{{.*}}: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %{{.*}}: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %{{.*}}: tensor<4xf32>)
// REGION-NOT: warning
// REGION-LABEL: func.func public @nested_step
// REGION-SAME:    (%{{.*}}: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %{{.*}}: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %{{.*}}: tensor<4xf32>)
func.func public @nested_step(%p: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %m: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %g: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0:2 = func.call @step(%p, %m, %g) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  func.return %0#0, %0#1 : tensor<4xf32>, tensor<4xf32>
}
func.func private @step(%p: tensor<4xf32>, %m: tensor<4xf32>, %g: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "stablehlo.add"(%m, %g) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.subtract"(%p, %0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
