// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A kernel launch whose arguments do not fit the kernel's parameters is one error for each,
// with the chain from the user's line, and nothing of the launch is compiled after it (the
// argument packing gave three to six more: pack lengths, tuple indices, conversions).
// (Clang reports a failed specialization once: each launch here has argument types of its own.)
#include <kernel/kernel.h>
#include <vector>

using kernel::array_view;

[[kernel::jit]] void scale(array_view<float> a, float s) { a[kernel::grid<1>()] *= s; }
struct pair_of_ints {
  int x, y;
};

void launches(kernel::device_array<float> &d, kernel::device_array<float, 2> &d2, kernel::device_array<int> &di,
              const std::vector<float> &read_only, std::vector<double> &doubles) {
  kernel::launch<scale>(1, 16)(d);                  // expected-note {{in instantiation of}}
  kernel::launch<scale>(1, 16)(d, 2.0f, 3);         // expected-note {{in instantiation of}}
  kernel::launch<scale>(1, 16)(d2, 2.0f);           // expected-note {{in instantiation of}}
  kernel::launch<scale>(1, 16)(di, 2.0f);           // expected-note {{in instantiation of}}
  kernel::launch<scale>(1, 16)(read_only, 2.0f);    // expected-note {{in instantiation of}}
  kernel::launch<scale>(1, 16)(d, pair_of_ints{});  // expected-note {{in instantiation of}}
  kernel::launch<scale>(1, 16)(2.0f, 2.0f);         // expected-note {{in instantiation of}}
  kernel::launch<scale>(1, 16)(doubles, 2.0);       // expected-note {{in instantiation of}}
  kernel::launch<scale>(1, 16)(d, 2.0);             // converts, as a call would
}

// A device array of const elements could never be filled.
kernel::device_array<const float> never_filled; // expected-note {{in instantiation of}}
// expected-error@* {{a device_array owns its elements and fills them}}

// expected-error@* 2 {{a kernel launch passes one argument per kernel parameter}}
// expected-error@* {{a kernel's array argument must have the parameter's rank}}
// expected-error@* 2 {{a kernel's array argument must have the parameter's element type}}
// expected-error@* {{the kernel writes this array parameter but the host argument is const}}
// expected-error@* {{a kernel argument does not convert to the parameter's type}}
// expected-error@* {{a kernel's array parameter takes a device array or a host array}}
// The rest of each chain, inside the library.
// expected-note@* 0+ {{in instantiation of}}
// expected-note@* 0+ {{evaluates to}}
