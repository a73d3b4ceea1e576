module @jit__fft attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16xf32>) -> (tensor<16xcomplex<f32>> {jax.result_info = "result[0]"}, tensor<9xcomplex<f32>> {jax.result_info = "result[1]"}, tensor<16xf32> {jax.result_info = "result[2]"}, tensor<4x4xcomplex<f32>> {jax.result_info = "result[3]"}) {
    %0 = call @fft(%arg0) : (tensor<16xf32>) -> tensor<16xcomplex<f32>>
    %1 = call @fft_0(%0) : (tensor<16xcomplex<f32>>) -> tensor<16xcomplex<f32>>
    %2 = call @fft_1(%arg0) : (tensor<16xf32>) -> tensor<9xcomplex<f32>>
    %3 = call @fft_1(%arg0) : (tensor<16xf32>) -> tensor<9xcomplex<f32>>
    %4 = call @fft_2(%3) : (tensor<9xcomplex<f32>>) -> tensor<16xf32>
    %5 = stablehlo.reshape %arg0 : (tensor<16xf32>) -> tensor<4x4xf32>
    %6 = call @fft_3(%5) : (tensor<4x4xf32>) -> tensor<4x4xcomplex<f32>>
    return %1, %2, %4, %6 : tensor<16xcomplex<f32>>, tensor<9xcomplex<f32>>, tensor<16xf32>, tensor<4x4xcomplex<f32>>
  }
  func.func private @fft(%arg0: tensor<16xf32>) -> tensor<16xcomplex<f32>> {
    %0 = stablehlo.convert %arg0 : (tensor<16xf32>) -> tensor<16xcomplex<f32>>
    %1 = stablehlo.fft %0, type = FFT, length = [16] : (tensor<16xcomplex<f32>>) -> tensor<16xcomplex<f32>>
    return %1 : tensor<16xcomplex<f32>>
  }
  func.func private @fft_0(%arg0: tensor<16xcomplex<f32>>) -> tensor<16xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = IFFT, length = [16] : (tensor<16xcomplex<f32>>) -> tensor<16xcomplex<f32>>
    return %0 : tensor<16xcomplex<f32>>
  }
  func.func private @fft_1(%arg0: tensor<16xf32>) -> tensor<9xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [16] : (tensor<16xf32>) -> tensor<9xcomplex<f32>>
    return %0 : tensor<9xcomplex<f32>>
  }
  func.func private @fft_2(%arg0: tensor<9xcomplex<f32>>) -> tensor<16xf32> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [16] : (tensor<9xcomplex<f32>>) -> tensor<16xf32>
    return %0 : tensor<16xf32>
  }
  func.func private @fft_3(%arg0: tensor<4x4xf32>) -> tensor<4x4xcomplex<f32>> {
    %0 = stablehlo.convert %arg0 : (tensor<4x4xf32>) -> tensor<4x4xcomplex<f32>>
    %1 = stablehlo.fft %0, type = FFT, length = [4, 4] : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    return %1 : tensor<4x4xcomplex<f32>>
  }
}
