// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The host implementation of a CUDA-C function that simulator_faults_test's kernels call: it
// launches a kernel of its own on the simulator, from inside a simulated thread. This file
// does not see the kernel::declare_device declaration, as a host implementation must not.
#include <kernel/kernel.h>

#include <vector>

[[kernel::jit]] void add_one_each(kernel::array_view<int> a);

extern "C" int launches_inside(int x) {
  std::vector<int> v(4, x);
  kernel::launch<add_one_each>(1, 4).on(kernel::target::simulator)(v);
  return v[0] + v[3];
}
