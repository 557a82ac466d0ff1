// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel/sparse.h's products of CUDA memory through cuSPARSE (runtime/sparse/), which the
// header calls where cuSPARSE can take the operands and runs its own kernels elsewhere.
#pragma once

#include <array>

#include "kernel/detail/linalg_api.h"

namespace kernel::detail {

/// A CSR matrix in device memory whose rows' column indices strictly increase (cuSPARSE's
/// format: sparse::basic_csr_matrix::has_canonical_format).
struct csr_descriptor {
  blas_type type = blas_type::float32;
  bool index64 = false; // int64 offsets and columns; else int32
  index_t rows = 0, cols = 0, nnz = 0;
  const void *offsets = nullptr, *columns = nullptr, *values = nullptr;
};

/// C = alpha A B + beta C, for dense B and C of any strides (their batch strides unused);
/// with `vector`, B and C are vectors as one column each (spmv).
struct sparse_product_problem {
  csr_descriptor a;
  blas_matrix b, c;
  bool vector = false;
  std::array<double, 2> alpha{1, 0}, beta{0, 0};
};

class device_state;
class stream_state;

/// Queues `p` (memory of CUDA device `device`) on `stream` through cuSPARSE's generic API
/// (cusparseSpMV or cusparseSpMM) and returns true; returns false, queuing nothing, when
/// cuSPARSE cannot take the layouts (runtime/sparse/cusparse_layout.h). cuSPARSE does not
/// promise to leave C unread when beta is 0: then `zero_c(context)` is called to queue C's
/// zero-fill on `stream`, once the product can be made (cuSPARSE loaded, descriptors made, work area
/// allocated) and just before it is queued, so that a failure leaves C as it was. Throws
/// target_unavailable_error when cuSPARSE cannot be loaded ($KERNEL_CUSPARSE_LIBRARY, else the
/// toolkit's libcusparse) and cuda_error naming the function and its status when it fails;
/// `name` begins each message.
bool sparse_product_cuda(const char *name, const sparse_product_problem &p, device_state &device, stream_state &stream,
                         void (*zero_c)(void *context), void *context);

/// Whether sparse_product_cuda would take `p`'s layouts (without loading cuSPARSE).
bool cusparse_takes(const sparse_product_problem &p) noexcept;

/// Loads cuSPARSE as sparse_product_cuda does, or throws target_unavailable_error as it would.
void cusparse_require(const char *name);

} // namespace kernel::detail
