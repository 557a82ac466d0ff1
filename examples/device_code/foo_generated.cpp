// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The seed's foo with bar's CUDA-C source written by the build (a genrule, as a code
// generator would) and named by the declaration itself: [[kernel::link]] finds a file the
// build generated at the path it would have beside this source, when the target lists it in
// device_srcs. The source is embedded at compile time and compiled by NVRTC when a GPU module
// is first linked; on the simulator the host implementation in bar_host.cpp runs instead.
#include <kernel/kernel.h>

extern "C" [[kernel::declare_device, kernel::link("generated/bar.cu")]] int bar(int a, int b);

#include "foo_common.h"

int main(int argc, char **argv) { return foo_main(argc, argv, nullptr); }
