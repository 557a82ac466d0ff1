// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Operands of two element types in a linear algebra or sparse call are one error, with the
// chain from the user's line also for the forms that return their result (whose checks are
// in a function instantiated at once), and nothing more from reading one as the other.
#include <kernel/kernel.h>
#include <kernel/linalg.h>
#include <kernel/sparse.h>
#include <vector>

void returned(const kernel::ndarray<float, 2> &a, const std::vector<double> &x) {
  auto y = kernel::linalg::matrix_vector_product(a, x); // expected-note {{in instantiation of}}
  (void)y;
}
void sparse_returned(const kernel::sparse::csr_matrix<double> &a, const std::vector<float> &x) {
  auto y = kernel::sparse::spmv(a, x); // expected-note {{in instantiation of}}
  (void)y;
}
void into(const kernel::ndarray<double, 2> &a, kernel::ndarray<float, 2> &c) {
  kernel::linalg::matrix_product(a, a, c); // expected-note {{in instantiation of}}
}
// expected-error@* 2 {{the operands of a linear algebra call have one element type}}
// expected-error@* {{the dense operands have the matrix's value type}}
// The rest of each chain, inside the library.
// expected-note@* 0+ {{in instantiation of}}
// expected-note@* 0+ {{evaluates to}}
