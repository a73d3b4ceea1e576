module @jit__special_bessel attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>) -> (tensor<8xf32> {jax.result_info = "result[0]"}, tensor<8xf32> {jax.result_info = "result[1]"}, tensor<8xf32> {jax.result_info = "result[2]"}, tensor<8xf32> {jax.result_info = "result[3]"}, tensor<8xf32> {jax.result_info = "result[4]"}, tensor<8xf32> {jax.result_info = "result[5]"}) {
    %0 = chlo.bessel_i1e %arg0 : tensor<8xf32> -> tensor<8xf32>
    %1 = stablehlo.abs %arg0 : tensor<8xf32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_1 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %5 = stablehlo.multiply %2, %1 : tensor<8xf32>
    %6 = stablehlo.subtract %5, %3 : tensor<8xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %10 = stablehlo.multiply %6, %7 : tensor<8xf32>
    %11 = stablehlo.subtract %10, %8 : tensor<8xf32>
    %cst_5 = stablehlo.constant dense<-1.30002498E-8> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %13 = stablehlo.add %11, %12 : tensor<8xf32>
    %14 = stablehlo.multiply %6, %13 : tensor<8xf32>
    %15 = stablehlo.subtract %14, %7 : tensor<8xf32>
    %cst_6 = stablehlo.constant dense<6.04699508E-8> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %17 = stablehlo.add %15, %16 : tensor<8xf32>
    %18 = stablehlo.multiply %6, %17 : tensor<8xf32>
    %19 = stablehlo.subtract %18, %13 : tensor<8xf32>
    %cst_7 = stablehlo.constant dense<-2.67079372E-7> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %21 = stablehlo.add %19, %20 : tensor<8xf32>
    %22 = stablehlo.multiply %6, %21 : tensor<8xf32>
    %23 = stablehlo.subtract %22, %17 : tensor<8xf32>
    %cst_8 = stablehlo.constant dense<1.11738757E-6> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %25 = stablehlo.add %23, %24 : tensor<8xf32>
    %26 = stablehlo.multiply %6, %25 : tensor<8xf32>
    %27 = stablehlo.subtract %26, %21 : tensor<8xf32>
    %cst_9 = stablehlo.constant dense<-4.41673819E-6> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %29 = stablehlo.add %27, %28 : tensor<8xf32>
    %30 = stablehlo.multiply %6, %29 : tensor<8xf32>
    %31 = stablehlo.subtract %30, %25 : tensor<8xf32>
    %cst_10 = stablehlo.constant dense<1.64484482E-5> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %33 = stablehlo.add %31, %32 : tensor<8xf32>
    %34 = stablehlo.multiply %6, %33 : tensor<8xf32>
    %35 = stablehlo.subtract %34, %29 : tensor<8xf32>
    %cst_11 = stablehlo.constant dense<-5.75419508E-5> : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %37 = stablehlo.add %35, %36 : tensor<8xf32>
    %38 = stablehlo.multiply %6, %37 : tensor<8xf32>
    %39 = stablehlo.subtract %38, %33 : tensor<8xf32>
    %cst_12 = stablehlo.constant dense<1.88502891E-4> : tensor<f32>
    %40 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %41 = stablehlo.add %39, %40 : tensor<8xf32>
    %42 = stablehlo.multiply %6, %41 : tensor<8xf32>
    %43 = stablehlo.subtract %42, %37 : tensor<8xf32>
    %cst_13 = stablehlo.constant dense<-5.76375576E-4> : tensor<f32>
    %44 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %45 = stablehlo.add %43, %44 : tensor<8xf32>
    %46 = stablehlo.multiply %6, %45 : tensor<8xf32>
    %47 = stablehlo.subtract %46, %41 : tensor<8xf32>
    %cst_14 = stablehlo.constant dense<0.00163947558> : tensor<f32>
    %48 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %49 = stablehlo.add %47, %48 : tensor<8xf32>
    %50 = stablehlo.multiply %6, %49 : tensor<8xf32>
    %51 = stablehlo.subtract %50, %45 : tensor<8xf32>
    %cst_15 = stablehlo.constant dense<-4.324310e-03> : tensor<f32>
    %52 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %53 = stablehlo.add %51, %52 : tensor<8xf32>
    %54 = stablehlo.multiply %6, %53 : tensor<8xf32>
    %55 = stablehlo.subtract %54, %49 : tensor<8xf32>
    %cst_16 = stablehlo.constant dense<0.0105464607> : tensor<f32>
    %56 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %57 = stablehlo.add %55, %56 : tensor<8xf32>
    %58 = stablehlo.multiply %6, %57 : tensor<8xf32>
    %59 = stablehlo.subtract %58, %53 : tensor<8xf32>
    %cst_17 = stablehlo.constant dense<-0.0237374157> : tensor<f32>
    %60 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %61 = stablehlo.add %59, %60 : tensor<8xf32>
    %62 = stablehlo.multiply %6, %61 : tensor<8xf32>
    %63 = stablehlo.subtract %62, %57 : tensor<8xf32>
    %cst_18 = stablehlo.constant dense<0.0493052825> : tensor<f32>
    %64 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %65 = stablehlo.add %63, %64 : tensor<8xf32>
    %66 = stablehlo.multiply %6, %65 : tensor<8xf32>
    %67 = stablehlo.subtract %66, %61 : tensor<8xf32>
    %cst_19 = stablehlo.constant dense<-9.490110e-02> : tensor<f32>
    %68 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %69 = stablehlo.add %67, %68 : tensor<8xf32>
    %70 = stablehlo.multiply %6, %69 : tensor<8xf32>
    %71 = stablehlo.subtract %70, %65 : tensor<8xf32>
    %cst_20 = stablehlo.constant dense<0.171620905> : tensor<f32>
    %72 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %73 = stablehlo.add %71, %72 : tensor<8xf32>
    %74 = stablehlo.multiply %6, %73 : tensor<8xf32>
    %75 = stablehlo.subtract %74, %69 : tensor<8xf32>
    %cst_21 = stablehlo.constant dense<-0.304682672> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %77 = stablehlo.add %75, %76 : tensor<8xf32>
    %78 = stablehlo.multiply %6, %77 : tensor<8xf32>
    %79 = stablehlo.subtract %78, %73 : tensor<8xf32>
    %cst_22 = stablehlo.constant dense<0.676795303> : tensor<f32>
    %80 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %81 = stablehlo.add %79, %80 : tensor<8xf32>
    %82 = stablehlo.subtract %81, %73 : tensor<8xf32>
    %cst_23 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %83 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %84 = stablehlo.multiply %83, %82 : tensor<8xf32>
    %85 = stablehlo.divide %4, %1 : tensor<8xf32>
    %86 = stablehlo.subtract %85, %3 : tensor<8xf32>
    %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %87 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %88 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_26 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %89 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %90 = stablehlo.multiply %86, %87 : tensor<8xf32>
    %91 = stablehlo.subtract %90, %88 : tensor<8xf32>
    %cst_27 = stablehlo.constant dense<3.39623196E-9> : tensor<f32>
    %92 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %93 = stablehlo.add %91, %92 : tensor<8xf32>
    %94 = stablehlo.multiply %86, %93 : tensor<8xf32>
    %95 = stablehlo.subtract %94, %87 : tensor<8xf32>
    %cst_28 = stablehlo.constant dense<2.26666899E-8> : tensor<f32>
    %96 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %97 = stablehlo.add %95, %96 : tensor<8xf32>
    %98 = stablehlo.multiply %86, %97 : tensor<8xf32>
    %99 = stablehlo.subtract %98, %93 : tensor<8xf32>
    %cst_29 = stablehlo.constant dense<2.04891862E-7> : tensor<f32>
    %100 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %101 = stablehlo.add %99, %100 : tensor<8xf32>
    %102 = stablehlo.multiply %86, %101 : tensor<8xf32>
    %103 = stablehlo.subtract %102, %97 : tensor<8xf32>
    %cst_30 = stablehlo.constant dense<2.89137051E-6> : tensor<f32>
    %104 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %105 = stablehlo.add %103, %104 : tensor<8xf32>
    %106 = stablehlo.multiply %86, %105 : tensor<8xf32>
    %107 = stablehlo.subtract %106, %101 : tensor<8xf32>
    %cst_31 = stablehlo.constant dense<6.88975852E-5> : tensor<f32>
    %108 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %109 = stablehlo.add %107, %108 : tensor<8xf32>
    %110 = stablehlo.multiply %86, %109 : tensor<8xf32>
    %111 = stablehlo.subtract %110, %105 : tensor<8xf32>
    %cst_32 = stablehlo.constant dense<0.00336911646> : tensor<f32>
    %112 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %113 = stablehlo.add %111, %112 : tensor<8xf32>
    %114 = stablehlo.multiply %86, %113 : tensor<8xf32>
    %115 = stablehlo.subtract %114, %109 : tensor<8xf32>
    %cst_33 = stablehlo.constant dense<0.804490387> : tensor<f32>
    %116 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %117 = stablehlo.add %115, %116 : tensor<8xf32>
    %118 = stablehlo.subtract %117, %109 : tensor<8xf32>
    %cst_34 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %119 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %120 = stablehlo.multiply %119, %118 : tensor<8xf32>
    %121 = stablehlo.sqrt %1 : tensor<8xf32>
    %122 = stablehlo.divide %120, %121 : tensor<8xf32>
    %cst_35 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %123 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %124 = stablehlo.compare LE, %1, %123, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %125 = stablehlo.select %124, %84, %122 : tensor<8xi1>, tensor<8xf32>
    %cst_36 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %126 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %127 = chlo.polygamma %126, %arg0 : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
    %cst_37 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %128 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %129 = stablehlo.add %arg0, %128 : tensor<8xf32>
    %cst_38 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %130 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %131 = stablehlo.add %arg0, %130 : tensor<8xf32>
    %132 = chlo.zeta %129, %131 : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
    %133 = stablehlo.compare NE, %arg0, %arg0, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %134 = stablehlo.compare NE, %arg0, %arg0, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %135 = stablehlo.or %133, %134 : tensor<8xi1>
    %cst_39 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %136 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %137 = stablehlo.compare EQ, %arg0, %136, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %cst_40 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %138 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %139 = stablehlo.compare EQ, %arg0, %138, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %cst_41 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %140 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %141 = stablehlo.compare EQ, %arg0, %140, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %cst_42 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %142 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %143 = stablehlo.compare LT, %arg0, %142, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %cst_43 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %144 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %145 = stablehlo.compare LT, %arg0, %144, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %146 = stablehlo.and %139, %141 : tensor<8xi1>
    %147 = stablehlo.or %143, %145 : tensor<8xi1>
    %148 = stablehlo.or %147, %146 : tensor<8xi1>
    %149 = stablehlo.or %148, %135 : tensor<8xi1>
    %cst_44 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %150 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %151 = stablehlo.compare GE, %arg0, %150, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %152 = stablehlo.compare GT, %arg0, %arg0, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %153 = stablehlo.and %151, %152 : tensor<8xi1>
    %154 = stablehlo.log %arg0 : tensor<8xf32>
    %155 = stablehlo.multiply %arg0, %154 : tensor<8xf32>
    %156 = stablehlo.subtract %155, %arg0 : tensor<8xf32>
    %157 = chlo.lgamma %arg0 : tensor<8xf32> -> tensor<8xf32>
    %158 = stablehlo.subtract %156, %157 : tensor<8xf32>
    %cst_45 = stablehlo.constant dense<3.40282347E+38> : tensor<f32>
    %159 = stablehlo.log %cst_45 : tensor<f32>
    %160 = stablehlo.negate %159 : tensor<f32>
    %161 = stablehlo.broadcast_in_dim %160, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %162 = stablehlo.compare LT, %158, %161, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %163 = stablehlo.exponential %158 : tensor<8xf32>
    %164 = stablehlo.or %141, %149 : tensor<8xi1>
    %165 = stablehlo.or %164, %162 : tensor<8xi1>
    %166 = stablehlo.or %165, %137 : tensor<8xi1>
    %167 = stablehlo.not %166 : tensor<8xi1>
    %168 = stablehlo.and %167, %153 : tensor<8xi1>
    %cst_46 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %169 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %170 = stablehlo.subtract %169, %arg0 : tensor<8xf32>
    %171 = stablehlo.add %arg0, %170 : tensor<8xf32>
    %cst_47 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %172 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %173 = stablehlo.add %171, %172 : tensor<8xf32>
    %cst_48 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %174 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_49 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %175 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %176 = stablehlo.add %arg0, %175 : tensor<8xf32>
    %177 = stablehlo.multiply %173, %arg0 : tensor<8xf32>
    %178 = stablehlo.divide %176, %177 : tensor<8xf32>
    %cst_50 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %179 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_51 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %180 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_52 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %181 = stablehlo.broadcast_in_dim %cst_52, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_53 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %182 = stablehlo.broadcast_in_dim %cst_53, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %183 = stablehlo.negate %arg0 : tensor<8xf32>
    %184 = stablehlo.multiply %178, %183 : tensor<8xf32>
    %185 = stablehlo.subtract %182, %184 : tensor<8xf32>
    %186 = stablehlo.divide %185, %177 : tensor<8xf32>
    %cst_54 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %187:15 = stablehlo.while(%iterArg = %168, %iterArg_86 = %178, %iterArg_87 = %179, %iterArg_88 = %170, %iterArg_89 = %173, %iterArg_90 = %cst_54, %iterArg_91 = %176, %iterArg_92 = %177, %iterArg_93 = %174, %iterArg_94 = %arg0, %iterArg_95 = %180, %iterArg_96 = %181, %iterArg_97 = %182, %iterArg_98 = %183, %iterArg_99 = %186) : tensor<8xi1>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
    cond {
      %cst_100 = stablehlo.constant dense<2.000000e+03> : tensor<f32>
      %280 = stablehlo.compare LT, %iterArg_90, %cst_100, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %c = stablehlo.constant dense<false> : tensor<i1>
      %281 = stablehlo.reduce(%iterArg init: %c) applies stablehlo.or across dimensions = [0] : (tensor<8xi1>, tensor<i1>) -> tensor<i1>
      %282 = stablehlo.and %280, %281 : tensor<i1>
      stablehlo.return %282 : tensor<i1>
    } do {
      %cst_100 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %280 = stablehlo.add %iterArg_90, %cst_100 : tensor<f32>
      %cst_101 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %281 = stablehlo.broadcast_in_dim %cst_101, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %282 = stablehlo.add %iterArg_88, %281 : tensor<8xf32>
      %cst_102 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %283 = stablehlo.broadcast_in_dim %cst_102, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %284 = stablehlo.add %iterArg_89, %283 : tensor<8xf32>
      %285 = stablehlo.broadcast_in_dim %280, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %286 = stablehlo.multiply %282, %285 : tensor<8xf32>
      %287 = stablehlo.multiply %iterArg_91, %284 : tensor<8xf32>
      %288 = stablehlo.multiply %iterArg_93, %286 : tensor<8xf32>
      %289 = stablehlo.subtract %287, %288 : tensor<8xf32>
      %290 = stablehlo.multiply %iterArg_92, %284 : tensor<8xf32>
      %291 = stablehlo.multiply %iterArg_94, %286 : tensor<8xf32>
      %292 = stablehlo.subtract %290, %291 : tensor<8xf32>
      %cst_103 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %293 = stablehlo.broadcast_in_dim %cst_103, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %294 = stablehlo.compare NE, %292, %293, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
      %295 = stablehlo.divide %289, %292 : tensor<8xf32>
      %296 = stablehlo.subtract %iterArg_86, %295 : tensor<8xf32>
      %297 = stablehlo.divide %296, %295 : tensor<8xf32>
      %298 = stablehlo.abs %297 : tensor<8xf32>
      %cst_104 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %299 = stablehlo.broadcast_in_dim %cst_104, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %300 = stablehlo.select %294, %298, %299 : tensor<8xi1>, tensor<8xf32>
      %301 = stablehlo.select %294, %295, %iterArg_86 : tensor<8xi1>, tensor<8xf32>
      %302 = stablehlo.multiply %iterArg_97, %284 : tensor<8xf32>
      %303 = stablehlo.subtract %302, %iterArg_91 : tensor<8xf32>
      %304 = stablehlo.multiply %iterArg_95, %286 : tensor<8xf32>
      %305 = stablehlo.subtract %303, %304 : tensor<8xf32>
      %306 = stablehlo.broadcast_in_dim %280, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %307 = stablehlo.multiply %iterArg_93, %306 : tensor<8xf32>
      %308 = stablehlo.add %305, %307 : tensor<8xf32>
      %309 = stablehlo.multiply %iterArg_98, %284 : tensor<8xf32>
      %310 = stablehlo.subtract %309, %iterArg_92 : tensor<8xf32>
      %311 = stablehlo.multiply %iterArg_96, %286 : tensor<8xf32>
      %312 = stablehlo.subtract %310, %311 : tensor<8xf32>
      %313 = stablehlo.broadcast_in_dim %280, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %314 = stablehlo.multiply %iterArg_94, %313 : tensor<8xf32>
      %315 = stablehlo.add %312, %314 : tensor<8xf32>
      %316 = stablehlo.multiply %301, %315 : tensor<8xf32>
      %317 = stablehlo.subtract %308, %316 : tensor<8xf32>
      %318 = stablehlo.divide %317, %292 : tensor<8xf32>
      %319 = stablehlo.select %294, %318, %iterArg_99 : tensor<8xi1>, tensor<8xf32>
      %320 = stablehlo.subtract %319, %iterArg_99 : tensor<8xf32>
      %321 = stablehlo.abs %320 : tensor<8xf32>
      %cst_105 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %322 = stablehlo.broadcast_in_dim %cst_105, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %323 = stablehlo.select %294, %321, %322 : tensor<8xi1>, tensor<8xf32>
      %324 = stablehlo.abs %289 : tensor<8xf32>
      %cst_106 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %cst_107 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %325 = stablehlo.broadcast_in_dim %cst_107, dims = [] : (tensor<f32>) -> tensor<f32>
      %326 = stablehlo.divide %325, %cst_106 : tensor<f32>
      %327 = stablehlo.broadcast_in_dim %326, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %328 = stablehlo.compare GT, %324, %327, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
      %cst_108 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %329 = stablehlo.broadcast_in_dim %cst_108, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %330 = stablehlo.multiply %iterArg_91, %329 : tensor<8xf32>
      %331 = stablehlo.select %328, %330, %iterArg_91 : tensor<8xi1>, tensor<8xf32>
      %cst_109 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %332 = stablehlo.broadcast_in_dim %cst_109, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %333 = stablehlo.multiply %289, %332 : tensor<8xf32>
      %334 = stablehlo.select %328, %333, %289 : tensor<8xi1>, tensor<8xf32>
      %cst_110 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %335 = stablehlo.broadcast_in_dim %cst_110, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %336 = stablehlo.multiply %iterArg_92, %335 : tensor<8xf32>
      %337 = stablehlo.select %328, %336, %iterArg_92 : tensor<8xi1>, tensor<8xf32>
      %cst_111 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %338 = stablehlo.broadcast_in_dim %cst_111, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %339 = stablehlo.multiply %292, %338 : tensor<8xf32>
      %340 = stablehlo.select %328, %339, %292 : tensor<8xi1>, tensor<8xf32>
      %cst_112 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %341 = stablehlo.broadcast_in_dim %cst_112, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %342 = stablehlo.multiply %iterArg_97, %341 : tensor<8xf32>
      %343 = stablehlo.select %328, %342, %iterArg_97 : tensor<8xi1>, tensor<8xf32>
      %cst_113 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %344 = stablehlo.broadcast_in_dim %cst_113, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %345 = stablehlo.multiply %iterArg_98, %344 : tensor<8xf32>
      %346 = stablehlo.select %328, %345, %iterArg_98 : tensor<8xi1>, tensor<8xf32>
      %cst_114 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %347 = stablehlo.broadcast_in_dim %cst_114, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %348 = stablehlo.multiply %308, %347 : tensor<8xf32>
      %349 = stablehlo.select %328, %348, %308 : tensor<8xi1>, tensor<8xf32>
      %cst_115 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %350 = stablehlo.broadcast_in_dim %cst_115, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %351 = stablehlo.multiply %315, %350 : tensor<8xf32>
      %352 = stablehlo.select %328, %351, %315 : tensor<8xi1>, tensor<8xf32>
      %cst_116 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %353 = stablehlo.broadcast_in_dim %cst_116, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %354 = stablehlo.compare GT, %300, %353, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
      %355 = stablehlo.and %iterArg, %354 : tensor<8xi1>
      %356 = stablehlo.select %iterArg, %301, %iterArg_86 : tensor<8xi1>, tensor<8xf32>
      %357 = stablehlo.select %iterArg, %300, %iterArg_87 : tensor<8xi1>, tensor<8xf32>
      %358 = stablehlo.select %iterArg, %282, %iterArg_88 : tensor<8xi1>, tensor<8xf32>
      %359 = stablehlo.select %iterArg, %284, %iterArg_89 : tensor<8xi1>, tensor<8xf32>
      %360 = stablehlo.select %iterArg, %334, %iterArg_91 : tensor<8xi1>, tensor<8xf32>
      %361 = stablehlo.select %iterArg, %340, %iterArg_92 : tensor<8xi1>, tensor<8xf32>
      %362 = stablehlo.select %iterArg, %331, %iterArg_93 : tensor<8xi1>, tensor<8xf32>
      %363 = stablehlo.select %iterArg, %337, %iterArg_94 : tensor<8xi1>, tensor<8xf32>
      %364 = stablehlo.select %iterArg, %343, %iterArg_95 : tensor<8xi1>, tensor<8xf32>
      %365 = stablehlo.select %iterArg, %346, %iterArg_96 : tensor<8xi1>, tensor<8xf32>
      %366 = stablehlo.select %iterArg, %349, %iterArg_97 : tensor<8xi1>, tensor<8xf32>
      %367 = stablehlo.select %iterArg, %352, %iterArg_98 : tensor<8xi1>, tensor<8xf32>
      %368 = stablehlo.select %iterArg, %319, %iterArg_99 : tensor<8xi1>, tensor<8xf32>
      stablehlo.return %355, %356, %357, %358, %359, %280, %360, %361, %362, %363, %364, %365, %366, %367, %368 : tensor<8xi1>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
    }
    %188 = stablehlo.multiply %187#1, %163 : tensor<8xf32>
    %cst_55 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %189 = stablehlo.broadcast_in_dim %cst_55, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %190 = stablehlo.subtract %189, %188 : tensor<8xf32>
    %191 = stablehlo.not %153 : tensor<8xi1>
    %192 = stablehlo.and %167, %191 : tensor<8xi1>
    %cst_56 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %193 = stablehlo.broadcast_in_dim %cst_56, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_57 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %194 = stablehlo.broadcast_in_dim %cst_57, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_58 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %195 = stablehlo.broadcast_in_dim %cst_58, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_59 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %196 = stablehlo.broadcast_in_dim %cst_59, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %197:7 = stablehlo.while(%iterArg = %192, %iterArg_86 = %arg0, %iterArg_87 = %193, %iterArg_88 = %194, %iterArg_89 = %arg0, %iterArg_90 = %195, %iterArg_91 = %196) : tensor<8xi1>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
    cond {
      %c = stablehlo.constant dense<false> : tensor<i1>
      %280 = stablehlo.reduce(%iterArg init: %c) applies stablehlo.or across dimensions = [0] : (tensor<8xi1>, tensor<i1>) -> tensor<i1>
      stablehlo.return %280 : tensor<i1>
    } do {
      %cst_92 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %280 = stablehlo.broadcast_in_dim %cst_92, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %281 = stablehlo.add %iterArg_86, %280 : tensor<8xf32>
      %282 = stablehlo.divide %iterArg_89, %281 : tensor<8xf32>
      %283 = stablehlo.multiply %iterArg_90, %282 : tensor<8xf32>
      %284 = stablehlo.multiply %iterArg_87, %iterArg_89 : tensor<8xf32>
      %285 = stablehlo.multiply %281, %281 : tensor<8xf32>
      %286 = stablehlo.divide %284, %285 : tensor<8xf32>
      %287 = stablehlo.subtract %283, %286 : tensor<8xf32>
      %288 = stablehlo.add %iterArg_91, %287 : tensor<8xf32>
      %289 = stablehlo.divide %iterArg_89, %281 : tensor<8xf32>
      %290 = stablehlo.multiply %iterArg_87, %289 : tensor<8xf32>
      %291 = stablehlo.add %iterArg_88, %290 : tensor<8xf32>
      %292 = stablehlo.divide %290, %291 : tensor<8xf32>
      %cst_93 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %293 = stablehlo.broadcast_in_dim %cst_93, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %294 = stablehlo.compare GT, %292, %293, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
      %295 = stablehlo.and %iterArg, %294 : tensor<8xi1>
      %296 = stablehlo.select %iterArg, %281, %iterArg_86 : tensor<8xi1>, tensor<8xf32>
      %297 = stablehlo.select %iterArg, %290, %iterArg_87 : tensor<8xi1>, tensor<8xf32>
      %298 = stablehlo.select %iterArg, %291, %iterArg_88 : tensor<8xi1>, tensor<8xf32>
      %299 = stablehlo.select %iterArg, %iterArg_89, %iterArg_89 : tensor<8xi1>, tensor<8xf32>
      %300 = stablehlo.select %iterArg, %287, %iterArg_90 : tensor<8xi1>, tensor<8xf32>
      %301 = stablehlo.select %iterArg, %288, %iterArg_91 : tensor<8xi1>, tensor<8xf32>
      stablehlo.return %295, %296, %297, %298, %299, %300, %301 : tensor<8xi1>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
    }
    %198 = stablehlo.multiply %197#3, %163 : tensor<8xf32>
    %199 = stablehlo.divide %198, %arg0 : tensor<8xf32>
    %200 = stablehlo.select %153, %190, %199 : tensor<8xi1>, tensor<8xf32>
    %cst_60 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %201 = stablehlo.broadcast_in_dim %cst_60, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %202 = stablehlo.select %141, %201, %200 : tensor<8xi1>, tensor<8xf32>
    %cst_61 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %203 = stablehlo.broadcast_in_dim %cst_61, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %204 = stablehlo.select %137, %203, %202 : tensor<8xi1>, tensor<8xf32>
    %cst_62 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %205 = stablehlo.broadcast_in_dim %cst_62, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %206 = stablehlo.select %149, %205, %204 : tensor<8xi1>, tensor<8xf32>
    %207 = stablehlo.compare NE, %arg0, %arg0, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %208 = stablehlo.compare NE, %arg0, %arg0, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %209 = stablehlo.or %207, %208 : tensor<8xi1>
    %cst_63 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %210 = stablehlo.broadcast_in_dim %cst_63, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %211 = stablehlo.compare EQ, %arg0, %210, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %cst_64 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %212 = stablehlo.broadcast_in_dim %cst_64, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %213 = stablehlo.compare EQ, %arg0, %212, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %cst_65 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %214 = stablehlo.broadcast_in_dim %cst_65, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %215 = stablehlo.compare EQ, %arg0, %214, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %cst_66 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %216 = stablehlo.broadcast_in_dim %cst_66, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %217 = stablehlo.compare LT, %arg0, %216, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %cst_67 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %218 = stablehlo.broadcast_in_dim %cst_67, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %219 = stablehlo.compare LT, %arg0, %218, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %220 = stablehlo.and %211, %213 : tensor<8xi1>
    %221 = stablehlo.or %217, %219 : tensor<8xi1>
    %222 = stablehlo.or %221, %220 : tensor<8xi1>
    %223 = stablehlo.or %222, %209 : tensor<8xi1>
    %cst_68 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %224 = stablehlo.broadcast_in_dim %cst_68, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %225 = stablehlo.compare LT, %arg0, %224, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %226 = stablehlo.compare LT, %arg0, %arg0, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %227 = stablehlo.or %225, %226 : tensor<8xi1>
    %228 = stablehlo.log %arg0 : tensor<8xf32>
    %229 = stablehlo.multiply %arg0, %228 : tensor<8xf32>
    %230 = stablehlo.subtract %229, %arg0 : tensor<8xf32>
    %231 = chlo.lgamma %arg0 : tensor<8xf32> -> tensor<8xf32>
    %232 = stablehlo.subtract %230, %231 : tensor<8xf32>
    %cst_69 = stablehlo.constant dense<3.40282347E+38> : tensor<f32>
    %233 = stablehlo.log %cst_69 : tensor<f32>
    %234 = stablehlo.negate %233 : tensor<f32>
    %235 = stablehlo.broadcast_in_dim %234, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %236 = stablehlo.compare LT, %232, %235, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %237 = stablehlo.or %223, %236 : tensor<8xi1>
    %238 = stablehlo.or %237, %215 : tensor<8xi1>
    %239 = stablehlo.or %238, %211 : tensor<8xi1>
    %240 = stablehlo.not %239 : tensor<8xi1>
    %241 = stablehlo.exponential %232 : tensor<8xf32>
    %242 = stablehlo.and %240, %227 : tensor<8xi1>
    %cst_70 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %243 = stablehlo.broadcast_in_dim %cst_70, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_71 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %244 = stablehlo.broadcast_in_dim %cst_71, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_72 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %245 = stablehlo.broadcast_in_dim %cst_72, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_73 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %246 = stablehlo.broadcast_in_dim %cst_73, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %247:7 = stablehlo.while(%iterArg = %242, %iterArg_86 = %arg0, %iterArg_87 = %243, %iterArg_88 = %244, %iterArg_89 = %arg0, %iterArg_90 = %245, %iterArg_91 = %246) : tensor<8xi1>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
    cond {
      %c = stablehlo.constant dense<false> : tensor<i1>
      %280 = stablehlo.reduce(%iterArg init: %c) applies stablehlo.or across dimensions = [0] : (tensor<8xi1>, tensor<i1>) -> tensor<i1>
      stablehlo.return %280 : tensor<i1>
    } do {
      %cst_92 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %280 = stablehlo.broadcast_in_dim %cst_92, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %281 = stablehlo.add %iterArg_86, %280 : tensor<8xf32>
      %282 = stablehlo.divide %iterArg_89, %281 : tensor<8xf32>
      %283 = stablehlo.multiply %iterArg_90, %282 : tensor<8xf32>
      %284 = stablehlo.multiply %iterArg_87, %iterArg_89 : tensor<8xf32>
      %285 = stablehlo.multiply %281, %281 : tensor<8xf32>
      %286 = stablehlo.divide %284, %285 : tensor<8xf32>
      %287 = stablehlo.subtract %283, %286 : tensor<8xf32>
      %288 = stablehlo.add %iterArg_91, %287 : tensor<8xf32>
      %289 = stablehlo.divide %iterArg_89, %281 : tensor<8xf32>
      %290 = stablehlo.multiply %iterArg_87, %289 : tensor<8xf32>
      %291 = stablehlo.add %iterArg_88, %290 : tensor<8xf32>
      %292 = stablehlo.divide %290, %291 : tensor<8xf32>
      %cst_93 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %293 = stablehlo.broadcast_in_dim %cst_93, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %294 = stablehlo.compare GT, %292, %293, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
      %295 = stablehlo.and %iterArg, %294 : tensor<8xi1>
      %296 = stablehlo.select %iterArg, %281, %iterArg_86 : tensor<8xi1>, tensor<8xf32>
      %297 = stablehlo.select %iterArg, %290, %iterArg_87 : tensor<8xi1>, tensor<8xf32>
      %298 = stablehlo.select %iterArg, %291, %iterArg_88 : tensor<8xi1>, tensor<8xf32>
      %299 = stablehlo.select %iterArg, %iterArg_89, %iterArg_89 : tensor<8xi1>, tensor<8xf32>
      %300 = stablehlo.select %iterArg, %287, %iterArg_90 : tensor<8xi1>, tensor<8xf32>
      %301 = stablehlo.select %iterArg, %288, %iterArg_91 : tensor<8xi1>, tensor<8xf32>
      stablehlo.return %295, %296, %297, %298, %299, %300, %301 : tensor<8xi1>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
    }
    %248 = stablehlo.multiply %247#3, %241 : tensor<8xf32>
    %249 = stablehlo.divide %248, %arg0 : tensor<8xf32>
    %250 = stablehlo.not %227 : tensor<8xi1>
    %251 = stablehlo.and %240, %250 : tensor<8xi1>
    %cst_74 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %252 = stablehlo.broadcast_in_dim %cst_74, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %253 = stablehlo.subtract %252, %arg0 : tensor<8xf32>
    %254 = stablehlo.add %arg0, %253 : tensor<8xf32>
    %cst_75 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %255 = stablehlo.broadcast_in_dim %cst_75, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %256 = stablehlo.add %254, %255 : tensor<8xf32>
    %cst_76 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %257 = stablehlo.broadcast_in_dim %cst_76, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_77 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %258 = stablehlo.broadcast_in_dim %cst_77, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %259 = stablehlo.add %arg0, %258 : tensor<8xf32>
    %260 = stablehlo.multiply %256, %arg0 : tensor<8xf32>
    %261 = stablehlo.divide %259, %260 : tensor<8xf32>
    %cst_78 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %262 = stablehlo.broadcast_in_dim %cst_78, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_79 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %263 = stablehlo.broadcast_in_dim %cst_79, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_80 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %264 = stablehlo.broadcast_in_dim %cst_80, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_81 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %265 = stablehlo.broadcast_in_dim %cst_81, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %266 = stablehlo.negate %arg0 : tensor<8xf32>
    %267 = stablehlo.multiply %261, %266 : tensor<8xf32>
    %268 = stablehlo.subtract %265, %267 : tensor<8xf32>
    %269 = stablehlo.divide %268, %260 : tensor<8xf32>
    %cst_82 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %270:15 = stablehlo.while(%iterArg = %251, %iterArg_86 = %261, %iterArg_87 = %262, %iterArg_88 = %253, %iterArg_89 = %256, %iterArg_90 = %cst_82, %iterArg_91 = %259, %iterArg_92 = %260, %iterArg_93 = %257, %iterArg_94 = %arg0, %iterArg_95 = %263, %iterArg_96 = %264, %iterArg_97 = %265, %iterArg_98 = %266, %iterArg_99 = %269) : tensor<8xi1>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
    cond {
      %cst_100 = stablehlo.constant dense<2.000000e+03> : tensor<f32>
      %280 = stablehlo.compare LT, %iterArg_90, %cst_100, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %c = stablehlo.constant dense<false> : tensor<i1>
      %281 = stablehlo.reduce(%iterArg init: %c) applies stablehlo.or across dimensions = [0] : (tensor<8xi1>, tensor<i1>) -> tensor<i1>
      %282 = stablehlo.and %280, %281 : tensor<i1>
      stablehlo.return %282 : tensor<i1>
    } do {
      %cst_100 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %280 = stablehlo.add %iterArg_90, %cst_100 : tensor<f32>
      %cst_101 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %281 = stablehlo.broadcast_in_dim %cst_101, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %282 = stablehlo.add %iterArg_88, %281 : tensor<8xf32>
      %cst_102 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %283 = stablehlo.broadcast_in_dim %cst_102, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %284 = stablehlo.add %iterArg_89, %283 : tensor<8xf32>
      %285 = stablehlo.broadcast_in_dim %280, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %286 = stablehlo.multiply %282, %285 : tensor<8xf32>
      %287 = stablehlo.multiply %iterArg_91, %284 : tensor<8xf32>
      %288 = stablehlo.multiply %iterArg_93, %286 : tensor<8xf32>
      %289 = stablehlo.subtract %287, %288 : tensor<8xf32>
      %290 = stablehlo.multiply %iterArg_92, %284 : tensor<8xf32>
      %291 = stablehlo.multiply %iterArg_94, %286 : tensor<8xf32>
      %292 = stablehlo.subtract %290, %291 : tensor<8xf32>
      %cst_103 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %293 = stablehlo.broadcast_in_dim %cst_103, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %294 = stablehlo.compare NE, %292, %293, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
      %295 = stablehlo.divide %289, %292 : tensor<8xf32>
      %296 = stablehlo.subtract %iterArg_86, %295 : tensor<8xf32>
      %297 = stablehlo.divide %296, %295 : tensor<8xf32>
      %298 = stablehlo.abs %297 : tensor<8xf32>
      %cst_104 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %299 = stablehlo.broadcast_in_dim %cst_104, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %300 = stablehlo.select %294, %298, %299 : tensor<8xi1>, tensor<8xf32>
      %301 = stablehlo.select %294, %295, %iterArg_86 : tensor<8xi1>, tensor<8xf32>
      %302 = stablehlo.multiply %iterArg_97, %284 : tensor<8xf32>
      %303 = stablehlo.subtract %302, %iterArg_91 : tensor<8xf32>
      %304 = stablehlo.multiply %iterArg_95, %286 : tensor<8xf32>
      %305 = stablehlo.subtract %303, %304 : tensor<8xf32>
      %306 = stablehlo.broadcast_in_dim %280, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %307 = stablehlo.multiply %iterArg_93, %306 : tensor<8xf32>
      %308 = stablehlo.add %305, %307 : tensor<8xf32>
      %309 = stablehlo.multiply %iterArg_98, %284 : tensor<8xf32>
      %310 = stablehlo.subtract %309, %iterArg_92 : tensor<8xf32>
      %311 = stablehlo.multiply %iterArg_96, %286 : tensor<8xf32>
      %312 = stablehlo.subtract %310, %311 : tensor<8xf32>
      %313 = stablehlo.broadcast_in_dim %280, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %314 = stablehlo.multiply %iterArg_94, %313 : tensor<8xf32>
      %315 = stablehlo.add %312, %314 : tensor<8xf32>
      %316 = stablehlo.multiply %301, %315 : tensor<8xf32>
      %317 = stablehlo.subtract %308, %316 : tensor<8xf32>
      %318 = stablehlo.divide %317, %292 : tensor<8xf32>
      %319 = stablehlo.select %294, %318, %iterArg_99 : tensor<8xi1>, tensor<8xf32>
      %320 = stablehlo.subtract %319, %iterArg_99 : tensor<8xf32>
      %321 = stablehlo.abs %320 : tensor<8xf32>
      %cst_105 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %322 = stablehlo.broadcast_in_dim %cst_105, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %323 = stablehlo.select %294, %321, %322 : tensor<8xi1>, tensor<8xf32>
      %324 = stablehlo.abs %289 : tensor<8xf32>
      %cst_106 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %cst_107 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %325 = stablehlo.broadcast_in_dim %cst_107, dims = [] : (tensor<f32>) -> tensor<f32>
      %326 = stablehlo.divide %325, %cst_106 : tensor<f32>
      %327 = stablehlo.broadcast_in_dim %326, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %328 = stablehlo.compare GT, %324, %327, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
      %cst_108 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %329 = stablehlo.broadcast_in_dim %cst_108, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %330 = stablehlo.multiply %iterArg_91, %329 : tensor<8xf32>
      %331 = stablehlo.select %328, %330, %iterArg_91 : tensor<8xi1>, tensor<8xf32>
      %cst_109 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %332 = stablehlo.broadcast_in_dim %cst_109, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %333 = stablehlo.multiply %289, %332 : tensor<8xf32>
      %334 = stablehlo.select %328, %333, %289 : tensor<8xi1>, tensor<8xf32>
      %cst_110 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %335 = stablehlo.broadcast_in_dim %cst_110, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %336 = stablehlo.multiply %iterArg_92, %335 : tensor<8xf32>
      %337 = stablehlo.select %328, %336, %iterArg_92 : tensor<8xi1>, tensor<8xf32>
      %cst_111 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %338 = stablehlo.broadcast_in_dim %cst_111, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %339 = stablehlo.multiply %292, %338 : tensor<8xf32>
      %340 = stablehlo.select %328, %339, %292 : tensor<8xi1>, tensor<8xf32>
      %cst_112 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %341 = stablehlo.broadcast_in_dim %cst_112, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %342 = stablehlo.multiply %iterArg_97, %341 : tensor<8xf32>
      %343 = stablehlo.select %328, %342, %iterArg_97 : tensor<8xi1>, tensor<8xf32>
      %cst_113 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %344 = stablehlo.broadcast_in_dim %cst_113, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %345 = stablehlo.multiply %iterArg_98, %344 : tensor<8xf32>
      %346 = stablehlo.select %328, %345, %iterArg_98 : tensor<8xi1>, tensor<8xf32>
      %cst_114 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %347 = stablehlo.broadcast_in_dim %cst_114, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %348 = stablehlo.multiply %308, %347 : tensor<8xf32>
      %349 = stablehlo.select %328, %348, %308 : tensor<8xi1>, tensor<8xf32>
      %cst_115 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %350 = stablehlo.broadcast_in_dim %cst_115, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %351 = stablehlo.multiply %315, %350 : tensor<8xf32>
      %352 = stablehlo.select %328, %351, %315 : tensor<8xi1>, tensor<8xf32>
      %cst_116 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %353 = stablehlo.broadcast_in_dim %cst_116, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %354 = stablehlo.compare GT, %300, %353, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
      %355 = stablehlo.and %iterArg, %354 : tensor<8xi1>
      %356 = stablehlo.select %iterArg, %301, %iterArg_86 : tensor<8xi1>, tensor<8xf32>
      %357 = stablehlo.select %iterArg, %300, %iterArg_87 : tensor<8xi1>, tensor<8xf32>
      %358 = stablehlo.select %iterArg, %282, %iterArg_88 : tensor<8xi1>, tensor<8xf32>
      %359 = stablehlo.select %iterArg, %284, %iterArg_89 : tensor<8xi1>, tensor<8xf32>
      %360 = stablehlo.select %iterArg, %334, %iterArg_91 : tensor<8xi1>, tensor<8xf32>
      %361 = stablehlo.select %iterArg, %340, %iterArg_92 : tensor<8xi1>, tensor<8xf32>
      %362 = stablehlo.select %iterArg, %331, %iterArg_93 : tensor<8xi1>, tensor<8xf32>
      %363 = stablehlo.select %iterArg, %337, %iterArg_94 : tensor<8xi1>, tensor<8xf32>
      %364 = stablehlo.select %iterArg, %343, %iterArg_95 : tensor<8xi1>, tensor<8xf32>
      %365 = stablehlo.select %iterArg, %346, %iterArg_96 : tensor<8xi1>, tensor<8xf32>
      %366 = stablehlo.select %iterArg, %349, %iterArg_97 : tensor<8xi1>, tensor<8xf32>
      %367 = stablehlo.select %iterArg, %352, %iterArg_98 : tensor<8xi1>, tensor<8xf32>
      %368 = stablehlo.select %iterArg, %319, %iterArg_99 : tensor<8xi1>, tensor<8xf32>
      stablehlo.return %355, %356, %357, %358, %359, %280, %360, %361, %362, %363, %364, %365, %366, %367, %368 : tensor<8xi1>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
    }
    %271 = stablehlo.multiply %270#1, %241 : tensor<8xf32>
    %cst_83 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %272 = stablehlo.broadcast_in_dim %cst_83, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %273 = stablehlo.subtract %272, %249 : tensor<8xf32>
    %274 = stablehlo.select %227, %273, %271 : tensor<8xi1>, tensor<8xf32>
    %275 = stablehlo.or %215, %211 : tensor<8xi1>
    %cst_84 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %276 = stablehlo.broadcast_in_dim %cst_84, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %277 = stablehlo.select %275, %276, %274 : tensor<8xi1>, tensor<8xf32>
    %cst_85 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %278 = stablehlo.broadcast_in_dim %cst_85, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %279 = stablehlo.select %223, %278, %277 : tensor<8xi1>, tensor<8xf32>
    return %0, %125, %127, %132, %206, %279 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
  }
}
