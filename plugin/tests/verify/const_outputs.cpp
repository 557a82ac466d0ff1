// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A const array given where results go is one error, from the library, with the chain of
// instantiations from the user's line: nothing more from writing into the array after it.
// (Clang reports a failed specialization once: each call here gives the output a type of its
// own.)
#include <kernel/algorithm.h>
#include <kernel/kernel.h>
#include <kernel/linalg.h>
#include <kernel/random_arrays.h>
#include <vector>

void algorithms(const std::vector<float> &x, std::vector<float> &y, const std::vector<double> &z) {
  kernel::sort(x);      // expected-note {{in instantiation of}}
  kernel::cumsum(y, z); // expected-note {{in instantiation of}}
}
void matrices(const kernel::ndarray<float, 2> &a, kernel::ndarray<float, 2> &b) {
  kernel::linalg::matrix_product(b, b, a); // expected-note {{in instantiation of}}
}
void random_numbers(kernel::random::philox &rng, const kernel::ndarray<float> &x) {
  rng.uniform(x); // expected-note {{in instantiation of}}
}
// A const device array's elements are not writable; a const view's are, as an array_view's.
void device_arrays(const kernel::device_array<float> &d, kernel::device_array<float> &e,
                   const kernel::device_view<float> &v, const kernel::device_view<const float> &w) {
  kernel::cumsum(e, d); // expected-note {{in instantiation of}}
  kernel::cumsum(e, w); // expected-note {{in instantiation of}}
  kernel::cumsum(e, v);
  kernel::sort(v);
}
// expected-error@* 6 {{the results go to a writable array}}
// The rest of each chain, inside the library.
// expected-note@* 0+ {{in instantiation of}}
// expected-note@* 0+ {{evaluates to}}
