// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel/linalg.h on cpu, parallel (OpenBLAS) and the device (the runtime's kernels) against
// products, dots and norms computed here by their definitions: every element type, operands
// in C order, Fortran order, with two non-unit strides and walking backwards, transposed and
// scaled operands, accumulation, batches, empty shapes, device arrays, and the error paths
// (shapes, overlaps, a missing OpenBLAS).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sys/mman.h>

#include "kernel/fuse.h"
#include "kernel/linalg.h"
#include "kernel/ufunc.h"
#include "scoped_environment.h"
#include "test_device.h"

namespace {

namespace la = kernel::linalg;
using kernel::index_t;
using cf = std::complex<float>;
using cd = std::complex<double>;

template <class T> T value(index_t i, index_t j, int salt) {
  const double re = static_cast<double>((i * 7 + j * 13 + salt * 5) % 17) / 8 - 1;
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(re);
  else
    return T(static_cast<typename T::value_type>(re),
             static_cast<typename T::value_type>(static_cast<double>((i * 3 + j * 11 + salt) % 7) / 4 - 0.75));
}

template <class T> double epsilon() {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, cf>)
    return 1.2e-7;
  else
    return 2.3e-16;
}

enum class layout { c_order, fortran, strided, backwards };
constexpr layout all_layouts[] = {layout::c_order, layout::fortran, layout::strided, layout::backwards};

/// A rows x cols matrix stored in `how`, element (i, j) = value(i, j, salt).
template <class T> struct stored_matrix {
  std::vector<T> memory;
  kernel::array_view<T, 2> view;

  stored_matrix(index_t rows, index_t cols, layout how, int salt) {
    const index_t size = std::max<index_t>(rows * cols, 1);
    switch (how) {
    case layout::c_order:
      memory.resize(static_cast<std::size_t>(size));
      view = kernel::array_view<T, 2>(memory.data(), {rows, cols}, {cols, 1});
      break;
    case layout::fortran:
      memory.resize(static_cast<std::size_t>(size));
      view = kernel::array_view<T, 2>(memory.data(), {rows, cols}, {1, rows});
      break;
    case layout::strided: // rows 2 cols + 1 apart, columns 2 apart: OpenBLAS gets a copy
      memory.resize(static_cast<std::size_t>(std::max<index_t>(rows * (2 * cols + 1), 1)));
      view = kernel::array_view<T, 2>(memory.data(), {rows, cols}, {2 * cols + 1, 2});
      break;
    case layout::backwards: // the last row first
      memory.resize(static_cast<std::size_t>(size));
      view = kernel::array_view<T, 2>(memory.data() + (rows > 0 ? (rows - 1) * cols : 0), {rows, cols}, {-cols, 1});
      break;
    }
    for (index_t i = 0; i < rows; ++i)
      for (index_t j = 0; j < cols; ++j) view(i, j) = value<T>(i, j, salt);
  }
};

template <class T> cd widen(T v) { return cd(v); }

/// max |got - want| / (1 + |want|) over a product's elements, want computed here.
template <class T, class A, class B, class C> double product_error(const A &a, const B &b, const C &c, T alpha = T(1)) {
  double worst = 0;
  for (index_t i = 0; i < c.shape(0); ++i)
    for (index_t j = 0; j < c.shape(1); ++j) {
      cd want = 0;
      for (index_t q = 0; q < a.shape(1); ++q) want += widen(a(i, q)) * widen(b(q, j));
      want *= widen(alpha);
      worst = std::max(worst, std::abs(widen(c(i, j)) - want) / (1 + std::abs(want)));
    }
  return worst;
}

[[kernel::vectorize("float32(float32, float32)")]] float times(float x, float a) { return x * a; }
constexpr kernel::ufunc<times> vtimes;

class Linalg : public testing::TestWithParam<kernel::target> {
protected:
  kernel::target t() const { return GetParam(); }

  template <class T> void every_layout(index_t m, index_t k, index_t n) {
    for (layout la_ : all_layouts)
      for (layout lb : all_layouts)
        for (layout lc : all_layouts) {
          stored_matrix<T> a(m, k, la_, 1), b(k, n, lb, 2), c(m, n, lc, 3);
          la::matrix_product.on(t())(a.view, b.view, c.view);
          EXPECT_LT(product_error<T>(a.view, b.view, c.view), 8 * k * epsilon<T>())
              << m << "x" << k << "x" << n << " layouts " << int(la_) << int(lb) << int(lc);
        }
  }
};

TEST_P(Linalg, ProductsInEveryLayout) {
  every_layout<float>(37, 29, 53);
  every_layout<double>(70, 33, 65);
  every_layout<cf>(5, 17, 66);
  every_layout<cd>(65, 1, 2);
  every_layout<float>(1, 40, 1); // a dot product as a product
  every_layout<double>(64, 16, 64);
}

/// conj of each element of a matrix view, as a new matrix (for the references).
template <class T, class V> kernel::ndarray<T, 2> conj_of(const V &v) {
  kernel::ndarray<T, 2> r({v.shape(0), v.shape(1)});
  for (index_t i = 0; i < v.shape(0); ++i)
    for (index_t j = 0; j < v.shape(1); ++j) r(i, j) = std::conj(v(i, j));
  return r;
}

// conjugated() and conjugate_transposed() (std::linalg's): complex operands read conjugated in
// every layout (OpenBLAS's and cuBLAS's conjugate transpose for transposed layouts, a
// conjugated copy or the runtime's kernel otherwise), E too, nested with scaled(); real ones
// unchanged; dot, add and the norm take them as well.
template <class T> void check_conjugated(kernel::target t) {
  const double tol = 64 * epsilon<T>();
  for (layout la_ : all_layouts)
    for (layout lb : all_layouts) {
      SCOPED_TRACE("layouts " + std::to_string(int(la_)) + std::to_string(int(lb)));
      stored_matrix<T> a(6, 5, la_, 1), ah(5, 6, la_, 4), b(5, 7, lb, 2), e(6, 7, lb, 3);
      const auto a_conj = conj_of<T>(a.view), ah_conj = conj_of<T>(ah.view), b_conj = conj_of<T>(b.view);
      kernel::ndarray<T, 2> c({6, 7}), want({6, 7});
      la::matrix_product.on(t)(la::conjugated(a.view), b.view, c);
      EXPECT_LT(product_error<T>(a_conj, b.view, c), tol) << "conj(A) B";
      la::matrix_product.on(t)(a.view, la::conjugated(b.view), c);
      EXPECT_LT(product_error<T>(a.view, b_conj, c), tol) << "A conj(B)";
      la::matrix_product.on(t)(la::conjugate_transposed(ah.view), la::conjugated(b.view), c);
      EXPECT_LT(product_error<T>(la::transposed(ah_conj), b_conj, c), tol) << "A^H conj(B)";
      // Scaled inside and outside: conj(2i A) = -2i conj(A); 2i conj(A).
      const T s = T(0, 2);
      la::matrix_product.on(t)(la::conjugated(la::scaled(s, a.view)), b.view, c);
      EXPECT_LT(product_error<T>(a_conj, b.view, c, std::conj(s)), tol) << "conj(s A) B";
      la::matrix_product.on(t)(la::scaled(s, la::conjugated(a.view)), b.view, c);
      EXPECT_LT(product_error<T>(a_conj, b.view, c, s), tol) << "s conj(A) B";
      // C = A B + conj(E), E apart from C and E = C itself.
      la::matrix_product.on(t)(a.view, b.view, want);
      la::matrix_product.on(t)(a.view, b.view, la::conjugated(e.view), c);
      for (index_t i = 0; i < 6; ++i)
        for (index_t j = 0; j < 7; ++j)
          ASSERT_LT(std::abs(cd(c(i, j)) - cd(want(i, j)) - std::conj(cd(e.view(i, j)))), tol * 8) << i << "," << j;
      kernel::ndarray<T, 2> acc({6, 7});
      for (index_t i = 0; i < 6; ++i)
        for (index_t j = 0; j < 7; ++j) acc(i, j) = e.view(i, j);
      la::matrix_product.on(t)(a.view, b.view, la::conjugated(acc), acc);
      for (index_t i = 0; i < 6; ++i)
        for (index_t j = 0; j < 7; ++j)
          ASSERT_LT(std::abs(cd(acc(i, j)) - cd(want(i, j)) - std::conj(cd(e.view(i, j)))), tol * 8) << i << "," << j;
      // y = A^H x, y = A conj(x).
      std::vector<T> x(6), x5(5);
      for (index_t i = 0; i < 6; ++i) x[static_cast<std::size_t>(i)] = value<T>(i, 0, 7);
      for (index_t i = 0; i < 5; ++i) x5[static_cast<std::size_t>(i)] = value<T>(i, 1, 8);
      const auto y = la::matrix_vector_product.on(t)(la::conjugate_transposed(a.view), x);
      const auto y2 = la::matrix_vector_product.on(t)(a.view, la::conjugated(x5));
      for (index_t j = 0; j < 5; ++j) {
        cd w = 0;
        for (index_t i = 0; i < 6; ++i) w += std::conj(cd(a.view(i, j))) * cd(x[static_cast<std::size_t>(i)]);
        ASSERT_LT(std::abs(cd(y(j)) - w), tol * 8) << j;
      }
      for (index_t i = 0; i < 6; ++i) {
        cd w = 0;
        for (index_t j = 0; j < 5; ++j) w += cd(a.view(i, j)) * std::conj(cd(x5[static_cast<std::size_t>(j)]));
        ASSERT_LT(std::abs(cd(y2(i)) - w), tol * 8) << i;
      }
    }
  // Vectors: dot(conj(x), y) is dotc(x, y); dot(x, conj(y)) its conjugate's partner; add; norm.
  std::vector<T> x(40), y(40), z(40);
  for (index_t i = 0; i < 40; ++i) {
    x[static_cast<std::size_t>(i)] = value<T>(i, 2, 5);
    y[static_cast<std::size_t>(i)] = value<T>(i, 3, 6);
  }
  cd xy = 0, xcy = 0, xyc = 0, xcyc = 0;
  for (std::size_t i = 0; i < 40; ++i) {
    xy += cd(x[i]) * cd(y[i]);
    xcy += std::conj(cd(x[i])) * cd(y[i]);
    xyc += cd(x[i]) * std::conj(cd(y[i]));
    xcyc += std::conj(cd(x[i])) * std::conj(cd(y[i]));
  }
  EXPECT_LT(std::abs(cd(la::dot.on(t)(la::conjugated(x), y)) - xcy), tol * 40);
  EXPECT_LT(std::abs(cd(la::dot.on(t)(x, la::conjugated(y))) - xyc), tol * 40);
  EXPECT_LT(std::abs(cd(la::dot.on(t)(la::conjugated(x), la::conjugated(y))) - xcyc), tol * 40);
  EXPECT_LT(std::abs(cd(la::dotc.on(t)(la::conjugated(x), y)) - xy), tol * 40);
  EXPECT_LT(std::abs(cd(la::dotc.on(t)(x, la::conjugated(y))) - xcyc), tol * 40);
  la::add.on(t)(la::conjugated(x), la::scaled(T(2), la::conjugated(y)), z);
  for (std::size_t i = 0; i < 40; ++i)
    ASSERT_LT(std::abs(cd(z[i]) - std::conj(cd(x[i])) - 2.0 * std::conj(cd(y[i]))), tol) << i;
  EXPECT_EQ(la::vector_two_norm.on(t)(la::conjugated(x)), la::vector_two_norm.on(t)(x));
}

TEST_P(Linalg, ConjugatedOperands) {
  check_conjugated<cf>(t());
  check_conjugated<cd>(t());
  // Real operands are their own conjugates.
  stored_matrix<double> a(4, 3, layout::fortran, 1), b(3, 2, layout::c_order, 2);
  kernel::ndarray<double, 2> c({4, 2});
  la::matrix_product.on(t())(la::conjugated(a.view), b.view, c);
  EXPECT_LT(product_error<double>(a.view, b.view, c), 16 * epsilon<double>());
  kernel::ndarray<double, 2> gram({2, 2});
  la::matrix_product.on(t())(la::conjugate_transposed(c), c, gram);
  EXPECT_LT(product_error<double>(la::transposed(c), c, gram), 16 * epsilon<double>());
}

TEST_P(Linalg, TransposedScaledAndAccumulated) {
  stored_matrix<double> at(20, 30, layout::c_order, 1), b(20, 10, layout::fortran, 2);
  kernel::ndarray<double, 2> c({30, 10}), e({30, 10});
  for (index_t i = 0; i < 30; ++i)
    for (index_t j = 0; j < 10; ++j) e(i, j) = value<double>(i, j, 9);
  // C = 2 A^T B + E
  la::matrix_product.on(t())(la::scaled(2.0, la::transposed(at.view)), b.view, e, c);
  kernel::ndarray<double, 2> plain({30, 10});
  la::matrix_product.on(t())(la::transposed(at.view), b.view, plain);
  for (index_t i = 0; i < 30; ++i)
    for (index_t j = 0; j < 10; ++j) ASSERT_NEAR(c(i, j), 2 * plain(i, j) + e(i, j), 1e-12) << i << "," << j;
  // C = C + A^T (-B), E being C itself; then beta = 0.5 through scaled(E).
  la::matrix_product.on(t())(la::transposed(at.view), la::scaled(-1.0, b.view), c, c);
  for (index_t i = 0; i < 30; ++i)
    for (index_t j = 0; j < 10; ++j) ASSERT_NEAR(c(i, j), plain(i, j) + e(i, j), 1e-12);
  la::matrix_product.on(t())(la::transposed(at.view), b.view, la::scaled(0.5, c), c);
  for (index_t i = 0; i < 30; ++i)
    for (index_t j = 0; j < 10; ++j) ASSERT_NEAR(c(i, j), 1.5 * plain(i, j) + 0.5 * e(i, j), 1e-12);
  // Complex factors.
  stored_matrix<cf> x(6, 7, layout::c_order, 1), y(7, 5, layout::backwards, 2);
  kernel::ndarray<cf, 2> z({6, 5});
  la::matrix_product.on(t())(la::scaled(cf(0, 1), x.view), y.view, z);
  EXPECT_LT(product_error<cf>(x.view, y.view, z, cf(0, 1)), 1e-5);
}

TEST_P(Linalg, ResultsOverwriteWhatWasThere) {
  // Without E, C's old values are never read (BLAS's beta = 0): NaNs there do not leak.
  stored_matrix<float> a(9, 4, layout::c_order, 1), b(4, 3, layout::c_order, 2);
  kernel::ndarray<float, 2> c({9, 3});
  for (index_t i = 0; i < 9; ++i)
    for (index_t j = 0; j < 3; ++j) c(i, j) = std::numeric_limits<float>::quiet_NaN();
  la::matrix_product.on(t())(a.view, b.view, c);
  EXPECT_LT(product_error<float>(a.view, b.view, c), 1e-6);
}

// As BLAS: a product scaled by 0 is not taken, so NaNs and infinities in A, B or x do not reach
// the result, on every target alike (OpenBLAS, cuBLAS and the library's kernel).
TEST_P(Linalg, AProductScaledByZeroIsNotTaken) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  kernel::ndarray<double, 2> identity({2, 2}), b({2, 2}), e({2, 2}), c({2, 2});
  identity(0, 0) = identity(1, 1) = 1;
  std::fill(b.data(), b.data() + b.size(), nan);
  std::fill(e.data(), e.data() + e.size(), 2.0);
  la::matrix_product.on(t())(la::scaled(0.0, identity), b, c);
  for (index_t i = 0; i < c.size(); ++i) EXPECT_EQ(c.data()[i], 0.0) << i;
  la::matrix_product.on(t())(b, la::scaled(0.0, identity), la::scaled(0.5, e), c);
  for (index_t i = 0; i < c.size(); ++i) EXPECT_EQ(c.data()[i], 1.0) << i;
  std::vector<double> x{nan, INFINITY}, y(2, -1.0);
  la::matrix_vector_product.on(t())(identity, la::scaled(0.0, x), y);
  EXPECT_EQ(y, std::vector<double>(2, 0.0));
  // A float product of tiles, as the kernel computes it.
  kernel::ndarray<float, 2> fa({70, 70}), fc({70, 70});
  std::fill(fa.data(), fa.data() + fa.size(), std::numeric_limits<float>::quiet_NaN());
  la::matrix_product.on(t())(la::scaled(0.0f, fa), fa, fc);
  EXPECT_EQ(std::count(fc.data(), fc.data() + fc.size(), 0.0f), fc.size());
}

TEST_P(Linalg, Batches) {
  kernel::ndarray<float, 3> a({3, 8, 5}), c({3, 8, 6});
  kernel::ndarray<float, 2> b({5, 6});
  for (index_t q = 0; q < 3; ++q)
    for (index_t i = 0; i < 8; ++i)
      for (index_t j = 0; j < 5; ++j) a(q, i, j) = value<float>(i + q, j, 1);
  for (index_t i = 0; i < 5; ++i)
    for (index_t j = 0; j < 6; ++j) b(i, j) = value<float>(i, j, 2);
  la::matrix_product.on(t())(a, b, c);
  for (index_t q = 0; q < 3; ++q) {
    kernel::array_view<float, 2> aq(&a(q, 0, 0), {8, 5}), cq(&c(q, 0, 0), {8, 6});
    EXPECT_LT(product_error<float>(aq, b, cq), 1e-6) << q;
  }
  // The returning form, a shared A, B a batch of transposed views (strides {30, 1, 5}).
  kernel::ndarray<float, 3> bt({3, 6, 5});
  for (index_t q = 0; q < 3; ++q)
    for (index_t i = 0; i < 6; ++i)
      for (index_t j = 0; j < 5; ++j) bt(q, i, j) = value<float>(i, j + q, 4);
  kernel::ndarray<float, 2> a2({8, 5});
  for (index_t i = 0; i < 8; ++i)
    for (index_t j = 0; j < 5; ++j) a2(i, j) = value<float>(i, j, 5);
  kernel::ndarray<float, 2> a2t({5, 8});
  for (index_t i = 0; i < 5; ++i)
    for (index_t j = 0; j < 8; ++j) a2t(i, j) = a2(j, i);
  const kernel::ndarray<float, 3> r = la::matrix_product.on(t())(la::transposed(a2t), la::transposed(bt));
  ASSERT_EQ(r.shape(), (std::array<index_t, 3>{3, 8, 6}));
  for (index_t q = 0; q < 3; ++q)
    for (index_t i = 0; i < 8; ++i)
      for (index_t j = 0; j < 6; ++j) {
        double want = 0;
        for (index_t p = 0; p < 5; ++p) want += double(a2(i, p)) * bt(q, j, p);
        ASSERT_NEAR(r(q, i, j), want, 1e-5) << q << "," << i << "," << j;
      }
  // Many small products (spread over the cores on parallel), each C stored column-major.
  kernel::ndarray<double, 3> many({64, 9, 7}), many_ct({64, 5, 9});
  kernel::ndarray<double, 2> shared({7, 5});
  for (index_t i = 0; i < many.size(); ++i) many.data()[i] = double(i * 37 % 101) / 50 - 1;
  for (index_t i = 0; i < shared.size(); ++i) shared.data()[i] = double(i * 13 % 17) / 8 - 1;
  la::matrix_product.on(t())(many, shared, la::transposed(many_ct));
  for (index_t q = 0; q < 64; ++q)
    for (index_t i = 0; i < 9; ++i)
      for (index_t j = 0; j < 5; ++j) {
        double want = 0;
        for (index_t p = 0; p < 7; ++p) want += many(q, i, p) * shared(p, j);
        ASSERT_NEAR(many_ct(q, j, i), want, 1e-12) << q << "," << i << "," << j;
      }
  // A batch of one is a batch; a batch of none does nothing.
  kernel::ndarray<float, 3> none_a({0, 8, 5}), none_c({0, 8, 6});
  la::matrix_product.on(t())(none_a, b, none_c);
  kernel::ndarray<float, 3> wrong({2, 8, 6});
  EXPECT_THROW(la::matrix_product.on(t())(a, b, wrong), kernel::argument_error);
  // A batch of one is broadcast against another batch, as NumPy's matmul: (1, 8, 5) @ (3, 5, 6)
  // and (3, 8, 5) @ (1, 5, 6), into C and as a new array.
  kernel::ndarray<float, 3> one_a({1, 8, 5}), one_b({1, 5, 6}), bs({3, 5, 6});
  for (index_t i = 0; i < 8; ++i)
    for (index_t j = 0; j < 5; ++j) one_a(0, i, j) = a2(i, j);
  for (index_t i = 0; i < 5; ++i)
    for (index_t j = 0; j < 6; ++j) one_b(0, i, j) = b(i, j);
  for (index_t q = 0; q < 3; ++q)
    for (index_t i = 0; i < 5; ++i)
      for (index_t j = 0; j < 6; ++j) bs(q, i, j) = bt(q, j, i);
  const kernel::ndarray<float, 3> left = la::matrix_product.on(t())(one_a, bs);
  ASSERT_EQ(left.shape(), (std::array<index_t, 3>{3, 8, 6}));
  for (index_t q = 0; q < 3; ++q) {
    kernel::array_view<float, 2> bq(&bs(q, 0, 0), {5, 6}), lq(const_cast<float *>(&left(q, 0, 0)), {8, 6});
    EXPECT_LT(product_error<float>(a2, bq, lq), 1e-6) << q;
  }
  kernel::ndarray<float, 3> right({3, 8, 6});
  la::matrix_product.on(t())(a, one_b, right);
  for (index_t q = 0; q < 3; ++q) {
    kernel::array_view<float, 2> aq(&a(q, 0, 0), {8, 5}), rq(&right(q, 0, 0), {8, 6});
    EXPECT_LT(product_error<float>(aq, b, rq), 1e-6) << q;
  }
  // Batches of 2 and 3 do not broadcast.
  kernel::ndarray<float, 3> two_b({2, 5, 6});
  try {
    (void)la::matrix_product.on(t())(a, two_b);
    ADD_FAILURE() << "batches of 3 and 2 were multiplied";
  } catch (const kernel::argument_error &e) {
    // The returning form has no C: B's batch is compared with A's.
    EXPECT_STREQ(e.what(), "'matrix_product': argument 2: is a batch of 2 matrices but A is a batch of 3: batches "
                           "are of one size, or one of them is of one");
  }
}

TEST_P(Linalg, EmptyShapes) {
  // k = 0: the product is zero, C = E.
  kernel::ndarray<double, 2> a({4, 0}), b({0, 3}), c({4, 3}), e({4, 3});
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < 3; ++j) {
      c(i, j) = std::numeric_limits<double>::quiet_NaN();
      e(i, j) = double(i - j);
    }
  la::matrix_product.on(t())(a, b, c);
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < 3; ++j) EXPECT_EQ(c(i, j), 0.0);
  la::matrix_product.on(t())(a, b, la::scaled(2.0, e), c);
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < 3; ++j) EXPECT_EQ(c(i, j), 2.0 * double(i - j));
  kernel::ndarray<double, 2> m0({0, 5}), b5({5, 3}), c0({0, 3});
  la::matrix_product.on(t())(m0, b5, c0);
  // An empty dimension after a non-empty one: C-contiguous strides (0, 1), no element twice.
  kernel::ndarray<double, 2> a43({4, 3}), b30({3, 0}), c40({4, 0});
  la::matrix_product.on(t())(a43, b30, c40);
  std::vector<double> none;
  EXPECT_EQ(la::dot.on(t())(none, none), 0.0);
  EXPECT_EQ(la::vector_two_norm.on(t())(none), 0.0);
  la::add.on(t())(none, none, none);
}

TEST_P(Linalg, MatrixVectorProducts) {
  for (layout how : all_layouts) {
    stored_matrix<double> a(23, 17, how, 1);
    std::vector<double> xs(17 * 3), z(23), y(23);
    for (index_t i = 0; i < 17; ++i) xs[static_cast<std::size_t>(3 * i)] = value<double>(i, 0, 2);
    for (index_t i = 0; i < 23; ++i) z[static_cast<std::size_t>(i)] = value<double>(i, 1, 3);
    kernel::array_view<double, 1> x(xs.data(), {17}, {3});
    la::matrix_vector_product.on(t())(a.view, x, z, y);
    for (index_t i = 0; i < 23; ++i) {
      double want = z[static_cast<std::size_t>(i)];
      for (index_t j = 0; j < 17; ++j) want += a.view(i, j) * x(j);
      ASSERT_NEAR(y[static_cast<std::size_t>(i)], want, 1e-12) << int(how) << " row " << i;
    }
    // y = A^T y2, returning a new vector.
    std::vector<double> y2(23, 1.0);
    const auto w = la::matrix_vector_product.on(t())(la::transposed(a.view), y2);
    ASSERT_EQ(w.shape(0), 17);
    for (index_t j = 0; j < 17; ++j) {
      double want = 0;
      for (index_t i = 0; i < 23; ++i) want += a.view(i, j);
      ASSERT_NEAR(w(j), want, 1e-12) << int(how) << " column " << j;
    }
  }
  kernel::ndarray<cf, 2> ac({3, 2});
  std::vector<cf> xc{cf(1, 2), cf(0, -1)}, yc(3);
  for (index_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 2; ++j) ac(i, j) = value<cf>(i, j, 1);
  la::matrix_vector_product.on(t())(ac, xc, yc);
  for (index_t i = 0; i < 3; ++i) EXPECT_LT(std::abs(yc[i] - (ac(i, 0) * xc[0] + ac(i, 1) * xc[1])), 1e-6);
}

TEST_P(Linalg, DotsAndNorms) {
  std::vector<float> xf(1000), yf(3000);
  double want = 0, squares = 0;
  for (index_t i = 0; i < 1000; ++i) {
    xf[static_cast<std::size_t>(i)] = value<float>(i, 0, 1);
    yf[static_cast<std::size_t>(3 * i)] = value<float>(i, 1, 2);
  }
  // y walked backwards through every third element
  kernel::array_view<float, 1> yb(yf.data() + 3 * 999, {1000}, {-3});
  for (index_t i = 0; i < 1000; ++i) {
    want += double(xf[static_cast<std::size_t>(i)]) * yb(i);
    squares += double(xf[static_cast<std::size_t>(i)]) * xf[static_cast<std::size_t>(i)];
  }
  EXPECT_NEAR(la::dot.on(t())(xf, yb), want, 1e-3);
  EXPECT_NEAR(la::dot.on(t())(la::scaled(2.0f, xf), yb), 2 * want, 2e-3);
  EXPECT_NEAR(la::vector_two_norm.on(t())(xf), std::sqrt(squares), 1e-3);
  EXPECT_NEAR(la::vector_two_norm.on(t())(yb), la::vector_two_norm.on(kernel::target::cpu)(yb), 1e-3);

  std::vector<cd> xc{cd(1, 2), cd(3, -1)}, yc{cd(0, 1), cd(2, 2)};
  const cd u = la::dot.on(t())(xc, yc), c = la::dotc.on(t())(xc, yc);
  EXPECT_LT(std::abs(u - (xc[0] * yc[0] + xc[1] * yc[1])), 1e-12);
  EXPECT_LT(std::abs(c - (std::conj(xc[0]) * yc[0] + std::conj(xc[1]) * yc[1])), 1e-12);
  EXPECT_NEAR(la::vector_two_norm.on(t())(xc), std::sqrt(15.0), 1e-12);

  // Squares past the range of the type: the norm is still right.
  std::vector<double> big{3e200, 4e200}, tiny{3e-200, 4e-200};
  EXPECT_NEAR(la::vector_two_norm.on(t())(big) / 5e200, 1.0, 1e-14);
  EXPECT_NEAR(la::vector_two_norm.on(t())(tiny) / 5e-200, 1.0, 1e-14);
  std::vector<float> bigf{3e30f, 4e30f};
  EXPECT_NEAR(la::vector_two_norm.on(t())(bigf) / 5e30f, 1.0f, 1e-6f);
  std::vector<double> nan{1, std::numeric_limits<double>::quiet_NaN()};
  EXPECT_TRUE(std::isnan(la::vector_two_norm.on(t())(nan)));
  // A factor that brings a norm past the type's range back into it: the library's unscaled
  // norm overflows, the scaled one does not.
  std::vector<float> huge_f{3e38f, 3e38f};
  std::vector<double> huge_d{1.7e308, 1.7e308};
  std::vector<cf> huge_c{cf(3e38f, 0), cf(0, 3e38f)};
  EXPECT_NEAR(la::vector_two_norm.on(t())(la::scaled(0.5f, huge_f)) / (1.5e38 * std::sqrt(2.0)), 1.0, 1e-6);
  EXPECT_NEAR(la::vector_two_norm.on(t())(la::scaled(0.5, huge_d)) / (0.85e308 * std::sqrt(2.0)), 1.0, 1e-14);
  EXPECT_NEAR(la::vector_two_norm.on(t())(la::scaled(0.25f, huge_c)) / (0.75e38 * std::sqrt(2.0)), 1.0, 1e-6);
  EXPECT_TRUE(std::isinf(la::vector_two_norm.on(t())(huge_f)));
  EXPECT_TRUE(std::isinf(la::vector_two_norm.on(t())(la::scaled(0.5f, std::vector<float>{3e38f, INFINITY}))));

  std::vector<float> shorter(999);
  EXPECT_THROW(la::dot.on(t())(xf, shorter), kernel::argument_error);
}

// Wrappers of views and of other wrappers hold them by value: named, they outlive the
// statement that made the view.
TEST_P(Linalg, NamedWrappersOfTemporaryViews) {
  stored_matrix<cd> a(3, 4, layout::c_order, 1), b(3, 2, layout::fortran, 2), c(4, 2, layout::c_order, 3);
  const auto at2 = la::scaled(cd(2), la::transposed(a.view));
  const auto ah = la::conjugated(la::scaled(cd(0, 1), la::transposed(a.view)));
  const auto twice = la::scaled(cd(3), la::scaled(cd(2), b.view));
  std::vector<cd> scratch(64, cd(7, 7)); // reuses the stack the temporaries were on
  (void)scratch;
  la::matrix_product.on(t())(at2, b.view, c.view);
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < 2; ++j) {
      cd want = 0;
      for (index_t q = 0; q < 3; ++q) want += a.view(q, i) * b.view(q, j);
      EXPECT_LT(std::abs(c.view(i, j) - cd(2) * want), 1e-12) << i << "," << j;
    }
  la::matrix_product.on(t())(ah, twice, c.view);
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < 2; ++j) {
      cd want = 0;
      for (index_t q = 0; q < 3; ++q) want += std::conj(a.view(q, i)) * b.view(q, j);
      EXPECT_LT(std::abs(c.view(i, j) - cd(0, -1) * cd(6) * want), 1e-12) << i << "," << j;
    }
}

TEST_P(Linalg, AddAndScale) {
  kernel::ndarray<cf, 2> x({7, 9}), y({7, 9}), z({7, 9});
  for (index_t i = 0; i < 7; ++i)
    for (index_t j = 0; j < 9; ++j) {
      x(i, j) = value<cf>(i, j, 1);
      y(i, j) = value<cf>(i, j, 2);
    }
  la::add.on(t())(x, la::scaled(cf(0, 2), la::transposed(la::transposed(y))), z);
  for (index_t i = 0; i < 7; ++i)
    for (index_t j = 0; j < 9; ++j) ASSERT_LT(std::abs(z(i, j) - (x(i, j) + cf(0, 2) * y(i, j))), 1e-6);
  la::add.on(t())(z, la::scaled(-1.0f, x), z); // z may be an input
  la::scale.on(t())(0.5f, z);
  for (index_t i = 0; i < 7; ++i)
    for (index_t j = 0; j < 9; ++j) ASSERT_LT(std::abs(z(i, j) - cf(0, 1) * y(i, j)), 1e-6);
  // A strided view is written where it is.
  std::vector<double> every_other(10, 1.0);
  kernel::array_view<double, 1> odd(every_other.data() + 1, {5}, {2});
  la::scale.on(t())(3, odd);
  for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(every_other[i], i % 2 ? 3.0 : 1.0);
  kernel::ndarray<cf, 2> other({9, 7});
  EXPECT_THROW(la::add.on(t())(x, y, other), kernel::argument_error);
}

TEST_P(Linalg, DeviceArraysStayOnTheirDevice) {
  if (t() != kernel_test::target()) GTEST_SKIP() << "device arrays: the device target's case";
  const kernel::device d = kernel_test::device();
  kernel::ndarray<float, 2> a({40, 30}), b({30, 20});
  for (index_t i = 0; i < 40; ++i)
    for (index_t j = 0; j < 30; ++j) a(i, j) = value<float>(i, j, 1);
  for (index_t i = 0; i < 30; ++i)
    for (index_t j = 0; j < 20; ++j) b(i, j) = value<float>(i, j, 2);
  const auto da = kernel::to_device(a, d);
  const auto db = kernel::to_device(b, d);
  kernel::device_array<float, 2> dc = la::matrix_product(da, db);
  const kernel::ndarray<float, 2> c = dc.copy_to_host();
  EXPECT_LT(product_error<float>(a, b, c), 1e-6);
  // A transposed device view, written in place: C^T = B^T A^T.
  kernel::device_array<float, 2> dct({20, 40}, d);
  la::matrix_product(la::transposed(db), la::transposed(da), dct);
  const kernel::ndarray<float, 2> ct = dct.copy_to_host();
  for (index_t i = 0; i < 40; ++i)
    for (index_t j = 0; j < 20; ++j) ASSERT_NEAR(ct(j, i), c(i, j), 1e-5);
  // A host result from device inputs is an error: device arrays never come back implicitly.
  std::vector<float> x(30, 1.0f);
  const auto dx = kernel::to_device(x, d);
  EXPECT_NEAR(la::dot(dx, dx), 30.0f, 1e-5);
  EXPECT_NEAR(la::vector_two_norm(dx), std::sqrt(30.0f), 1e-5);
  kernel::device_array<float, 1> dy = la::matrix_vector_product(da, dx);
  const auto y = dy.copy_to_host();
  for (index_t i = 0; i < 40; ++i) {
    double want = 0;
    for (index_t j = 0; j < 30; ++j) want += a(i, j);
    ASSERT_NEAR(y(i), want, 1e-4);
  }
}

TEST_P(Linalg, BadShapesAndOverlapsLeaveTheResultsAlone) {
  kernel::ndarray<float, 2> a({4, 3}), b({5, 2}), c({4, 2});
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < 2; ++j) c(i, j) = float(10 * i + j);
  try {
    la::matrix_product.on(t())(a, b, c);
    FAIL() << "a 4x3 by 5x2 product";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 2);
    EXPECT_NE(std::string(e.what()).find("matrix_product"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("5x2"), std::string::npos) << e.what();
  }
  kernel::ndarray<float, 2> b2({3, 2}), c2({4, 3});
  EXPECT_THROW(la::matrix_product.on(t())(a, b2, c2), kernel::argument_error);
  EXPECT_THROW(la::matrix_product.on(t())(a, b2, c2, c), kernel::argument_error);
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < 2; ++j) ASSERT_EQ(c(i, j), float(10 * i + j));
  // E of C's matrices but another batch: the batches are named.
  kernel::ndarray<float, 3> batched_a({3, 4, 3}), batched_c({3, 4, 2}), e({2, 4, 2});
  try {
    la::matrix_product.on(t())(batched_a, b2, e, batched_c);
    FAIL() << "E a batch of 2 for C's 3";
  } catch (const kernel::argument_error &error) {
    EXPECT_NE(std::string(error.what()).find("argument 3: is a batch of 2 matrices but C is a batch of 3"),
              std::string::npos)
        << error.what();
  }
  // One E, a matrix or a batch of one, is added to each item, as NumPy's A @ B + E.
  for (index_t q = 0; q < 3; ++q)
    for (index_t i = 0; i < 4; ++i)
      for (index_t j = 0; j < 3; ++j) batched_a(q, i, j) = float(q + i - j);
  for (index_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 2; ++j) b2(i, j) = float(i * 2 + j);
  kernel::ndarray<float, 2> one_e({4, 2});
  kernel::ndarray<float, 3> batch_of_one_e({1, 4, 2});
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < 2; ++j) batch_of_one_e(0, i, j) = one_e(i, j) = float(100 * i + j);
  for (const bool as_batch : {false, true}) {
    kernel::ndarray<float, 3> sums({3, 4, 2}, -1.0f);
    if (as_batch)
      la::matrix_product.on(t())(batched_a, b2, batch_of_one_e, sums);
    else
      la::matrix_product.on(t())(batched_a, b2, one_e, sums);
    for (index_t q = 0; q < 3; ++q)
      for (index_t i = 0; i < 4; ++i)
        for (index_t j = 0; j < 2; ++j) {
          float want = one_e(i, j);
          for (index_t p = 0; p < 3; ++p) want += batched_a(q, i, p) * b2(p, j);
          ASSERT_EQ(sums(q, i, j), want) << as_batch << " " << q << "," << i << "," << j;
        }
  }
  // C written over its own input.
  kernel::ndarray<float, 2> sq({4, 4});
  EXPECT_THROW(la::matrix_product.on(t())(sq, sq, sq), kernel::argument_error);
  kernel::array_view<float, 2> repeated(c.data(), {4, 2}, {0, 1});
  EXPECT_THROW(la::matrix_product.on(t())(a, b2, repeated), kernel::argument_error);
}

// Target cpu without OpenBLAS: an error naming the library and where it was looked for.
TEST(LinalgLoading, MissingOpenBlasIsTargetUnavailable) {
  kernel_test::scoped_environment library("KERNEL_BLAS_LIBRARY", "/nonexistent/libopenblas.so.0");
  kernel::ndarray<double, 2> a({2, 2}), c({2, 2});
  std::vector<double> x(3);
  try {
    la::matrix_product.on(kernel::target::cpu)(a, a, c);
    ADD_FAILURE() << "no error";
  } catch (const kernel::target_unavailable_error &e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/libopenblas.so.0"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("matrix_product"), std::string::npos) << e.what();
  }
  EXPECT_THROW(la::dot.on(kernel::target::parallel)(x, x), kernel::target_unavailable_error);
  // With an E to accumulate onto, C keeps its values: the library is found before E is copied.
  kernel::ndarray<double, 2> e({2, 2}, 7.0), kept({2, 2}, 42.0);
  EXPECT_THROW(la::matrix_product.on(kernel::target::cpu)(a, a, e, kept), kernel::target_unavailable_error);
  for (index_t i = 0; i < 4; ++i) EXPECT_EQ(kept.data()[i], 42.0) << "C written before the error, element " << i;
  // The device path does not need it.
  la::matrix_product.on(kernel_test::target())(a, a, c);
  library.set(nullptr);
  la::matrix_product.on(kernel::target::cpu)(a, a, c);
}

// OpenBLAS takes 32-bit leading dimensions and increments: operands whose strides are larger
// are copied for it, not refused. 8 GB of address space, two pages of it touched.
TEST(LinalgHost, StridesPast32BitsAreCopied) {
  const index_t far = index_t{1} << 31;
  const std::size_t bytes = static_cast<std::size_t>(far + 2) * sizeof(float);
  void *memory = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) GTEST_SKIP() << "no 8 GB of address space to map";
  auto *buffer = static_cast<float *>(memory);
  kernel::array_view<float, 2> a(buffer, {2, 2}, {far, 1});
  a(0, 0) = 1, a(0, 1) = 2, a(1, 0) = 3, a(1, 1) = 4;
  kernel::ndarray<float, 2> b({2, 2});
  b(0, 0) = 5, b(0, 1) = 6, b(1, 0) = 7, b(1, 1) = 8;
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
    const auto c = la::matrix_product.on(t)(a, b);
    EXPECT_EQ(c(0, 0), 19);
    EXPECT_EQ(c(0, 1), 22);
    EXPECT_EQ(c(1, 0), 43);
    EXPECT_EQ(c(1, 1), 50);
    // As the output, and transposed (a column stride past 32 bits).
    kernel::array_view<float, 2> out(buffer + 2, {2, 2}, {1, far});
    la::matrix_product.on(t)(b, b, out);
    EXPECT_EQ(out(0, 0), 67);
    EXPECT_EQ(out(1, 1), 106);
    const kernel::array_view<float, 1> column(buffer, {2}, {far});
    EXPECT_EQ(la::dot.on(t)(column, column), 10);
    EXPECT_EQ(la::vector_two_norm.on(t)(column), std::sqrt(10.0f));
  }
  ::munmap(memory, bytes);
}

// Lazy expressions are accepted as operands: evaluated where the call runs, then used as arrays.
TEST_P(Linalg, ExpressionOperands) {
  kernel::ndarray<float, 2> a({5, 3}), b({3, 4});
  for (index_t i = 0; i < 15; ++i) a.data()[i] = value<float>(i, 0, 1);
  for (index_t i = 0; i < 12; ++i) b.data()[i] = value<float>(i, 1, 2);
  kernel::ndarray<float, 2> b2({3, 4});
  for (index_t i = 0; i < 12; ++i) b2.data()[i] = b.data()[i] * 2.0f;
  const auto e = vtimes(kernel::lazy(b), 2.0f);
  const auto want = la::matrix_product.on(t())(a, b2);
  const auto got = la::matrix_product.on(t())(a, e);
  for (index_t i = 0; i < 20; ++i) EXPECT_EQ(got.data()[i], want.data()[i]) << i;
  kernel::ndarray<float, 2> into({5, 4}, 0.0f);
  la::matrix_product.on(t())(a, e, into);
  for (index_t i = 0; i < 20; ++i) EXPECT_EQ(into.data()[i], want.data()[i]) << i;
  la::matrix_product.on(t())(a, e, vtimes(kernel::lazy(want), 1.0f), into); // E an expression too
  for (index_t i = 0; i < 20; ++i) EXPECT_EQ(into.data()[i], 2 * want.data()[i]) << i;

  std::vector<float> x(300), x2(300);
  for (index_t i = 0; i < 300; ++i) x[static_cast<std::size_t>(i)] = value<float>(i, 0, 3);
  for (index_t i = 0; i < 300; ++i) x2[static_cast<std::size_t>(i)] = x[static_cast<std::size_t>(i)] * 2.0f;
  const auto ex = vtimes(kernel::lazy(x), 2.0f);
  EXPECT_EQ(la::dot.on(t())(ex, x), la::dot.on(t())(x2, x));
  EXPECT_EQ(la::vector_two_norm.on(t())(ex), la::vector_two_norm.on(t())(x2));
  std::vector<float> sum(300);
  la::add.on(t())(ex, x, sum);
  EXPECT_EQ(sum[7], x2[7] + x[7]);
  const auto y = la::matrix_vector_product.on(t())(a, vtimes(kernel::lazy(std::vector<float>{1, 2, 3}), 1.0f));
  EXPECT_EQ(y[0], la::matrix_vector_product.on(t())(a, std::vector<float>{1, 2, 3})[0]);
  // A bad expression is an argument error, and the output is left alone.
  kernel::ndarray<float, 2> kept({5, 4}, 9.0f);
  EXPECT_THROW(la::matrix_product.on(t())(a, vtimes(kernel::lazy(b), kernel::lazy(x)), kept), kernel::argument_error);
  for (index_t i = 0; i < 20; ++i) EXPECT_EQ(kept.data()[i], 9.0f);
}

INSTANTIATE_TEST_SUITE_P(Targets, Linalg,
                         testing::Values(kernel::target::cpu, kernel::target::parallel, kernel_test::target()),
                         [](const auto &info) { return std::string(kernel::target_name(info.param)); });

} // namespace
