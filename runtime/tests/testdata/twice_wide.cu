// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A definition of twice that differs from calls_twice.cpp's declaration, int twice(int):
// device_code_test links it in each common input kind and expects the difference reported.
extern "C" __device__ int twice(long long a, int b) { return static_cast<int>(a) * b; }
