// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Kernels calling a CUDA-C function of which this translation unit names no definition:
// device_code_test links them with device code chosen at run time.
#include <kernel/kernel.h>

extern "C" [[kernel::declare_device]] int twice(int a);

[[kernel::jit]] void double_all(kernel::array_view<int> values) {
  const kernel::index_t i = kernel::grid<1>();
  if (i < values.size()) values[i] = twice(values[i]);
}

[[kernel::vectorize("int32(int32)")]] int twice_plus_one(int a) { return twice(a) + 1; }
