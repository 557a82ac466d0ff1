// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The host version of weights.cu's weight, for the simulator (CUDA-C runs on GPUs only). It
// does not see the [[kernel::declare_device]] declaration: an ordinary C++ definition.
extern "C" float weight(int i) { return 0.5f * static_cast<float>(i % 7); }
