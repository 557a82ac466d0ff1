// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Array algorithms given an output of another rank, a read-only output, elements they cannot
// count or a predicate that is no ufunc: one error each, with the chain from the user's line,
// and nothing of the call compiled after it (shape comparisons, conversions and the
// predicate's call gave one to three more each).
// (Clang reports a failed specialization once: each call here has argument types of its own.)
#include <complex>
#include <kernel/algorithm.h>
#include <kernel/kernel.h>
#include <vector>

[[kernel::vectorize]] bool positive(float x) { return x > 0; }
bool negative(double x) { return x < 0; }

void calls(std::vector<float> &f, std::vector<double> &d, std::vector<int> &keys, kernel::ndarray<int, 2> &values,
           kernel::ndarray<float, 2> &matrix, kernel::ndarray<double, 3> &cube, const std::vector<float> &read_only,
           std::vector<std::complex<float>> &z, std::vector<short> &s) {
  kernel::sort_by_key(keys, values);                        // expected-note {{in instantiation of}}
  kernel::cumsum(f, matrix);                                // expected-note {{in instantiation of}}
  kernel::cumsum(d, cube);                                  // expected-note {{in instantiation of}}
  kernel::select_if(f, kernel::ufunc<positive>{}, matrix);  // expected-note {{in instantiation of}}
  kernel::select_if(f, kernel::ufunc<positive>{}, read_only); // expected-note {{in instantiation of}}
  auto counts = kernel::histogram(z, 4, 0.0, 1.0);          // expected-note {{in instantiation of}}
  auto kept = kernel::select_if(d, negative);               // expected-note {{in instantiation of}}
  auto smallest = kernel::top_k(f, 2, false);               // expected-note {{in instantiation of}}
  (void)counts;
  (void)kept;
  (void)smallest;
  // What fits compiles.
  kernel::cumsum(f, f);
  kernel::select_if(f, kernel::ufunc<positive>{}, f);
  kernel::index_t n = kernel::count_if(s, kernel::ufunc<positive>{});
  auto least = kernel::top_k(f, 2, -1, false);
  auto in_columns = kernel::top_k(matrix, 1, 0);
  (void)n, (void)least, (void)in_columns;
}

// expected-error@* {{the values have the keys' rank}}
// expected-error@* 2 {{a scan's output has the input's rank}}
// expected-error@* {{select_if writes the kept elements to a 1-D array}}
// expected-error@* {{select_if writes the kept elements to a writable array}}
// expected-error@* {{histograms count numbers}}
// expected-error@* {{or a bool mask of the array's shape}}
// expected-error@*:* {{top_k's third argument is the axis and `largest` the fourth: the k smallest along the last axis are top_k(x, k, -1, false)}}
// The rest of each chain, inside the library.
// expected-note@* 0+ {{in instantiation of}}
// expected-note@* 0+ {{evaluates to}}
