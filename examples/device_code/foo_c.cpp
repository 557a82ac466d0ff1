// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The seed's JIT-linking lesson with bar in the plain C ABI: the kernel calls the CUDA-C
// function from bar_c.cu (built by the cuda_device_library :bar_c, linked at run time by
// nvJitLink); on the simulator the host implementation in bar_host.cpp runs instead.
#include <kernel/kernel.h>

extern "C" [[kernel::declare_device]] int bar(int a, int b);

#include "foo_common.h"

int main(int argc, char **argv) { return foo_main(argc, argv, nullptr); }
