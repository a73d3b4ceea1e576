// Sharding, memory kind and layout must be identical for a donor to host a result.
// RUN: jax-donate-opt %s --split-input-file -p jax-plan-donation 2>&1 | filecheck %s
// RUN: jax-donate-opt %s --split-input-file -p jax-plan-donation 2>/dev/null | %roundtrip-jaxlib | filecheck %s --check-prefix=JAXLIB

// Same type, different GSPMD shardings: only the matching donor hosts the result, even
// though JAX's pairing (first donor of the type) chose the other.
// CHECK: warning: donated argument 'rows' (%arg0: tensor<8x8xf32>) is not reused: no result has type tensor<8x8xf32> with the same placement
// CHECK-LABEL: func.func public @gspmd
// CHECK-SAME:    (%{{.*}}: tensor<8x8xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}, %{{.*}}: tensor<8x8xf32> {mhlo.sharding = "{devices=[1,2]<=[2]}", tf.aliasing_output = 0 : i32})
// JAXLIB-LABEL: func.func public @gspmd
// JAXLIB-SAME:    %arg1: tensor<8x8xf32> {mhlo.sharding = "{devices=[1,2]<=[2]}", tf.aliasing_output = 0 : i32}
func.func public @gspmd(%a: tensor<8x8xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}", tf.aliasing_output = 0 : i32} loc("rows"), %b: tensor<8x8xf32> {mhlo.sharding = "{devices=[1,2]<=[2]}", jax.buffer_donor = true}) -> (tensor<8x8xf32> {mhlo.sharding = "{devices=[1,2]<=[2]}"}) {
  %0 = "stablehlo.add"(%a, %b) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  func.return %0 : tensor<8x8xf32>
}

// -----

// Shardy: sdy.sharding on arguments and results; the result comes out of an
// sdy.sharding_constraint, which the analysis looks through.
// CHECK-LABEL: func.func public @shardy
// CHECK-SAME:    (%{{.*}}: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>, tf.aliasing_output = 0 : i32})
module @shardy_module {
  "sdy.mesh"() <{sym_name = "mesh", mesh = #sdy.mesh<["x"=2]>}> : () -> ()
  func.func public @shardy(%a: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>, jax.buffer_donor = true}) -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) {
    %0 = "stablehlo.negate"(%a) : (tensor<8xf32>) -> tensor<8xf32>
    %1 = "sdy.sharding_constraint"(%0) <{sharding = #sdy.sharding<@mesh, [{"x"}]>}> : (tensor<8xf32>) -> tensor<8xf32>
    func.return %1 : tensor<8xf32>
  }
}

// -----

// Memory kinds differ: no reuse.
// CHECK: warning: donated argument (%arg0: tensor<4xf32>) is not reused: no result has type tensor<4xf32> with the same placement
// CHECK-LABEL: func.func public @memory_kind
// CHECK-SAME:    (%{{.*}}: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) -> (tensor<4xf32> {mhlo.memory_kind = "device"})
func.func public @memory_kind(%a: tensor<4xf32> {mhlo.memory_kind = "pinned_host", jax.buffer_donor = true}) -> (tensor<4xf32> {mhlo.memory_kind = "device"}) {
  %0 = "stablehlo.negate"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
