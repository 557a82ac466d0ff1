// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "sparse/cusparse_layout.h"

#include <cstdint>

namespace kernel::detail {

namespace {

/// `m`'s leading dimension as a row-major matrix (element (i, j) at i ld + j), if it is one.
std::optional<index_t> row_major_ld(const blas_matrix &m) noexcept {
  if (m.cols > 1 && m.col_stride != 1) return std::nullopt;
  if (m.rows == 1) return m.cols; // one row: the stride between rows is never used
  if (m.row_stride < m.cols) return std::nullopt;
  return m.row_stride;
}

std::optional<index_t> column_major_ld(const blas_matrix &m) noexcept {
  if (m.rows > 1 && m.row_stride != 1) return std::nullopt;
  if (m.cols == 1) return m.rows;
  if (m.col_stride < m.rows) return std::nullopt;
  return m.col_stride;
}

bool contiguous_column(const blas_matrix &m) noexcept { return m.cols == 1 && (m.rows == 1 || m.row_stride == 1); }

// cuSPARSE documents element alignment, but its version 12 kernels fault on an output
// vector that does not start on 16 bytes (kokkos-kernels and PyTorch fall back for such
// arrays too): views that begin an element or two into an allocation run our kernel.
bool aligned(const void *p) noexcept { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

} // namespace

std::optional<cusparse_product> cusparse_product_of(const sparse_product_problem &p) {
  const csr_descriptor &a = p.a;
  if (a.rows <= 0 || a.cols <= 0 || a.nnz <= 0 || p.b.rows != a.cols || p.c.rows != a.rows || p.b.cols != p.c.cols ||
      p.c.cols <= 0)
    return std::nullopt;
  if (!aligned(a.offsets) || !aligned(a.columns) || !aligned(a.values) || !aligned(p.b.data) || !aligned(p.c.data))
    return std::nullopt;
  cusparse_product r;
  r.vector = p.vector;
  if (p.vector) {
    if (p.c.cols != 1 || !contiguous_column(p.b) || !contiguous_column(p.c)) return std::nullopt;
    r.b = {p.b.data, p.b.rows, 1, p.b.rows};
    r.c = {p.c.data, p.c.rows, 1, p.c.rows};
    return r;
  }
  // Row-major where both can be (cuSPARSE is fastest so), else column-major.
  const auto rb = row_major_ld(p.b), rc = row_major_ld(p.c);
  const auto cb = column_major_ld(p.b), cc = column_major_ld(p.c);
  if (rb && rc) {
    r.row_major = true;
    r.b = {p.b.data, p.b.rows, p.b.cols, *rb};
    r.c = {p.c.data, p.c.rows, p.c.cols, *rc};
  } else if (cb && cc) {
    r.row_major = false;
    r.b = {p.b.data, p.b.rows, p.b.cols, *cb};
    r.c = {p.c.data, p.c.rows, p.c.cols, *cc};
  } else {
    return std::nullopt;
  }
  return r;
}

bool cusparse_takes(const sparse_product_problem &p) noexcept { return cusparse_product_of(p).has_value(); }

} // namespace kernel::detail
