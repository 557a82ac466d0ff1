// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The seed's CUDA-C device function in the NumbaPro/Numba convention: the result through
// the first argument, the return value a status (0 for success).
extern "C" __device__ int bar(int *retval, int a, int b) {
  if (a < 0) return 22; // this function's error code for a negative input
  *retval = a * b + 1;
  return 0;
}
