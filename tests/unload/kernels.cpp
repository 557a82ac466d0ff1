// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A shared library with kernels, loaded and unloaded by unload_main.cpp.
#include <kernel/kernel.h>

#include <vector>

[[kernel::vectorize("float32(float32)")]] float unload_twice(float x) { return 2 * x; }

extern "C" float unload_run(float x) {
  constexpr kernel::ufunc<unload_twice> twice;
  std::vector<float> in{x}, out(1);
  twice.on(kernel::target::simulator)(in, out);
  return out[0];
}
