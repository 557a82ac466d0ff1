// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Sparse products refuse conjugated() complex operands at compile time (they used to ignore
// the conjugation and return A x); conjugated() of real operands changes nothing and is taken.
#include <complex>
#include <vector>

#include <kernel/sparse.h>

namespace la = kernel::linalg;
namespace sp = kernel::sparse;
using c64 = std::complex<float>;

void products(const sp::csr_matrix<c64> &a, const std::vector<c64> &x, std::vector<c64> &y,
              const kernel::ndarray<c64, 2> &b, kernel::ndarray<c64, 2> &c, const sp::csr_matrix<float> &r,
              const std::vector<float> &xr, std::vector<float> &yr) {
  sp::spmv(la::conjugated(a), x, y);
  sp::spmv(a, la::conjugated(x), y);
  sp::spmv(a, x, la::conjugated(kernel::view(y.data(), 4)), y); // z (a type of its own: one report per type)
  sp::spmm(a, la::conjugated(b), c);
  sp::spmv(la::conjugated(r), la::conjugated(xr), yr); // real: no conjugation to ignore
  sp::spmv(la::scaled(c64(2), a), x, y);
}
// expected-error@* 4 {{sparse products do not take conjugated() complex operands}}
// expected-note@* 0+ {{in instantiation of}}
// expected-note@* 0+ {{requested here}}
// expected-note@* 0+ {{evaluates to}}
