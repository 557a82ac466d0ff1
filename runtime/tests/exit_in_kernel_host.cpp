// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// exit_in_kernel_test's host implementation: ends the process from inside a simulated thread.
#include <cstdlib>

extern "C" int exits_the_process(int code) { std::exit(code); }
