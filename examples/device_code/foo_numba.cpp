// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The seed's JIT-linking lesson with bar in the Numba convention: the CUDA-C function is
// int bar(int *retval, int a, int b) returning a status; kernels call it as it is declared
// here, and a non-zero status is raised on the host after the kernel as a
// kernel::device_function_error naming bar and the status.
#include <kernel/kernel.h>

extern "C" [[kernel::declare_device("numba")]] int bar(int a, int b);

#include "foo_common.h"

// A negative input makes bar fail: the error reaches the host, on the GPU and on the
// simulator (where the host implementation throws), and the program goes on.
void negative_input(kernel::device d) {
  std::vector<int> inp(256, 1);
  inp[77] = -5;
  try {
    run_foo(d, inp);
    std::printf("negative input on %s: no error (WRONG)\n", d.name().c_str());
    std::exit(1);
  } catch (const kernel::error &e) {
    std::printf("negative input on %s: error, as expected: %s\n", d.name().c_str(), e.what());
  }
}

int main(int argc, char **argv) { return foo_main(argc, argv, negative_input); }
