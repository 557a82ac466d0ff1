// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A kernel with a __shared__ array and an uninitialised __device__ array, built as a
// relocatable cubin: their sections (.nv.shared.*, .nv.global) have sizes and no contents in
// the file (more than the file holds after their offsets), which the damage checks must not
// take for truncation.
__device__ int scratch[65536];

extern "C" __global__ void reverse_block(int *a) {
  __shared__ int tile[8192];
  for (unsigned i = threadIdx.x; i < 8192; i += blockDim.x) tile[i] = a[i] + scratch[i];
  __syncthreads();
  for (unsigned i = threadIdx.x; i < 8192; i += blockDim.x) a[i] = tile[8191 - i];
}
