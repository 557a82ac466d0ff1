// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel/sparse.h's cuSPARSE path without a GPU: the SpMV or SpMM each product is given to
// cuSPARSE as, carried out here as cuSPARSE defines it (contiguous vectors; row- or
// column-major dense matrices with a leading dimension) and compared with the product by its
// definition over the layouts a view can have; the layouts cuSPARSE cannot take are refused;
// and the loading of libcusparse, with its errors. The products themselves run on CUDA
// devices in sparse_test (KERNEL_TEST_DEVICE=cuda, //tests:gpu_suite_test).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "kernel/detail/sparse_api.h"
#include "kernel/errors.h"
#include "scoped_environment.h"
#include "sparse/cusparse_layout.h"

namespace {

using kernel::index_t;
using kernel::detail::blas_matrix;
using kernel::detail::cusparse_product;
using kernel::detail::sparse_product_problem;

/// A canonical CSR matrix, about half its elements stored, as int32 arrays.
struct csr {
  std::vector<int> offsets{0}, columns;
  std::vector<double> values;
  index_t rows, cols;
  csr(index_t r, index_t c) : rows(r), cols(c) {
    for (index_t i = 0; i < r; ++i) {
      for (index_t j = 0; j < c; ++j)
        if ((i * 3 + j * 5) % 2 == 0) {
          columns.push_back(static_cast<int>(j));
          values.push_back(static_cast<double>((i * 7 + j) % 9) - 4);
        }
      offsets.push_back(static_cast<int>(columns.size()));
    }
  }
  double at(index_t i, index_t j) const {
    for (int k = offsets[i]; k < offsets[i + 1]; ++k)
      if (columns[k] == j) return values[k];
    return 0;
  }
};

enum class layout { row_major, column_major, row_major_padded, column_major_padded, both_strided };

blas_matrix laid_out(std::vector<double> &buffer, index_t rows, index_t cols, layout l) {
  blas_matrix m;
  m.rows = rows;
  m.cols = cols;
  switch (l) {
  case layout::row_major: m.row_stride = cols, m.col_stride = 1; break;
  case layout::column_major: m.row_stride = 1, m.col_stride = rows; break;
  case layout::row_major_padded: m.row_stride = cols + 2, m.col_stride = 1; break;
  case layout::column_major_padded: m.row_stride = 1, m.col_stride = rows + 2; break;
  case layout::both_strided: m.row_stride = 2 * cols, m.col_stride = 2; break;
  }
  buffer.assign(static_cast<std::size_t>((rows - 1) * m.row_stride + (cols - 1) * m.col_stride + 1), 0);
  for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = static_cast<double>((i * 5 + 1) % 7) - 3;
  m.data = buffer.data();
  return m;
}

double &element(const blas_matrix &m, index_t i, index_t j) {
  return const_cast<double *>(static_cast<const double *>(m.data))[i * m.row_stride + j * m.col_stride];
}

/// What cuSPARSE computes for `g` (C = alpha A B + beta C), by its definition, in place.
void run_as_cusparse(const csr &a, const cusparse_product &g, double alpha, double beta) {
  const auto *b = static_cast<const double *>(g.b.data);
  auto *c = static_cast<double *>(const_cast<void *>(g.c.data));
  // A vector is one contiguous column.
  const auto at = [&](index_t i, index_t j, index_t ld) { return !g.vector && g.row_major ? i * ld + j : i + j * ld; };
  for (index_t i = 0; i < a.rows; ++i)
    for (index_t j = 0; j < g.c.cols; ++j) {
      double sum = 0;
      for (int k = a.offsets[i]; k < a.offsets[i + 1]; ++k) sum += a.values[k] * b[at(a.columns[k], j, g.b.ld)];
      double &out = c[at(i, j, g.c.ld)];
      out = alpha * sum + beta * out;
    }
}

sparse_product_problem problem_of(const csr &a, const blas_matrix &b, const blas_matrix &c, bool vector) {
  sparse_product_problem p;
  p.a = {kernel::detail::blas_type::float64,
         false,
         a.rows,
         a.cols,
         static_cast<index_t>(a.values.size()),
         a.offsets.data(),
         a.columns.data(),
         a.values.data()};
  p.b = b;
  p.c = c;
  p.vector = vector;
  p.alpha = {2, 0};
  p.beta = {-1, 0};
  return p;
}

// Every pair of layouts for B and C: the call cuSPARSE is given computes C = alpha A B + beta C
// exactly where the definition puts it, and touches nothing else.
TEST(CusparseLayout, EveryLayoutCusparseCanTakeComputesTheProduct) {
  const layout all[] = {layout::row_major, layout::column_major, layout::row_major_padded, layout::column_major_padded,
                        layout::both_strided};
  int taken = 0;
  for (auto [m, k, n] : {std::tuple<index_t, index_t, index_t>{5, 4, 3}, {1, 6, 2}, {4, 3, 1}, {3, 1, 4}})
    for (layout lb : all)
      for (layout lc : all) {
        const csr a(m, k);
        std::vector<double> bb, bc;
        const blas_matrix b = laid_out(bb, k, n, lb), c = laid_out(bc, m, n, lc);
        const sparse_product_problem p = problem_of(a, b, c, false);
        const std::vector<double> before = bc;
        const auto g = kernel::detail::cusparse_product_of(p);
        SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) + " layouts " +
                     std::to_string(int(lb)) + std::to_string(int(lc)));
        EXPECT_EQ(kernel::detail::cusparse_takes(p), g.has_value());
        // A matrix is row-major when its elements within a row are adjacent and its rows apart;
        // a single row or column leaves one of the two strides unused.
        const auto row_major = [](const blas_matrix &x) {
          return (x.cols == 1 || x.col_stride == 1) && (x.rows == 1 || x.row_stride >= x.cols);
        };
        const auto column_major = [](const blas_matrix &x) {
          return (x.rows == 1 || x.row_stride == 1) && (x.cols == 1 || x.col_stride >= x.rows);
        };
        ASSERT_EQ(g.has_value(), (row_major(b) && row_major(c)) || (column_major(b) && column_major(c)));
        if (!g) continue;
        ++taken;
        run_as_cusparse(a, *g, 2, -1);
        const blas_matrix c_before{before.data(), m, n, c.row_stride, c.col_stride, 0};
        std::vector<bool> written(bc.size(), false);
        for (index_t i = 0; i < m; ++i)
          for (index_t j = 0; j < n; ++j) {
            double sum = 0;
            for (index_t q = 0; q < k; ++q) sum += a.at(i, q) * element(b, q, j);
            ASSERT_EQ(element(c, i, j), 2 * sum - element(c_before, i, j)) << i << "," << j;
            written[static_cast<std::size_t>(i * c.row_stride + j * c.col_stride)] = true;
          }
        for (std::size_t x = 0; x < bc.size(); ++x)
          if (!written[x]) ASSERT_EQ(bc[x], before[x]) << x;
      }
  EXPECT_GT(taken, 30);
}

TEST(CusparseLayout, VectorsMustBeContiguous) {
  const csr a(6, 5);
  std::vector<double> bx, by;
  blas_matrix x = laid_out(bx, 5, 1, layout::column_major), y = laid_out(by, 6, 1, layout::column_major);
  const auto g = kernel::detail::cusparse_product_of(problem_of(a, x, y, true));
  ASSERT_TRUE(g.has_value());
  EXPECT_TRUE(g->vector);
  const std::vector<double> before = by;
  run_as_cusparse(a, *g, 2, -1);
  for (index_t i = 0; i < 6; ++i) {
    double sum = 0;
    for (index_t q = 0; q < 5; ++q) sum += a.at(i, q) * bx[q];
    EXPECT_EQ(by[i], 2 * sum - before[i]);
  }
  // Every second element, or backwards: the library's kernel.
  std::vector<double> wide(10);
  blas_matrix strided{wide.data(), 5, 1, 2, 1, 0};
  EXPECT_FALSE(kernel::detail::cusparse_takes(problem_of(a, strided, y, true)));
  blas_matrix backwards{by.data() + 5, 6, 1, -1, 1, 0};
  EXPECT_FALSE(kernel::detail::cusparse_takes(problem_of(a, x, backwards, true)));
}

TEST(CusparseLayout, EmptyOrMismatchedProductsAreRefused) {
  std::vector<double> bb, bc;
  const csr a(4, 3);
  const blas_matrix b = laid_out(bb, 3, 2, layout::row_major), c = laid_out(bc, 4, 2, layout::row_major);
  EXPECT_TRUE(kernel::detail::cusparse_takes(problem_of(a, b, c, false)));
  sparse_product_problem p = problem_of(a, b, c, false);
  p.a.nnz = 0;
  EXPECT_FALSE(kernel::detail::cusparse_takes(p));
  p = problem_of(a, b, c, false);
  p.c.cols = 3; // C's columns unlike B's
  EXPECT_FALSE(kernel::detail::cusparse_takes(p));
  // Row-major B with column-major C: one order for both.
  std::vector<double> bf;
  const blas_matrix cf = laid_out(bf, 4, 2, layout::column_major);
  EXPECT_FALSE(kernel::detail::cusparse_takes(problem_of(a, b, cf, false)));
}

// cuSPARSE requires 16-byte alignment of every array: a view starting one element into its
// allocation runs the library's kernel.
TEST(CusparseLayout, ArraysMustStartOnSixteenBytes) {
  const csr a(4, 3);
  alignas(16) double b_storage[3 + 2] = {}, c_storage[4 + 2] = {};
  const blas_matrix b{b_storage, 3, 1, 1, 1, 0}, c{c_storage, 4, 1, 1, 1, 0};
  EXPECT_TRUE(kernel::detail::cusparse_takes(problem_of(a, b, c, true)));
  blas_matrix shifted = c;
  shifted.data = c_storage + 1;
  EXPECT_FALSE(kernel::detail::cusparse_takes(problem_of(a, b, shifted, true)));
  shifted = b;
  shifted.data = b_storage + 1;
  EXPECT_FALSE(kernel::detail::cusparse_takes(problem_of(a, shifted, c, true)));
  alignas(16) int columns[8] = {};
  sparse_product_problem p = problem_of(a, b, c, true);
  p.a.columns = columns + 1;
  EXPECT_FALSE(kernel::detail::cusparse_takes(p));
  p.a.columns = columns;
  EXPECT_TRUE(kernel::detail::cusparse_takes(p));
  p.a.offsets = columns + 2;
  EXPECT_FALSE(kernel::detail::cusparse_takes(p));
  p = problem_of(a, b, c, true);
  p.a.values = reinterpret_cast<const char *>(a.values.data()) + 8;
  EXPECT_FALSE(kernel::detail::cusparse_takes(p));
}

// libcusparse is looked for where KERNEL_CUSPARSE_LIBRARY says: a missing file and a library
// without cuSPARSE's functions are target_unavailable_error naming the call and the path.
TEST(CusparseLibrary, MissingOrWrongLibrary) {
  kernel_test::scoped_environment library("KERNEL_CUSPARSE_LIBRARY", nullptr);
  for (const char *where : {"/nonexistent/libcusparse.so.12", "libm.so.6"}) {
    library.set(where);
    try {
      kernel::detail::cusparse_require("spmv");
      ADD_FAILURE() << "cuSPARSE loaded from " << where;
    } catch (const kernel::target_unavailable_error &e) {
      const std::string m = e.what();
      EXPECT_EQ(m.rfind("spmv: sparse products of CUDA memory need cuSPARSE, which could not be loaded from " +
                            std::string(where),
                        0),
                0u)
          << m;
      EXPECT_NE(m.find("install the CUDA toolkit's libcusparse or set KERNEL_CUSPARSE_LIBRARY"), std::string::npos)
          << m;
    }
  }
  library.set(nullptr);
}

// The toolkit's libcusparse loads without a GPU.
TEST(CusparseLibrary, TheToolkitsLoads) { EXPECT_NO_THROW(kernel::detail::cusparse_require("spmv")); }

} // namespace
