// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The seed's CUDA-C device function, in the plain C ABI.
extern "C" __device__ int bar(int a, int b) { return a * b + 1; }
