// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A "vendor" library of CUDA-C device functions, shipped prebuilt as libfastmath.a.
extern "C" __device__ float fast_rsqrt(float x) { return rsqrtf(x); }
