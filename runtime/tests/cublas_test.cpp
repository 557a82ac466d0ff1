// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel/linalg.h's cuBLAS path without a GPU: the strided-batched GEMM each product is
// given to cuBLAS as, carried out here as cuBLAS defines it (column-major operands, each
// possibly transposed) and compared with the product by its definition, over every layout a
// view can have; the layouts cuBLAS cannot take are refused; and the loading of libcublas,
// with its errors. The products themselves run on CUDA devices in linalg_test
// (KERNEL_TEST_DEVICE=cuda, //tests:gpu_suite_test).
#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "kernel/detail/linalg_api.h"
#include "kernel/errors.h"
#include "linalg/cublas_layout.h"
#include "scoped_environment.h"

namespace {

using kernel::index_t;
using kernel::detail::blas_matrix;
using kernel::detail::cublas_gemm;
using kernel::detail::gemm_problem;

/// How a test matrix is laid out in its buffer.
enum class layout { row_major, column_major, row_major_padded, column_major_padded, both_strided };

blas_matrix laid_out(std::vector<double> &buffer, index_t batch, index_t rows, index_t cols, layout l,
                     bool shared = false) {
  blas_matrix m;
  m.rows = rows;
  m.cols = cols;
  const index_t pad = 3;
  switch (l) {
  case layout::row_major: m.row_stride = cols, m.col_stride = 1; break;
  case layout::column_major: m.row_stride = 1, m.col_stride = rows; break;
  case layout::row_major_padded: m.row_stride = cols + pad, m.col_stride = 1; break;
  case layout::column_major_padded: m.row_stride = 1, m.col_stride = rows + pad; break;
  case layout::both_strided: m.row_stride = 2 * cols, m.col_stride = 2; break;
  }
  index_t span = (rows - 1) * m.row_stride + (cols - 1) * m.col_stride + 1;
  m.batch_stride = shared ? 0 : span + 5;
  buffer.assign(static_cast<std::size_t>(shared ? span : batch * (span + 5)), -99);
  for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = static_cast<double>((i * 7 + 3) % 11) - 5;
  m.data = buffer.data();
  return m;
}

double at(const blas_matrix &m, index_t b, index_t i, index_t j) {
  return static_cast<const double *>(m.data)[b * m.batch_stride + i * m.row_stride + j * m.col_stride];
}

/// What cuBLAS computes for `g`, by its definition, in place.
void run_as_cublas(const cublas_gemm &g, double alpha, double beta) {
  const auto *a = static_cast<const double *>(g.a.data);
  const auto *b = static_cast<const double *>(g.b.data);
  auto *c = static_cast<double *>(const_cast<void *>(g.c.data));
  for (index_t t = 0; t < g.batch; ++t)
    for (index_t i = 0; i < g.m; ++i)
      for (index_t j = 0; j < g.n; ++j) {
        double sum = 0;
        for (index_t l = 0; l < g.k; ++l) {
          const double x =
              g.a.transposed ? a[t * g.a.batch_stride + l + i * g.a.ld] : a[t * g.a.batch_stride + i + l * g.a.ld];
          const double y =
              g.b.transposed ? b[t * g.b.batch_stride + j + l * g.b.ld] : b[t * g.b.batch_stride + l + j * g.b.ld];
          sum += x * y;
        }
        double &out = c[t * g.c.batch_stride + i + j * g.c.ld];
        out = alpha * sum + (beta == 0 ? 0 : beta * out);
      }
}

// Every combination of layouts for A, B and C, with a shared A and with C as E: the call
// cuBLAS is given computes C = alpha A B + beta C exactly where the definition puts it.
TEST(CublasLayout, EveryLayoutCublasCanTakeComputesTheProduct) {
  const layout all[] = {layout::row_major, layout::column_major, layout::row_major_padded, layout::column_major_padded,
                        layout::both_strided};
  int taken = 0;
  for (auto [m, n, k] : {std::tuple<index_t, index_t, index_t>{4, 3, 5}, {1, 6, 2}, {5, 1, 3}, {3, 4, 1}})
    for (layout la : all)
      for (layout lb : all)
        for (layout lc : all)
          for (bool shared_a : {false, true})
            for (bool with_e : {false, true}) {
              const index_t batch = 3;
              std::vector<double> ba, bb, bc;
              gemm_problem p;
              p.type = kernel::detail::blas_type::float64;
              p.batch = batch;
              p.a = laid_out(ba, batch, m, k, la, shared_a);
              p.b = laid_out(bb, batch, k, n, lb);
              p.c = laid_out(bc, batch, m, n, lc);
              p.alpha = {2, 0};
              p.beta = {with_e ? -1.0 : 0.0, 0};
              if (with_e) p.e = p.c;
              const std::vector<double> before = bc;
              const auto g = kernel::detail::cublas_gemm_of(p);
              const bool expressible =
                  la != layout::both_strided && lb != layout::both_strided && lc != layout::both_strided;
              SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " layouts " +
                           std::to_string(int(la)) + std::to_string(int(lb)) + std::to_string(int(lc)));
              // A matrix of one row or column has a unit stride whatever its other one is.
              if (expressible) ASSERT_TRUE(g.has_value());
              if (!g) continue;
              ++taken;
              EXPECT_GE(g->c.ld, g->m);
              run_as_cublas(*g, 2, with_e ? -1 : 0);
              const blas_matrix c_before{before.data(), m, n, p.c.row_stride, p.c.col_stride, p.c.batch_stride};
              std::vector<bool> written(bc.size(), false);
              for (index_t t = 0; t < batch; ++t)
                for (index_t i = 0; i < m; ++i)
                  for (index_t j = 0; j < n; ++j) {
                    double sum = 0;
                    for (index_t l = 0; l < k; ++l) sum += at(p.a, t, i, l) * at(p.b, t, l, j);
                    const double want = 2 * sum + (with_e ? -at(c_before, t, i, j) : 0);
                    ASSERT_EQ(at(p.c, t, i, j), want) << t << "," << i << "," << j;
                    written[static_cast<std::size_t>(t * p.c.batch_stride + i * p.c.row_stride + j * p.c.col_stride)] =
                        true;
                  }
              // Nothing else in C's buffer changed.
              for (std::size_t x = 0; x < bc.size(); ++x)
                if (!written[x]) ASSERT_EQ(bc[x], before[x]) << x;
            }
  EXPECT_GT(taken, 400);
}

TEST(CublasLayout, LayoutsCublasCannotTakeAreRefused) {
  std::vector<double> ba, bb, bc, be;
  gemm_problem p;
  p.type = kernel::detail::blas_type::float64;
  p.batch = 2;
  p.a = laid_out(ba, 2, 4, 3, layout::row_major);
  p.b = laid_out(bb, 2, 3, 5, layout::column_major);
  p.c = laid_out(bc, 2, 4, 5, layout::row_major);
  ASSERT_TRUE(kernel::detail::cublas_gemm_of(p).has_value());
  // Negative and zero strides.
  gemm_problem q = p;
  q.a.col_stride = -1;
  q.a.data = ba.data() + 2;
  EXPECT_FALSE(kernel::detail::cublas_gemm_of(q).has_value());
  q = p;
  q.b.row_stride = 0;
  EXPECT_FALSE(kernel::detail::cublas_gemm_of(q).has_value());
  // Items of C's batch over each other.
  q = p;
  q.c.batch_stride = 3;
  EXPECT_FALSE(kernel::detail::cublas_gemm_of(q).has_value());
  // A batch stepped through backwards.
  q = p;
  q.a.batch_stride = -q.a.batch_stride;
  q.a.data = ba.data() + p.a.batch_stride;
  EXPECT_FALSE(kernel::detail::cublas_gemm_of(q).has_value());
  q = p;
  q.c.batch_stride = -q.c.batch_stride;
  q.c.data = bc.data() + p.c.batch_stride;
  EXPECT_FALSE(kernel::detail::cublas_gemm_of(q).has_value());
  // An E apart from C (it would have to be copied into C first).
  q = p;
  q.e = laid_out(be, 2, 4, 5, layout::row_major);
  q.beta = {1, 0};
  EXPECT_FALSE(kernel::detail::cublas_gemm_of(q).has_value());
  // Nothing to multiply: k = 0 (C = beta E, the caller's).
  q = p;
  q.a.cols = q.b.rows = 0;
  EXPECT_FALSE(kernel::detail::cublas_gemm_of(q).has_value());
  // Sizes past cuBLAS's int.
  q = p;
  q.batch = 1;
  q.c.rows = q.a.rows = index_t{1} << 31;
  q.a.row_stride = 3;
  q.c.row_stride = 5;
  EXPECT_FALSE(kernel::detail::cublas_gemm_of(q).has_value());
}

// cuBLAS conjugates an operand only with a transpose (CUBLAS_OP_C): a conjugated operand is
// taken where its layout is the transpose of a column-major matrix, after C's own transpose
// swapped A and B; else, and for an E read conjugated, the library's kernel runs it.
TEST(CublasLayout, ConjugatedOperandsNeedATranspose) {
  std::vector<double> ba, bb, bc;
  gemm_problem p;
  p.type = kernel::detail::blas_type::complex128;
  p.a = laid_out(ba, 1, 4, 3, layout::column_major);
  p.b = laid_out(bb, 1, 3, 5, layout::row_major);
  p.c = laid_out(bc, 1, 4, 5, layout::column_major);
  // C column-major: A is read as it is (no transpose), B as a transpose.
  gemm_problem q = p;
  q.conj_b = true;
  auto g = kernel::detail::cublas_gemm_of(q);
  ASSERT_TRUE(g.has_value());
  EXPECT_TRUE(g->b.transposed && g->b.conjugated);
  EXPECT_FALSE(g->a.transposed || g->a.conjugated);
  q = p;
  q.conj_a = true;
  EXPECT_FALSE(kernel::detail::cublas_gemm_of(q).has_value());
  // C row-major: computed as C^T = B^T A^T, where A^T of a column-major A is row-major, read
  // as a transpose, so A's conjugation is taken.
  q = p;
  q.c = laid_out(bc, 1, 4, 5, layout::row_major);
  q.conj_a = true;
  g = kernel::detail::cublas_gemm_of(q);
  ASSERT_TRUE(g.has_value());
  EXPECT_TRUE(g->b.transposed && g->b.conjugated); // A^T is cuBLAS's B
  q.conj_a = false;
  q.conj_b = true; // B row-major is B^T column-major, read as it is: no transpose to conjugate with
  EXPECT_FALSE(kernel::detail::cublas_gemm_of(q).has_value());
  q = p;
  q.e = q.c;
  q.beta = {1, 0};
  ASSERT_TRUE(kernel::detail::cublas_gemm_of(q).has_value());
  q.conj_e = true;
  EXPECT_FALSE(kernel::detail::cublas_gemm_of(q).has_value());
}

TEST(CublasLayout, VectorIncrements) {
  using kernel::detail::blas_vector;
  using kernel::detail::cublas_increment;
  double x[8] = {};
  EXPECT_EQ(cublas_increment(blas_vector{x, 8, 1}), 1);
  EXPECT_EQ(cublas_increment(blas_vector{x, 4, 2}), 2);
  EXPECT_EQ(cublas_increment(blas_vector{x, 1, -3}), 1); // one element: no stride is used
  // Backwards, broadcast, empty, past int: the library's kernel.
  EXPECT_FALSE(cublas_increment(blas_vector{x + 7, 8, -1}).has_value());
  EXPECT_FALSE(cublas_increment(blas_vector{x, 8, 0}).has_value());
  EXPECT_FALSE(cublas_increment(blas_vector{x, 0, 1}).has_value());
  EXPECT_FALSE(cublas_increment(blas_vector{x, index_t{1} << 31, 1}).has_value());
  EXPECT_FALSE(cublas_increment(blas_vector{x, 2, index_t{1} << 31}).has_value());
}

// libcublas is looked for where KERNEL_CUBLAS_LIBRARY says: a missing file and a library
// without cuBLAS's functions are target_unavailable_error naming the call and the path.
TEST(CublasLibrary, MissingOrWrongLibrary) {
  kernel_test::scoped_environment library("KERNEL_CUBLAS_LIBRARY", nullptr);
  for (const char *where : {"/nonexistent/libcublas.so.13", "libm.so.6"}) {
    library.set(where);
    try {
      kernel::detail::cublas_require("matrix_product");
      ADD_FAILURE() << "cuBLAS loaded from " << where;
    } catch (const kernel::target_unavailable_error &e) {
      const std::string m = e.what();
      EXPECT_EQ(
          m.rfind("matrix_product of CUDA memory needs cuBLAS, which could not be loaded from " + std::string(where),
                  0),
          0u)
          << m;
      EXPECT_NE(m.find("KERNEL_CUBLAS_LIBRARY"), std::string::npos) << m;
    }
  }
  library.set(nullptr);
}

// The toolkit's libcublas (and its libcublasLt beside it) loads without a GPU.
TEST(CublasLibrary, TheToolkitsLoads) { EXPECT_NO_THROW(kernel::detail::cublas_require("matrix_product")); }

} // namespace
