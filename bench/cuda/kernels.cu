// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The CUDA-C versions of the kernels that gpu_kernel_bench times the C++ kernels against: the
// same algorithms, index for index (examples/square_matrix_mult.cpp, examples/transpose.cpp),
// as a CUDA programmer writes them, compiled by nvcc -O3.
constexpr int tpb = 16;

// The seed's tiled matmul: thread x walks rows, as in the Numba documentation's version.
extern "C" __global__ void matmul_tiled(const float *__restrict__ a, const float *__restrict__ b,
                                        float *__restrict__ c, int n) {
  __shared__ float sa[tpb][tpb];
  __shared__ float sb[tpb][tpb];
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  const int tx = threadIdx.x, ty = threadIdx.y;
  float sum = 0;
  for (unsigned i = 0; i < gridDim.x; ++i) {
    sa[tx][ty] = a[static_cast<long long>(x) * n + ty + i * tpb];
    sb[tx][ty] = b[static_cast<long long>(tx + i * tpb) * n + y];
    __syncthreads();
    for (int j = 0; j < tpb; ++j) sum += sa[tx][j] * sb[j][ty];
    __syncthreads();
  }
  c[static_cast<long long>(x) * n + y] = sum;
}

// The seed's tiled transpose through a 32x33 tile.
extern "C" __global__ void transpose_tiled(const int *__restrict__ a, int *__restrict__ t, int n) {
  __shared__ int tile[32][33];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const long long a_col = blockIdx.x * 32LL + tx, a_row = blockIdx.y * 32LL + ty;
  tile[ty][tx] = a[a_row * n + a_col];
  __syncthreads();
  const long long t_col = blockIdx.y * 32LL + tx, t_row = blockIdx.x * 32LL + ty;
  t[t_row * n + t_col] = tile[tx][ty];
}

// Four arguments, for the launch overhead.
extern "C" __global__ void axpb(float a, const float *__restrict__ x, float b, float *__restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a * x[i] + b;
}
