// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The hand-written CUDA-C versions of gpu_fusion_bench's expressions, compiled by nvcc -O3:
// what a CUDA programmer writes for the whole chain, one thread per element, and for the
// map-reduce, a grid-stride loop, warp shuffles, one atomicAdd per block.
extern "C" __global__ void chain(const float *__restrict__ x, float *__restrict__ out, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = fminf(expf(x[i] * 0.5f + 0.25f), 2.0f) * 0.5f;
}

extern "C" __global__ void sum_exp(const float *__restrict__ x, float *__restrict__ result, long long n) {
  float acc = 0.0f;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    acc += expf(0.5f * x[i] + 0.25f);
  for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_down_sync(0xffffffffu, acc, offset);
  __shared__ float warps[32];
  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x < 32) {
    acc = threadIdx.x < blockDim.x / 32 ? warps[threadIdx.x] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_down_sync(0xffffffffu, acc, offset);
    if (threadIdx.x == 0) atomicAdd(result, acc);
  }
}
