// RUN: xdsl-opt --split-input-file %s | xdsl-opt --split-input-file | filecheck %s
// RUN: jax-donate-opt --split-input-file --print-op-generic %s | jax-donate-opt --split-input-file | filecheck %s
// Round trip of the collectives ops in pretty and generic form. Inputs and CHECK lines are
// jaxlib's own printing (tests/test_stablehlo_dialect.py re-checks them against jaxlib).

func.func @coll(%x: tensor<4x4xf32>, %t: !stablehlo.token) -> () {
  %0 = "stablehlo.all_reduce"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<4x4xf32>) -> tensor<16x4xf32>
  %2 = "stablehlo.collective_permute"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %3 = "stablehlo.all_to_all"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, split_count = 4 : i64, split_dimension = 0 : i64}> : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %4 = "stablehlo.reduce_scatter"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, scatter_dimension = 0 : i64, use_global_device_ids}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4x4xf32>) -> tensor<1x4xf32>
  %5 = stablehlo.partition_id : tensor<ui32>
  %6 = stablehlo.replica_id : tensor<ui32>
  %7 = stablehlo.create_token : !stablehlo.token
  %8 = stablehlo.after_all %t, %7 : !stablehlo.token
  %9 = "stablehlo.outfeed"(%x, %8) <{outfeed_config = ""}> : (tensor<4x4xf32>, !stablehlo.token) -> !stablehlo.token
  %10:2 = "stablehlo.infeed"(%9) <{infeed_config = ""}> : (!stablehlo.token) -> (tensor<4x4xf32>, !stablehlo.token)
  %11 = "stablehlo.send"(%x, %8) <{channel_handle = #stablehlo.channel_handle<handle = 5, type = 2>, is_host_transfer = true}> : (tensor<4x4xf32>, !stablehlo.token) -> !stablehlo.token
  %12:2 = "stablehlo.recv"(%8) <{channel_handle = #stablehlo.channel_handle<handle = 5, type = 3>, is_host_transfer = true}> : (!stablehlo.token) -> (tensor<4x4xf32>, !stablehlo.token)
  %13 = stablehlo.custom_call @foo(%x) {api_version = 2 : i32, backend_config = "cfg", has_side_effect = true, output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %14:2 = stablehlo.custom_call @bar(%x, %t) {api_version = 4 : i32, backend_config = {mode = 65 : ui8}} : (tensor<4x4xf32>, !stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
  stablehlo.custom_call @"weird name"() : () -> ()
  %15:2 = stablehlo.optimization_barrier %x, %t : tensor<4x4xf32>, !stablehlo.token
  %16 = stablehlo.tuple %x, %t : tuple<tensor<4x4xf32>, !stablehlo.token>
  %17 = stablehlo.get_tuple_element %16[1] : (tuple<tensor<4x4xf32>, !stablehlo.token>) -> !stablehlo.token
  %18 = "stablehlo.cross-replica-sum"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %19 = "stablehlo.collective_broadcast"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %20 = stablehlo.composite "my.op" %x {composite_attributes = {k = 1 : i32}, decomposition = @dec, version = 1 : i32} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %21 = stablehlo.cholesky %x, lower = true : tensor<4x4xf32>
  %22 = "stablehlo.triangular_solve"(%x, %x) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %23 = stablehlo.dot %x, %x, precision = [DEFAULT, HIGHEST] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %24 = stablehlo.dot_general %x, %x, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %25 = stablehlo.einsum %x, %x, config = "ab,bc->ac" : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %26 = stablehlo.unary_einsum %x, config = "ab->a" : (tensor<4x4xf32>) -> tensor<4xf32>
  stablehlo.optimization_barrier ()
  %c = stablehlo.constant dense<[2, 2]> : tensor<2xi64>
  %f0 = stablehlo.constant dense<0.0> : tensor<f32>
  %28 = stablehlo.rng %f0, %f0, %c, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x2xf32>
  %f4 = stablehlo.constant dense<1.0> : tensor<4xf32>
  %29:3 = "stablehlo.batch_norm_training"(%x, %f4, %f4) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>)
  
  return
}
func.func private @dec(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %x : tensor<4x4xf32>
}

// CHECK: func.func @coll(%x: tensor<4x4xf32>, %t: !stablehlo.token) {
// CHECK: %0 = "stablehlo.all_reduce"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<{{\[\[}}0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
// CHECK: %s = stablehlo.add %a, %b : tensor<f32>
// CHECK: stablehlo.return %s : tensor<f32>
// CHECK: %1 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<{{\[\[}}0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<4x4xf32>) -> tensor<16x4xf32>
// CHECK: %2 = "stablehlo.collective_permute"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<{{\[\[}}0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: %3 = "stablehlo.all_to_all"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<{{\[\[}}0, 1, 2, 3]]> : tensor<1x4xi64>, split_count = 4 : i64, split_dimension = 0 : i64}> : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: %4 = "stablehlo.reduce_scatter"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<{{\[\[}}0, 1, 2, 3]]> : tensor<1x4xi64>, scatter_dimension = 0 : i64, use_global_device_ids}> ({
// CHECK: %s_1 = stablehlo.add %a_1, %b_1 : tensor<f32>
// CHECK: stablehlo.return %s_1 : tensor<f32>
// CHECK: %5 = stablehlo.partition_id : tensor<ui32>
// CHECK: %6 = stablehlo.replica_id : tensor<ui32>
// CHECK: %7 = stablehlo.create_token : !stablehlo.token
// CHECK: %8 = stablehlo.after_all %t, %7 : !stablehlo.token
// CHECK: %9 = "stablehlo.outfeed"(%x, %8) <{outfeed_config = ""}> : (tensor<4x4xf32>, !stablehlo.token) -> !stablehlo.token
// CHECK: {{%10:2|%10, %11}} = "stablehlo.infeed"(%9) <{infeed_config = ""}> : (!stablehlo.token) -> (tensor<4x4xf32>, !stablehlo.token)
// CHECK: %12 = "stablehlo.send"(%x, %8) <{channel_handle = #stablehlo.channel_handle<handle = 5, type = 2>, is_host_transfer = true}> : (tensor<4x4xf32>, !stablehlo.token) -> !stablehlo.token
// CHECK: {{%13:2|%13, %14}} = "stablehlo.recv"(%8) <{channel_handle = #stablehlo.channel_handle<handle = 5, type = 3>, is_host_transfer = true}> : (!stablehlo.token) -> (tensor<4x4xf32>, !stablehlo.token)
// CHECK: %15 = stablehlo.custom_call @foo(%x) {api_version = 2 : i32, backend_config = "cfg", has_side_effect = true, output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]} : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: {{%16:2|%16, %17}} = stablehlo.custom_call @bar(%x, %t) {api_version = 4 : i32, backend_config = {mode = 65 : ui8}} : (tensor<4x4xf32>, !stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
// CHECK: stablehlo.custom_call @"weird name"() : () -> ()
// CHECK: {{%18:2|%18, %19}} = stablehlo.optimization_barrier %x, %t : tensor<4x4xf32>, !stablehlo.token
// CHECK: %20 = stablehlo.tuple %x, %t : tuple<tensor<4x4xf32>, !stablehlo.token>
// CHECK: %21 = stablehlo.get_tuple_element %20[1] : (tuple<tensor<4x4xf32>, !stablehlo.token>) -> !stablehlo.token
// CHECK: %22 = "stablehlo.cross-replica-sum"(%x) <{replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>}> : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: %23 = "stablehlo.collective_broadcast"(%x) <{replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>}> : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: %24 = stablehlo.composite "my.op" %x {composite_attributes = {k = 1 : i32}, decomposition = @dec, version = 1 : i32} : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: %25 = stablehlo.cholesky %x, lower = true : tensor<4x4xf32>
// CHECK: %26 = "stablehlo.triangular_solve"(%x, %x) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: %27 = stablehlo.dot %x, %x, precision = [DEFAULT, HIGHEST] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: %28 = stablehlo.dot_general %x, %x, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: %29 = stablehlo.einsum %x, %x, config = "ab,bc->ac" : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: %30 = stablehlo.unary_einsum %x, config = "ab->a" : (tensor<4x4xf32>) -> tensor<4xf32>
// CHECK: stablehlo.optimization_barrier()
// CHECK: %c = stablehlo.constant dense<2> : tensor<2xi64>
// CHECK: %f0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %31 = stablehlo.rng %f0, %f0, %c, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x2xf32>
// CHECK: %f4 = stablehlo.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK: {{%32:3|%32, %33, %34}} = "stablehlo.batch_norm_training"(%x, %f4, %f4) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>)

// -----
// Mesh-axes replica groups (JAX >= 0.11 prints them for shard_map collectives): a mesh
// symbol or an inline #stablehlo.mesh, sub-axes, device ids.

sdy.mesh @mesh_0 = <["x"=2, "y"=2]>
func.func @mesh_axes(%x: tensor<4x4xf32>) {
  %0 = "stablehlo.all_reduce"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "x">, #stablehlo.axis_ref<name = "y">]>, use_global_device_ids}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "x">]>, use_global_device_ids}> : (tensor<4x4xf32>) -> tensor<8x4xf32>
  %2 = "stablehlo.reduce_scatter"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "y">]>, scatter_dimension = 0 : i64, use_global_device_ids}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4x4xf32>) -> tensor<2x4xf32>
  %3 = "stablehlo.all_to_all"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 1 : i64, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 4>, <name="y", size=2>]>, axes = [#stablehlo.axis_ref<name = "x", sub_axis_info = (1)2>]>, split_count = 2 : i64, split_dimension = 0 : i64}> : (tensor<4x4xf32>) -> tensor<2x8xf32>
  %4 = "stablehlo.collective_broadcast"(%x) <{replica_groups = #stablehlo.replica_group_mesh_axes<axes = [#stablehlo.axis_ref<name = "x">], mesh = #stablehlo.mesh<axes=[<name = "x", size = 4>], device_ids = dense<[3, 2, 1, 0]> : tensor<4xi64>>>}> : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return
}

// CHECK: sdy.mesh @mesh_0 = <["x"=2, "y"=2]>
// CHECK: %0 = "stablehlo.all_reduce"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "x">, #stablehlo.axis_ref<name = "y">]>, use_global_device_ids}> ({
// CHECK: %1 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "x">]>, use_global_device_ids}> : (tensor<4x4xf32>) -> tensor<8x4xf32>
// CHECK: %2 = "stablehlo.reduce_scatter"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "y">]>, scatter_dimension = 0 : i64, use_global_device_ids}> ({
// CHECK: %3 = "stablehlo.all_to_all"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 1 : i64, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<axes=[<name = "x", size = 4>, <name = "y", size = 2>]>, axes = [#stablehlo.axis_ref<name = "x", sub_axis_info = (1)2>]>, split_count = 2 : i64, split_dimension = 0 : i64}> : (tensor<4x4xf32>) -> tensor<2x8xf32>
// CHECK: %4 = "stablehlo.collective_broadcast"(%x) <{replica_groups = #stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<axes=[<name = "x", size = 4>], device_ids=dense<[3, 2, 1, 0]> : tensor<4xi64>>, axes = [#stablehlo.axis_ref<name = "x">]>}> : (tensor<4x4xf32>) -> tensor<4x4xf32>

// -----
// stablehlo.collective_reduce (jaxlib >= 0.11.1 registers it: tests/jax_versions.py, OPS_SINCE).

func.func @collective_reduce(%x: tensor<4xf32>, %y: tensor<2xf32>, %r: tensor<2xi32>) {
  %0 = "stablehlo.collective_reduce"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  %1:2 = "stablehlo.collective_reduce"(%x, %y, %r) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, has_dynamic_root, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<axes=[<name = "x", size = 2>]>, axes = [#stablehlo.axis_ref<name = "x">]>, use_global_device_ids}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4xf32>, tensor<2xf32>, tensor<2xi32>) -> (tensor<4xf32>, tensor<2xf32>)
  return
}

// CHECK: func.func @collective_reduce(%x: tensor<4xf32>, %y: tensor<2xf32>, %r: tensor<2xi32>) {
// CHECK: %0 = "stablehlo.collective_reduce"(%x) <{replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>}> ({
// CHECK: stablehlo.return %s : tensor<f32>
// CHECK: }) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: {{%1:2|%1, %2}} = "stablehlo.collective_reduce"(%x, %y, %r) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, has_dynamic_root, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<axes=[<name = "x", size = 2>]>, axes = [#stablehlo.axis_ref<name = "x">]>, use_global_device_ids}> ({
// CHECK: }) : (tensor<4xf32>, tensor<2xf32>, tensor<2xi32>) -> (tensor<4xf32>, tensor<2xf32>)
