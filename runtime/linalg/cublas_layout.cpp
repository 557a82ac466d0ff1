// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "linalg/cublas_layout.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace kernel::detail {

namespace {

blas_matrix transposed(blas_matrix m) noexcept {
  std::swap(m.rows, m.cols);
  std::swap(m.row_stride, m.col_stride);
  return m;
}

/// `m` as a column-major matrix (element (i, j) at i + j ld), if it is one.
std::optional<index_t> column_major_ld(const blas_matrix &m) noexcept {
  const index_t least = std::max<index_t>(1, m.rows);
  if (m.rows > 1 && m.row_stride != 1) return std::nullopt;
  if (m.cols == 1) return least; // one column: the stride between columns is never used
  if (m.col_stride < least) return std::nullopt;
  return m.col_stride;
}

/// `m` as cuBLAS reads an operand: column-major, or the transpose of a column-major matrix
/// (conjugated too, when `conjugated`: cuBLAS has no conjugation without a transpose).
std::optional<cublas_operand> operand_of(const blas_matrix &m, bool conjugated) noexcept {
  if (const auto ld = column_major_ld(m); ld && !conjugated)
    return cublas_operand{m.data, false, false, *ld, m.batch_stride};
  if (const auto ld = column_major_ld(transposed(m)))
    return cublas_operand{m.data, true, conjugated, *ld, m.batch_stride};
  return std::nullopt;
}

bool same_layout(const blas_matrix &a, const blas_matrix &b) noexcept {
  return a.data == b.data && a.rows == b.rows && a.cols == b.cols && a.row_stride == b.row_stride &&
         a.col_stride == b.col_stride && a.batch_stride == b.batch_stride;
}

bool fits_int(index_t v) noexcept { return v >= 0 && v <= std::numeric_limits<int>::max(); }

} // namespace

std::optional<cublas_gemm> cublas_gemm_of(const gemm_problem &p) {
  if (p.batch <= 0 || p.c.rows == 0 || p.c.cols == 0 || p.a.cols == 0) return std::nullopt;
  if ((p.e.data && !same_layout(p.e, p.c)) || p.conj_e) return std::nullopt;
  blas_matrix a = p.a, b = p.b, c = p.c;
  bool conj_a = p.conj_a, conj_b = p.conj_b;
  // cuBLAS writes column-major matrices: a row-major C is the transpose of C^T = B^T A^T.
  if (!column_major_ld(c)) {
    c = transposed(p.c);
    a = transposed(p.b);
    b = transposed(p.a);
    std::swap(conj_a, conj_b);
  }
  const auto ldc = column_major_ld(c);
  const auto oa = operand_of(a, conj_a), ob = operand_of(b, conj_b);
  if (!ldc || !oa || !ob) return std::nullopt;
  if (p.batch > 1) {
    // cuBLAS steps forward through a batch, and its items of C must not overlap.
    if (a.batch_stride < 0 || b.batch_stride < 0) return std::nullopt;
    if (c.batch_stride < *ldc * (c.cols - 1) + c.rows) return std::nullopt;
  }
  cublas_gemm g;
  g.m = c.rows;
  g.n = c.cols;
  g.k = a.cols;
  g.batch = p.batch;
  g.a = *oa;
  g.b = *ob;
  g.c = {c.data, false, false, *ldc, c.batch_stride};
  if (p.batch == 1) g.a.batch_stride = g.b.batch_stride = g.c.batch_stride = 0; // never used
  for (index_t v : {g.m, g.n, g.k, g.batch, g.a.ld, g.b.ld, g.c.ld})
    if (!fits_int(v)) return std::nullopt;
  return g;
}

std::optional<int> cublas_increment(const blas_vector &v) {
  if (v.size <= 0 || !fits_int(v.size)) return std::nullopt;
  if (v.size == 1) return 1;
  // A negative increment reads the vector from its other end in BLAS; zero is not BLAS's.
  if (v.stride < 1 || !fits_int(v.stride)) return std::nullopt;
  return static_cast<int>(v.stride);
}

} // namespace kernel::detail
