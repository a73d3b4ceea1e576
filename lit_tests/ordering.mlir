// Dataflow ordering (mode=alias, XLA) versus program ordering (mode=materialize, block order).
// RUN: jax-donate-opt %s --split-input-file -p jax-plan-donation 2>&1 | filecheck %s --check-prefix=DATAFLOW
// RUN: jax-donate-opt %s --split-input-file -p 'jax-plan-donation{mode=materialize}' 2>&1 | filecheck %s --check-prefix=PROGRAM

// %a is last read by the convert, which comes before the producer of result 0 in the block but
// is not one of its data-dependence ancestors: XLA may run the negate first, so under
// dataflow ordering %a cannot host result 0; after bufferization (block order) it can.
// DATAFLOW: warning: donated argument 'a' (%arg0: tensor<4xf32>) is not reused: every result of its type is written before its last read; result 0 is produced by stablehlo.negate at f.py:3:7 while stablehlo.convert at f.py:2:7 still reads it
// DATAFLOW-LABEL: func.func public @read_not_ancestor
// DATAFLOW-SAME:    (%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4xf32>)
// PROGRAM-NOT: warning
// PROGRAM-LABEL: func.func public @read_not_ancestor
// PROGRAM-SAME:    (%[[A:.*]]: tensor<4xf32> {bufferization.writable = true}, %[[C:.*]]: tensor<4xf32> {bufferization.writable = false})
// PROGRAM:         %[[N:.*]] = stablehlo.negate %[[C]] : tensor<4xf32>
// PROGRAM-NEXT:    %[[M:.*]] = bufferization.materialize_in_destination %[[N]] in %[[A]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// PROGRAM-NEXT:    func.return %[[M]], %{{.*}} : tensor<4xf32>, tensor<4xi32>
func.func public @read_not_ancestor(%a: tensor<4xf32> {jax.buffer_donor = true} loc("a"), %c: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0 = "stablehlo.convert"(%a) : (tensor<4xf32>) -> tensor<4xi32> loc("f.py":2:7)
  %1 = "stablehlo.negate"(%c) : (tensor<4xf32>) -> tensor<4xf32> loc("f.py":3:7)
  func.return %1, %0 : tensor<4xf32>, tensor<4xi32>
}

// -----

// When the read is an ancestor of the producer, both orderings agree.
// DATAFLOW-LABEL: func.func public @read_is_ancestor
// DATAFLOW-SAME:    {tf.aliasing_output = 0 : i32}
// PROGRAM-LABEL: func.func public @read_is_ancestor
// PROGRAM:         bufferization.materialize_in_destination
func.func public @read_is_ancestor(%a: tensor<4xf32> {jax.buffer_donor = true}, %c: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.transpose"(%a) <{permutation = array<i64: 0>}> : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.add"(%0, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %1 : tensor<4xf32>
}

// -----

// Read after the producer in both orders: no ordering helps.
// DATAFLOW: warning: donated argument (%arg0: tensor<4xf32>) is not reused: every result of its type is written before its last read; result 0 is produced by stablehlo.negate while stablehlo.convert still reads it
// DATAFLOW-LABEL: func.func public @read_after
// PROGRAM: warning: donated argument (%arg0: tensor<4xf32>) is not reused: every result of its type is written before its last read; result 0 is produced by stablehlo.negate while stablehlo.convert still reads it
// PROGRAM-LABEL: func.func public @read_after
// PROGRAM-NOT: materialize_in_destination
func.func public @read_after(%a: tensor<4xf32> {jax.buffer_donor = true}, %c: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0 = "stablehlo.negate"(%c) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.convert"(%a) : (tensor<4xf32>) -> tensor<4xi32>
  func.return %0, %1 : tensor<4xf32>, tensor<4xi32>
}
