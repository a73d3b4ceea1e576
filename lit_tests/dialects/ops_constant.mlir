// RUN: xdsl-opt --split-input-file %s | xdsl-opt --split-input-file | filecheck %s
// RUN: jax-donate-opt %s --print-op-generic | jax-donate-opt | filecheck %s
// RUN: jax-donate-opt %s --print-op-generic | jax-donate-opt --print-op-generic | filecheck %s --check-prefix=GENERIC
// Generic form goes through jax-donate-opt's printer (jax_use_donated/xdsl_plugin/parser_printer.py), which spells
// dense attributes from their bits as MLIR does: plain xDSL's generic printer re-encodes float
// payloads (f16 0xFFFF -> 0xFE00). GENERIC lines are jaxlib's generic printing.
// Round trip of stablehlo.constant (hex floats, NaN payloads, denormals, splats, hex blobs
// over 100 elements). Inputs and CHECK lines are
// jaxlib's own printing (tests/test_stablehlo_dialect.py re-checks them against jaxlib).

func.func @constants() {
  %26 = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %27 = stablehlo.constant dense<[1.0, 0x7FC00000, 0x7F800000, -0.0]> : tensor<4xf32>
  %28 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %29 = stablehlo.constant dense<(1.0, 2.0)> : tensor<complex<f32>>
  %30 = stablehlo.constant dense<1.0e-10> : tensor<3xbf16>
  %31 = stablehlo.constant dense<true> : tensor<2xi1>
  %32 = stablehlo.constant dense<"0x0102"> : tensor<2xi8>
  %33 = stablehlo.constant dense<> : tensor<0xf32>
  %34 = stablehlo.constant dense<0.1> : tensor<f64>
  %35 = stablehlo.constant dense<[65535, 0]> : tensor<2xui16>
  %36 = stablehlo.constant dense<0xFFFF> : tensor<f16>
  %37 = stablehlo.constant {mhlo.x = 1 : i32} dense<1> : tensor<i64>
  %38 = stablehlo.constant dense<3.40282347E+38> : tensor<f32>
  %39 = stablehlo.constant dense<1.17549435E-38> : tensor<f32>
  %40 = stablehlo.constant dense<1.401298e-45> : tensor<f32>
  %41 = stablehlo.constant dense<[0x7FC00001, 1.5]> : tensor<2xf32>
  %42 = stablehlo.constant dense<2.0> : tensor<f8E4M3FN>
  %43 = stablehlo.constant dense<-1> : tensor<i4>
  %44 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %big = stablehlo.constant dense<[0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5, 12.5, 13.5, 14.5, 15.5, 16.5, 17.5, 18.5, 19.5, 20.5, 21.5, 22.5, 23.5, 24.5, 25.5, 26.5, 27.5, 28.5, 29.5, 30.5, 31.5, 32.5, 33.5, 34.5, 35.5, 36.5, 37.5, 38.5, 39.5, 40.5, 41.5, 42.5, 43.5, 44.5, 45.5, 46.5, 47.5, 48.5, 49.5, 50.5, 51.5, 52.5, 53.5, 54.5, 55.5, 56.5, 57.5, 58.5, 59.5, 60.5, 61.5, 62.5, 63.5, 64.5, 65.5, 66.5, 67.5, 68.5, 69.5, 70.5, 71.5, 72.5, 73.5, 74.5, 75.5, 76.5, 77.5, 78.5, 79.5, 80.5, 81.5, 82.5, 83.5, 84.5, 85.5, 86.5, 87.5, 88.5, 89.5, 90.5, 91.5, 92.5, 93.5, 94.5, 95.5, 96.5, 97.5, 98.5, 99.5, 100.5]> : tensor<101xf32>
  %c8 = stablehlo.constant dense<[0x7C00, 0xFC00, 0x0001, 0x3555]> : tensor<4xf16>
  %c9 = stablehlo.constant dense<[(0x7FC00000, -0.0), (1.5, 2.0)]> : tensor<2xcomplex<f32>>
  %c10 = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
  %c11 = stablehlo.constant dense<123456789.0> : tensor<f32>
  return
}

// CHECK: %0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK: %1 = stablehlo.constant dense<[1.000000e+00, 0x7FC00000, 0x7F800000, -0.000000e+00]> : tensor<4xf32>
// CHECK: %2 = stablehlo.constant dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi32>
// CHECK: %3 = stablehlo.constant dense<(1.000000e+00,2.000000e+00)> : tensor<complex<f32>>
// CHECK: %4 = stablehlo.constant dense<1.000440e-10> : tensor<3xbf16>
// CHECK: %5 = stablehlo.constant dense<true> : tensor<2xi1>
// CHECK: %6 = stablehlo.constant dense<[1, 2]> : tensor<2xi8>
// CHECK: %7 = stablehlo.constant dense<> : tensor<0xf32>
// CHECK: %8 = stablehlo.constant dense<1.000000e-01> : tensor<f64>
// CHECK: %9 = stablehlo.constant dense<[65535, 0]> : tensor<2xui16>
// CHECK: %10 = stablehlo.constant dense<0xFFFF> : tensor<f16>
// CHECK: %11 = stablehlo.constant {mhlo.x = 1 : i32} dense<1> : tensor<i64>
// CHECK: %12 = stablehlo.constant dense<3.40282347E+38> : tensor<f32>
// CHECK: %13 = stablehlo.constant dense<1.17549435E-38> : tensor<f32>
// CHECK: %14 = stablehlo.constant dense<1.401300e-45> : tensor<f32>
// CHECK: %15 = stablehlo.constant dense<[0x7FC00001, 1.500000e+00]> : tensor<2xf32>
// CHECK: %16 = stablehlo.constant dense<2.000000e+00> : tensor<f8E4M3FN>
// CHECK: %17 = stablehlo.constant dense<-1> : tensor<i4>
// CHECK: %18 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
// CHECK: %big = stablehlo.constant dense<"0x0000003F0000C03F0000204000006040000090400000B0400000D0400000F04000000841000018410000284100003841000048410000584100006841000078410000844100008C410000944100009C410000A4410000AC410000B4410000BC410000C4410000CC410000D4410000DC410000E4410000EC410000F4410000FC41000002420000064200000A4200000E42000012420000164200001A4200001E42000022420000264200002A4200002E42000032420000364200003A4200003E42000042420000464200004A4200004E42000052420000564200005A4200005E42000062420000664200006A4200006E42000072420000764200007A4200007E42000081420000834200008542000087420000894200008B4200008D4200008F42000091420000934200009542000097420000994200009B4200009D4200009F420000A1420000A3420000A5420000A7420000A9420000AB420000AD420000AF420000B1420000B3420000B5420000B7420000B9420000BB420000BD420000BF420000C1420000C3420000C5420000C7420000C942"> : tensor<101xf32>
// CHECK: %c8 = stablehlo.constant dense<[0x7C00, 0xFC00, 5.960460e-08, 3.332520e-01]> : tensor<4xf16>
// CHECK: %c9 = stablehlo.constant dense<[(0x7FC00000,-0.000000e+00), (1.500000e+00,2.000000e+00)]> : tensor<2xcomplex<f32>>
// CHECK: %c10 = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
// CHECK: %c11 = stablehlo.constant dense<0x4CEB79A3> : tensor<f32>

// GENERIC: "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
// GENERIC: "stablehlo.constant"() <{value = dense<[1.000000e+00, 0x7FC00000, 0x7F800000, -0.000000e+00]> : tensor<4xf32>}>
// GENERIC: "stablehlo.constant"() <{value = dense<(1.000000e+00,2.000000e+00)> : tensor<complex<f32>>}>
// GENERIC: "stablehlo.constant"() <{value = dense<1.000440e-10> : tensor<3xbf16>}>
// GENERIC: "stablehlo.constant"() <{value = dense<1.000000e-01> : tensor<f64>}>
// GENERIC: "stablehlo.constant"() <{value = dense<0xFFFF> : tensor<f16>}> : () -> tensor<f16>
// GENERIC: "stablehlo.constant"() <{value = dense<1> : tensor<i64>}> {mhlo.x = 1 : i32} : () -> tensor<i64>
// GENERIC: "stablehlo.constant"() <{value = dense<3.40282347E+38> : tensor<f32>}>
// GENERIC: "stablehlo.constant"() <{value = dense<1.401300e-45> : tensor<f32>}>
// GENERIC: "stablehlo.constant"() <{value = dense<[0x7FC00001, 1.500000e+00]> : tensor<2xf32>}>
// GENERIC: "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f8E4M3FN>}>
// GENERIC: %big = "stablehlo.constant"() <{value = dense<"0x0000003F0000C03F
// GENERIC: "stablehlo.constant"() <{value = dense<[0x7C00, 0xFC00, 5.960460e-08, 3.332520e-01]> : tensor<4xf16>}>
// GENERIC: "stablehlo.constant"() <{value = dense<[(0x7FC00000,-0.000000e+00), (1.500000e+00,2.000000e+00)]> : tensor<2xcomplex<f32>>}>
// GENERIC: "stablehlo.constant"() <{value = dense<0xFFF0000000000000> : tensor<f64>}>
// GENERIC: "stablehlo.constant"() <{value = dense<0x4CEB79A3> : tensor<f32>}>
