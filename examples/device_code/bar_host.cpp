// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The host implementation of bar, used when the kernels run on the simulator (the CUDA-C
// definitions cannot run there). It does not see the [[kernel::declare_device]]
// declaration: it is an ordinary C++ definition of the same function.
#include <kernel/errors.h>

extern "C" int bar(int a, int b) {
  // The Numba-convention bar fails on negative input; its host version says so the C++ way.
  if (a < 0) throw kernel::device_function_error("bar: negative input " + std::to_string(a), "int bar(int, int)", 22);
  return a * b + 1;
}
