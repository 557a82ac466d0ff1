// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device code for device_code_test: built by nvcc into each input kind nvJitLink takes,
// and compiled at run time by NVRTC.
extern "C" __device__ int twice(int a) { return 2 * a; }
