// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
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

// A scalar of a kind above every array's is not cast down into their kind (NEP 50): an int16
// array plus 0.1 runs the float64 loop (it ran float32's), a bool array plus 1 the int64 one;
// a scalar of the arrays' kind or a lower one adopts their type.
TEST(UfuncCpu, ScalarsOfAHigherKindKeepTheirDefaultType) {
  constexpr kernel::ufunc<addt<float>, addt<double>> vadd_f;
  const std::vector<std::int16_t> shorts{1, 1000};
  const auto wide = vadd_f(shorts, 0.1);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(wide[0])>, double>);
  EXPECT_EQ(wide[0], 1.1);
  EXPECT_EQ(wide[1], 1000.1);
  const std::vector<float> floats{1.5f};
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(vadd_f(floats, 0.1)[0])>, float>);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(vadd_f(shorts, 0.1f)[0])>, float>); // a typed scalar
  constexpr kernel::ufunc<addt<std::int8_t>, addt<std::int64_t>> vadd_i;
  const auto flags = kernel::ndarray<bool>::of({true, false});
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(vadd_i(flags, 1)[0])>, std::int64_t>);
  const std::vector<std::int8_t> bytes{1};
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(vadd_i(bytes, 1)[0])>, std::int8_t>);
  constexpr kernel::ufunc<addt<std::complex<float>>, addt<std::complex<double>>> vadd_c;
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(vadd_c(floats, std::complex<double>(0, 1))[0])>,
                               std::complex<float>>);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(vadd_c(shorts, std::complex<double>(0, 1))[0])>,
                               std::complex<double>>);
}

// bool and character scalars are integers of a lower kind, as in NumPy (int32 array + True).
TEST(UfuncCpu, BoolAndCharacterScalarsFitIntegerLoops) {
  constexpr kernel::ufunc<iadd> vadd;
  const std::vector<int> x{1, 2, 3};
  const auto plus_true = vadd(x, true);
  EXPECT_EQ(std::vector<int>(plus_true.begin(), plus_true.end()), (std::vector<int>{2, 3, 4}));
  const auto plus_a = vadd(x, 'a');
  EXPECT_EQ(std::vector<int>(plus_a.begin(), plus_a.end()), (std::vector<int>{98, 99, 100}));
  EXPECT_EQ(vadd(true, true), 2);
  constexpr kernel::ufunc<i8add> vadd8;
  const std::vector<std::int8_t> small{1};
  EXPECT_THROW(vadd8(small, static_cast<unsigned char>(200)), kernel::argument_error); // 200 is no int8
}

int divide(int a, int b) { return a / b; }
// Divisions x86 makes otherwise than in one instruction: of a 37-bit integer, of a vector's
// lanes. Optimised, their zero divisors gave 0.
int divide_37_bits(int a, int b) { return static_cast<int>(static_cast<_BitInt(37)>(a) / static_cast<_BitInt(37)>(b)); }
using two_ints = int __attribute__((vector_size(8)));
int divide_lanes(int a, int b) {
  const two_ints x = {a, a}, y = {1, b};
  return (x / y)[1];
}
int sum_of_quotients(int a, int b) { return a / b + b; }
void divide_rows(kernel::array_view<const int> a, int &out) {
  out = 0;
  for (kernel::index_t i = 0; i < a.size(); ++i) out += 100 / a[i];
}

// An integer division by zero (or INT_MIN / -1) in a loop function on a CPU target is an
// arithmetic_error naming the call, from every kind of call (the process died of SIGFPE), of
// integers of every width and of vectors; the next call works.
TEST(UfuncCpu, IntegerDivisionByZeroIsAnError) {
  constexpr kernel::ufunc<divide> vdivide;
  constexpr kernel::gufunc<"(n)->()", divide_rows> vrows;
  constexpr kernel::reduce<sum_of_quotients> quotients;
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
    std::vector<int> a(200000, 7), b(200000, 1);
    b[150000] = 0;
    try {
      (void)vdivide.on(t)(a, b);
      ADD_FAILURE() << "divided by zero";
    } catch (const kernel::arithmetic_error &e) {
      EXPECT_NE(std::string(e.what()).find("divide': an integer division by zero"), std::string::npos) << e.what();
    }
    std::vector<int> most_negative{std::numeric_limits<int>::min()}, minus_one{-1};
    EXPECT_THROW((void)vdivide.on(t)(most_negative, minus_one), kernel::arithmetic_error);
    EXPECT_THROW((void)vdivide(vdivide(kernel::lazy(a), 1), b).eval(t), kernel::arithmetic_error);
    EXPECT_THROW((void)quotients.on(t)(b), kernel::arithmetic_error);
    kernel::ndarray<int, 2> rows({1000, 10}, 1);
    rows(700, 3) = 0;
    EXPECT_THROW((void)vrows.on(t)(rows), kernel::arithmetic_error);
    // Not one run of memory: the 10 x 1000 transpose of rows.
    const kernel::array_view<const int, 2> columns(rows.data(), {10, 1000}, {1, 10});
    EXPECT_THROW((void)quotients.on(t)(columns), kernel::arithmetic_error);
    volatile int zero = 0;
    EXPECT_THROW((void)vdivide.on(t)(7, int(zero)), kernel::arithmetic_error); // scalars only
    EXPECT_THROW((void)vdivide.on(t).reduce(std::vector<int>{7, 0}), kernel::arithmetic_error);
    EXPECT_THROW((void)kernel::ufunc<divide_37_bits>{}.on(t)(a, b), kernel::arithmetic_error);
    EXPECT_THROW((void)kernel::ufunc<divide_lanes>{}.on(t)(a, b), kernel::arithmetic_error);
    b[150000] = 1;
    EXPECT_EQ(vdivide.on(t)(a, b)[150000], 7);
    EXPECT_EQ(kernel::ufunc<divide_37_bits>{}.on(t)(a, b)[150000], 7);
    EXPECT_EQ(kernel::ufunc<divide_lanes>{}.on(t)(a, b)[150000], 7);
  }
}

double checked_twice(double x) {
  if (x < 0) throw std::domain_error("negative input");
  return 2 * x;
}
void checked_sum(kernel::array_view<const double> a, double &out) {
  double s = 0;
  for (kernel::index_t i = 0; i < a.size(); ++i) {
    if (a[i] < 0) throw std::domain_error("negative in a row");
    s += a[i];
  }
  out = s;
}

// A loop function (a host implementation) that throws: the exception reaches the caller from
// every kind of call on both CPU targets, instead of ending the program.
TEST(UfuncCpu, ExceptionsOfLoopFunctionsReachTheCaller) {
  constexpr kernel::ufunc<checked_twice> vtwice;
  constexpr kernel::gufunc<"(n)->()", checked_sum> vsum;
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
    std::vector<double> x(100000, 1.0);
    x[70000] = -1;
    EXPECT_THROW(vtwice.on(t)(x), std::domain_error);
    std::vector<double> out(x.size());
    EXPECT_THROW(vtwice.on(t)(vtwice(kernel::lazy(x)), out), std::domain_error);
    kernel::ndarray<double, 2> rows({1000, 100}, 1.0);
    rows(500, 3) = -1;
    EXPECT_THROW(vsum.on(t)(rows), std::domain_error);
  }
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

// With no array, no operand has a fixed dtype: scalars take their kind's default type
// (float64, int64, complex128), as NumPy (NEP 50) and Numba do, not the first loop's.
TEST(UfuncCpu, AllScalarCallsUseTheDefaultTypes) {
  constexpr kernel::ufunc<addt<float>, addt<double>> vf;
  static_assert(std::is_same_v<decltype(vf(0.1, 0.2)), double>);
  static_assert(std::is_same_v<decltype(vf(0.1f, 0.2f)), float>); // float was chosen: it is kept
  static_assert(std::is_same_v<decltype(vf(0.1f, 0.2)), double>);
  EXPECT_EQ(vf(0.1f, 0.2f), 0.1f + 0.2f);
  static_assert(std::is_same_v<decltype(vf(1, 2)), double>); // no integer loop: int64 casts to float64
  EXPECT_EQ(vf(0.1, 0.2), 0.1 + 0.2);
  EXPECT_EQ(vf(16777216, 1), 16777217.0); // not representable in float32
  constexpr kernel::ufunc<addt<std::int32_t>, addt<std::int64_t>> vi;
  static_assert(std::is_same_v<decltype(vi(1, 2)), std::int64_t>);
  EXPECT_EQ(vi(std::int64_t{1} << 40, 1), (std::int64_t{1} << 40) + 1);
  constexpr kernel::ufunc<addt<std::complex<float>>, addt<std::complex<double>>> vc;
  static_assert(std::is_same_v<decltype(vc(std::complex<float>(1, 2), 1.0f)), std::complex<float>>);
  static_assert(std::is_same_v<decltype(vc(std::complex<double>(1, 2), 1.0)), std::complex<double>>);
  static_assert(std::is_same_v<decltype(vc(std::complex<float>(1, 2), 1.0)), std::complex<double>>);
  // A ufunc without a default-typed loop still takes scalars by kind.
  constexpr kernel::ufunc<i8add> v8;
  static_assert(std::is_same_v<decltype(v8(1, 2)), std::int8_t>);
  EXPECT_EQ(v8(1, 2), 3);
  // With an array the array's dtype decides, as before.
  std::vector<float> f{1};
  static_assert(std::is_same_v<decltype(vf(f, 2.0)), kernel::ndarray<float, 1>>);
}

double sub(double a, double b) { return a - b; }

TEST(UfuncCpu, ReduceAlongAnAxis) {
  constexpr kernel::ufunc<add> vadd;
  constexpr kernel::ufunc<sub> vsub;
  kernel::ndarray<double, 2> m({3, 4});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) m(i, j) = 10 * i + j;
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
    const auto f = vadd.on(t);
    auto columns = f.reduce(m, 0);
    static_assert(std::is_same_v<decltype(columns), kernel::ndarray<double, 1>>);
    EXPECT_EQ(columns.to_vector(), (std::vector<double>{30, 33, 36, 39})) << kernel::target_name(t);
    EXPECT_EQ(f.reduce(m, 1).to_vector(), (std::vector<double>{6, 46, 86})) << kernel::target_name(t);
    EXPECT_EQ(f.reduce(m, -1).to_vector(), (std::vector<double>{6, 46, 86})) << kernel::target_name(t);
    // In order, as NumPy: ((10 - 1) - 2) - 3.
    std::vector<double> v{10, 1, 2, 3};
    static_assert(std::is_same_v<decltype(vsub.on(t).reduce(v)), double>);
    EXPECT_EQ(vsub.on(t).reduce(v), 4.0) << kernel::target_name(t);
    // Integers through the float64 loop; a strided view (every other column).
    std::vector<int> xi{1, 2, 3};
    EXPECT_EQ(f.reduce(xi), 6.0);
    kernel::array_view<const double, 2> odd(m.data() + 1, {3, 2}, {4, 2});
    EXPECT_EQ(f.reduce(odd, 0).to_vector(), (std::vector<double>{33, 39})) << kernel::target_name(t);
    // A middle axis of three.
    kernel::ndarray<double, 3> cube({2, 3, 2}, 1.0);
    auto r = f.reduce(cube, 1);
    static_assert(std::is_same_v<decltype(r), kernel::ndarray<double, 2>>);
    EXPECT_EQ(r.to_vector(), std::vector<double>(4, 3.0));
  }
  try {
    vadd.reduce(m, 2);
    FAIL();
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 2);
    EXPECT_NE(std::string(e.what()).find("axis 2 is out of range for an array of 2 dimensions"), std::string::npos)
        << e.what();
  }
  // An axis of any integer type; one in braces is a list of one axis.
  EXPECT_EQ(vadd.reduce(m, std::size_t{1}).to_vector(), (std::vector<double>{6, 46, 86}));
  EXPECT_EQ(vadd.reduce(m, {1}).to_vector(), (std::vector<double>{6, 46, 86}));
  EXPECT_EQ(vadd.reduce(m, {-2}, 1.0).to_vector(), (std::vector<double>{31, 34, 37, 40}));
  for (const auto &[axis_text, call] :
       {std::pair<std::string, std::function<void()>>{"axis 18446744073709551615 is out of range",
                                                      [&] { (void)vadd.reduce(m, ~std::uint64_t{0}); }},
        {"axis -9223372036854775808 is out of range for an array of 2 dimensions",
         [&] { (void)vadd.reduce(m, std::numeric_limits<long long>::min(), 0.0); }}}) {
    try {
      call();
      ADD_FAILURE() << axis_text;
    } catch (const kernel::argument_error &e) {
      EXPECT_EQ(e.argument(), 2);
      EXPECT_NE(std::string(e.what()).find(axis_text), std::string::npos) << e.what();
    }
  }
  kernel::ndarray<double, 2> empty({0, 3});
  EXPECT_THROW(vadd.reduce(empty, 0), kernel::argument_error);
  EXPECT_EQ(vadd.reduce(empty, 1).size(), 0);
}

// NumPy's `initial`: the fold starts from it, so an empty axis reduces to it; it is a scalar
// argument of the loop's first parameter, range-checked as a call's.
TEST(UfuncCpu, ReduceFromAnInitialValue) {
  constexpr kernel::ufunc<sub> vsub;
  kernel::ndarray<double, 2> m({3, 4});
  for (int i = 0; i < 12; ++i) m.data()[i] = i;
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
    SCOPED_TRACE(kernel::target_name(t));
    const auto f = vsub.on(t);
    EXPECT_EQ(f.reduce(m, 0, 100).to_vector(), (std::vector<double>{88, 85, 82, 79}));
    EXPECT_EQ(f.reduce(m, -1, 0.5).to_vector(), (std::vector<double>{-5.5, -21.5, -37.5}));
    EXPECT_EQ(f.reduce(std::vector<double>{1}, 0, 10), 9.0);
    kernel::ndarray<double, 2> empty({0, 3});
    EXPECT_EQ(f.reduce(empty, 0, 7).to_vector(), (std::vector<double>{7, 7, 7}));
    EXPECT_EQ(f.reduce(std::vector<double>{}, 0, 7), 7.0);
  }
  try {
    (void)vsub.reduce(kernel::ndarray<double, 2>({0, 3}), 0);
    FAIL();
  } catch (const kernel::argument_error &e) {
    EXPECT_NE(std::string(e.what()).find("give reduce an initial value"), std::string::npos) << e.what();
  }
  constexpr kernel::ufunc<i8add> v8;
  EXPECT_EQ(v8.reduce(std::vector<std::int8_t>{1, 2}, 0, 100), 103);
  try {
    (void)v8.reduce(std::vector<std::int8_t>{1, 2}, 0, 300);
    FAIL();
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 3);
  }
}

std::int64_t times(std::int64_t a, std::int64_t b) { return a * b; }

// A ufunc's identity (Numba's @vectorize(identity=...)): an empty axis reduces to it, and it
// lets reduce run over several axes at once (NumPy's axis=(0, 2) and axis=None), each result
// the fold of its elements, whatever their strides; without one, one axis at a time.
TEST(UfuncCpu, ReduceOverSeveralAxes) {
  constexpr kernel::ufunc<add> vsum{kernel::identity::zero};
  constexpr kernel::ufunc<times> vproduct{kernel::identity::one};
  constexpr kernel::ufunc<sub> vsub;
  static_assert(vsum.identity() == kernel::identity::zero && vsub.identity() == kernel::identity::none);
  static_assert(vsum.on(kernel::target::parallel).identity() == kernel::identity::zero);
  kernel::ndarray<double, 3> a({2, 3, 4});
  for (int i = 0; i < 24; ++i) a.data()[i] = i * i % 17;
  const auto sum_over = [&](const kernel::array_view<const double, 3> &v, std::array<bool, 3> over) {
    std::vector<double> r;
    for (int i = 0; i < (over[0] ? 1 : v.shape(0)); ++i)
      for (int j = 0; j < (over[1] ? 1 : v.shape(1)); ++j)
        for (int k = 0; k < (over[2] ? 1 : v.shape(2)); ++k) {
          double s = 0;
          for (int x = over[0] ? 0 : i; x < (over[0] ? v.shape(0) : i + 1); ++x)
            for (int y = over[1] ? 0 : j; y < (over[1] ? v.shape(1) : j + 1); ++y)
              for (int z = over[2] ? 0 : k; z < (over[2] ? v.shape(2) : k + 1); ++z) s += v(x, y, z);
          r.push_back(s);
        }
    return r;
  };
  // Reversed along the middle axis: no two axes line up.
  const kernel::array_view<const double, 3> reversed(a.data() + 8, {2, 3, 4}, {12, -4, 1});
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
    SCOPED_TRACE(kernel::target_name(t));
    const auto f = vsum.on(t);
    for (const kernel::array_view<const double, 3> &v : {kernel::array_view<const double, 3>(a.view()), reversed}) {
      const auto outer_two = f.reduce(v, {0, 2});
      static_assert(std::is_same_v<decltype(outer_two), const kernel::ndarray<double, 1>>);
      EXPECT_EQ(outer_two.to_vector(), sum_over(v, {true, false, true}));
      EXPECT_EQ(f.reduce(v, {2, -3}).to_vector(), sum_over(v, {true, false, true}));
      EXPECT_EQ(f.reduce(v, std::array{1, 2}).to_vector(), sum_over(v, {false, true, true}));
      EXPECT_EQ(f.reduce(v, {0, 1}).to_vector(), sum_over(v, {true, true, false}));
      const double all = f.reduce(v, kernel::all_axes);
      EXPECT_EQ(all, sum_over(v, {true, true, true})[0]);
      EXPECT_EQ(f.reduce(v, {0, 1, 2}, 100), all + 100);
      EXPECT_EQ(f.reduce(v, std::array{1}).to_vector(), f.reduce(v, 1).to_vector());
    }
    // An empty axis is the identity; so is the reduction of every axis of an empty array.
    const kernel::ndarray<std::int64_t, 2> none({0, 3});
    EXPECT_EQ(vproduct.on(t).reduce(none, 0).to_vector(), (std::vector<std::int64_t>{1, 1, 1}));
    EXPECT_EQ(vproduct.on(t).reduce(none, kernel::all_axes), 1);
    EXPECT_EQ(f.reduce(none, {0, 1}), 0.0);
    EXPECT_EQ(f.reduce(std::vector<float>{}), 0.0);
    EXPECT_EQ(vproduct.on(t).reduce(std::vector<std::int64_t>{2, 3, 7}, kernel::all_axes), 42);
    // One axis needs no identity: every axis of a 1-d array is one.
    EXPECT_EQ(vsub.on(t).reduce(std::vector<double>{10, 1, 2}, kernel::all_axes), 7.0);
  }
  // On `parallel`, long lines of a ufunc with an identity are folded in chunks on the cores,
  // then the chunks' results; without one, in order.
  kernel::ndarray<double, 2> lines({3, (1 << 17) + 5});
  for (kernel::index_t i = 0; i < lines.size(); ++i) lines.data()[i] = static_cast<double>(i % 1000 + 1);
  const auto line_sum = [&](int row) {
    double s = 0;
    for (kernel::index_t k = 0; k < lines.shape(1); ++k) s += lines(row, k);
    return s;
  };
  const auto parallel_sum = vsum.on(kernel::target::parallel);
  EXPECT_EQ(parallel_sum.reduce(lines, 1).to_vector(), (std::vector<double>{line_sum(0), line_sum(1), line_sum(2)}));
  EXPECT_EQ(parallel_sum.reduce(lines, 1, 7.0)[2], line_sum(2) + 7);
  EXPECT_EQ(parallel_sum.reduce(lines, kernel::all_axes), line_sum(0) + line_sum(1) + line_sum(2));
  const kernel::array_view<const double, 1> backwards(lines.data() + lines.shape(1) - 1, {lines.shape(1)}, {-1});
  EXPECT_EQ(parallel_sum.reduce(backwards), line_sum(0));
  EXPECT_EQ(vsub.on(kernel::target::parallel).reduce(backwards), vsub.reduce(backwards));
  const auto refused = [](const auto &call, int argument, const std::string &says) {
    try {
      call();
      ADD_FAILURE() << "accepted: " << says;
    } catch (const kernel::argument_error &e) {
      EXPECT_NE(std::string(e.callee()).find("sub"), std::string::npos);
      EXPECT_EQ(e.argument(), argument) << e.what();
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused([&] { (void)vsub.reduce(a, {0, 1}); }, 2, "reducing over 2 axes at once combines elements out of order");
  refused([&] { (void)vsub.reduce(a, kernel::all_axes); }, 2, "needs a ufunc with an identity");
  refused([&] { (void)vsub.reduce(kernel::ndarray<double, 2>({0, 2}), 0); }, 1,
          "has no elements, and the ufunc has no identity");
  constexpr kernel::ufunc<sub> vsub_any{kernel::identity::reorderable};
  refused([&] { (void)vsub_any.reduce(kernel::ndarray<double, 2>({0, 2}), 0); }, 1, "kernel::identity::zero or one");
  refused([&] { (void)vsub_any.reduce(a, {1, -2}); }, 2, "axis 1 is given twice");
  refused([&] { (void)vsub_any.reduce(kernel::ndarray<double, 3>({0, 3, 2}), {0, 2}); }, 2,
          "the axes reduced have no elements, and the ufunc has no identity value");
  refused([&] { (void)vsub_any.reduce(a, {0, 3}); }, 2, "axis 3 is out of range for an array of 3 dimensions");
  EXPECT_EQ(vsub_any.reduce(a, {1, 2}).to_vector(), (std::vector<double>{-98, -62}));
  // A value for an identity starts every fold not given an initial value, as NumPy's and
  // Numba's: (1 - 5) - 1; 0 + -0.0 is 0.0.
  constexpr kernel::ufunc<sub> vsub_one{kernel::identity::one};
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
    EXPECT_EQ(vsub_one.on(t).reduce(std::vector<double>{5, 1}), -5.0);
    EXPECT_EQ(vsub_one.on(t).reduce(std::vector<double>{5}), -4.0);
    EXPECT_EQ(vsub_one.on(t).reduce(std::vector<double>{5, 1}, 0, 10), 4.0);
    EXPECT_FALSE(std::signbit(vsum.on(t).reduce(std::vector<double>{-0.0})));
    EXPECT_TRUE(std::signbit(kernel::ufunc<add>().on(t).reduce(std::vector<double>{-0.0})));
  }
}

std::int32_t int_div(std::int32_t a, std::int32_t b) { return a / b; }

// A plain reference for reduceat: NumPy's definition, element by element along axis 0 of a
// row-major matrix of `columns` columns.
template <class R, class T, class F>
std::vector<R> reduceat_reference(const std::vector<T> &a, kernel::index_t columns, const std::vector<long> &indices,
                                  F f) {
  const auto rows = static_cast<long>(a.size()) / columns;
  std::vector<R> r;
  for (std::size_t i = 0; i < indices.size(); ++i) {
    const long begin = indices[i];
    const long end = i + 1 == indices.size() ? rows : std::max(indices[i + 1], begin + 1);
    for (long c = 0; c < columns; ++c) {
      R acc = static_cast<R>(a[begin * columns + c]);
      for (long k = begin + 1; k < end; ++k) acc = f(acc, a[k * columns + c]);
      r.push_back(acc);
    }
  }
  return r;
}

// NumPy's ufunc.reduceat: each slice from an index to the next reduced in order from its first
// element (an identity does not start it); an index not below the next is that element; along
// any axis, of any strides, on every host target.
TEST(UfuncCpu, ReduceatOverSlices) {
  constexpr kernel::ufunc<add> vadd;
  constexpr kernel::ufunc<sub> vsub;
  constexpr kernel::ufunc<sub> vsub_one{kernel::identity::one};
  constexpr kernel::ufunc<i8add> v8;
  std::vector<double> x(8);
  std::iota(x.begin(), x.end(), 0.0);
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
    SCOPED_TRACE(kernel::target_name(t));
    // NumPy: add.reduceat(arange(8), [0, 4, 1, 5]) = [6, 4, 10, 18]; subtract's in order.
    const auto sums = vadd.on(t).reduceat(x, std::vector<int>{0, 4, 1, 5});
    static_assert(std::is_same_v<decltype(sums), const kernel::ndarray<double, 1>>);
    EXPECT_EQ(sums.to_vector(), (std::vector<double>{6, 4, 10, 18}));
    EXPECT_EQ(vadd.on(t).reduceat(x, {0, 4, 1, 5}).to_vector(), sums.to_vector());
    // Indices of any layout: every other one of a list (copied first), a span of bytes.
    const std::vector<short> spread{0, 9, 4, 9, 1, 9, 5};
    EXPECT_EQ(vadd.on(t).reduceat(x, kernel::array_view<const short>(spread.data(), {4}, {2})).to_vector(),
              sums.to_vector());
    const std::vector<std::uint8_t> bytes{0, 4, 1, 5};
    EXPECT_EQ(vadd.on(t).reduceat(x, std::span<const std::uint8_t>(bytes)).to_vector(), sums.to_vector());
    EXPECT_EQ(vsub.on(t).reduceat(x, std::vector<long>{0, 3, 3, 7}).to_vector(), (std::vector<double>{-3, 3, -12, 7}));
    EXPECT_EQ(vsub_one.on(t).reduceat(x, std::vector<long>{0, 3, 3, 7}).to_vector(),
              (std::vector<double>{-3, 3, -12, 7}));
    EXPECT_EQ(vadd.on(t).reduceat(x, std::vector<unsigned>{2, 0}).to_vector(), (std::vector<double>{2, 28}));
    EXPECT_EQ(vadd.on(t).reduceat(x, std::vector<int>{}).size(), 0);
    // The loop's result type: int8 elements through the int8 loop, converted where one is alone.
    const std::vector<std::int8_t> small{100, 27, 1, 5};
    const auto wrapped = v8.on(t).reduceat(small, std::vector<int>{0, 2, 2});
    static_assert(std::is_same_v<decltype(wrapped), const kernel::ndarray<std::int8_t, 1>>);
    EXPECT_EQ(wrapped.to_vector(), (std::vector<std::int8_t>{127, 1, 6}));
    // Along each axis of a matrix, and of a strided view (every other row, backwards).
    kernel::ndarray<double, 2> m({9, 5});
    for (int i = 0; i < 45; ++i) m.data()[i] = (i * 37) % 11 - 4;
    const std::vector<long> rows{0, 3, 3, 8, 2, 7};
    const auto down = vsub.on(t).reduceat(m, std::vector<long>(rows));
    EXPECT_EQ(down.shape(), (std::array<kernel::index_t, 2>{6, 5}));
    const auto expected = reduceat_reference<double>(m.to_vector(), 5, rows, [](double a, double b) { return a - b; });
    EXPECT_EQ(down.to_vector(), expected);
    kernel::ndarray<double, 2> mt({5, 9});
    for (int i = 0; i < 9; ++i)
      for (int j = 0; j < 5; ++j) mt(j, i) = m(i, j);
    const auto across = vsub.on(t).reduceat(mt, std::vector<long>(rows), -1);
    EXPECT_EQ(across.shape(), (std::array<kernel::index_t, 2>{5, 6}));
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 5; ++j) EXPECT_EQ(across(j, i), down(i, j)) << i << ", " << j;
    const kernel::array_view<const double, 2> back(m.data() + 8 * 5, {5, 5}, {-10, 1}); // rows 8, 6, 4, 2, 0
    std::vector<double> back_rows;
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j) back_rows.push_back(back(i, j));
    EXPECT_EQ(vadd.on(t).reduceat(back, std::vector<long>{1, 4, 0}).to_vector(),
              reduceat_reference<double>(back_rows, 5, {1, 4, 0}, [](double a, double b) { return a + b; }));
    // Many short slices of long lines: spread over the cores on `parallel`.
    kernel::ndarray<std::int64_t, 2> wide({3000, 40});
    for (kernel::index_t i = 0; i < wide.size(); ++i) wide.data()[i] = i % 101;
    std::vector<long> every_third;
    for (long k = 0; k < 3000; k += 3) every_third.push_back(k);
    const auto wide_sums = kernel::ufunc<times>().on(t).reduceat(wide, std::vector<long>(every_third));
    EXPECT_EQ(wide_sums.to_vector(),
              reduceat_reference<std::int64_t>(wide.to_vector(), 40, every_third,
                                               [](std::int64_t a, std::int64_t b) { return a * b; }));
  }
  // Errors name the argument: an index out of range (negative ones too, as NumPy's), an axis.
  const auto refused = [&](const auto &call, int argument, const std::string &says) {
    try {
      call();
      ADD_FAILURE() << "accepted: " << says;
    } catch (const kernel::argument_error &e) {
      EXPECT_NE(std::string(e.callee()).find("add"), std::string::npos);
      EXPECT_EQ(e.argument(), argument) << e.what();
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused([&] { (void)vadd.reduceat(x, std::vector<int>{0, 8}); }, 2,
          "index 8 at position 1 is out of range for axis 0, of 8 elements (reduceat's indices are in [0, 8))");
  refused([&] { (void)vadd.reduceat(x, std::vector<int>{-1}); }, 2, "index -1 at position 0 is out of range");
  refused([&] { (void)vadd.reduceat(std::vector<double>{}, std::vector<int>{0}); }, 2,
          "index 0 at position 0 is out of range for axis 0, of 0 elements");
  refused([&] { (void)vadd.reduceat(x, std::vector<int>{0}, 1); }, 3,
          "axis 1 is out of range for an array of 1 dimension");
  refused([&] { (void)vadd.reduceat(x, {0}, ~std::size_t{0}); }, 3, "axis 18446744073709551615 is out of range");
  EXPECT_TRUE(vadd.reduceat(x, {}).to_vector().empty());
  enum { rows, columns };
  kernel::ndarray<double, 2> grid({2, 3}, 1.0);
  EXPECT_EQ(vadd.reduce(grid, columns).to_vector(), (std::vector<double>{3, 3}));
  EXPECT_EQ(vadd.reduceat(grid, {0, 2}, columns).to_vector(), (std::vector<double>{2, 1, 2, 1}));
  EXPECT_EQ(vadd.accumulate(grid, columns).to_vector(), (std::vector<double>{1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(vadd.accumulate(grid, std::size_t{0}).to_vector(), (std::vector<double>{1, 1, 1, 2, 2, 2}));
  refused([&] { (void)vadd.accumulate(grid, ~std::size_t{0}); }, 2, "axis 18446744073709551615 is out of range");
  EXPECT_EQ(vadd.reduceat(std::vector<double>{}, std::vector<int>{}).size(), 0);
  EXPECT_EQ(vadd.reduceat(kernel::ndarray<double, 2>({4, 0}), std::vector<int>{1, 2}).shape(),
            (std::array<kernel::index_t, 2>{2, 0}));
  // An integer division by zero in the loop: an arithmetic_error.
  constexpr kernel::ufunc<int_div> vdiv;
  EXPECT_THROW(
      (void)vdiv.on(kernel::target::parallel).reduceat(std::vector<std::int32_t>{8, 0, 2}, std::vector<int>{0}),
      kernel::arithmetic_error);
}

double negate(double a) { return -a; }

// NumPy's ufunc.at: in place, unbuffered (a repeated index applies again), along the first axis,
// the operand broadcast to the indices' shape and the rows'; negative indices from the end.
TEST(UfuncCpu, AtAppliesInPlaceAtIndices) {
  constexpr kernel::ufunc<add> vadd;
  constexpr kernel::ufunc<sub> vsub;
  constexpr kernel::ufunc<negate> vneg;
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
    SCOPED_TRACE(kernel::target_name(t));
    std::vector<double> a{1, 2, 3, 4, 5};
    vadd.on(t).at(a, std::vector<int>{0, 0, -1, 2}, 10);
    EXPECT_EQ(a, (std::vector<double>{21, 2, 13, 4, 15}));
    vsub.on(t).at(a, std::vector<long>{1, 1}, std::vector<double>{1, 0.5});
    EXPECT_EQ(a, (std::vector<double>{21, 0.5, 13, 4, 15}));
    vneg.on(t).at(a, std::vector<unsigned>{4, 4, 4});
    EXPECT_EQ(a, (std::vector<double>{21, 0.5, 13, 4, -15}));
    vadd.on(t).at(a, 3, 1); // one index
    EXPECT_EQ(a[3], 5.0);
    // Rows of a matrix; the operand broadcast over them, or one row per index; a strided view.
    kernel::ndarray<double, 2> m({3, 4});
    vadd.on(t).at(m, std::vector<int>{2, 0, 2}, std::vector<double>{1, 2, 3, 4});
    EXPECT_EQ(m.to_vector(), (std::vector<double>{1, 2, 3, 4, 0, 0, 0, 0, 2, 4, 6, 8}));
    kernel::ndarray<double, 2> per_index({2, 4});
    for (int i = 0; i < 8; ++i) per_index.data()[i] = i;
    vsub.on(t).at(m, kernel::ndarray<int, 1>::of({1, 1}), per_index);
    EXPECT_EQ(m.to_vector(), (std::vector<double>{1, 2, 3, 4, -4, -6, -8, -10, 2, 4, 6, 8}));
    kernel::array_view<double, 2> columns(m.data() + 3, {3, 2}, {4, -2}); // columns 3 and 1
    vadd.on(t).at(columns, kernel::ndarray<int, 2>({2, 1}), std::vector<double>{100, 200});
    EXPECT_EQ(m.to_vector(), (std::vector<double>{1, 402, 3, 204, -4, -6, -8, -10, 2, 4, 6, 8}));
    // The loop's result into the array's type (same_kind): float64 into float32.
    std::vector<float> f{1, 2};
    vadd.on(t).at(f, std::vector<int>{1}, 0.5);
    EXPECT_EQ(f, (std::vector<float>{1, 2.5f}));
    // No indices: nothing.
    vadd.on(t).at(f, std::vector<int>{}, 1);
    EXPECT_EQ(f, (std::vector<float>{1, 2.5f}));
  }
  // Errors name the argument; nothing is written.
  std::vector<double> a{1, 2, 3};
  const auto refused = [&](const auto &call, int argument, const std::string &says) {
    try {
      call();
      ADD_FAILURE() << "accepted: " << says;
    } catch (const kernel::argument_error &e) {
      EXPECT_EQ(e.argument(), argument) << e.what();
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
    EXPECT_EQ(a, (std::vector<double>{1, 2, 3}));
  };
  refused([&] { vadd.at(a, std::vector<int>{0, 1, 3}, 1); }, 2,
          "index 3 at position 2 is out of range for axis 0, of 3 elements");
  refused([&] { vadd.at(a, std::vector<int>{-4}, 1); }, 2, "index -4 at position 0 is out of range");
  refused([&] { vadd.at(a, std::vector<std::uint64_t>{~std::uint64_t{0}}, 1); }, 2,
          "index 18446744073709551615 at position 0");
  refused([&] { vadd.at(a, std::vector<int>{0, 1}, std::vector<double>{1, 2, 3}); }, 3,
          "has shape (3,), which does not broadcast to the indexed shape (2,)");
  refused([&] { vadd.at(a, std::vector<int>{0, 1}, kernel::array_view<const double>(a.data() + 1, {2})); }, 3,
          "shares memory with the array (argument 1), which at changes while it reads this; pass a copy");
  refused([&] { vadd.at(a, std::vector<int>{2, 1, 0}, a); }, 3, "shares memory with the array (argument 1)");
  refused([&] { vadd.at(kernel::array_view<double, 2>(a.data(), {2, 2}, {0, 1}), 0, 1.0); }, 1,
          "has a zero stride: the results would be written more than once to one element");
  kernel::ndarray<double, 2> m({2, 3});
  try {
    vadd.at(m, std::vector<int>{0}, std::vector<double>{1, 2});
    ADD_FAILURE();
  } catch (const kernel::argument_error &e) {
    EXPECT_NE(std::string(e.what()).find("does not broadcast to the indexed shape (1, 3)"), std::string::npos)
        << e.what();
  }
  // An integer division by zero in the loop: an arithmetic_error; the indices before it applied.
  constexpr kernel::ufunc<int_div> vdiv;
  std::vector<std::int32_t> q{8, 9};
  EXPECT_THROW(vdiv.at(q, std::vector<int>{0, 1}, std::vector<std::int32_t>{2, 0}), kernel::arithmetic_error);
  EXPECT_EQ(q, (std::vector<std::int32_t>{4, 9}));
}

// NumPy's ufunc.accumulate: every step of reduce's fold, in order (subtraction is not
// associative), along any axis, of any strides; the loop's result type.
TEST(UfuncCpu, AccumulateAlongAnAxis) {
  constexpr kernel::ufunc<sub> vsub;
  constexpr kernel::ufunc<add> vadd;
  kernel::ndarray<double, 2> m({3, 4});
  for (int i = 0; i < 12; ++i) m.data()[i] = i * i;
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
    SCOPED_TRACE(kernel::target_name(t));
    const auto f = vsub.on(t);
    const auto down = f.accumulate(m, 0);
    static_assert(std::is_same_v<decltype(down), const kernel::ndarray<double, 2>>);
    EXPECT_EQ(down.to_vector(), (std::vector<double>{0, 1, 4, 9, -16, -24, -32, -40, -80, -105, -132, -161}));
    const std::vector<double> across{0, -1, -5, -14, 16, -9, -45, -94, 64, -17, -117, -238};
    EXPECT_EQ(f.accumulate(m, 1).to_vector(), across);
    EXPECT_EQ(f.accumulate(m, -1).to_vector(), across);
    // Integers through the float64 loop; a strided view (every other column, backwards).
    EXPECT_EQ(vadd.on(t).accumulate(std::vector<int>{1, 2, 3}).to_vector(), (std::vector<double>{1, 3, 6}));
    kernel::array_view<const double, 2> odd(m.data() + 3, {3, 2}, {4, -2});
    EXPECT_EQ(f.accumulate(odd, 0).to_vector(), (std::vector<double>{9, 1, -40, -24, -161, -105}));
    // A middle axis of three; one element; empty arrays, along the empty axis or another.
    kernel::ndarray<double, 3> cube({2, 3, 2}, 1.0);
    EXPECT_EQ(vadd.on(t).accumulate(cube, 1).to_vector(), (std::vector<double>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
    EXPECT_EQ(f.accumulate(std::vector<double>{7}).to_vector(), std::vector<double>{7});
    kernel::ndarray<double, 2> empty({0, 3});
    EXPECT_EQ(f.accumulate(empty, 0).shape(), (std::array<kernel::index_t, 2>{0, 3}));
    EXPECT_EQ(f.accumulate(empty, 1).size(), 0);
    // Long lines, spread over cores: each is its own fold.
    kernel::ndarray<double, 2> wide({3, 100000}, 1.0);
    const auto sums = vadd.on(t).accumulate(wide, 1);
    EXPECT_EQ(sums(2, 99999), 100000.0);
    EXPECT_EQ(sums(1, 0), 1.0);
  }
  try {
    (void)vsub.accumulate(m, -3);
    FAIL();
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 2);
    EXPECT_NE(std::string(e.what()).find("axis -3 is out of range for an array of 2 dimensions"), std::string::npos)
        << e.what();
  }
  // A division by zero at a step is the error it is in a call.
  constexpr kernel::ufunc<divide> vdivide;
  EXPECT_THROW((void)vdivide.on(kernel::target::parallel).accumulate(std::vector<int>{7, 1, 0}),
               kernel::arithmetic_error);
  EXPECT_EQ(vdivide.accumulate(std::vector<int>{100, 2, 5}).to_vector(), (std::vector<int>{100, 50, 10}));
}

// NumPy's ufunc.outer: every pair, of shape a.shape + b.shape; into an output of that shape;
// scalars as arrays of no dimension; the call's broadcasting errors.
TEST(UfuncCpu, OuterOfEveryPair) {
  constexpr kernel::ufunc<sub> vsub;
  kernel::ndarray<double, 2> m({2, 2});
  for (int i = 0; i < 4; ++i) m.data()[i] = 10 * (i + 1);
  const std::vector<int> v{1, 2, 3};
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
    SCOPED_TRACE(kernel::target_name(t));
    const auto f = vsub.on(t);
    const auto r = f.outer(m, v);
    static_assert(std::is_same_v<decltype(r), const kernel::ndarray<double, 3>>);
    EXPECT_EQ(r.shape(), (std::array<kernel::index_t, 3>{2, 2, 3}));
    EXPECT_EQ(r.to_vector(), (std::vector<double>{9, 8, 7, 19, 18, 17, 29, 28, 27, 39, 38, 37}));
    EXPECT_EQ(f.outer(v, m).to_vector(),
              (std::vector<double>{-9, -19, -29, -39, -8, -18, -28, -38, -7, -17, -27, -37}));
    // A strided view; scalars on either side, or both.
    kernel::array_view<const double, 1> diagonal(m.data(), {2}, {3});
    EXPECT_EQ(f.outer(diagonal, 0.5).to_vector(), (std::vector<double>{9.5, 39.5}));
    EXPECT_EQ(f.outer(1, v).to_vector(), (std::vector<double>{0, -1, -2}));
    EXPECT_EQ(f.outer(5.0, 2), 3.0);
    kernel::ndarray<double, 2> into({3, 2}, -1.0);
    f.outer(v, diagonal, into);
    EXPECT_EQ(into.to_vector(), (std::vector<double>{-9, -39, -8, -38, -7, -37}));
    // Empty on either side.
    EXPECT_EQ(f.outer(std::vector<double>{}, v).shape(), (std::array<kernel::index_t, 2>{0, 3}));
  }
  kernel::ndarray<double, 2> wrong({2, 3}, -1.0);
  try {
    vsub.outer(v, m, wrong);
    FAIL();
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 3);
    EXPECT_EQ(wrong.to_vector(), std::vector<double>(6, -1.0)); // nothing written
  }
  static_assert(kernel::ufunc<sub>::nin == 2 && kernel::ufunc<sub>::nout == 1 && kernel::ufunc<sub>::nargs == 3);
  static_assert(kernel::ufunc<addt<float>, addt<double>>::ntypes == 2);
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
