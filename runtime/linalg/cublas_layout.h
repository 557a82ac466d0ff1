// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How a batched product of kernel/linalg.h (strided matrices, detail/linalg_api.h) maps onto
// one cuBLAS strided-batched GEMM, which reads column-major matrices, each possibly
// transposed, with a leading dimension and a stride between the items of the batch. A matrix
// whose columns are contiguous is taken as it is; one whose rows are is taken as the
// transpose of a column-major one; C must be column-major, so a row-major C is computed as
// C^T = B^T A^T. Layouts cuBLAS cannot express (no unit stride, negative or overlapping
// strides, sizes past its 32-bit integers, an E apart from C or read conjugated, a conjugated
// operand that is not transposed: cuBLAS conjugates only with a transpose) have no mapping:
// the library's own kernel runs them.
#pragma once

#include <optional>

#include "kernel/detail/linalg_api.h"

namespace kernel::detail {

struct cublas_operand {
  const void *data = nullptr;
  bool transposed = false; // cuBLAS's op: CUBLAS_OP_T, or CUBLAS_OP_C when also `conjugated`
  bool conjugated = false;
  index_t ld = 1;
  index_t batch_stride = 0;
};

struct cublas_gemm {
  index_t m = 0, n = 0, k = 0, batch = 1;
  cublas_operand a, b, c; // c never transposed
};

/// The cuBLAS call computing `p`, or nothing when cuBLAS cannot take its layouts (see above)
/// or there is nothing to compute (k = 0 or an empty C: the caller's).
std::optional<cublas_gemm> cublas_gemm_of(const gemm_problem &p);

/// The increment cuBLAS's level-1 calls read `v` with, or nothing when they cannot (a stride
/// below 1, sizes past int) or there is nothing to read (an empty vector: the caller's).
std::optional<int> cublas_increment(const blas_vector &v);

} // namespace kernel::detail
