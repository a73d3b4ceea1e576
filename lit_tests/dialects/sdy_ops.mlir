// Shardy ops and attributes in MLIR's exact syntax (as JAX and Shardy print them): printed back
// unchanged, re-read from our own output and from our generic form, and accepted by jaxlib.
// RUN: jax-donate-opt %s | jax-donate-opt | filecheck %s
// RUN: jax-donate-opt %s --print-op-generic | jax-donate-opt | filecheck %s
// RUN: jax-donate-opt %s | %roundtrip-jaxlib | filecheck %s --check-prefix=JAXLIB
// RUN: jax-donate-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK: sdy.mesh @mesh = <["a"=4, "b"=2]> {stablehlo.mesh = {axes = [{name = "a", size = 4 : i64}]}}
// JAXLIB: sdy.mesh @mesh = <["a"=4, "b"=2]>
// GENERIC: "sdy.mesh"() <{mesh = #sdy.mesh<["a"=4, "b"=2]>, sym_name = "mesh"}> {stablehlo.mesh = {axes = [{name = "a", size = 4 : i64}]}} : () -> ()
sdy.mesh @mesh = <["a"=4, "b"=2]> {stablehlo.mesh = {axes = [{name = "a", size = 4 : i64}]}}
// CHECK-NEXT: sdy.mesh @permuted = <["a"=2, "b"=2], device_ids=[3, 2, 1, 0]>
sdy.mesh @permuted = <["a"=2, "b"=2], device_ids=[3, 2, 1, 0]>
// CHECK-NEXT: sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]>
sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]>
// CHECK-NEXT: sdy.mesh @empty = <[]>
sdy.mesh @empty = <[]>

// CHECK-LABEL: func.func @shardings
// CHECK-SAME: (%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}p1, {?}], replicated={"b"}>})
// GENERIC: arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}p1, {?}], replicated={"b"}>}]
func.func @shardings(%arg0 : tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}p1, {?}], replicated={"b"}>}) -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"a":(2)2}], unreduced={"b"}>}) {
  // CHECK-NEXT: %0 = sdy.reshard %arg0 <@mesh, [{"a"}, {}]> : tensor<8x8xf32>
  // GENERIC: "sdy.reshard"(%{{.*}}) <{sharding = #sdy.sharding<@mesh, [{"a"}, {}]>}> : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %0 = sdy.reshard %arg0 <@mesh, [{"a"}, {}]> : tensor<8x8xf32>
  // CHECK-NEXT: %1 = sdy.sharding_constraint %0 <@mesh, [{"a":(1)2}, {}], unreduced={"b"}> {mhlo.frontend_attributes = {x = "1"}} : tensor<8x8xf32>
  // JAXLIB: sdy.sharding_constraint %0 <@mesh, [{"a":(1)2}, {}], unreduced={"b"}> {mhlo.frontend_attributes = {x = "1"}} : tensor<8x8xf32>
  %1 = sdy.sharding_constraint %0 <@mesh, [{"a":(1)2}, {}], unreduced={"b"}> {mhlo.frontend_attributes = {x = "1"}} : tensor<8x8xf32>
  // CHECK-NEXT: %2 = sdy.sharding_constraint %1 <mesh<["x"=2]>, [{"x"}, {?}]> : tensor<8x8xf32>
  %2 = sdy.sharding_constraint %1 <mesh<["x"=2]>, [{"x"}, {?}]> : tensor<8x8xf32>
  // CHECK-NEXT: %3 = sdy.propagation_barrier %2 allowed_direction=FORWARD : tensor<8x8xf32>
  // GENERIC: "sdy.propagation_barrier"(%{{.*}}) <{allowed_direction = 1 : i32}>
  %3 = sdy.propagation_barrier %2 allowed_direction=FORWARD : tensor<8x8xf32>
  // CHECK-NEXT: sdy.sharding_group %3 group_id=3 : tensor<8x8xf32>
  sdy.sharding_group %3 group_id=3 : tensor<8x8xf32>
  // CHECK-NEXT: %4 = sdy.constant {foo = 1 : i64} dense<0xFF800000> : tensor<8x8xf32>
  // JAXLIB: sdy.constant {foo = 1 : i64} dense<0xFF800000> : tensor<8x8xf32>
  %4 = sdy.constant {foo = 1 : i64} dense<0xFF800000> : tensor<8x8xf32>
  // CHECK-NEXT: %5 = sdy.named_computation<"foo">(%4) in_shardings=[<@mesh, [{"a"}, {}]>] out_shardings=[<@mesh, [{"a"}, {}]>] (%arg1: tensor<8x8xf32>) {
  // CHECK-NEXT:   sdy.return %arg1 : tensor<8x8xf32>
  // CHECK-NEXT: } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  // JAXLIB: sdy.named_computation<"foo">(%{{.*}}) in_shardings=[<@mesh, [{"a"}, {}]>] out_shardings=[<@mesh, [{"a"}, {}]>] (%arg1: tensor<8x8xf32>) {
  %5 = sdy.named_computation<"foo">(%4) in_shardings=[<@mesh, [{"a"}, {}]>] out_shardings=[<@mesh, [{"a"}, {}]>] (%arg1: tensor<8x8xf32>) {
    sdy.return %arg1 : tensor<8x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  // CHECK-NEXT: %6 = sdy.named_computation<"bar">(%5) (%arg1: tensor<8x8xf32>) {
  // CHECK-NEXT:   sdy.return {r = 1 : i64} %arg1 : tensor<8x8xf32>
  // CHECK-NEXT: } {qux = 3 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %6 = sdy.named_computation<"bar">(%5) (%arg1: tensor<8x8xf32>) {
    sdy.return {r = 1 : i64} %arg1 : tensor<8x8xf32>
  } {qux = 3 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  // CHECK-NEXT: {{.*}} = sdy.manual_computation(%6, %6) in_shardings=[<@mesh, [{"a"}, {}]>, <@mesh, [{"a", "b"}, {?}]>] out_shardings=[<@mesh, [{"a"}, {}]>, <@mesh, [{}, {}], replicated={"a"}>] manual_axes={"a"} (%arg1: tensor<2x8xf32>, %arg2: tensor<2x8xf32>) {
  // CHECK-NEXT:   sdy.return %arg1, %arg2 : tensor<2x8xf32>, tensor<2x8xf32>
  // CHECK-NEXT: } : (tensor<8x8xf32>, tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<2x8xf32>)
  // JAXLIB: sdy.manual_computation(%{{.*}}, %{{.*}}) in_shardings=[<@mesh, [{"a"}, {}]>, <@mesh, [{"a", "b"}, {?}]>] out_shardings=[<@mesh, [{"a"}, {}]>, <@mesh, [{}, {}], replicated={"a"}>] manual_axes={"a"} (%arg1: tensor<2x8xf32>, %arg2: tensor<2x8xf32>) {
  // GENERIC: "sdy.manual_computation"(%{{.*}}, %{{.*}}) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"a"}, {}]>, <@mesh, [{"a", "b"}, {?}]>]>, manual_axes = #sdy<manual_axes{"a"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"a"}, {}]>, <@mesh, [{}, {}], replicated={"a"}>]>}> ({
  %7:2 = sdy.manual_computation(%6, %6) in_shardings=[<@mesh, [{"a"}, {}]>, <@mesh, [{"a", "b"}, {?}]>] out_shardings=[<@mesh, [{"a"}, {}]>, <@mesh, [{}, {}], replicated={"a"}>] manual_axes={"a"} (%arg1: tensor<2x8xf32>, %arg2: tensor<2x8xf32>) {
    sdy.return %arg1, %arg2 : tensor<2x8xf32>, tensor<2x8xf32>
  } : (tensor<8x8xf32>, tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<2x8xf32>)
  // CHECK-NEXT: sdy.manual_computation() in_shardings=[] out_shardings=[] manual_axes={} () {
  // CHECK-NEXT:   sdy.return
  // CHECK-NEXT: } : () -> ()
  sdy.manual_computation() in_shardings=[] out_shardings=[] manual_axes={} () {
    sdy.return
  } : () -> ()
  func.return %7#0 : tensor<8x8xf32>
}

// CHECK-LABEL: func.func @collectives
func.func @collectives(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {}]>}, %arg1: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) -> tensor<8x8xf32> {
  // CHECK-NEXT: %0 = sdy.all_gather [{"a"}, {}] %arg0 out_sharding=<@mesh, [{}, {}]> : tensor<8x8xf32>
  // GENERIC: "sdy.all_gather"(%{{.*}}) <{gathering_axes = #sdy<list_of_axis_ref_lists[{"a"}, {}]>, out_sharding = #sdy.sharding<@mesh, [{}, {}]>}>
  %0 = sdy.all_gather [{"a"}, {}] %arg0 out_sharding=<@mesh, [{}, {}]> : tensor<8x8xf32>
  // CHECK-NEXT: %1 = sdy.all_slice [{}, {"b"}] %arg0 out_sharding=<@mesh, [{"a"}, {"b"}]> : tensor<8x8xf32>
  %1 = sdy.all_slice [{}, {"b"}] %arg0 out_sharding=<@mesh, [{"a"}, {"b"}]> : tensor<8x8xf32>
  // CHECK-NEXT: %2 = sdy.all_to_all [{"a"}: 0->1] %arg0 out_sharding=<@mesh, [{}, {"a"}]> : tensor<8x8xf32>
  // GENERIC: params = #sdy<all_to_all_param_list[{"a"}: 0->1]>
  %2 = sdy.all_to_all [{"a"}: 0->1] %arg0 out_sharding=<@mesh, [{}, {"a"}]> : tensor<8x8xf32>
  // CHECK-NEXT: %3 = sdy.all_reduce {"b"} %arg0 out_sharding=<@mesh, [{"a"}, {}]> : tensor<8x8xf32>
  // GENERIC: reduction_axes = #sdy<axis_ref_list{"b"}>
  %3 = sdy.all_reduce {"b"} %arg0 out_sharding=<@mesh, [{"a"}, {}]> : tensor<8x8xf32>
  // CHECK-NEXT: %4 = sdy.collective_permute %arg0 out_sharding=<@mesh, [{"a"}, {}]> : tensor<8x8xf32>
  %4 = sdy.collective_permute %arg0 out_sharding=<@mesh, [{"a"}, {}]> : tensor<8x8xf32>
  // CHECK-NEXT: %5 = sdy.reduce_scatter [{}, {"b"}] %arg0 out_sharding=<@mesh, [{"a"}, {"b"}]> : tensor<8x8xf32>
  %5 = sdy.reduce_scatter [{}, {"b"}] %arg0 out_sharding=<@mesh, [{"a"}, {"b"}]> : tensor<8x8xf32>
  // CHECK-NEXT: %6 = sdy.replicated_to_unreduced {"b"} %arg1 out_sharding=<@mesh, [{}, {}], unreduced={"b"}> : tensor<8x8xf32>
  %6 = sdy.replicated_to_unreduced {"b"} %arg1 out_sharding=<@mesh, [{}, {}], unreduced={"b"}> : tensor<8x8xf32>
  // CHECK-NEXT: %7 = sdy.sharded_to_unreduced [{"a"}, {}] %arg0 out_sharding=<@mesh, [{}, {}], unreduced={"a"}> : tensor<8x8xf32>
  %7 = sdy.sharded_to_unreduced [{"a"}, {}] %arg0 out_sharding=<@mesh, [{}, {}], unreduced={"a"}> : tensor<8x8xf32>
  func.return %0 : tensor<8x8xf32>
}

// CHECK-LABEL: func.func @edges_and_rules
func.func @edges_and_rules(%x: tensor<8x8xf32>, %y: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  // CHECK-NEXT: %0 = sdy.data_flow_edge %x sharding=<@mesh, [{"a"}, {}]> : tensor<8x8xf32>
  %0 = sdy.data_flow_edge %x sharding=<@mesh, [{"a"}, {}]> : tensor<8x8xf32>
  // CHECK-NEXT: %1 = sdy.data_flow_edge %y : tensor<8x8xf32>
  %1 = sdy.data_flow_edge %y : tensor<8x8xf32>
  // CHECK-NEXT: %2 = func.call @callee(%0) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"a"}, {}]>]>, sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=8, j=8} need_replication={i}, custom>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  // JAXLIB: sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=8, j=8} need_replication={i}, custom>
  %2 = func.call @callee(%0) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"a"}, {}]>]>, sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=8, j=8} need_replication={i}, custom>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  // CHECK-NEXT: %3 = sdy.func_data_flow_edge %2 : tensor<8x8xf32>
  %3 = sdy.func_data_flow_edge %2 : tensor<8x8xf32>
  func.return %1, %3, %1 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}

// CHECK-LABEL: func.func private @callee
// CHECK-SAME: {sdy.rule1 = #sdy.op_sharding_rule<([], [])->([])>, sdy.rule2 = #sdy.op_sharding_rule<([i, j])->([ij]) {i=2, j=4}>, sdy.rule3 = #sdy.op_sharding_rule<([i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z, z_1, z_2])->([i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, zz_1, z_2]) {i=1, j=1, k=1, l=1, m=1, n=1, o=1, p=1, q=1, r=1, s=1, t=1, u=1, v=1, w=1, x=1, y=1, z=1, z_1=1, z_2=1} permutation={k}>}
func.func private @callee(%x: tensor<8x8xf32>) -> tensor<8x8xf32> attributes {sdy.rule1 = #sdy.op_sharding_rule<([], [])->([])>, sdy.rule2 = #sdy.op_sharding_rule<([i, j])->([ij]) {i=2, j=4}>, sdy.rule3 = #sdy.op_sharding_rule<([i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z, z_1, z_2])->([i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, zz_1, z_2]) {i=1, j=1, k=1, l=1, m=1, n=1, o=1, p=1, q=1, r=1, s=1, t=1, u=1, v=1, w=1, x=1, y=1, z=1, z_1=1, z_2=1} permutation={k}>} {
  func.return %x : tensor<8x8xf32>
}
