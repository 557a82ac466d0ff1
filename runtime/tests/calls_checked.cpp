// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A kernel calling a Numba-convention CUDA-C function.
#include <kernel/kernel.h>

extern "C" [[kernel::declare_device("numba")]] int checked(int a, int b);

[[kernel::jit]] void check_all(kernel::array_view<int> values) {
  const kernel::index_t i = kernel::grid<1>();
  if (i < values.size()) values[i] = checked(values[i], 3);
}
