// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device code with most of what a cubin can hold (globals, constants, aligned shared memory,
// printf, atomics, indirect calls and their prototypes, recursion, templates, a grid group),
// built for several architectures, with -G and with -lineinfo: the damage checks must find
// each of them whole, and nvJitLink links each.
#include <cooperative_groups.h>
#include <cstdio>

__device__ float table_of[256];
__constant__ float coefficients[16];
__device__ int counted;

extern "C" __device__ int twice(int a) { return 2 * a; }
__device__ __noinline__ float thrice(float x) { return 3 * x + coefficients[1]; }
__device__ __noinline__ float halve(float x) { return x / 2; }

__global__ void saxpy(float a, const float *x, float *y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i] + table_of[i & 255] + thrice(x[i]) + twice(i);
}

__global__ void block_sum(const float *x, float *out, int n) {
  __shared__ float partial[256];
  __shared__ __align__(1024) double wide[64];
  partial[threadIdx.x] = threadIdx.x < n ? x[threadIdx.x] : 0;
  wide[threadIdx.x & 63] = partial[threadIdx.x];
  __syncthreads();
  for (int k = 128; k; k >>= 1) {
    if (threadIdx.x < k) partial[threadIdx.x] += partial[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(out, partial[0] + static_cast<float>(wide[3]));
    atomicAdd(&counted, 1);
  }
}

__global__ void rotate_and_print(float *y) {
  extern __shared__ float dynamic[];
  dynamic[threadIdx.x] = y[threadIdx.x];
  __syncwarp();
  y[threadIdx.x] = dynamic[(threadIdx.x + 1) % blockDim.x];
  if (threadIdx.x == 0) printf("first %f\n", y[0]);
}

using unary = float (*)(float);
__device__ unary unaries[2] = {thrice, halve};
__global__ void call_through_table(float *y, int k) { y[threadIdx.x] = unaries[k & 1](y[threadIdx.x]); }

__device__ int fibonacci(int n) { return n < 2 ? n : fibonacci(n - 1) + fibonacci(n - 2); }
__global__ void recursive(int *y, int n) { y[threadIdx.x] = fibonacci(n); }

template <class T> __global__ void doubled(T *y) { y[threadIdx.x] *= T(2); }
template __global__ void doubled<double>(double *);
template __global__ void doubled<int>(int *);

__global__ void grid_synced(int *y) {
  auto grid = cooperative_groups::this_grid();
  y[grid.thread_rank()] = 1;
  grid.sync();
  if (grid.thread_rank() == 0) y[0] += 1;
}
