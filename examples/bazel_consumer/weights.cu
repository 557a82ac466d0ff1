// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A CUDA-C device function in the plain C ABI, called by the kernel in consumer.cpp on a GPU.
extern "C" __device__ float weight(int i) { return 0.5f * static_cast<float>(i % 7); }
