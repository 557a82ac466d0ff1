// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// device_link_bench's baseline, in its own translation unit (so its own module): the kernel
// with the arithmetic inline instead of a call to CUDA-C code.
#include <kernel/kernel.h>

[[kernel::jit]] void plain(kernel::array_view<int> values) {
  const kernel::index_t i = kernel::grid<1>();
  if (i < values.size()) values[i] = 2 * values[i];
}
