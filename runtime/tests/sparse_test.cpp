// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel/sparse.h on cpu, parallel and the device against dense matrices computed here:
// conversions both ways (host and device), products by vectors and matrices of every layout,
// scaled and accumulated, every value type and both index types, repeated and unsorted COO
// entries, empty shapes, and the error paths (bad structure, shapes, overlaps), after which
// the user's arrays hold what they held.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "kernel/fuse.h"
#include "kernel/sparse.h"
#include "kernel/ufunc.h"
#include "test_device.h"

namespace {

namespace sp = kernel::sparse;
namespace la = kernel::linalg;
using kernel::index_t;
using cf = std::complex<float>;
using cd = std::complex<double>;

/// About a third of the elements nonzero, row 1 and column 2 empty, deterministic.
template <class T> T element(index_t i, index_t j, int salt = 0) {
  if (i == 1 || j == 2 || (i * 5 + j * 3 + salt) % 3 != 0) return T(0);
  const double re = static_cast<double>((i * 7 + j * 13 + salt) % 11) / 4 - 1.3;
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(re);
  else
    return T(static_cast<typename T::value_type>(re), static_cast<typename T::value_type>((i + 2 * j) % 5) / 2);
}

template <class T> kernel::ndarray<T, 2> dense(index_t rows, index_t cols, int salt = 0) {
  kernel::ndarray<T, 2> d({rows, cols});
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j) d(i, j) = element<T>(i, j, salt);
  return d;
}

template <class T> T vec_value(index_t i) {
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(static_cast<double>(i % 7) / 3 - 1);
  else
    return T(static_cast<typename T::value_type>(i % 7) / 3 - 1, static_cast<typename T::value_type>(i % 4) / 2);
}

template <class T> double tolerance() { return std::is_same_v<T, float> || std::is_same_v<T, cf> ? 1e-5 : 1e-12; }

template <class T> double error(T got, T want) { return std::abs(cd(got) - cd(want)) / (1 + std::abs(cd(want))); }

template <class T, class A> void expect_dense_equal(const A &got, const kernel::ndarray<T, 2> &want) {
  ASSERT_EQ(got.shape(0), want.shape(0));
  ASSERT_EQ(got.shape(1), want.shape(1));
  for (index_t i = 0; i < want.shape(0); ++i)
    for (index_t j = 0; j < want.shape(1); ++j) ASSERT_EQ(got(i, j), want(i, j)) << "at " << i << ", " << j;
}

enum class where { cpu, parallel, device };
constexpr where all_places[] = {where::cpu, where::parallel, where::device};
std::string place_name(where w) { return w == where::cpu ? "cpu" : w == where::parallel ? "parallel" : "device"; }

template <class F> auto placed(const F &f, where w) {
  if (w == where::cpu) return f.on(kernel::target::cpu);
  if (w == where::parallel) return f.on(kernel::target::parallel);
  return f.on(kernel_test::device());
}

template <class T> class SparseTyped : public ::testing::Test {};
using value_types = ::testing::Types<float, double, cf, cd>;
TYPED_TEST_SUITE(SparseTyped, value_types);

TYPED_TEST(SparseTyped, DenseRoundTripsThroughCsrAndCoo) {
  using T = TypeParam;
  const auto d = dense<T>(37, 29);
  const auto a = sp::csr_from_dense(d);
  EXPECT_EQ(a.rows(), 37);
  EXPECT_EQ(a.cols(), 29);
  index_t nonzero = 0;
  for (index_t i = 0; i < 37; ++i)
    for (index_t j = 0; j < 29; ++j) nonzero += d(i, j) != T(0);
  EXPECT_EQ(a.nnz(), nonzero);
  EXPECT_EQ(a.row_offsets()(2) - a.row_offsets()(1), 0); // the empty row
  for (where w : all_places) {
    SCOPED_TRACE(place_name(w));
    expect_dense_equal(placed(sp::to_dense, w)(a), d);
    const auto c = sp::coo_from_dense(d);
    EXPECT_EQ(c.nnz(), nonzero);
    expect_dense_equal(placed(sp::to_dense, w)(c), d);
  }
  // Into a Fortran-ordered view, over stale values.
  std::vector<T> memory(37 * 29, T(7));
  kernel::array_view<T, 2> fortran(memory.data(), {37, 29}, {1, 37});
  sp::to_dense(a, fortran);
  expect_dense_equal(fortran, d);
}

TYPED_TEST(SparseTyped, SpmvMatchesTheDenseProductEverywhere) {
  using T = TypeParam;
  const index_t m = 67, n = 45;
  const auto d = dense<T>(m, n, 1);
  const auto a = sp::csr_from_dense(d);
  // x read every second element; y written backwards; z accumulated.
  std::vector<T> xs(2 * n);
  for (index_t i = 0; i < n; ++i) xs[2 * i] = vec_value<T>(i);
  kernel::array_view<const T, 1> x(xs.data(), {n}, {2});
  std::vector<T> zs(m);
  for (index_t i = 0; i < m; ++i) zs[i] = vec_value<T>(i + 3);
  const T alpha(2), beta(-0.5);
  for (where w : all_places) {
    SCOPED_TRACE(place_name(w));
    std::vector<T> ys(m, T(99));
    kernel::array_view<T, 1> y(ys.data() + m - 1, {m}, {-1});
    placed(sp::spmv, w)(la::scaled(alpha, a), x, la::scaled(beta, zs), y);
    for (index_t i = 0; i < m; ++i) {
      T want(0);
      for (index_t j = 0; j < n; ++j) want += d(i, j) * x(j);
      want = alpha * want + beta * zs[i];
      EXPECT_LT(error(y(i), want), tolerance<T>()) << i;
    }
    // The returning form and y = A x + y.
    const auto r = placed(sp::spmv, w)(a, x);
    std::vector<T> acc(r.data(), r.data() + m);
    placed(sp::spmv, w)(a, x, acc, acc);
    for (index_t i = 0; i < m; ++i) EXPECT_LT(error(acc[i], T(2) * r(i)), tolerance<T>());
  }
}

TYPED_TEST(SparseTyped, SpmmMatchesTheDenseProductForEveryLayout) {
  using T = TypeParam;
  const index_t m = 23, k = 31, n = 19;
  const auto d = dense<T>(m, k, 2);
  const auto a = sp::csr_from_dense(d, sp::index64);
  std::vector<T> bmem(k * n);
  kernel::array_view<T, 2> b_c(bmem.data(), {k, n}, {n, 1});
  kernel::array_view<T, 2> b_f(bmem.data(), {k, n}, {1, k});
  for (index_t i = 0; i < k * n; ++i) bmem[i] = vec_value<T>(i);
  for (where w : all_places)
    for (const auto &b : {b_c, b_f}) {
      SCOPED_TRACE(place_name(w));
      std::vector<T> cmem(m * n, T(5));
      kernel::array_view<T, 2> c(cmem.data(), {m, n}, {1, m}); // Fortran order
      placed(sp::spmm, w)(a, b, la::scaled(T(3), c), c);       // C = A B + 3 C
      for (index_t i = 0; i < m; ++i)
        for (index_t j = 0; j < n; ++j) {
          T want(0);
          for (index_t q = 0; q < k; ++q) want += d(i, q) * b(q, j);
          EXPECT_LT(error(c(i, j), want + T(15)), tolerance<T>()) << i << ", " << j;
        }
      const auto r = placed(sp::spmm, w)(a, b);
      for (index_t i = 0; i < m; ++i)
        for (index_t j = 0; j < n; ++j) EXPECT_LT(error(r(i, j) + T(15), c(i, j)), tolerance<T>());
    }
}

/// The values of a host or device array (a device array's memory may not be the host's).
template <class A> std::vector<typename A::value_type> to_vector(const A &a) {
  if constexpr (requires { a.copy_to_host(); }) {
    const auto h = a.copy_to_host();
    return std::vector<typename A::value_type>(h.data(), h.data() + h.size());
  } else {
    return std::vector<typename A::value_type>(a.data(), a.data() + a.size());
  }
}

[[kernel::vectorize("float32(float32, float32)")]] float times(float x, float a) { return x * a; }
constexpr kernel::ufunc<times> vtimes;

// A lazy expression is accepted as x, z, B or E, on every target.
TEST(Sparse, ExpressionOperands) {
  for (const kernel::target t : {kernel::target::cpu, kernel::target::parallel, kernel_test::target()}) {
    const auto m = sp::csr_from_dense.on(t)(dense<float>(7, 5));
    std::vector<float> x(5), x2(5);
    for (index_t i = 0; i < 5; ++i) x[static_cast<std::size_t>(i)] = vec_value<float>(i);
    for (index_t i = 0; i < 5; ++i) x2[static_cast<std::size_t>(i)] = 2.0f * x[static_cast<std::size_t>(i)];
    const auto e = vtimes(kernel::lazy(x), 2.0f);
    const auto want = sp::spmv.on(t)(m, x2);
    EXPECT_EQ(to_vector(sp::spmv.on(t)(m, e)), to_vector(want)) << kernel::target_name(t);
    std::vector<float> y(7, 0.0f);
    sp::spmv.on(t)(m, e, vtimes(kernel::lazy(to_vector(want)), 1.0f), y);
    EXPECT_EQ(y[0], 2 * want[0]);
    const kernel::ndarray<float, 2> b = dense<float>(5, 3, 1);
    kernel::ndarray<float, 2> b2({5, 3});
    for (index_t i = 0; i < 15; ++i) b2.data()[i] = 2.0f * b.data()[i];
    const auto c = sp::spmm.on(t)(m, vtimes(kernel::lazy(b), 2.0f));
    expect_dense_equal<float>(c, sp::spmm.on(t)(m, b2));
  }
}

// As BLAS: y or C scaled by 0 is not read, so a NaN or infinity there does not reach the
// result, on every target (cuSPARSE's products included), as in kernel/linalg.h's products.
TEST(Sparse, AnAddendScaledByZeroIsNotRead) {
  const auto d = dense<float>(6, 5, 1);
  const auto a = sp::csr_from_dense(d);
  const auto c = sp::coo_from_dense(d);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x(5);
  for (index_t j = 0; j < 5; ++j) x[j] = vec_value<float>(j);
  kernel::ndarray<float, 2> b({5, 3});
  for (index_t i = 0; i < 5; ++i)
    for (index_t j = 0; j < 3; ++j) b(i, j) = vec_value<float>(i * 3 + j);
  for (where w : all_places) {
    SCOPED_TRACE(place_name(w));
    std::vector<float> y(6, nan), z(6, INFINITY);
    placed(sp::spmv, w)(a, x, la::scaled(0.0f, y), y);
    placed(sp::spmv, w)(la::scaled(2.0f, c), x, la::scaled(0.0f, y), z);
    kernel::ndarray<float, 2> cm({6, 3});
    std::fill(cm.data(), cm.data() + cm.size(), nan);
    placed(sp::spmm, w)(a, b, la::scaled(0.0f, cm), cm);
    for (index_t i = 0; i < 6; ++i) {
      float want = 0;
      for (index_t j = 0; j < 5; ++j) want += d(i, j) * x[j];
      EXPECT_NEAR(y[i], want, 1e-5) << i;
      EXPECT_NEAR(z[i], 2 * want, 1e-5) << i;
      for (index_t j = 0; j < 3; ++j) {
        float e = 0;
        for (index_t q = 0; q < 5; ++q) e += d(i, q) * b(q, j);
        EXPECT_NEAR(cm(i, j), e, 1e-5) << i << "," << j;
      }
    }
  }
}

// As BLAS: a product scaled by 0 is not taken, so NaNs in A, x or B do not reach the result,
// on every target (cuSPARSE's products included).
TEST(Sparse, AProductScaledByZeroIsNotTaken) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto d = dense<float>(6, 5, 1);
  d(2, 3) = nan;
  const auto a = sp::csr_from_dense(d);
  std::vector<float> x(5, nan), z(6, 1.5f);
  kernel::ndarray<float, 2> b({5, 3});
  std::fill(b.data(), b.data() + b.size(), INFINITY);
  for (where w : all_places) {
    SCOPED_TRACE(place_name(w));
    std::vector<float> y(6, -1.0f);
    placed(sp::spmv, w)(la::scaled(0.0f, a), x, y);
    EXPECT_EQ(y, std::vector<float>(6, 0.0f));
    placed(sp::spmv, w)(la::scaled(0.0f, a), x, la::scaled(2.0f, z), y);
    EXPECT_EQ(y, std::vector<float>(6, 3.0f));
    kernel::ndarray<float, 2> cm({6, 3});
    placed(sp::spmm, w)(a, la::scaled(0.0f, b), cm);
    for (index_t i = 0; i < cm.size(); ++i) EXPECT_EQ(cm.data()[i], 0.0f) << i;
  }
}

// The values can be changed where they are; their number cannot (the structure counts them).
TEST(Sparse, ValuesChangeInPlaceOnly) {
  auto a = sp::csr_from_dense(dense<float>(6, 5, 1));
  static_assert(!std::is_reference_v<decltype(a.values())>, "values() of a matrix is a view, not its array");
  const index_t nnz = a.nnz();
  a.values()(0) = 42;
  auto v = a.values();
  v = kernel::array_view<float, 1>(); // rebinds the view, not the matrix's array
  EXPECT_EQ(a.nnz(), nnz);
  EXPECT_EQ(std::as_const(a).values()(0), 42);
  auto da = a.to_device(kernel_test::device());
  static_assert(std::is_same_v<decltype(da.values()), kernel::device_view<float, 1>>);
  EXPECT_EQ(da.values().size(), nnz);
}

TEST(Sparse, CooEntriesInAnyOrderWithRepeatsAddUp) {
  // (2, 1) three times, rows out of order, an empty last row.
  const std::vector<int> rows{2, 0, 2, 3, 2, 0};
  const std::vector<long> cols{1, 4, 1, 0, 1, 2};
  const std::vector<double> vals{1, 2, 3, 4, 5, 6};
  const sp::coo_matrix<double> c(5, 5, rows, cols, vals);
  kernel::ndarray<double, 2> want({5, 5});
  want(2, 1) = 9;
  want(0, 4) = 2;
  want(3, 0) = 4;
  want(0, 2) = 6;
  for (where w : all_places) {
    SCOPED_TRACE(place_name(w));
    expect_dense_equal(placed(sp::to_dense, w)(c), want);
    const std::vector<double> x{1, 10, 100, 1000, 10000};
    const auto y = placed(sp::spmv, w)(c, x);
    EXPECT_EQ(y(0), 20000 + 600);
    EXPECT_EQ(y(2), 90);
    EXPECT_EQ(y(4), 0);
  }
  const auto a = sp::to_csr(c);
  const std::vector<int> offsets{0, 2, 2, 5, 6, 6};
  for (index_t r = 0; r <= 5; ++r) EXPECT_EQ(a.row_offsets()(r), offsets[r]);
  // Stable: row 0 keeps (0, 4) before (0, 2); the repeats stay in their order.
  EXPECT_EQ(a.column_indices()(0), 4);
  EXPECT_EQ(a.values()(2), 1);
  EXPECT_EQ(a.values()(4), 5);
  // The device conversion makes the same arrays.
  const auto da = sp::to_csr(c.to_device(kernel_test::device())).copy_to_host();
  for (index_t r = 0; r <= 5; ++r) EXPECT_EQ(da.row_offsets()(r), offsets[r]);
  for (index_t k = 0; k < 6; ++k) {
    EXPECT_EQ(da.column_indices()(k), a.column_indices()(k));
    EXPECT_EQ(da.values()(k), a.values()(k));
  }
}

TEST(Sparse, TransposeSortsColumnsAndMatchesTheDenseTranspose) {
  const auto d = dense<float>(41, 17, 3);
  kernel::ndarray<float, 2> dt({17, 41});
  for (index_t i = 0; i < 41; ++i)
    for (index_t j = 0; j < 17; ++j) dt(j, i) = d(i, j);
  const auto a = sp::csr_from_dense(d);
  for (const auto &t : {sp::transpose(a), sp::transpose(a.to_device(kernel_test::device())).copy_to_host()}) {
    EXPECT_EQ(t.rows(), 17);
    expect_dense_equal(sp::to_dense(t), dt);
    for (index_t r = 0; r < t.rows(); ++r)
      for (index_t k = t.row_offsets()(r) + 1; k < t.row_offsets()(r + 1); ++k)
        EXPECT_LT(t.column_indices()(k - 1), t.column_indices()(k));
  }
  expect_dense_equal(sp::to_dense(sp::transpose(sp::coo_from_dense(d))), dt);
  expect_dense_equal(sp::to_dense(sp::to_coo(sp::transpose(a))), dt);
}

// A matrix moved from (construction or assignment) is left with no shape, as into_arrays
// leaves one: its shape described arrays it no longer had, and a product read past them.
TEST(Sparse, MovedFromMatricesHaveNoShape) {
  sp::csr_matrix<float> a(3, 4, std::vector<int>{0, 1, 2, 3}, std::vector<int>{0, 1, 2}, std::vector<float>{1, 2, 3});
  sp::csr_matrix<float> b = std::move(a);
  EXPECT_EQ(a.shape(), (std::array<index_t, 2>{0, 0}));
  EXPECT_FALSE(a.has_canonical_format());
  EXPECT_EQ(sp::spmv(a, std::vector<float>{}).size(), 0);
  EXPECT_THROW(sp::spmv(a, std::vector<float>{1, 1, 1, 1}), kernel::argument_error);
  EXPECT_EQ(sp::to_dense(a).size(), 0);
  sp::coo_matrix<float> c(2, 2, std::vector<int>{0, 1}, std::vector<int>{1, 0}, std::vector<float>{5, 6});
  sp::coo_matrix<float> d(1, 1, std::vector<int>{}, std::vector<int>{}, std::vector<float>{});
  d = std::move(c);
  EXPECT_EQ(c.shape(), (std::array<index_t, 2>{0, 0}));
  EXPECT_EQ(sp::to_dense(c).size(), 0);
  const auto y = sp::spmv(b, std::vector<float>{1, 1, 1, 1});
  EXPECT_EQ(std::vector<float>(y.begin(), y.end()), (std::vector<float>{1, 2, 3}));
  const auto dense_d = sp::to_dense(d);
  EXPECT_EQ(dense_d(0, 1), 5.0f);
  EXPECT_EQ(dense_d(1, 0), 6.0f);
}

TEST(Sparse, DeviceMatricesStayOnTheirDevice) {
  const kernel::device dev = kernel_test::device();
  const index_t m = 300, n = 200;
  const auto d = dense<float>(m, n, 4);
  const auto host = sp::csr_from_dense(d);
  // Built on the device from a device array: the same arrays as the host conversion.
  const auto dd = kernel::to_device(d, dev);
  const sp::device_csr_matrix<float> a = sp::csr_from_dense(dd);
  const auto back = a.copy_to_host();
  ASSERT_EQ(back.nnz(), host.nnz());
  for (index_t r = 0; r <= m; ++r) ASSERT_EQ(back.row_offsets()(r), host.row_offsets()(r));
  for (index_t k = 0; k < host.nnz(); ++k) {
    ASSERT_EQ(back.column_indices()(k), host.column_indices()(k));
    ASSERT_EQ(back.values()(k), host.values()(k));
  }
  const sp::device_coo_matrix<float> c = sp::coo_from_dense(dd);
  expect_dense_equal(sp::to_dense(c).copy_to_host(), d);
  // Products of device operands are device arrays, equal to the host's to rounding.
  std::vector<float> xs(n);
  for (index_t i = 0; i < n; ++i) xs[i] = vec_value<float>(i);
  const auto dx = kernel::to_device(xs, dev);
  kernel::device_array<float, 1> y = sp::spmv(a, dx);
  const auto want = sp::spmv(host, xs);
  const auto got = y.copy_to_host();
  for (index_t i = 0; i < m; ++i) EXPECT_LT(error(got(i), want(i)), 1e-5);
  // A long-row matrix: a warp per row on the device.
  const auto wide = dense<double>(8, 5000, 5);
  const auto wa = sp::csr_from_dense(wide).to_device(dev);
  std::vector<double> wx(5000);
  for (index_t i = 0; i < 5000; ++i) wx[i] = vec_value<double>(i);
  const auto wy = sp::spmv(wa, kernel::to_device(wx, dev)).copy_to_host();
  const auto wh = sp::spmv(sp::csr_from_dense(wide), wx);
  for (index_t i = 0; i < 8; ++i) EXPECT_LT(error(wy(i), wh(i)), 1e-12);
  // On a stream.
  kernel::stream s(dev);
  auto ys = sp::spmv.on(s)(a, dx);
  s.synchronize();
  const auto ysh = ys.copy_to_host();
  // (cuSPARSE on a GPU promises equal results to rounding only.)
  for (index_t i = 0; i < m; ++i) EXPECT_LT(error(ysh(i), got(i)), 1e-6);
}

// The canonical format (each row's columns strictly increasing), which cuSPARSE needs, is
// found by the structure check on the host and on a device, and kept by copies and
// transposes; conversions from COO do not claim it.
TEST(Sparse, CanonicalFormatIsKnownWhereItHolds) {
  const kernel::device dev = kernel_test::device();
  const std::vector<int> offsets{0, 2, 2, 5};
  const std::vector<float> values{1, 2, 3, 4, 5};
  const auto checked = [&](std::vector<int> columns) {
    sp::csr_matrix<float> host(3, 6, offsets, columns, values);
    sp::device_csr_matrix<float> device(3, 6, kernel::to_device(offsets, dev), kernel::to_device(columns, dev),
                                        kernel::to_device(values, dev));
    EXPECT_EQ(host.has_canonical_format(), device.has_canonical_format());
    return host.has_canonical_format();
  };
  EXPECT_TRUE(checked({1, 4, 0, 2, 5}));
  EXPECT_FALSE(checked({4, 1, 0, 2, 5})); // unsorted in row 0
  EXPECT_FALSE(checked({1, 4, 0, 2, 2})); // a coordinate twice in row 2
  EXPECT_TRUE(checked({0, 5, 0, 1, 2}));  // each row sorted on its own
  const sp::csr_matrix<float> unsorted(3, 6, offsets, std::vector<int>{4, 1, 0, 2, 5}, values);
  EXPECT_FALSE(unsorted.to_device(dev).copy_to_host().has_canonical_format());
  // Sorted by transposing, but a coordinate given twice would stay twice: not claimed.
  EXPECT_FALSE(sp::transpose(unsorted).has_canonical_format());

  const auto a = sp::csr_from_dense(dense<double>(9, 7));
  EXPECT_TRUE(a.has_canonical_format());
  EXPECT_TRUE(a.to_device(dev).has_canonical_format());
  EXPECT_TRUE(a.to_device(dev).copy_to_host().has_canonical_format());
  EXPECT_TRUE(sp::to_csr(a.to_device(dev)).has_canonical_format());
  EXPECT_TRUE(sp::transpose(a).has_canonical_format());
  EXPECT_TRUE(sp::transpose(a.to_device(dev)).has_canonical_format());
  EXPECT_TRUE(sp::csr_from_dense(kernel::to_device(dense<float>(5, 8), dev)).has_canonical_format());
  EXPECT_FALSE(sp::to_csr(sp::coo_from_dense(dense<double>(9, 7))).has_canonical_format());
}

TEST(Sparse, EmptyShapesAndMatricesWithoutEntries) {
  for (where w : all_places) {
    SCOPED_TRACE(place_name(w));
    const sp::csr_matrix<float> none(0, 4, std::vector<int>{0}, std::vector<int>{}, std::vector<float>{});
    EXPECT_EQ(placed(sp::spmv, w)(none, std::vector<float>(4, 1.0f)).size(), 0);
    EXPECT_EQ(placed(sp::to_dense, w)(none).size(), 0);
    const auto zero = sp::csr_from_dense(kernel::ndarray<float, 2>({6, 3}));
    EXPECT_EQ(zero.nnz(), 0);
    const auto y = placed(sp::spmv, w)(zero, std::vector<float>(3, 1.0f));
    for (index_t i = 0; i < 6; ++i) EXPECT_EQ(y(i), 0.0f);
    const auto thin = sp::csr_from_dense(kernel::ndarray<float, 2>({5, 0}));
    EXPECT_EQ(thin.rows(), 5);
    EXPECT_EQ(placed(sp::spmm, w)(thin, kernel::ndarray<float, 2>({0, 3})).shape(0), 5);
  }
  // NaN is a value like any other; -0.0 is zero, as in SciPy.
  kernel::ndarray<double, 2> odd({2, 3});
  odd(0, 1) = std::numeric_limits<double>::quiet_NaN();
  odd(1, 2) = -0.0;
  odd(1, 0) = 4;
  for (const auto &a :
       {sp::csr_from_dense(odd), sp::csr_from_dense(kernel::to_device(odd, kernel_test::device())).copy_to_host()}) {
    ASSERT_EQ(a.nnz(), 2);
    EXPECT_EQ(a.column_indices()(0), 1);
    EXPECT_TRUE(std::isnan(a.values()(0)));
    EXPECT_EQ(a.column_indices()(1), 0);
  }
  const auto dz = sp::csr_from_dense(kernel::device_array<float, 2>({0, 3}, kernel_test::device()));
  EXPECT_EQ(dz.rows(), 0);
  EXPECT_EQ(dz.nnz(), 0);
}

template <class F> std::string message_of(F &&f) {
  try {
    f();
  } catch (const kernel::argument_error &e) {
    return e.what();
  }
  return "no argument_error";
}

/// `text` is part of the message of the argument_error that `f` throws.
template <class F> void expect_error(F &&f, const std::string &text) {
  const std::string m = message_of(f);
  EXPECT_NE(m.find(text), std::string::npos) << "message: " << m;
}

TEST(Sparse, BadStructureIsRejectedOnTheHostAndOnTheDevice) {
  const std::vector<float> v3{1, 2, 3};
  const auto csr = [&](std::vector<int> offsets, std::vector<int> cols, const std::string &text) {
    expect_error([&] { sp::csr_matrix<float>(3, 4, offsets, cols, v3); }, text);
  };
  csr({0, 1, 2}, {0, 1, 2}, "has 3 offsets but a matrix of 3 rows needs 4");
  // No rows, and values: the one offset starts right but does not end at their number.
  expect_error([&] { sp::csr_matrix<float>(0, 4, std::vector<int>{0}, std::vector<int>{0}, std::vector<float>{1}); },
               "ends at row offset 0 (position 0, after 0 rows) but there are 1 values");
  csr({1, 1, 2, 3}, {0, 1, 2}, "argument 3: has row offset 1 at position 0: the offsets start at 0");
  csr({0, 2, 1, 3}, {0, 1, 2},
      "argument 3: has row offset 1 at position 2, below the one before it (2): offsets never decrease");
  csr({0, 1, 5, 3}, {0, 1, 2}, "argument 3: has row offset 5 at position 2, outside 0 to 3 (the number of values)");
  csr({0, 1, 2, 2}, {0, 1, 2},
      "argument 3: ends at row offset 2 (position 3, after 3 rows) but there are 3 values: the offsets end at the "
      "number of values");
  csr({0, 1, 2, 3}, {0, 4, 2}, "argument 4: has a column index outside the matrix at position 1");
  csr({0, 1, 2, 3}, {0, 1, -1}, "position 2");
  csr({0, 1, 2, 3}, {0, 1}, "has 2 column indices for 3 values");
  // Where the offsets agree with the column indices, the values are the array that is wrong.
  expect_error(
      [&] {
        sp::csr_matrix<float>(3, 4, std::vector<int>{0, 1, 2, 3}, std::vector<int>{0, 1, 2}, std::vector<float>{1, 2});
      },
      "argument 5: has 2 values for 3 column indices (and row offsets ending at 3)");
  expect_error(
      [&] {
        sp::coo_matrix<float>(3, 4, std::vector<int>{0, 1, 2}, std::vector<int>{0, 1, 2}, std::vector<float>{1, 2});
      },
      "argument 5: has 2 values for 3 column indices (and 3 row indices)");
  // Indices that int32 cannot hold, and more rows than it can count.
  expect_error(
      [&] {
        sp::csr_matrix<float>(3, 4, std::vector<std::int64_t>{0, 1, 2, std::int64_t{1} << 40},
                              std::vector<int>{0, 1, 2}, v3);
      },
      "which int32 cannot hold");
  expect_error(
      [&] {
        sp::csr_matrix<float>(index_t{3} << 31, 4, std::vector<int>{0}, std::vector<int>{}, std::vector<float>{});
      },
      "index64");
  // Extents of any integer type, as given: a negative one, and a -1 that went through size_t.
  expect_error([&] { sp::csr_matrix<float>(-1, 4, std::vector<int>{0}, std::vector<int>{}, std::vector<float>{}); },
               "'csr_matrix': argument 1: is -1: rows cannot be negative");
  expect_error(
      [&] {
        sp::coo_matrix<float>(std::size_t{3}, static_cast<std::size_t>(-1), std::vector<int>{}, std::vector<int>{},
                              std::vector<float>{});
      },
      "'coo_matrix': argument 2: columns 18446744073709551615 is out of range");
  enum extent : short { three = 3 };
  const sp::coo_matrix<float> shaped(three, std::uint8_t{4}, std::vector<int>{0, 2}, std::vector<int>{3, 1},
                                     std::vector<float>{1, 2});
  EXPECT_EQ(shaped.shape(), (std::array<index_t, 2>{3, 4}));
  const auto coo = [&](std::vector<int> rows, std::vector<int> cols, const std::string &text) {
    expect_error([&] { sp::coo_matrix<float>(3, 4, rows, cols, v3); }, text);
  };
  coo({0, 3, 1}, {0, 1, 2}, "argument 3: has a row index outside the matrix at position 1");
  coo({0, 1, 1}, {0, 1, 9}, "position 2");
  coo({0, 1}, {0, 1, 2}, "has 2 indices for 3 values");
  // The same checks on the device, over device arrays.
  const kernel::device dev = kernel_test::device();
  const auto dcsr = [&](std::vector<int> offsets, std::vector<int> cols, const std::string &text) {
    expect_error(
        [&] {
          sp::device_csr_matrix<float>(3, 4, kernel::to_device(offsets, dev), kernel::to_device(cols, dev),
                                       kernel::to_device(v3, dev));
        },
        text);
  };
  dcsr({0, 2, 1, 3}, {0, 1, 2}, "has row offset 1 at position 2, below the one before it (2)");
  dcsr({1, 1, 2, 3}, {0, 1, 2}, "has row offset 1 at position 0: the offsets start at 0");
  dcsr({0, 1, 2, 2}, {0, 1, 2}, "ends at row offset 2 (position 3, after 3 rows) but there are 3 values");
  dcsr({0, 1, 2, 3}, {0, 4, 2}, "column index outside the matrix at position 1");
  dcsr({0, 1, 2, 3}, {0, 1, 2}, "no argument_error");
  expect_error(
      [&] {
        sp::device_coo_matrix<float>(3, 4, kernel::to_device(std::vector<int>{0, 1, 5}, dev),
                                     kernel::to_device(std::vector<int>{0, 1, 2}, dev), kernel::to_device(v3, dev));
      },
      "row index outside the matrix at position 2");
  // A device matrix's arrays are on one device, each with one.
  expect_error(
      [&] {
        sp::device_coo_matrix<float>(3, 4, kernel::device_array<int, 1>{}, kernel::device_array<int, 1>{},
                                     kernel::device_array<float, 1>{});
      },
      "argument 3: is a device array without a device");
  if (kernel_test::on_gpu())
    expect_error(
        [&] {
          sp::device_csr_matrix<float>(3, 4, kernel::to_device(std::vector<int>{0, 1, 2, 3}, dev),
                                       kernel::to_device(std::vector<int>{0, 1, 2}, kernel::device::simulator()),
                                       kernel::to_device(v3, dev));
        },
        "argument 4: is on");
}

TEST(Sparse, BadOperandsAreRejectedAndLeaveTheResultsAlone) {
  const auto d = dense<float>(6, 4);
  const auto a = sp::csr_from_dense(d);
  for (where w : all_places) {
    SCOPED_TRACE(place_name(w));
    const auto spmv = placed(sp::spmv, w);
    std::vector<float> y(6, 42.0f);
    expect_error([&] { spmv(a, std::vector<float>(5), y); },
                 "'spmv': argument 2: has 5 elements but A is 6x4: x needs one per column of A");
    expect_error([&] { spmv(a, std::vector<float>(4), std::vector<float>(7)); },
                 "argument 3: has 7 elements but A is 6x4");
    std::vector<float> xy(10);
    kernel::array_view<float, 1> x_part(xy.data(), {4}), y_part(xy.data() + 3, {6});
    expect_error([&] { spmv(a, x_part, y_part); }, "overlaps argument 2");
    kernel::array_view<float, 1> y_zero(y.data(), {6}, {0});
    expect_error([&] { spmv(a, std::vector<float>(4), y_zero); }, "zero stride");
    expect_error([&] { spmv(a, std::vector<float>(4), std::vector<float>(3), y); },
                 "argument 3: has 3 elements but y has 6");
    for (float v : y) EXPECT_EQ(v, 42.0f);
    const auto spmm = placed(sp::spmm, w);
    kernel::ndarray<float, 2> c({6, 2}, 42.0f);
    expect_error([&] { spmm(a, kernel::ndarray<float, 2>({3, 2}), c); },
                 "argument 2: is 3x2 but A is 6x4: B needs as many rows as A has columns");
    expect_error([&] { spmm(a, kernel::ndarray<float, 2>({4, 3}), c); },
                 "argument 3: is 6x2 but the product of 6x4 and 4x3 is 6x3");
    expect_error([&] { placed(sp::to_dense, w)(a, c); }, "argument 2: is 6x2 but the matrix is 6x4");
    for (index_t i = 0; i < 6; ++i)
      for (index_t j = 0; j < 2; ++j) EXPECT_EQ(c(i, j), 42.0f);
  }
}

} // namespace
