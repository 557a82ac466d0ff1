// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A kernel with a __shared__ array, built as a relocatable cubin: its .nv.shared section has a
// size and no contents in the file, which the damage checks must not take for truncation.
extern "C" __global__ void reverse_block(int *a) {
  __shared__ int tile[64];
  tile[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  a[threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}
