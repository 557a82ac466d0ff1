// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A variable named as the function calls_twice.cpp declares: device_code_test links it in each
// input kind, which nvJitLink crashes on, to see it refused first.
extern "C" __device__ int twice = 3;
