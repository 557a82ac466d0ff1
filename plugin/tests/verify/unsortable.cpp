// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Elements that cannot be sorted are one error from the library, with the chain from the
// user's line: nothing is instantiated for them after it (the radix sort's traits and
// kernels gave a dozen more), and a call that returns gives a value (no error at `auto r`).
// (Clang reports a failed specialization once: each call here has an element type of its own.)
#include <complex>
#include <kernel/algorithm.h>
#include <kernel/kernel.h>
#include <vector>

void top(const std::vector<std::complex<float>> &x) {
  auto r = kernel::top_k(x, 2); // expected-note {{in instantiation of}}
  (void)r;
}
void by_key(std::vector<std::complex<double>> &keys, std::vector<int> &values) {
  kernel::sort_by_key(keys, values); // expected-note {{in instantiation of}}
}
// expected-error@* 2 {{sorted, selected and counted values are bool, integers or floats}}
// The rest of each chain, inside the library.
// expected-note@* 0+ {{in instantiation of}}
// expected-note@* 0+ {{evaluates to}}
