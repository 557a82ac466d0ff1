// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A simulated thread's code (a host implementation of a CUDA-C function) calls exit(0): the
// process exits with 0. The exit ran the host thread's destructors, and the simulator's pool of
// fiber stacks unmapped the stack the exit was running on (a segfault). Reaching the end of
// main is a failure.
#include <kernel/kernel.h>

#include <vector>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/lsan_interface.h>
#define KERNEL_TEST_UNDER_ASAN 1
#endif
#endif

extern "C" [[kernel::declare_device]] int exits_the_process(int code);

[[kernel::jit]] void calls_exit(kernel::array_view<int> out) {
  if (kernel::grid<1>() == 3) out[0] = exits_the_process(0);
}

int main() {
#ifdef KERNEL_TEST_UNDER_ASAN
  // What the launch has allocated when exit() ends it is not a leak to report.
  __lsan_disable();
#endif
  std::vector<int> out(1, 0);
  kernel::launch<calls_exit>(1, 32).on(kernel::target::simulator)(out);
  return 1;
}
