// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The hand-written CUDA-C saxpy that gpu_ufunc_bench measures the generated ufunc against:
// one thread per element, as a CUDA programmer writes it, compiled by nvcc -O3.
extern "C" __global__ void saxpy(float a, const float *__restrict__ x, const float *__restrict__ y,
                                 float *__restrict__ out, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}
