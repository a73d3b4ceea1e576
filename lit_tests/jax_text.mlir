// Real JAX text: `jax.jit(step, donate_argnums=(0, 1, 2)).lower(...)` of
//   def step(x, y, s):
//       m = jnp.max(x, axis=1, keepdims=True)
//       z = jax.nn.relu(x - m) + jnp.where(jnp.isnan(y), -jnp.inf, y)
//       return z, s + jnp.nan_to_num(jnp.min(y)), x * 2.0
// printed by jaxlib in generic form with debug info (the file path shortened to step.py): named
// argument locations, callsite locations with ranges (`"step.py":4:8 to :41`), `#loc` aliases
// defined after their use, private callees (relu, _where, nan_to_num), and the hex-float
// constants -inf (0xFF800000) and +inf (0x7F800000) that xDSL's own parser turns into 4.28e+09.
//
// RUN: jax-donate-opt %s -p jax-plan-donation 2>/dev/null | filecheck %s
// RUN: jax-donate-opt %s -p jax-plan-donation 2>&1 >/dev/null | filecheck %s --check-prefix=WARN
// RUN: jax-donate-opt %s -p jax-plan-donation --print-debuginfo 2>/dev/null | %roundtrip-jaxlib | filecheck %s --check-prefix=JAXLIB
// RUN: jax-donate-opt %s --print-op-generic --print-debuginfo | %roundtrip-jaxlib --generic | filecheck %s --check-prefix=IDENTITY
// RUN: jax-donate-opt %s -p 'jax-plan-donation{mode=materialize}' 2>&1 | filecheck %s --check-prefix=PROGRAM
// RUN: jax-donate-opt %s -p jax-plan-donation --donation-report 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT
// RUN: jax-donate-opt %s --print-op-generic --print-debuginfo | jax-donate-opt --print-debuginfo | filecheck %s --check-prefix=RANGE

// The non-finite constants survive exactly (never as 4.28657869e+09).
// CHECK-NOT: e+09
// CHECK-LABEL: func.func public @main
// CHECK-SAME:    (%{{[a-z0-9]+}}: tensor<4x4xf32>, %{{[a-z0-9]+}}: tensor<4x4xf32>, %{{[a-z0-9]+}}: tensor<f32> {tf.aliasing_output = 1 : i32})
// CHECK-COUNT-2: dense<0xFF800000> : tensor<f32>
// CHECK: dense<0x7F800000> : tensor<f32>
// CHECK-LABEL: func.func private @nan_to_num
// CHECK: dense<0x7F800000> : tensor<f32>
// CHECK: dense<0xFF800000> : tensor<f32>
// CHECK-NOT: e+09

// Warnings carry the user's source line (the innermost frame of the callsite location).
// WARN: step.py:5:46: warning: donated argument 'x' (%arg0: tensor<4x4xf32>) is not reused: every result of its type is written before its last read; result 0 is produced by stablehlo.add at step.py:4:8 while stablehlo.multiply at step.py:5:46 still reads it
// WARN: step.py:4:8: warning: donated argument 'y' (%arg1: tensor<4x4xf32>) is not reused: every result of its type is written before its last read; result 2 is produced by stablehlo.multiply at step.py:5:46 while stablehlo.add at step.py:4:8 still reads it

// jaxlib re-parses the output, locations included, with the constants intact.
// JAXLIB-LABEL: func.func public @main
// JAXLIB-SAME:    %arg2: tensor<f32> {tf.aliasing_output = 1 : i32}
// JAXLIB-COUNT-2: stablehlo.constant dense<0xFF800000> : tensor<f32>
// JAXLIB: stablehlo.constant dense<0x7F800000> : tensor<f32>

// Without a pass, the module is unchanged: JAX's own pairing and every constant.
// IDENTITY: arg_attrs = [{tf.aliasing_output = 0 : i32}, {tf.aliasing_output = 2 : i32}, {tf.aliasing_output = 1 : i32}]
// IDENTITY-COUNT-3: value = dense<0xFF800000> : tensor<f32>

// Location ranges keep their end through a generic/pretty round trip (as jaxlib prints them).
// RANGE: loc("jit(step)/broadcast_in_dim"(callsite("step"("step.py":3:8 to :41) at
// RANGE: loc("jit(step)"("<module>"("step.py":7:5 to :59)))

// In block order (after bufferization) %y can host result 2.
// PROGRAM: warning: donated argument 'x' (%arg0: tensor<4x4xf32>) is not reused: every result it could host is taken by another donor (%arg1 hosts result 2)
// PROGRAM: bufferization.materialize_in_destination %{{.*}} in %{{.*}} : (tensor<f32>, tensor<f32>) -> tensor<f32>
// PROGRAM-NEXT: bufferization.materialize_in_destination %{{.*}} in %{{.*}} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>

// REPORT-LABEL: donation report for @main: 1/3 donors reused without a copy, 4 B of 132 B
// REPORT-NEXT:   ordering: XLA's default copy insertion (a donor's other reads must feed the write)
// REPORT-NEXT:   jax.jit's pairing: 3/3 donors, 132 B, 1 without a copy (4 B): 2 overwrite a buffer still read, which XLA copies
// REPORT-NEXT: argument   type             bytes  jax.jit          planned   reason
// REPORT-NEXT: x (%arg0)  tensor<4x4xf32>  64 B   result 0 (copy)  -         read-after-write
// REPORT-NEXT: y (%arg1)  tensor<4x4xf32>  64 B   result 2 (copy)  -         read-after-write
// REPORT-NEXT: s (%arg2)  tensor<f32>      4 B    result 1         result 1  paired
// REPORT-NEXT: 2 donors not reused: the warnings above say why

#loc = loc(unknown)
#loc1 = loc("x")
#loc2 = loc("y")
#loc3 = loc("s")
#loc6 = loc("reduce_max")
#loc13 = loc("reduce_min")
#loc27 = loc("reduce_max:"(#loc6))
#loc34 = loc("reduce_min:"(#loc13))
"builtin.module"() <{sym_name = "jit_step"}> ({
  "func.func"() <{arg_attrs = [{tf.aliasing_output = 0 : i32}, {tf.aliasing_output = 2 : i32}, {tf.aliasing_output = 1 : i32}], function_type = (tensor<4x4xf32>, tensor<4x4xf32>, tensor<f32>) -> (tensor<4x4xf32>, tensor<f32>, tensor<4x4xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg8: tensor<4x4xf32> loc("x"), %arg9: tensor<4x4xf32> loc("y"), %arg10: tensor<f32> loc("s")):
    %18 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32> loc(#loc50)
    %19 = "stablehlo.reduce"(%arg8, %18) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg13: tensor<f32> loc("reduce_max:"(#loc6)), %arg14: tensor<f32> loc("reduce_max:"(#loc6))):
      %36 = "stablehlo.maximum"(%arg13, %arg14) : (tensor<f32>, tensor<f32>) -> tensor<f32> loc(#loc50)
      "stablehlo.return"(%36) : (tensor<f32>) -> () loc(#loc50)
    }) : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32> loc(#loc50)
    %20 = "stablehlo.broadcast_in_dim"(%19) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xf32>) -> tensor<4x1xf32> loc(#loc51)
    %21 = "stablehlo.broadcast_in_dim"(%20) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<4x1xf32>) -> tensor<4x4xf32> loc(#loc52)
    %22 = "stablehlo.subtract"(%arg8, %21) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> loc(#loc52)
    %23 = "func.call"(%22) <{callee = @relu}> : (tensor<4x4xf32>) -> tensor<4x4xf32> loc(#loc53)
    %24 = "stablehlo.compare"(%arg9, %arg9) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xi1> loc(#loc54)
    %25 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32> loc(#loc43)
    %26 = "func.call"(%24, %25, %arg9) <{callee = @_where}> : (tensor<4x4xi1>, tensor<f32>, tensor<4x4xf32>) -> tensor<4x4xf32> loc(#loc55)
    %27 = "stablehlo.add"(%23, %26) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> loc(#loc56)
    %28 = "stablehlo.constant"() <{value = dense<0x7F800000> : tensor<f32>}> : () -> tensor<f32> loc(#loc57)
    %29 = "stablehlo.reduce"(%arg9, %28) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg11: tensor<f32> loc("reduce_min:"(#loc13)), %arg12: tensor<f32> loc("reduce_min:"(#loc13))):
      %35 = "stablehlo.minimum"(%arg11, %arg12) : (tensor<f32>, tensor<f32>) -> tensor<f32> loc(#loc57)
      "stablehlo.return"(%35) : (tensor<f32>) -> () loc(#loc57)
    }) : (tensor<4x4xf32>, tensor<f32>) -> tensor<f32> loc(#loc57)
    %30 = "func.call"(%29) <{callee = @nan_to_num}> : (tensor<f32>) -> tensor<f32> loc(#loc58)
    %31 = "stablehlo.add"(%arg10, %30) : (tensor<f32>, tensor<f32>) -> tensor<f32> loc(#loc59)
    %32 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32> loc(#loc43)
    %33 = "stablehlo.broadcast_in_dim"(%32) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x4xf32> loc(#loc60)
    %34 = "stablehlo.multiply"(%arg8, %33) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> loc(#loc60)
    "func.return"(%27, %31, %34) : (tensor<4x4xf32>, tensor<f32>, tensor<4x4xf32>) -> () loc(#loc43)
  }) : () -> () loc(#loc)
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<4x4xf32>) -> tensor<4x4xf32>, res_attrs = [{}], sym_name = "relu", sym_visibility = "private"}> ({
  ^bb0(%arg7: tensor<4x4xf32> loc(unknown)):
    %15 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32> loc(#loc)
    %16 = "stablehlo.broadcast_in_dim"(%15) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x4xf32> loc(#loc18)
    %17 = "stablehlo.maximum"(%arg7, %16) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> loc(#loc18)
    "func.return"(%17) : (tensor<4x4xf32>) -> () loc(#loc)
  }) : () -> () loc(#loc38)
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<4x4xi1>, tensor<f32>, tensor<4x4xf32>) -> tensor<4x4xf32>, res_attrs = [{}], sym_name = "_where", sym_visibility = "private"}> ({
  ^bb0(%arg4: tensor<4x4xi1> loc(unknown), %arg5: tensor<f32> loc(unknown), %arg6: tensor<4x4xf32> loc(unknown)):
    %12 = "stablehlo.convert"(%arg5) : (tensor<f32>) -> tensor<f32> loc(#loc19)
    %13 = "stablehlo.broadcast_in_dim"(%12) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x4xf32> loc(#loc20)
    %14 = "stablehlo.select"(%arg4, %13, %arg6) : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> loc(#loc21)
    "func.return"(%14) : (tensor<4x4xf32>) -> () loc(#loc)
  }) : () -> () loc(#loc63)
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<f32>) -> tensor<f32>, res_attrs = [{}], sym_name = "nan_to_num", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<f32> loc(unknown)):
    %1 = "stablehlo.compare"(%arg3, %arg3) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1> loc(#loc22)
    %2 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32> loc(#loc)
    %3 = "func.call"(%1, %2, %arg3) <{callee = @_where_0}> : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32> loc(#loc23)
    %4 = "stablehlo.constant"() <{value = dense<0x7F800000> : tensor<f32>}> : () -> tensor<f32> loc(#loc)
    %5 = "stablehlo.compare"(%3, %4) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1> loc(#loc24)
    %6 = "stablehlo.constant"() <{value = dense<3.40282347E+38> : tensor<f32>}> : () -> tensor<f32> loc(#loc)
    %7 = "func.call"(%5, %6, %3) <{callee = @_where_0}> : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32> loc(#loc23)
    %8 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32> loc(#loc)
    %9 = "stablehlo.compare"(%7, %8) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1> loc(#loc24)
    %10 = "stablehlo.constant"() <{value = dense<-3.40282347E+38> : tensor<f32>}> : () -> tensor<f32> loc(#loc)
    %11 = "func.call"(%9, %10, %7) <{callee = @_where_0}> : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32> loc(#loc23)
    "func.return"(%11) : (tensor<f32>) -> () loc(#loc)
  }) : () -> () loc(#loc64)
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>, res_attrs = [{}], sym_name = "_where_0", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<i1> loc(unknown), %arg1: tensor<f32> loc(unknown), %arg2: tensor<f32> loc(unknown)):
    %0 = "stablehlo.select"(%arg0, %arg1, %arg2) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32> loc(#loc21)
    "func.return"(%0) : (tensor<f32>) -> () loc(#loc)
  }) : () -> () loc(#loc38)
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> () loc(#loc)
#loc4 = loc("step.py":3:8 to :41)
#loc5 = loc("step.py":7:5 to :59)
#loc7 = loc("step.py":4:20 to :25)
#loc8 = loc("step.py":4:8 to :26)
#loc9 = loc("step.py":4:39 to :51)
#loc10 = loc("step.py":4:29 to :65)
#loc11 = loc("step.py":4:8 to :65)
#loc12 = loc("step.py":5:33 to :43)
#loc14 = loc("step.py":5:18 to :44)
#loc15 = loc("step.py":5:14 to :44)
#loc16 = loc("step.py":5:46 to :53)
#loc17 = loc("jit")
#loc18 = loc("max")
#loc19 = loc("convert_element_type")
#loc20 = loc("broadcast_in_dim")
#loc21 = loc("select_n")
#loc22 = loc("ne")
#loc23 = loc("jit(_where)")
#loc24 = loc("eq")
#loc25 = loc("step"(#loc4))
#loc26 = loc("<module>"(#loc5))
#loc28 = loc("step"(#loc7))
#loc29 = loc("step"(#loc8))
#loc30 = loc("step"(#loc9))
#loc31 = loc("step"(#loc10))
#loc32 = loc("step"(#loc11))
#loc33 = loc("step"(#loc12))
#loc35 = loc("step"(#loc14))
#loc36 = loc("step"(#loc15))
#loc37 = loc("step"(#loc16))
#loc38 = loc("jit:"(#loc17))
#loc39 = loc(callsite(#loc25 at #loc26))
#loc40 = loc(callsite(#loc28 at #loc26))
#loc41 = loc(callsite(#loc29 at #loc26))
#loc42 = loc(callsite(#loc30 at #loc26))
#loc43 = loc("jit(step)"(#loc26))
#loc44 = loc(callsite(#loc31 at #loc26))
#loc45 = loc(callsite(#loc32 at #loc26))
#loc46 = loc(callsite(#loc33 at #loc26))
#loc47 = loc(callsite(#loc35 at #loc26))
#loc48 = loc(callsite(#loc36 at #loc26))
#loc49 = loc(callsite(#loc37 at #loc26))
#loc50 = loc("jit(step)/reduce_max"(#loc39))
#loc51 = loc("jit(step)/broadcast_in_dim"(#loc39))
#loc52 = loc("jit(step)/sub"(#loc40))
#loc53 = loc("jit(step)/jit(relu)"(#loc41))
#loc54 = loc("jit(step)/ne"(#loc42))
#loc55 = loc("jit(step)/jit(_where)"(#loc44))
#loc56 = loc("jit(step)/add"(#loc45))
#loc57 = loc("jit(step)/reduce_min"(#loc46))
#loc58 = loc("jit(step)/jit(nan_to_num)"(#loc47))
#loc59 = loc("jit(step)/add"(#loc48))
#loc60 = loc("jit(step)/mul"(#loc49))
#loc61 = loc("jit(step)/jit"(#loc44))
#loc62 = loc("jit(step)/jit"(#loc47))
#loc63 = loc("jit:"(#loc61))
#loc64 = loc("jit:"(#loc62))

