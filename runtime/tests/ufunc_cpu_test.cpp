#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <numeric>
#include <vector>

#include "kernel/kernel.h"

namespace {

float saxpy(float a, float x, float y) { return a * x + y; }
double add(double a, double b) { return a + b; }
template <class T> T addt(T a, T b) { return a + b; }
int iadd(int a, int b) { return a + b; }
std::int8_t i8add(std::int8_t a, std::int8_t b) { return static_cast<std::int8_t>(a + b); }
std::complex<float> cmul(std::complex<float> a, std::complex<float> b) { return a * b; }

constexpr kernel::ufunc<saxpy> vsaxpy;

TEST(UfuncCpu, ScalarAndArrays) {
  std::vector<float> x(1000), y(1000), out(1000);
  std::iota(x.begin(), x.end(), 0.0f);
  std::iota(y.begin(), y.end(), 1.0f);
  vsaxpy(2.0f, x, y, out);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(out[i], 2.0f * x[i] + y[i]);
}

TEST(UfuncCpu, AllocatesResult) {
  std::vector<float> x{1, 2, 3}, y{4, 5, 6};
  auto r = vsaxpy(3.0f, x, y);
  static_assert(std::is_same_v<decltype(r), kernel::ndarray<float, 1>>);
  ASSERT_EQ(r.size(), 3);
  EXPECT_EQ(r[0], 7.0f);
  EXPECT_EQ(r[2], 15.0f);
}

TEST(UfuncCpu, AllScalarsReturnScalar) {
  float r = vsaxpy(2.0f, 3.0f, 1.0f);
  EXPECT_EQ(r, 7.0f);
}

TEST(UfuncCpu, Broadcasting2d) {
  kernel::ndarray<double, 2> m({3, 4});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) m(i, j) = 10 * i + j;
  std::vector<double> row{100, 200, 300, 400};
  kernel::ndarray<double, 2> col({3, 1});
  col(0, 0) = 1000;
  col(1, 0) = 2000;
  col(2, 0) = 3000;
  constexpr kernel::ufunc<add> vadd;
  auto r = vadd(m, row);
  ASSERT_EQ(r.shape(0), 3);
  ASSERT_EQ(r.shape(1), 4);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(r(i, j), 10 * i + j + 100 * (j + 1));
  auto c = vadd(col, row);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(c(i, j), 1000 * (i + 1) + 100 * (j + 1));
}

TEST(UfuncCpu, StridedViews) {
  std::vector<double> a(20);
  std::iota(a.begin(), a.end(), 0.0);
  // Every other element, and a reversed view.
  kernel::array_view<const double, 1> even(a.data(), {10}, {2});
  kernel::array_view<const double, 1> rev(a.data() + 19, {10}, {-1});
  std::vector<double> out(10);
  kernel::ufunc<add>{}(even, rev, out);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(out[i], 2.0 * i + (19 - i));
}

TEST(UfuncCpu, ParallelMatchesCpu) {
  const std::size_t n = (1 << 20) + 7;
  std::vector<float> x(n), y(n), a(n), b(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 1000) * 0.5f;
    y[i] = static_cast<float>(i % 333);
  }
  vsaxpy(1.5f, x, y, a);
  vsaxpy.on(kernel::target::parallel)(1.5f, x, y, b);
  EXPECT_EQ(a, b);
}

TEST(UfuncCpu, ParallelStrided2d) {
  kernel::ndarray<double, 2> m({300, 301}, 1.0);
  kernel::array_view<double, 2> t(m.data(), {301, 300}, {1, 301}); // transposed
  kernel::ndarray<double, 2> out({301, 300});
  constexpr kernel::ufunc<add> vadd;
  for (int i = 0; i < 300; ++i)
    for (int j = 0; j < 301; ++j) m(i, j) = i * 1000 + j;
  vadd.on(kernel::target::parallel)(t, 0.5, out);
  for (int i = 0; i < 301; ++i)
    for (int j = 0; j < 300; ++j) ASSERT_EQ(out(i, j), j * 1000 + i + 0.5);
}

TEST(UfuncCpu, SafeCastOfInputs) {
  std::vector<int> xi{1, 2, 3};
  std::vector<float> xf{0.5f, 0.25f, 0.125f};
  constexpr kernel::ufunc<add> vadd; // float64 loop
  auto r = vadd(xi, xf);
  EXPECT_EQ(r[0], 1.5);
  EXPECT_EQ(r[2], 3.125);
}

TEST(UfuncCpu, SelectsFirstMatchingLoop) {
  constexpr kernel::ufunc<addt<float>, addt<double>> v;
  std::vector<float> f{1, 2};
  std::vector<double> d{1, 2};
  static_assert(std::is_same_v<decltype(v(f, f)), kernel::ndarray<float, 1>>);
  static_assert(std::is_same_v<decltype(v(f, d)), kernel::ndarray<double, 1>>);
  // A double scalar is weak: it does not force the float64 loop.
  static_assert(std::is_same_v<decltype(v(f, 2.0)), kernel::ndarray<float, 1>>);
  EXPECT_EQ(v(f, 2.0)[1], 4.0f);
}

TEST(UfuncCpu, ScalarOutOfRangeIsAnError) {
  constexpr kernel::ufunc<i8add> v;
  std::vector<std::int8_t> x{1, 2};
  EXPECT_EQ(v(x, 100)[1], 102);
  try {
    v(x, 300);
    FAIL() << "300 fitted an int8 parameter";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 2);
    EXPECT_NE(std::string(e.what()).find("value 300 does not fit"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("i8add"), std::string::npos) << e.what();
  }
}

TEST(UfuncCpu, ShapeMismatchNamesArgument) {
  std::vector<float> x(4), y(5), out(4);
  try {
    vsaxpy(1.0f, x, y, out);
    FAIL();
  } catch (const kernel::argument_error &e) {
    EXPECT_NE(e.callee().find("saxpy"), std::string::npos);
    EXPECT_EQ(e.argument(), 3);
    EXPECT_NE(std::string(e.what()).find("(5,) cannot be broadcast"), std::string::npos) << e.what();
  }
}

TEST(UfuncCpu, TooShortOutput) {
  std::vector<float> x(4), y(4), out(3, -1.0f);
  try {
    vsaxpy(1.0f, x, y, out);
    FAIL();
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 4);
    EXPECT_NE(std::string(e.what()).find("output has shape (3,) but the inputs broadcast to (4,)"), std::string::npos)
        << e.what();
  }
  // Nothing was written.
  for (float v : out) EXPECT_EQ(v, -1.0f);
}

TEST(UfuncCpu, InPlaceIsAllowedShiftedOverlapIsNot) {
  std::vector<float> x{1, 2, 3, 4}, y{1, 1, 1, 1};
  vsaxpy(2.0f, x, y, x);
  EXPECT_EQ(x, (std::vector<float>{3, 5, 7, 9}));
  std::vector<float> buf{1, 2, 3, 4, 5};
  auto in = kernel::view(buf.data(), 4);
  auto out = kernel::view(buf.data() + 1, 4);
  EXPECT_THROW(vsaxpy(2.0f, in, y, out), kernel::argument_error);
  EXPECT_EQ(buf, (std::vector<float>{1, 2, 3, 4, 5}));
}

TEST(UfuncCpu, Complex) {
  constexpr kernel::ufunc<cmul> v;
  std::vector<std::complex<float>> a{{1, 2}, {3, 4}}, b{{0, 1}, {2, 0}};
  auto r = v(a, b);
  EXPECT_EQ(r[0], std::complex<float>(-2, 1));
  EXPECT_EQ(r[1], std::complex<float>(6, 8));
}

TEST(UfuncCpu, EmptyArrays) {
  std::vector<float> x, y, out;
  vsaxpy(1.0f, x, y, out);
  auto r = vsaxpy(1.0f, x, y);
  EXPECT_EQ(r.size(), 0);
}

TEST(UfuncCpu, IntegerLoop) {
  constexpr kernel::ufunc<iadd> v;
  std::vector<int> a{1, 2, 3};
  std::vector<std::int64_t> out(3);
  v(a, 10, out); // int32 result into int64 output: same-kind cast
  EXPECT_EQ(out[2], 13);
}

TEST(UfuncCpu, NameComesFromFunction) { EXPECT_EQ(vsaxpy.name(), "(anonymous namespace)::saxpy"); }

TEST(UfuncCpu, OutputMayAddLeadingDimensions) {
  std::vector<double> row{1, 2, 3};
  kernel::ndarray<double, 2> out({2, 3});
  kernel::ufunc<add>{}(row, 1.0, out);
  EXPECT_EQ(out(1, 2), 4.0);
  EXPECT_EQ(out(0, 0), 2.0);
}

TEST(UfuncCpu, CpuMatchesReferenceForEveryLayout) {
  // Every combination of contiguous, strided and broadcast operands agrees with a plain loop.
  const int n = 37;
  std::vector<double> a(2 * n), b(2 * n);
  for (int i = 0; i < 2 * n; ++i) {
    a[i] = i * 0.5;
    b[i] = 1000 - i;
  }
  kernel::array_view<const double, 1> layouts_a[] = {
      kernel::array_view<const double, 1>(a.data(), {n}),
      kernel::array_view<const double, 1>(a.data(), {n}, {2}),
      kernel::array_view<const double, 1>(a.data() + 5, {n}, {0}),
  };
  kernel::array_view<const double, 1> layouts_b[] = {
      kernel::array_view<const double, 1>(b.data(), {n}),
      kernel::array_view<const double, 1>(b.data() + 2 * n - 1, {n}, {-2}),
  };
  for (auto target : {kernel::target::cpu, kernel::target::parallel})
    for (const auto &x : layouts_a)
      for (const auto &y : layouts_b) {
        std::vector<double> out(n);
        kernel::ufunc<add>{}.on(target)(x, y, out);
        for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], x[i] + y[i]);
      }
}

} // namespace
