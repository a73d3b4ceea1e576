// RUN: xdsl-opt --split-input-file --verify-diagnostics --parsing-diagnostics %s | filecheck %s
// Verifier and parser diagnostics of the Shardy dialect: each names the op, the sharding and
// what is wrong with it.

sdy.mesh @mesh = <["a"=4, "b"=2]>
func.func @unknown_axis(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = sdy.sharding_constraint %x <@mesh, [{"c"}, {}]> : tensor<8x8xf32>
  func.return %0 : tensor<8x8xf32>
}
// CHECK: sharding #sdy.sharding<@mesh, [{"c"}, {}]> (sharding) refers to unknown mesh axis "c"

// -----

sdy.mesh @mesh = <["a"=4, "b"=2]>
func.func @rank(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = sdy.reshard %x <@mesh, [{"a"}]> : tensor<8x8xf32>
  func.return %0 : tensor<8x8xf32>
}
// CHECK: sharding #sdy.sharding<@mesh, [{"a"}]> (sharding) has 1 dimension shardings for a tensor of rank 2

// -----

func.func @unknown_mesh(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = sdy.sharding_constraint %x <@nowhere, [{}]> : tensor<8xf32>
  func.return %0 : tensor<8xf32>
}
// CHECK: 'sdy.sharding_constraint' sharding refers to unknown mesh @nowhere

// -----

sdy.mesh @mesh = <["a"=4]>
func.func @sub_axis(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = sdy.sharding_constraint %x <@mesh, [{"a":(1)3}]> : tensor<8xf32>
  func.return %0 : tensor<8xf32>
}
// CHECK: sub-axis "a":(1)3 does not divide axis size 4

// -----

sdy.mesh @mesh = <["a"=4, "b"=2]>
func.func @axis_twice(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = sdy.sharding_constraint %x <@mesh, [{"a"}, {"a"}]> : tensor<8x8xf32>
  func.return %0 : tensor<8x8xf32>
}
// CHECK: #sdy.sharding<@mesh, [{"a"}, {"a"}]> uses an axis more than once

// -----

sdy.mesh @mesh = <["a"=2, "a"=2]>
// CHECK: sdy.mesh has duplicate axis names: ['a', 'a']

// -----

sdy.mesh @mesh = <["a"=2, "b"=2], device_ids=[0, 1, 2]>
// CHECK: sdy.mesh has 3 device ids for 4 devices

// -----

sdy.mesh @mesh = <["a"=4]>
func.func @manual_local_shape(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = sdy.manual_computation(%x) in_shardings=[<@mesh, [{"a"}]>] out_shardings=[<@mesh, [{"a"}]>] manual_axes={"a"} (%arg1: tensor<8xf32>) {
    sdy.return %arg1 : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}
// CHECK: 'sdy.manual_computation' operand 0: local type tensor<8xf32> does not match global type tensor<8xf32> split over manual axes ['a'] (expected shape [2])

// -----

sdy.mesh @mesh = <["a"=4]>
func.func @manual_count(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = sdy.manual_computation(%x) in_shardings=[] out_shardings=[<@mesh, [{"a"}]>] manual_axes={"a"} (%arg1: tensor<2xf32>) {
    sdy.return %arg1 : tensor<2xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}
// CHECK: 'sdy.manual_computation' has 0 in_shardings for 1 operands

// -----

sdy.mesh @mesh = <["a"=4]>
func.func @manual_axes(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = sdy.manual_computation(%x) in_shardings=[<@mesh, [{}]>] out_shardings=[<@mesh, [{}]>] manual_axes={"z"} (%arg1: tensor<8xf32>) {
    sdy.return %arg1 : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}
// CHECK: 'sdy.manual_computation' manual axes ['z'] are not in the mesh

// -----

func.func @named_types(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = sdy.named_computation<"f">(%x) (%arg1: tensor<4xf32>) {
    sdy.return %arg1 : tensor<4xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}
// CHECK: 'sdy.named_computation' body argument 0 has type tensor<4xf32>, expected tensor<8xf32>

// -----

func.func @barrier(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = sdy.propagation_barrier %x allowed_direction=BOTH : tensor<8xf32>
  func.return %0 : tensor<8xf32>
}
// CHECK: 'sdy.propagation_barrier' cannot allow propagation in BOTH directions

// -----

sdy.mesh @mesh = <["a"=4]>
func.func @all_gather_rank(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = sdy.all_gather [{"a"}] %x out_sharding=<@mesh, [{}, {}]> : tensor<8x8xf32>
  func.return %0 : tensor<8x8xf32>
}
// CHECK: 'sdy.all_gather' has 1 axis lists for a tensor of rank 2

// -----

func.func @rule_factor(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = func.call @f(%x) {sdy.sharding_rule = #sdy.op_sharding_rule<([i])->([j]) {i=8}>} : (tensor<8xf32>) -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}
func.func private @f(tensor<8xf32>) -> tensor<8xf32>
// CHECK: sharding rule uses factor j without a size

// -----

func.func @rule_sets(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = func.call @f(%x) {sdy.sharding_rule = #sdy.op_sharding_rule<([i])->([i]) {i=8} reduction={i} need_replication={i}>} : (tensor<8xf32>) -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}
func.func private @f(tensor<8xf32>) -> tensor<8xf32>
// CHECK: a factor can only be in one of the reduction, need replication, or permutation factor sets

// -----

func.func @rule_name(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = func.call @f(%x) {sdy.sharding_rule = #sdy.op_sharding_rule<([a])->([i]) {i=8}>} : (tensor<8xf32>) -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}
// CHECK: 'a' is not a sharding-rule factor name

// -----

func.func @sharding_syntax(%x: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}], bogus={"b"}>}) -> tensor<8xf32> {
  func.return %x : tensor<8xf32>
}
// CHECK: Expected one of 'replicated', 'unreduced'
