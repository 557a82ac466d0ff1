// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host implementations of CUDA-C functions that simulator_faults_test's kernels call: one
// launches a kernel of its own on the simulator, from inside a simulated thread; one throws. This file
// does not see the kernel::declare_device declaration, as a host implementation must not.
#include <kernel/kernel.h>

#include <stdexcept>
#include <vector>

[[kernel::jit]] void add_one_each(kernel::array_view<int> a);

extern "C" int launches_inside(int x) {
  std::vector<int> v(4, x);
  kernel::launch<add_one_each>(1, 4).on(kernel::target::simulator)(v);
  return v[0] + v[3];
}

// Throws an exception with no message for one input, as a host implementation may.
extern "C" int throws_for_three(int x) {
  if (x == 3) throw std::domain_error("");
  return 2 * x;
}
