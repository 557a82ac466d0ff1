// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel/fft.h on cpu, parallel and the simulator against a direct DFT in long double: every
// length up to 40 and lengths with large prime factors (Bluestein), both precisions, real and
// complex inputs, NumPy's three normalisations, batched and strided arrays, chosen axes, in
// place, real transforms along one axis and several, inputs cropped or padded to other lengths,
// device arrays that stay on the device, and the error paths.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <numbers>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "kernel/fft.h"
#include "kernel/fuse.h"
#include "kernel/ufunc.h"
#include "test_device.h"

namespace {

using cd = std::complex<double>;
using cf = std::complex<float>;

/// The DFT of `x` (n points at stride `stride`) by the definition, in long double.
std::vector<cd> dft(const cd *x, kernel::index_t n, kernel::index_t stride, bool inverse) {
  std::vector<cd> y(static_cast<std::size_t>(n));
  for (kernel::index_t k = 0; k < n; ++k) {
    long double re = 0, im = 0;
    for (kernel::index_t j = 0; j < n; ++j) {
      const long double a = (inverse ? 2 : -2) * std::numbers::pi_v<long double> *
                            static_cast<long double>((j * k) % n) / static_cast<long double>(n);
      const cd v = x[j * stride];
      re += v.real() * std::cos(a) - v.imag() * std::sin(a);
      im += v.real() * std::sin(a) + v.imag() * std::cos(a);
    }
    y[static_cast<std::size_t>(k)] = cd(static_cast<double>(re), static_cast<double>(im));
  }
  return y;
}

std::vector<cd> random_complex(std::size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<cd> v(n);
  for (cd &x : v) x = {u(g), u(g)};
  return v;
}

/// max |a - b| over max |b|.
template <class A, class B> double relative_error(const A &a, const B &b, std::size_t n) {
  double e = 0, m = 1e-300;
  for (std::size_t i = 0; i < n; ++i) {
    e = std::max(e, std::abs(cd(a[i]) - cd(b[i])));
    m = std::max(m, std::abs(cd(b[i])));
  }
  return e / m;
}

struct Targets : testing::TestWithParam<kernel::target> {};

[[kernel::vectorize("float64(float64, float64)")]] double times(double x, double a) { return x * a; }
constexpr kernel::ufunc<times> vtimes;

TEST_P(Targets, EveryLengthMatchesTheDefinition) {
  const kernel::target t = GetParam();
  std::vector<kernel::index_t> lengths;
  for (kernel::index_t n = 1; n <= 40; ++n) lengths.push_back(n);
  // Powers of two and of small primes, and prime factors above 31 (Bluestein): 37, 97, 257,
  // 2 * 257, 37 * 41.
  for (kernel::index_t n : {64, 81, 125, 243, 360, 1000, 1024, 37, 97, 257, 514, 1517}) lengths.push_back(n);
  for (kernel::index_t n : lengths) {
    const std::vector<cd> x = random_complex(static_cast<std::size_t>(n), static_cast<unsigned>(n));
    const std::vector<cd> want = dft(x.data(), n, 1, false);
    const auto got = kernel::fft.on(t)(x);
    ASSERT_LT(relative_error(got.data(), want.data(), x.size()), 1e-13) << "complex128, n = " << n;
    const std::vector<cf> xf(x.begin(), x.end());
    const auto gotf = kernel::fft.on(t)(xf);
    ASSERT_LT(relative_error(gotf.data(), want.data(), x.size()), 2e-6) << "complex64, n = " << n;
    const auto back = kernel::ifft.on(t)(got);
    ASSERT_LT(relative_error(back.data(), x.data(), x.size()), 1e-13) << "ifft, n = " << n;
  }
}

TEST_P(Targets, RealInputsAndNormalisations) {
  const kernel::target t = GetParam();
  const kernel::index_t n = 30;
  const std::vector<cd> xc = random_complex(static_cast<std::size_t>(n), 3);
  std::vector<double> x;
  for (const cd &v : xc) x.push_back(v.real());
  std::vector<cd> real_as_complex(x.begin(), x.end());
  const std::vector<cd> want = dft(real_as_complex.data(), n, 1, false);
  // A real input is transformed as complex with zero imaginary parts.
  const auto full = kernel::fft.on(t)(x);
  EXPECT_LT(relative_error(full.data(), want.data(), want.size()), 1e-13);
  // backward: forward unscaled, inverse / n; ortho: both / sqrt(n); forward: forward / n.
  for (auto [norm, forward_scale] :
       {std::pair{kernel::fft_norm::backward, 1.0}, std::pair{kernel::fft_norm::ortho, 1 / std::sqrt(30.0)},
        std::pair{kernel::fft_norm::forward, 1 / 30.0}}) {
    const auto X = kernel::fft.on(t)(xc, {}, -1, norm);
    const std::vector<cd> w = dft(xc.data(), n, 1, false);
    for (kernel::index_t k = 0; k < n; ++k)
      ASSERT_LT(std::abs(X(k) - w[static_cast<std::size_t>(k)] * forward_scale), 1e-13) << k;
    const auto back = kernel::ifft.on(t)(X, {}, -1, norm);
    ASSERT_LT(relative_error(back.data(), xc.data(), xc.size()), 1e-13);
  }
  // rfft: the n/2+1 first coefficients; irfft gives x back, for even and odd n.
  for (kernel::index_t m : {kernel::index_t{1}, kernel::index_t{2}, kernel::index_t{29}, kernel::index_t{30}}) {
    const std::vector<double> part(x.begin(), x.begin() + m);
    std::vector<cd> pc(part.begin(), part.end());
    const std::vector<cd> w = dft(pc.data(), m, 1, false);
    const auto H = kernel::rfft.on(t)(part);
    ASSERT_EQ(H.shape(0), m / 2 + 1);
    if (t != kernel::target::cuda) { // the host transform's are real, as NumPy's
      EXPECT_EQ(H(0).imag(), 0.0) << m;
      if (m % 2 == 0) EXPECT_EQ(H(m / 2).imag(), 0.0) << m;
    }
    ASSERT_LT(relative_error(H.data(), w.data(), static_cast<std::size_t>(m / 2 + 1)), 1e-13);
    const auto back = kernel::irfft.on(t)(H, m);
    ASSERT_EQ(back.shape(0), m);
    ASSERT_LT(relative_error(back.data(), part.data(), part.size()), 1e-13) << m;
  }
  // irfft of any coefficients, as NumPy reads them: the spectrum made Hermitian, so the
  // imaginary parts of X_0 and (for even n) X_{n/2} count for nothing.
  for (kernel::index_t len : {kernel::index_t{2}, kernel::index_t{9}, kernel::index_t{16}, kernel::index_t{30}}) {
    const std::vector<cd> c = random_complex(static_cast<std::size_t>(len / 2 + 1), static_cast<unsigned>(len));
    const auto got = kernel::irfft.on(t)(c, len);
    for (kernel::index_t j = 0; j < len; ++j) {
      long double sum = c[0].real();
      for (kernel::index_t k = 1; k <= len / 2; ++k) {
        const long double a = 2 * std::numbers::pi_v<long double> * static_cast<long double>((j * k) % len) /
                              static_cast<long double>(len);
        const cd v = c[static_cast<std::size_t>(k)];
        const long double term = v.real() * std::cos(a) - v.imag() * std::sin(a);
        sum += 2 * len == 4 * k ? term : 2 * term; // X_{n/2} has no conjugate partner
      }
      ASSERT_NEAR(got(j), static_cast<double>(sum / static_cast<long double>(len)), 1e-14) << len << ", " << j;
    }
  }
}

TEST_P(Targets, AxesBatchesAndStridedViews) {
  const kernel::target t = GetParam();
  // A 3-D array: transforms along each axis alone match per-line DFTs; fftn is their product.
  const kernel::index_t d0 = 3, d1 = 5, d2 = 8;
  kernel::ndarray<cd, 3> a({d0, d1, d2});
  const std::vector<cd> v = random_complex(static_cast<std::size_t>(a.size()), 7);
  std::copy(v.begin(), v.end(), a.data());
  const kernel::index_t strides[3] = {d1 * d2, d2, 1}, extents[3] = {d0, d1, d2};
  for (int axis = 0; axis < 3; ++axis) {
    const auto X = kernel::fft.on(t)(a, {}, axis);
    for (kernel::index_t i = 0; i < a.size(); ++i) {
      // The start of i's line along `axis`.
      const kernel::index_t pos = (i / strides[axis]) % extents[axis], start = i - pos * strides[axis];
      if (pos != 0) continue;
      const std::vector<cd> want = dft(a.data() + start, extents[axis], strides[axis], false);
      for (kernel::index_t k = 0; k < extents[axis]; ++k)
        ASSERT_LT(std::abs(X.data()[start + k * strides[axis]] - want[static_cast<std::size_t>(k)]), 1e-12);
    }
  }
  const auto all = kernel::fftn.on(t)(a);
  const auto chained = kernel::fft.on(t)(kernel::fft.on(t)(kernel::fft.on(t)(a, {}, 0), {}, 1), {}, 2);
  EXPECT_LT(relative_error(all.data(), chained.data(), static_cast<std::size_t>(a.size())), 1e-13);
  const auto two = kernel::fftn.on(t)(a, {2, 0});
  const auto two_chained = kernel::fft.on(t)(kernel::fft.on(t)(a, {}, 0), {}, 2);
  EXPECT_LT(relative_error(two.data(), two_chained.data(), static_cast<std::size_t>(a.size())), 1e-13);
  const auto last_two = kernel::fft2.on(t)(a);
  const auto last_two_chained = kernel::fftn.on(t)(a, {-2, -1});
  EXPECT_LT(relative_error(last_two.data(), last_two_chained.data(), static_cast<std::size_t>(a.size())), 1e-13);
  const auto round = kernel::ifftn.on(t)(all);
  EXPECT_LT(relative_error(round.data(), a.data(), static_cast<std::size_t>(a.size())), 1e-13);

  // A transposed view (strides {1, d2}) gives the transform of the transposed matrix.
  kernel::ndarray<cd, 2> m({d1, d2});
  std::copy(v.begin(), v.begin() + d1 * d2, m.data());
  const kernel::array_view<const cd, 2> transposed(m.data(), {d2, d1}, {1, d2});
  kernel::ndarray<cd, 2> copy({d2, d1});
  for (kernel::index_t i = 0; i < d2; ++i)
    for (kernel::index_t j = 0; j < d1; ++j) copy(i, j) = m(j, i);
  const auto Xt = kernel::fft2.on(t)(transposed);
  const auto Xc = kernel::fft2.on(t)(copy);
  EXPECT_LT(relative_error(Xt.data(), Xc.data(), static_cast<std::size_t>(copy.size())), 1e-14);

  // An empty batch: nothing to do, an empty result.
  kernel::ndarray<cf, 2> none({0, 16});
  EXPECT_EQ(kernel::fft.on(t)(none).size(), 0);
}

TEST_P(Targets, InPlaceAsTheLessonSpellsIt) {
  const kernel::target t = GetParam();
  kernel::ndarray<cf, 2> image({12, 20});
  const std::vector<cd> v = random_complex(static_cast<std::size_t>(image.size()), 9);
  std::copy(v.begin(), v.end(), image.data());
  const kernel::ndarray<cf, 2> original = image;
  const auto want = kernel::fft2.on(t)(original);
  kernel::fft_inplace.on(t)(image);
  EXPECT_LT(relative_error(image.data(), want.data(), static_cast<std::size_t>(image.size())), 1e-6);
  kernel::ifft_inplace.on(t)(image);
  EXPECT_LT(relative_error(image.data(), original.data(), static_cast<std::size_t>(image.size())), 1e-6);
  // A strided view in place: every other column of a wider array; the others are untouched.
  kernel::ndarray<cf, 2> wide({12, 40});
  for (kernel::index_t i = 0; i < 12; ++i)
    for (kernel::index_t j = 0; j < 40; ++j) wide(i, j) = j % 2 ? cf(-7, 7) : original(i, j / 2);
  kernel::array_view<cf, 2> evens(wide.data(), {12, 20}, {40, 2});
  kernel::fft_inplace.on(t)(evens, {0, 1}, kernel::fft_norm::ortho);
  for (kernel::index_t i = 0; i < 12; ++i)
    for (kernel::index_t j = 0; j < 20; ++j) {
      ASSERT_LT(std::abs(cd(wide(i, 2 * j)) - cd(want(i, j)) / std::sqrt(240.0)), 1e-5);
      ASSERT_EQ(wide(i, 2 * j + 1), cf(-7, 7));
    }
}

// Many lines along one axis are transformed several side by side on the host (eight of
// complex64, four of complex128, the rest one by one): every length, real and complex, forward
// and inverse, out of place and in place, against the definition for each line.
template <class R> void check_lines_side_by_side(kernel::target t, kernel::index_t n, double tol) {
  using C = std::complex<R>;
  const kernel::index_t cols = 11;
  kernel::ndarray<C, 2> a({n, cols});
  const std::vector<cd> v = random_complex(static_cast<std::size_t>(n * cols), static_cast<unsigned>(n + 1000));
  for (kernel::index_t i = 0; i < a.size(); ++i) a.data()[i] = C(v[static_cast<std::size_t>(i)]);
  std::vector<cd> exact(a.data(), a.data() + a.size()); // the values as stored, in double
  const auto X = kernel::fft.on(t)(a, {}, 0);
  const auto Y = kernel::ifft.on(t)(a, {}, 0);
  for (kernel::index_t c = 0; c < cols; ++c) {
    const std::vector<cd> want = dft(exact.data() + c, n, cols, false);
    const std::vector<cd> want_inverse = dft(exact.data() + c, n, cols, true);
    double e = 0, ei = 0, m = 1e-300;
    for (kernel::index_t k = 0; k < n; ++k) {
      const std::size_t K = static_cast<std::size_t>(k);
      e = std::max(e, std::abs(cd(X(k, c)) - want[K]));
      ei = std::max(ei, std::abs(cd(Y(k, c)) * static_cast<double>(n) - want_inverse[K]));
      m = std::max(m, std::abs(want[K]));
    }
    ASSERT_LT(e / m, tol) << "fft along axis 0, n = " << n << ", column " << c;
    ASSERT_LT(ei / m, tol) << "ifft along axis 0, n = " << n << ", column " << c;
  }
  // In place gives what out of place gave.
  kernel::ndarray<C, 2> b = a;
  kernel::fft_inplace.on(t)(b, {0});
  ASSERT_LT(relative_error(b.data(), X.data(), static_cast<std::size_t>(b.size())), tol) << "in place, n = " << n;

  // A 3-D array along its first axis: fifteen lines, strided by fifteen.
  kernel::ndarray<C, 3> a3({n, 3, 5});
  for (kernel::index_t i = 0; i < a3.size(); ++i) a3.data()[i] = C(v[static_cast<std::size_t>(i % (n * cols))]);
  std::vector<cd> exact3(a3.data(), a3.data() + a3.size());
  const auto X3 = kernel::fft.on(t)(a3, {}, 0);
  for (kernel::index_t line = 0; line < 15; ++line) {
    const std::vector<cd> want = dft(exact3.data() + line, n, 15, false);
    for (kernel::index_t k = 0; k < n; ++k)
      ASSERT_LT(std::abs(cd(X3.data()[k * 15 + line]) - want[static_cast<std::size_t>(k)]),
                tol * std::max(1.0, std::sqrt(static_cast<double>(n))) * 4)
          << "3-D, n = " << n << ", line " << line;
  }

  // Real lines: rfft along axis 0 is the first n/2+1 coefficients; irfft gives the lines back.
  kernel::ndarray<R, 2> r({n, cols});
  for (kernel::index_t i = 0; i < r.size(); ++i) r.data()[i] = static_cast<R>(v[static_cast<std::size_t>(i)].real());
  std::vector<cd> exact_r(r.data(), r.data() + r.size());
  const auto H = kernel::rfft.on(t)(r, {}, 0);
  ASSERT_EQ(H.shape(0), n / 2 + 1);
  for (kernel::index_t c = 0; c < cols; ++c) {
    const std::vector<cd> want = dft(exact_r.data() + c, n, cols, false);
    double e = 0, m = 1e-300;
    for (kernel::index_t k = 0; k <= n / 2; ++k) {
      e = std::max(e, std::abs(cd(H(k, c)) - want[static_cast<std::size_t>(k)]));
      m = std::max(m, std::abs(want[static_cast<std::size_t>(k)]));
    }
    ASSERT_LT(e / m, tol) << "rfft along axis 0, n = " << n << ", column " << c;
  }
  const auto back = kernel::irfft.on(t)(H, n, 0);
  ASSERT_EQ(back.shape(0), n);
  ASSERT_LT(relative_error(back.data(), r.data(), static_cast<std::size_t>(r.size())), tol) << "irfft, n = " << n;
}

TEST_P(Targets, ManyLinesSideBySide) {
  const kernel::target t = GetParam();
  std::vector<kernel::index_t> lengths;
  for (kernel::index_t n = 1; n <= 40; ++n) lengths.push_back(n);
  // Powers of small primes; large prime factors (Bluestein), odd and even (2 * 37, 2 * 257).
  for (kernel::index_t n : {64, 81, 125, 37, 97, 74, 257, 514}) lengths.push_back(n);
  for (kernel::index_t n : lengths) {
    check_lines_side_by_side<double>(t, n, 1e-12);
    if (HasFatalFailure()) return;
    check_lines_side_by_side<float>(t, n, 3e-6);
    if (HasFatalFailure()) return;
  }
}

/// Coefficient k of the DFT of `x` (n points, contiguous) by its definition, in long double:
/// the root's powers by steps, set exactly every 256 (a cosine and sine per term made a
/// coefficient of 2^20 points cost a tenth of a second).
template <class V> cd dft_at(const V *x, kernel::index_t n, kernel::index_t k) {
  using L = std::complex<long double>;
  const auto root = [&](kernel::index_t j) {
    const long double a =
        -2 * std::numbers::pi_v<long double> * static_cast<long double>((j * k) % n) / static_cast<long double>(n);
    return L(std::cos(a), std::sin(a));
  };
  const L step = root(1);
  L sum = 0, w = 1;
  for (kernel::index_t j = 0; j < n; ++j) {
    if (j % 256 == 0) w = root(j);
    const cd v(x[j]);
    sum += L(v.real(), v.imag()) * w;
    w *= step;
  }
  return {static_cast<double>(sum.real()), static_cast<double>(sum.imag())};
}

/// Thirty-two coefficients of `got`, spread over the spectrum and its ends, against their
/// definition: max error over the largest coefficient checked.
template <class G, class V> double spot_error(const G &got, const V *x, kernel::index_t n, kernel::index_t count) {
  double e = 0, m = 1e-300;
  for (kernel::index_t i = 0; i < 32; ++i) {
    const kernel::index_t k = i < 2 ? i * (count - 1) : (i * 7919 + 13) % count;
    const cd want = dft_at(x, n, k);
    e = std::max(e, std::abs(cd(got[k]) - want));
    m = std::max(m, std::abs(want));
  }
  return e / m;
}

// A long line is split into short ones transformed side by side (four steps: complex64 from
// 2^12 points, complex128 from 2^18; in parallel on the parallel target): lengths split
// evenly and not, of mixed radices, a real transform's half line, and Bluestein's power of two.
template <class R> void check_long_line(kernel::target t, kernel::index_t n, double tol) {
  using C = std::complex<R>;
  const std::vector<cd> v = random_complex(static_cast<std::size_t>(n), static_cast<unsigned>(n));
  std::vector<C> x(v.begin(), v.end());
  const auto X = kernel::fft.on(t)(x);
  ASSERT_LT(spot_error(X.data(), x.data(), n, n), tol) << "fft, n = " << n;
  const auto back = kernel::ifft.on(t)(X);
  ASSERT_LT(relative_error(back.data(), x.data(), x.size()), tol) << "ifft, n = " << n;
  kernel::ndarray<C, 1> in_place({n});
  std::copy(x.begin(), x.end(), in_place.data());
  kernel::fft_inplace.on(t)(in_place);
  ASSERT_LT(relative_error(in_place.data(), X.data(), x.size()), tol) << "in place, n = " << n;
  std::vector<R> r(x.size());
  for (std::size_t i = 0; i < r.size(); ++i) r[i] = x[i].real();
  const auto H = kernel::rfft.on(t)(r);
  ASSERT_EQ(H.shape(0), n / 2 + 1);
  ASSERT_LT(spot_error(H.data(), r.data(), n, n / 2 + 1), tol) << "rfft, n = " << n;
  const auto r_back = kernel::irfft.on(t)(H, n);
  ASSERT_LT(relative_error(r_back.data(), r.data(), r.size()), tol) << "irfft, n = " << n;
}

TEST_P(Targets, LongLinesInFourSteps) {
  const kernel::target t = GetParam();
  // 64 x 64, 64 x 128, 120 x 128 (radices 3 and 5), 1024 x 1024 halved by rfft, 2053 (prime:
  // Bluestein through 4096 points), 8748 (4 x 3^7: no split into whole groups of eight).
  for (kernel::index_t n : {4096, 8192, 15360, 1 << 20, 2053, 8748}) {
    check_long_line<float>(t, n, 2e-6);
    if (HasFatalFailure()) return;
  }
  for (kernel::index_t n : {1 << 18, 3 << 17}) {
    check_long_line<double>(t, n, 1e-12);
    if (HasFatalFailure()) return;
  }
  // Several long lines of an array: along the last axis (three lines, each split; nine, eight
  // side by side and one split), and along the first (strided lines), each as its own line.
  for (auto [lines, n] : {std::pair<kernel::index_t, kernel::index_t>{3, 4096}, {9, 8192}}) {
    const std::vector<cd> v = random_complex(static_cast<std::size_t>(lines * n), static_cast<unsigned>(lines));
    kernel::ndarray<cf, 2> rows({lines, n}), columns({n, lines});
    for (kernel::index_t l = 0; l < lines; ++l)
      for (kernel::index_t j = 0; j < n; ++j) rows(l, j) = columns(j, l) = cf(v[static_cast<std::size_t>(l * n + j)]);
    const auto along_rows = kernel::fft.on(t)(rows), along_columns = kernel::fft.on(t)(columns, {}, 0);
    for (kernel::index_t l = 0; l < lines; ++l) {
      const std::vector<cf> line(rows.data() + l * n, rows.data() + (l + 1) * n);
      const auto want = kernel::fft.on(t)(line);
      for (kernel::index_t k = 0; k < n; ++k) {
        ASSERT_LT(std::abs(cd(along_rows(l, k)) - cd(want(k))), 1e-3) << lines << " lines, line " << l << ", " << k;
        ASSERT_LT(std::abs(cd(along_columns(k, l)) - cd(want(k))), 1e-3) << lines << " columns, " << l << ", " << k;
      }
    }
  }
}

TEST_P(Targets, ErrorsNameTheCallAndWriteNothing) {
  const kernel::target t = GetParam();
  const std::vector<float> empty;
  EXPECT_THROW(kernel::fft.on(t)(empty), kernel::argument_error);
  kernel::ndarray<cf, 2> m({4, 4}, cf(1, 2));
  try {
    kernel::fftn.on(t)(m, {0, 0});
    FAIL() << "an axis named twice";
  } catch (const kernel::argument_error &e) {
    EXPECT_NE(std::string(e.what()).find("'fftn': argument 2: names axis 0 twice"), std::string::npos) << e.what();
  }
  EXPECT_THROW(kernel::fft.on(t)(m, {}, 2), kernel::argument_error);
  // `{}` is no axes, not the default norm (which would transform every axis).
  for (const std::string &what : {[&] {
                                    try {
                                      kernel::fftn.on(t)(m, {});
                                    } catch (const kernel::argument_error &e) {
                                      return std::string(e.what());
                                    }
                                    return std::string("(transformed)");
                                  }(),
                                  [&] {
                                    try {
                                      kernel::fft_inplace.on(t)(m, {});
                                    } catch (const kernel::argument_error &e) {
                                      return std::string(e.what());
                                    }
                                    return std::string("(transformed)");
                                  }()})
    EXPECT_NE(what.find("argument 2: names no axis to transform"), std::string::npos) << what;
  // More axes than a brace list keeps (an axis may be named again to roll it again).
  try {
    kernel::fftshift.on(t)(std::vector<float>{0, 1, 2, 3, 4}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                                               0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    FAIL() << "33 axes";
  } catch (const kernel::argument_error &e) {
    EXPECT_NE(std::string(e.what()).find("'fftshift': argument 2: names 33 axes; at most 32 are kept"),
              std::string::npos)
        << e.what();
  }
  // Two axes named for an array of rank 1 (without axes, the default two are a compile error:
  // plugin/tests/verify/fft_default_axes.cpp).
  try {
    (void)kernel::fft2.on(t)(std::vector<cf>(4), {-2, -1});
    ADD_FAILURE() << "two axes of a rank-1 array were transformed";
  } catch (const kernel::argument_error &e) {
    EXPECT_NE(std::string(e.what()).find("'fft2': argument 2: names 2 axes of an array of rank 1"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(kernel::fft_inplace.on(t)(m, {5}), kernel::argument_error);
  for (kernel::index_t i = 0; i < m.size(); ++i) ASSERT_EQ(m.data()[i], cf(1, 2)); // untouched
  const std::vector<cd> coefficients(3);
  EXPECT_EQ(kernel::irfft.on(t)(coefficients).shape(0), 4);
  EXPECT_THROW(kernel::irfft.on(t)(std::vector<cd>(1)), kernel::argument_error); // 2 (m - 1) = 0 values
  EXPECT_THROW(kernel::irfft.on(t)(coefficients, -2), kernel::argument_error);
  // Lengths: one per axis, at least one point each.
  try {
    kernel::fft2.on(t)(m, {0, 1}, {4});
    FAIL() << "one length for two axes";
  } catch (const kernel::argument_error &e) {
    EXPECT_NE(std::string(e.what()).find("'fft2': argument 3: gives 1 lengths for 2 axes"), std::string::npos)
        << e.what();
  }
  try {
    kernel::irfftn.on(t)(m, {0, 1}, {4, 0});
    FAIL() << "no points";
  } catch (const kernel::argument_error &e) {
    EXPECT_NE(std::string(e.what()).find("'irfftn': argument 3: asks for 0 points along axis 1"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(kernel::rfft2.on(t)(std::vector<double>(8), {-2, -1}), kernel::argument_error); // rank 1
  EXPECT_THROW(kernel::rfftn.on(t)(kernel::ndarray<float, 2>({3, 0})), kernel::argument_error);
  for (kernel::index_t i = 0; i < m.size(); ++i) ASSERT_EQ(m.data()[i], cf(1, 2)); // untouched
  // In place over a view that repeats elements (a zero stride): each row's results would land
  // on the same four elements.
  std::vector<cf> row = {cf(1), cf(2), cf(3), cf(4)};
  kernel::array_view<cf, 2> repeated(row.data(), {4, 4}, {0, 1});
  try {
    kernel::fft_inplace.on(t)(repeated);
    FAIL() << "a view repeating its elements";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 1);
    EXPECT_NE(std::string(e.what()).find("zero stride"), std::string::npos) << e.what();
  }
  EXPECT_EQ(row, (std::vector<cf>{cf(1), cf(2), cf(3), cf(4)}));
}

// NumPy's `out`: every transform writes into an array given as its second argument what it
// would return, on every target: contiguous or strided (the elements between left alone), of
// the other precision (host arrays convert), the input itself for the complex transforms. A
// wrong shape, or an overlap with the input, is an argument_error naming argument 2 that
// writes nothing; so is a device array of the other precision (never converted implicitly).
TEST_P(Targets, IntoGivenArrays) {
  const kernel::target t = GetParam();
  const std::vector<cd> v = random_complex(6 * 8, 21);
  kernel::ndarray<cf, 2> x({6, 8});
  kernel::ndarray<float, 2> r({6, 8});
  for (std::size_t i = 0; i < v.size(); ++i) {
    x.data()[i] = cf(v[i]);
    r.data()[i] = static_cast<float>(v[i].real());
  }
  // Runs `call`, expecting an argument_error naming `argument` whose message holds `part`.
  const auto expect_argument = [](int argument, const std::string &part, auto &&call) {
    try {
      call();
      ADD_FAILURE() << "no error; expected one naming argument " << argument;
    } catch (const kernel::argument_error &e) {
      EXPECT_EQ(e.argument(), argument) << e.what();
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  const auto close = [](const auto &got, const auto &want) {
    EXPECT_EQ(got.shape(), want.shape());
    if (got.shape() != want.shape()) return 1e300;
    return relative_error(got.data(), want.data(), static_cast<std::size_t>(want.size()));
  };
  kernel::ndarray<cf, 2> a({6, 8});
  kernel::fft.on(t)(x, a);
  EXPECT_LT(close(a, kernel::fft.on(t)(x)), 1e-6);
  kernel::ndarray<cf, 2> padded({10, 8});
  kernel::fft.on(t)(x, padded, 10, 0, kernel::fft_norm::forward);
  EXPECT_LT(close(padded, kernel::fft.on(t)(x, 10, 0, kernel::fft_norm::forward)), 1e-6);
  kernel::ndarray<cd, 2> wide({6, 8}); // complex128 results of complex64 transforms
  kernel::ifft2.on(t)(x, wide);
  EXPECT_LT(close(wide, kernel::ifft2.on(t)(x)), 1e-6);
  // Every other column of a wider array: the columns between keep their values.
  kernel::ndarray<cf, 2> every_other({6, 16}, cf(7, 7));
  kernel::array_view<cf, 2> even(every_other.data(), {6, 8}, {16, 2});
  kernel::fftn.on(t)(x, even, {0, 1}, kernel::fft_norm::ortho);
  const auto want_ortho = kernel::fftn.on(t)(x, {0, 1}, kernel::fft_norm::ortho);
  for (kernel::index_t i = 0; i < 6; ++i)
    for (kernel::index_t j = 0; j < 8; ++j) {
      ASSERT_LT(std::abs(cd(every_other(i, 2 * j)) - cd(want_ortho(i, j))), 1e-5);
      ASSERT_EQ(every_other(i, 2 * j + 1), cf(7, 7));
    }
  // The input itself, as fft_inplace.
  kernel::ndarray<cf, 2> y = x;
  kernel::fft2.on(t)(y, y);
  EXPECT_LT(close(y, kernel::fft2.on(t)(x)), 1e-6);
  // fft2 with a norm and no axes, as fftn takes one: its default axes, the last two.
  EXPECT_LT(
      close(kernel::ifft2.on(t)(x, kernel::fft_norm::ortho), kernel::ifftn.on(t)(x, {0, 1}, kernel::fft_norm::ortho)),
      1e-6);
  // The real transforms.
  kernel::ndarray<cf, 2> half({6, 5});
  kernel::rfft2.on(t)(r, half);
  const auto want_half = kernel::rfft2.on(t)(r);
  EXPECT_LT(close(half, want_half), 1e-6);
  std::vector<cf> row(5);
  kernel::rfft.on(t)(std::vector<float>(r.data(), r.data() + 8), row);
  EXPECT_LT(relative_error(row.data(), kernel::rfft.on(t)(std::vector<float>(r.data(), r.data() + 8)).data(), 5), 1e-6);
  kernel::ndarray<float, 2> back({6, 8});
  kernel::irfft2.on(t)(half, back);
  EXPECT_LT(close(back, r), 1e-5);
  kernel::ndarray<double, 2> back_wide({6, 8});
  kernel::irfftn.on(t)(half, back_wide, {0, 1}, {6, 8});
  EXPECT_LT(close(back_wide, r), 1e-5);
  kernel::ndarray<double, 1> line(8);
  kernel::irfft.on(t)(std::vector<cf>(half.data(), half.data() + 5), line, 8);
  EXPECT_LT(
      relative_error(line.data(), kernel::irfft.on(t)(std::vector<cf>(half.data(), half.data() + 5), 8).data(), 8),
      1e-6);
  // Errors: nothing written.
  kernel::ndarray<cf, 2> wrong({6, 8}, cf(3, 3));
  expect_argument(2, "'rfft2': argument 2: has shape (6, 8) but the results have shape (6, 5)",
                  [&] { kernel::rfft2.on(t)(r, wrong); });
  kernel::ndarray<cf, 1> shared({56}, cf(1, 1));
  kernel::array_view<cf, 2> first(shared.data(), {6, 8}, {8, 1}), shifted(shared.data() + 8, {6, 8}, {8, 1});
  expect_argument(2, "overlaps argument 1", [&] { kernel::fft2.on(t)(first, shifted); });
  EXPECT_THROW(kernel::ifft.on(t)(x, wrong, 4), kernel::argument_error); // 4 points: shape (6, 4)
  // After an output, each argument is one further on than without it.
  expect_argument(3, "asks for 0 points", [&] { kernel::fft.on(t)(x, wrong, 0); });
  expect_argument(4, "axis 2 is out of range", [&] { kernel::fft.on(t)(x, wrong, {}, 2); });
  expect_argument(5, "norm 7", [&] { kernel::fft.on(t)(x, wrong, {}, -1, static_cast<kernel::fft_norm>(7)); });
  expect_argument(3, "names axis 0 twice", [&] { kernel::fft2.on(t)(x, wrong, {0, 0}); });
  expect_argument(4, "gives 1 lengths for 2 axes", [&] { kernel::fftn.on(t)(x, wrong, {0, 1}, {4}); });
  expect_argument(3, "norm 9", [&] { kernel::ifftn.on(t)(x, wrong, static_cast<kernel::fft_norm>(9)); });
  expect_argument(4, "norm 9", [&] { kernel::rfft2.on(t)(r, half, {0, 1}, static_cast<kernel::fft_norm>(9)); });
  expect_argument(3, "asks for -2 points", [&] { kernel::irfft.on(t)(std::vector<cf>(5), line, -2); });
  for (kernel::index_t i = 0; i < wrong.size(); ++i) ASSERT_EQ(wrong.data()[i], cf(3, 3));
  for (kernel::index_t i = 0; i < shared.size(); ++i) ASSERT_EQ(shared.data()[i], cf(1, 1));
  if (t == kernel::target::cpu || t == kernel::target::parallel) return;
  // Device arrays: results stay on the device; a device output of the other precision is refused.
  auto dx = kernel::to_device(x, kernel_test::device());
  kernel::device_array<cf, 2> dout({6, 8}, kernel_test::device());
  kernel::fft2(dx, dout);
  EXPECT_LT(close(dout.copy_to_host(), kernel::fft2.on(kernel::target::cpu)(x)), 1e-6);
  auto dr = kernel::to_device(r, kernel_test::device());
  kernel::device_array<cf, 2> dhalf({6, 5}, kernel_test::device());
  kernel::rfft2(dr, dhalf);
  EXPECT_LT(close(dhalf.copy_to_host(), want_half), 1e-6);
  kernel::device_array<float, 2> dback({6, 8}, kernel_test::device());
  kernel::irfft2(dhalf, dback);
  EXPECT_LT(close(dback.copy_to_host(), r), 1e-5);
  kernel::device_array<cd, 2> dwide({6, 8}, kernel_test::device());
  expect_argument(2, "never converted", [&] { kernel::fft2(dx, dwide); });
  // A host output of a device input: the results come back to it.
  kernel::ndarray<cf, 2> host_out({6, 8});
  kernel::fft2(dx, host_out);
  kernel_test::device().synchronize();
  EXPECT_LT(close(host_out, kernel::fft2.on(kernel::target::cpu)(x)), 1e-6);
  // The device array itself, in place.
  kernel::fft2(dx, dx);
  EXPECT_LT(close(dx.copy_to_host(), kernel::fft2.on(kernel::target::cpu)(x)), 1e-6);
  // On a stream a temporary host output would be written after it is gone: refused; a named
  // one is written once the stream has run.
  kernel::stream st(kernel_test::device());
  expect_argument(2, "temporary host array", [&] { kernel::fft2.on(st)(dr, kernel::ndarray<cf, 2>({6, 8})); });
  kernel::ndarray<cf, 2> named({6, 5});
  kernel::rfft2.on(st)(dr, named);
  st.synchronize();
  EXPECT_LT(close(named, want_half), 1e-6);
}

/// `x` (row-major, of `from`) cropped or padded with zeros to `to`.
template <class T>
std::vector<T> resized(const std::vector<T> &x, const std::vector<kernel::index_t> &from,
                       const std::vector<kernel::index_t> &to) {
  kernel::index_t n = 1;
  for (kernel::index_t e : to) n *= e;
  std::vector<T> out(static_cast<std::size_t>(n));
  for (kernel::index_t i = 0; i < n; ++i) {
    kernel::index_t rest = i, at = 0, stride = 1;
    bool inside = true;
    for (std::size_t d = to.size(); d-- > 0;) {
      const kernel::index_t k = rest % to[d];
      rest /= to[d];
      inside = inside && k < from[d];
      at += k * stride;
      stride *= from[d];
    }
    out[static_cast<std::size_t>(i)] = inside ? x[static_cast<std::size_t>(at)] : T{};
  }
  return out;
}

// Coefficients that are no real signal's (imaginary parts at X_0 and X_{n/2}, a 2-D spectrum
// not Hermitian along its complex axis) are read as NumPy reads them on every target: on a
// device through a Hermitian projection first, as cuFFT does not ignore them (on an H100 at
// n = 8192 its C2R gave -149 where NumPy gives 1).
TEST_P(Targets, InverseRealTransformsOfAnyCoefficients) {
  const kernel::target t = GetParam();
  for (kernel::index_t n : {kernel::index_t{8192}, kernel::index_t{8191}}) {
    std::vector<cd> c(static_cast<std::size_t>(n / 2 + 1));
    c[0] = cd(1, 100);
    c.back() = cd(0, 50);
    const auto got = kernel::irfft.on(t)(c, n);
    const auto want = kernel::irfft.on(kernel::target::cpu)(c, n);
    for (kernel::index_t j = 0; j < n; j += 97) ASSERT_NEAR(got(j), want(j), 1e-12) << n << ", " << j;
    if (n % 2 == 0) EXPECT_NEAR(want(1), 1.0 / static_cast<double>(n), 1e-15); // Im X_0 and X_{n/2} ignored
  }
  kernel::ndarray<cf, 2> spectrum({6, 9});
  const std::vector<cd> v = random_complex(static_cast<std::size_t>(spectrum.size()), 41);
  for (kernel::index_t i = 0; i < spectrum.size(); ++i) spectrum.data()[i] = cf(v[static_cast<std::size_t>(i)]);
  const auto want2 = kernel::irfft2.on(kernel::target::cpu)(spectrum, {0, 1}, {6, 16});
  const auto got2 = kernel::irfft2.on(t)(spectrum, {0, 1}, {6, 16});
  EXPECT_LT(relative_error(got2.data(), want2.data(), static_cast<std::size_t>(want2.size())), 1e-6);
  // Such coefficients along axes that are not the last: a batch axis after the real one, an
  // odd complex axis, the real axis first; every normalisation; the input left as it was.
  kernel::ndarray<cd, 3> cube({5, 4, 3});
  const std::vector<cd> w = random_complex(static_cast<std::size_t>(cube.size()), 43);
  std::copy(w.begin(), w.end(), cube.data());
  for (kernel::fft_norm norm : {kernel::fft_norm::backward, kernel::fft_norm::ortho, kernel::fft_norm::forward}) {
    const auto want3 = kernel::irfft2.on(kernel::target::cpu)(cube, {0, 1}, {5, 6}, norm);
    const auto got3 = kernel::irfft2.on(t)(cube, {0, 1}, {5, 6}, norm);
    EXPECT_LT(relative_error(got3.data(), want3.data(), static_cast<std::size_t>(want3.size())), 1e-13) << int(norm);
    const auto want4 = kernel::irfftn.on(kernel::target::cpu)(cube, {1, 2, 0}, {4, 3, 8}, norm);
    const auto got4 = kernel::irfftn.on(t)(cube, {1, 2, 0}, {4, 3, 8}, norm);
    EXPECT_LT(relative_error(got4.data(), want4.data(), static_cast<std::size_t>(want4.size())), 1e-13) << int(norm);
    // Padded along the complex axis (6 of 5), in the call's own copy: made Hermitian in place.
    const auto want5 = kernel::irfftn.on(kernel::target::cpu)(cube, {0, 1}, {6, 7}, norm);
    const auto got5 = kernel::irfftn.on(t)(cube, {0, 1}, {6, 7}, norm);
    EXPECT_LT(relative_error(got5.data(), want5.data(), static_cast<std::size_t>(want5.size())), 1e-13) << int(norm);
  }
  for (kernel::index_t i = 0; i < cube.size(); ++i) ASSERT_EQ(cube.data()[i], w[static_cast<std::size_t>(i)]);
  if (t == kernel::target::cpu || t == kernel::target::parallel) return;
  auto d = kernel::to_device(spectrum, kernel_test::device());
  kernel::device_array<float, 2> back = kernel::irfftn(d, {0, 1}, {6, 16});
  EXPECT_LT(relative_error(back.copy_to_host().data(), want2.data(), static_cast<std::size_t>(want2.size())), 1e-6);
  const auto same = d.copy_to_host();
  for (kernel::index_t i = 0; i < spectrum.size(); ++i)
    ASSERT_EQ(same.data()[i], spectrum.data()[i]) << "input changed";
}

// NumPy's `n` and `s`: the input cropped or padded with zeros along the transformed axes.
TEST_P(Targets, LengthsCropOrPadTheInput) {
  const kernel::target t = GetParam();
  const kernel::index_t d0 = 5, d1 = 6;
  const std::vector<cd> v = random_complex(static_cast<std::size_t>(d0 * d1), 21);
  kernel::ndarray<cd, 2> a({d0, d1});
  std::copy(v.begin(), v.end(), a.data());
  for (auto [s0, s1] : {std::pair{8, 4}, std::pair{3, 9}, std::pair{5, 6}, std::pair{1, 1}}) {
    const std::vector<cd> r = resized(v, {d0, d1}, {s0, s1});
    kernel::ndarray<cd, 2> want_in({s0, s1});
    std::copy(r.begin(), r.end(), want_in.data());
    const auto got = kernel::fft2.on(t)(a, {0, 1}, {s0, s1});
    ASSERT_EQ(got.shape(0), s0);
    ASSERT_EQ(got.shape(1), s1);
    const auto want = kernel::fft2.on(t)(want_in);
    ASSERT_LT(relative_error(got.data(), want.data(), r.size()), 1e-14) << s0 << " x " << s1;
    // Lengths follow their axes, in any order; one axis of several.
    const auto swapped = kernel::ifftn.on(t)(a, {1, 0}, {s1, s0});
    const auto want_inverse = kernel::ifft2.on(t)(want_in);
    ASSERT_LT(relative_error(swapped.data(), want_inverse.data(), r.size()), 1e-14);
  }
  // One axis, of a strided view of real values (transformed as complex).
  std::vector<double> real(static_cast<std::size_t>(2 * d1));
  for (std::size_t i = 0; i < real.size(); ++i) real[i] = std::cos(0.7 * static_cast<double>(i));
  const kernel::array_view<const double, 1> odd(real.data() + 1, {d1}, {2});
  std::vector<cd> padded(16);
  for (kernel::index_t i = 0; i < d1; ++i)
    padded[static_cast<std::size_t>(i)] = real[static_cast<std::size_t>(2 * i + 1)];
  const auto X = kernel::fftn.on(t)(odd, {-1}, {16});
  const std::vector<cd> want = dft(padded.data(), 16, 1, false);
  ASSERT_EQ(X.shape(0), 16);
  EXPECT_LT(relative_error(X.data(), want.data(), want.size()), 1e-14);
  // irfft pads missing coefficients with zeros and drops extra ones, as NumPy does.
  const std::vector<cd> c = random_complex(3, 22);
  std::vector<cd> c4 = c;
  c4.push_back(0);
  const auto long_out = kernel::irfft.on(t)(c, 7), want_long = kernel::irfft.on(t)(c4, 7);
  ASSERT_EQ(long_out.shape(0), 7);
  EXPECT_LT(relative_error(long_out.data(), want_long.data(), 7), 1e-15);
  const std::vector<cd> c2(c.begin(), c.begin() + 2);
  const auto short_out = kernel::irfft.on(t)(c, 3), want_short = kernel::irfft.on(t)(c2, 3);
  ASSERT_EQ(short_out.shape(0), 3);
  EXPECT_LT(relative_error(short_out.data(), want_short.data(), 3), 1e-15);
  // An empty input padded: zeros.
  const auto zeros = kernel::fftn.on(t)(std::vector<cf>{}, {0}, {4});
  for (kernel::index_t i = 0; i < 4; ++i) EXPECT_EQ(zeros(i), cf(0, 0));

  // The 1-D transforms take NumPy's (a, n, axis, norm): fft(a, 16) pads to 16 points,
  // fft(a, 3, 0) crops along axis 0, rfft(x, 16) pads the real values; {} keeps the length.
  EXPECT_LT(relative_error(kernel::fft.on(t)(odd, 16).data(), want.data(), want.size()), 1e-14);
  const auto cropped = kernel::fft.on(t)(a, 3, 0), want_cropped = kernel::fftn.on(t)(a, {0}, {3});
  ASSERT_EQ(cropped.shape(0), 3);
  ASSERT_EQ(cropped.shape(1), d1);
  EXPECT_LT(relative_error(cropped.data(), want_cropped.data(), 3 * d1), 1e-15);
  const auto inverse_padded = kernel::ifft.on(t)(a, 8, 1, kernel::fft_norm::ortho);
  const auto want_inverse_padded = kernel::ifftn.on(t)(a, {1}, {8}, kernel::fft_norm::ortho);
  EXPECT_LT(relative_error(inverse_padded.data(), want_inverse_padded.data(), d0 * 8), 1e-15);
  const auto H = kernel::rfft.on(t)(odd, 16);
  ASSERT_EQ(H.shape(0), 9);
  EXPECT_LT(relative_error(H.data(), want.data(), 9), 1e-14);
  EXPECT_EQ(kernel::fft.on(t)(a, {}, 0).shape(0), d0);
  // No points, or a norm that is none of the three, are errors naming the argument.
  try {
    (void)kernel::fft.on(t)(odd, 0);
    ADD_FAILURE() << "fft of 0 points";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 2) << e.what();
  }
  try {
    (void)kernel::irfft.on(t)(c, 0);
    ADD_FAILURE() << "irfft to 0 points";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 2) << e.what();
  }
  try {
    (void)kernel::fft.on(t)(a, {}, 2);
    ADD_FAILURE() << "axis 2 of a 2-D array";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 3) << e.what();
  }
  // n and the axis are integers of any type; past their ranges (2^32 is no axis 0, a -1 that
  // went through size_t no length) they are errors naming the argument.
  const auto same = [](const auto &x, const auto &y) {
    return x.shape() == y.shape() && std::equal(x.data(), x.data() + x.size(), y.data());
  };
  EXPECT_TRUE(same(kernel::fft.on(t)(a, 8u, std::size_t{1}), kernel::fft.on(t)(a, 8, 1)));
  EXPECT_TRUE(same(kernel::fft.on(t)(a, std::optional<short>{}, 0LL), kernel::fft.on(t)(a, {}, 0)));
  EXPECT_TRUE(same(kernel::rfft.on(t)(odd, std::optional<unsigned>(16)), H));
  EXPECT_TRUE(same(kernel::fftn.on(t)(a, std::size_t{1}), kernel::fftn.on(t)(a, {1})));
  const auto argument_of = [](auto &&call) {
    try {
      call();
    } catch (const kernel::argument_error &e) {
      return e.argument();
    }
    return -1;
  };
  const std::size_t minus_one = static_cast<std::size_t>(-1);
  EXPECT_EQ(argument_of([&] { (void)kernel::fft.on(t)(a, {}, 1LL << 32); }), 3);
  EXPECT_EQ(argument_of([&] { (void)kernel::fft.on(t)(a, {}, minus_one); }), 3);
  EXPECT_EQ(argument_of([&] { (void)kernel::fft.on(t)(a, minus_one); }), 2);
  EXPECT_EQ(argument_of([&] { (void)kernel::irfft.on(t)(c, minus_one); }), 2);
  EXPECT_EQ(argument_of([&] { (void)kernel::hfft.on(t)(c, {}, 1LL << 32); }), 3);
  EXPECT_EQ(argument_of([&] { (void)kernel::fftn.on(t)(a, minus_one); }), 2);
  try {
    (void)kernel::fft2.on(t)(a, minus_one);
    ADD_FAILURE() << "fft2 along axis 2^64 - 1";
  } catch (const kernel::argument_error &e) {
    EXPECT_NE(std::string(e.what()).find("axis 18446744073709551615 is out of range"), std::string::npos) << e.what();
  }
  EXPECT_EQ(argument_of([&] { (void)kernel::fftshift.on(t)(a, minus_one); }), 2);
  EXPECT_EQ(argument_of([] { (void)kernel::fftfreq(minus_one); }), 1);
  // A bad norm is named by its position in the call it was given to.
  const auto norm_argument = [](auto &&call) {
    try {
      call();
    } catch (const kernel::argument_error &e) {
      EXPECT_NE(std::string(e.what()).find("is not backward, ortho or forward"), std::string::npos) << e.what();
      return e.argument();
    }
    return -1;
  };
  const auto bad = static_cast<kernel::fft_norm>(7);
  EXPECT_EQ(norm_argument([&] { (void)kernel::fft2.on(t)(a, {0, 1}, bad); }), 3);
  EXPECT_EQ(norm_argument([&] { (void)kernel::fftn.on(t)(a, bad); }), 2);
  EXPECT_EQ(norm_argument([&] { (void)kernel::fft.on(t)(a, {}, -1, bad); }), 4);
  EXPECT_EQ(norm_argument([&] { (void)kernel::irfft.on(t)(c, 4, -1, static_cast<kernel::fft_norm>(-1)); }), 4);
  EXPECT_EQ(norm_argument([&] { (void)kernel::rfft2.on(t)(kernel::ndarray<double, 2>({2, 2}), {0, 1}, bad); }), 3);
  kernel::ndarray<cd, 2> untouched = a;
  EXPECT_EQ(norm_argument([&] { kernel::fft_inplace.on(t)(untouched, static_cast<kernel::fft_norm>(3)); }), 2);
  EXPECT_EQ(norm_argument([&] { kernel::fft_inplace.on(t)(untouched, {0}, bad); }), 3);
  EXPECT_EQ(relative_error(untouched.data(), a.data(), d0 * d1), 0);
}

// rfft2 and rfftn are fftn's first n/2+1 coefficients along the last axis; irfft2 and irfftn
// undo them, for odd and even lengths, without touching their input.
TEST_P(Targets, RealTransformsAlongSeveralAxes) {
  const kernel::target t = GetParam();
  for (kernel::index_t w : {kernel::index_t{7}, kernel::index_t{8}}) {
    const kernel::index_t d0 = 3, d1 = 5;
    kernel::ndarray<double, 3> x({d0, d1, w});
    for (kernel::index_t i = 0; i < x.size(); ++i) x.data()[i] = std::sin(0.37 * static_cast<double>(i * i % 41)) - 0.2;
    const auto full = kernel::fftn.on(t)(x);
    const auto half = kernel::rfftn.on(t)(x);
    ASSERT_EQ(half.shape(2), w / 2 + 1);
    for (kernel::index_t i = 0; i < d0; ++i)
      for (kernel::index_t j = 0; j < d1; ++j)
        for (kernel::index_t k = 0; k <= w / 2; ++k) ASSERT_LT(std::abs(half(i, j, k) - full(i, j, k)), 1e-12);
    const auto back = kernel::irfftn.on(t)(half, {0, 1, 2}, {d0, d1, w});
    ASSERT_LT(relative_error(back.data(), x.data(), static_cast<std::size_t>(x.size())), 1e-14) << w;

    // The last two axes; the real one is the last named, here axis 1.
    const auto two = kernel::rfftn.on(t)(x, {2, 1});
    const auto two_full = kernel::fftn.on(t)(x, {2, 1});
    ASSERT_EQ(two.shape(1), d1 / 2 + 1);
    ASSERT_EQ(two.shape(2), w);
    for (kernel::index_t i = 0; i < d0; ++i)
      for (kernel::index_t j = 0; j <= d1 / 2; ++j)
        for (kernel::index_t k = 0; k < w; ++k) ASSERT_LT(std::abs(two(i, j, k) - two_full(i, j, k)), 1e-12);
    const auto copy = two;
    const auto two_back = kernel::irfftn.on(t)(two, {2, 1}, {w, d1}, kernel::fft_norm::backward);
    ASSERT_LT(relative_error(two_back.data(), x.data(), static_cast<std::size_t>(x.size())), 1e-14);
    for (kernel::index_t i = 0; i < two.size(); ++i) ASSERT_EQ(two.data()[i], copy.data()[i]) << "input changed";

    // rfft2 over the last two axes of a strided view, and irfft2 with every normalisation.
    const kernel::array_view<const double, 2> plane(x.data() + d1 * w, {d1, w}, {w, 1});
    const kernel::array_view<const double, 2> columns(x.data(), {w, d0 * d1}, {1, w});
    for (kernel::fft_norm norm : {kernel::fft_norm::backward, kernel::fft_norm::ortho, kernel::fft_norm::forward}) {
      const auto R = kernel::rfft2.on(t)(columns, {-2, -1}, norm);
      const auto C = kernel::fft2.on(t)(columns, {-2, -1}, norm);
      for (kernel::index_t i = 0; i < w; ++i)
        for (kernel::index_t j = 0; j <= d0 * d1 / 2; ++j) ASSERT_LT(std::abs(R(i, j) - C(i, j)), 1e-12);
      const auto P = kernel::rfft2.on(t)(plane, {-2, -1}, norm);
      const auto p = kernel::irfft2.on(t)(P, {-2, -1}, {d1, w}, norm);
      for (kernel::index_t i = 0; i < d1; ++i)
        for (kernel::index_t j = 0; j < w; ++j) ASSERT_NEAR(p(i, j), plane(i, j), 1e-14);
    }
    // The default length along the last axis is 2 (m - 1): the even one.
    const auto even = kernel::irfft2.on(t)(kernel::rfft2.on(t)(plane));
    ASSERT_EQ(even.shape(1), 2 * (w / 2));
    if (w % 2 == 0)
      for (kernel::index_t i = 0; i < d1; ++i)
        for (kernel::index_t j = 0; j < w; ++j) ASSERT_NEAR(even(i, j), plane(i, j), 1e-14);
  }
  // Single precision, with the input cropped and padded to other lengths.
  kernel::ndarray<float, 2> img({6, 10});
  for (kernel::index_t i = 0; i < img.size(); ++i) img.data()[i] = static_cast<float>(i % 7) - 3.0f;
  const auto F = kernel::rfft2.on(t)(img, {0, 1}, {4, 12});
  std::vector<float> flat(img.data(), img.data() + img.size());
  const std::vector<float> r = resized(flat, {6, 10}, {4, 12});
  kernel::ndarray<cf, 2> want_in({4, 12});
  std::copy(r.begin(), r.end(), want_in.data());
  const auto want = kernel::fft2.on(t)(want_in);
  ASSERT_EQ(F.shape(1), 7);
  for (kernel::index_t i = 0; i < 4; ++i)
    for (kernel::index_t j = 0; j < 7; ++j) ASSERT_LT(std::abs(cd(F(i, j)) - cd(want(i, j))), 1e-4);
}

TEST_P(Targets, DeviceArraysStayOnTheDevice) {
  const kernel::target t = GetParam();
  if (t == kernel::target::cpu || t == kernel::target::parallel) GTEST_SKIP() << "device arrays";
  const std::vector<cd> v = random_complex(64, 11);
  std::vector<cf> x(v.begin(), v.end());
  auto dx = kernel::to_device(x, kernel_test::device());
  kernel::device_array<cf, 1> X = kernel::fft(dx);
  const auto want = kernel::fft.on(kernel::target::cpu)(x);
  EXPECT_LT(relative_error(X.copy_to_host().data(), want.data(), x.size()), 1e-6);
  kernel::fft_inplace(dx);
  EXPECT_LT(relative_error(dx.copy_to_host().data(), want.data(), x.size()), 1e-6);
  // The real transforms along several axes, padded, and back.
  kernel::ndarray<float, 2> img({6, 9});
  for (kernel::index_t i = 0; i < img.size(); ++i) img.data()[i] = std::cos(0.5f * static_cast<float>(i));
  auto dimg = kernel::to_device(img, kernel_test::device());
  kernel::device_array<cf, 2> F = kernel::rfft2(dimg, {0, 1}, {8, 9});
  const auto F_host = kernel::rfft2.on(kernel::target::cpu)(img, {0, 1}, {8, 9});
  EXPECT_LT(relative_error(F.copy_to_host().data(), F_host.data(), static_cast<std::size_t>(F_host.size())), 1e-6);
  kernel::device_array<float, 2> back = kernel::irfft2(F, {0, 1}, {8, 9});
  const auto back_host = back.copy_to_host();
  for (kernel::index_t i = 0; i < 8; ++i)
    for (kernel::index_t j = 0; j < 9; ++j) ASSERT_NEAR(back_host(i, j), i < 6 ? img(i, j) : 0.0f, 1e-5);
  EXPECT_LT(relative_error(F.copy_to_host().data(), F_host.data(), static_cast<std::size_t>(F_host.size())), 1e-6)
      << "irfft2 changed its input";
}

// A lazy expression is transformed as the array it evaluates to.
TEST_P(Targets, ExpressionInputs) {
  const kernel::target t = GetParam();
  kernel::ndarray<double, 2> x({6, 10});
  for (kernel::index_t i = 0; i < 60; ++i)
    x.data()[i] = std::sin(0.3 * static_cast<double>(i)) + static_cast<double>(i % 4);
  kernel::ndarray<double, 2> x3({6, 10});
  for (kernel::index_t i = 0; i < 60; ++i) x3.data()[i] = x.data()[i] * 3.0;
  const auto e = vtimes(kernel::lazy(x), 3.0);
  const auto want2 = kernel::fft2.on(t)(x3), got2 = kernel::fft2.on(t)(e);
  const auto want1 = kernel::ifft.on(t)(x3, {}, 0), got1 = kernel::ifft.on(t)(e, {}, 0);
  const auto wantr = kernel::rfft.on(t)(x3), gotr = kernel::rfft.on(t)(e);
  for (kernel::index_t i = 0; i < 60; ++i) {
    EXPECT_EQ(got2.data()[i], want2.data()[i]) << i;
    EXPECT_EQ(got1.data()[i], want1.data()[i]) << i;
  }
  for (kernel::index_t i = 0; i < wantr.size(); ++i) EXPECT_EQ(gotr.data()[i], wantr.data()[i]) << i;
  const auto back = kernel::irfft.on(t)(kernel::rfft.on(t)(x), 10);
  EXPECT_NEAR(back(2, 3), x(2, 3), 1e-12);
}

/// `x` (row-major, of `shape`) rolled by `by[d]` along each dimension, as numpy.roll.
template <class T>
std::vector<T> rolled(const std::vector<T> &x, const std::vector<kernel::index_t> &shape,
                      const std::vector<kernel::index_t> &by) {
  std::vector<T> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    auto rest = static_cast<kernel::index_t>(i);
    kernel::index_t to = 0, stride = 1;
    for (std::size_t d = shape.size(); d-- > 0;) {
      const kernel::index_t k = rest % shape[d];
      rest /= shape[d];
      to += ((k + by[d]) % shape[d]) * stride;
      stride *= shape[d];
    }
    out[static_cast<std::size_t>(to)] = x[i];
  }
  return out;
}

// fftshift rolls by n/2 along its axes (NumPy's), ifftshift by -(n/2); fftfreq and rfftfreq
// are NumPy's frequencies.
// hfft and ihfft: NumPy's numbers for small inputs (numpy.fft 1.24), and their definitions
// through irfft and rfft along an axis of a 2-D array, device arrays included.
TEST_P(Targets, HermitianTransformsAsNumPy) {
  const kernel::target t = GetParam();
  const std::vector<cd> a = {cd(1, 2), cd(3, -1), cd(0.5, 0.25), cd(-2, 1)};
  const std::vector<double> want = {6, 4.20096189, -6.66506351, -2, -2.33493649, 6.79903811};
  const auto h = kernel::hfft.on(t)(a);
  ASSERT_EQ(h.size(), 6);
  for (kernel::index_t i = 0; i < 6; ++i) EXPECT_NEAR(h(i), want[static_cast<std::size_t>(i)], 1e-7) << i;
  const std::vector<double> want5 = {3.57770876, 0.19537177, -2.32380401, -0.84701638, 1.63380783};
  const auto h5 = kernel::hfft.on(t)(a, 5, -1, kernel::fft_norm::ortho);
  ASSERT_EQ(h5.size(), 5);
  for (kernel::index_t i = 0; i < 5; ++i) EXPECT_NEAR(h5(i), want5[static_cast<std::size_t>(i)], 1e-7) << i;
  const std::vector<double> r = {1, 2, 3, 4, 5};
  const auto g = kernel::ihfft.on(t)(r);
  const std::vector<cd> want_g = {cd(3, 0), cd(-0.5, -0.68819096), cd(-0.5, -0.16245985)};
  ASSERT_EQ(g.size(), 3);
  for (kernel::index_t i = 0; i < 3; ++i) EXPECT_LT(std::abs(g(i) - want_g[static_cast<std::size_t>(i)]), 1e-7) << i;
  const auto g4 = kernel::ihfft.on(t)(r, 4, -1, kernel::fft_norm::forward);
  const std::vector<cd> want_g4 = {cd(10, 0), cd(-2, -2), cd(-2, 0)};
  for (kernel::index_t i = 0; i < 3; ++i) EXPECT_LT(std::abs(g4(i) - want_g4[static_cast<std::size_t>(i)]), 1e-12) << i;
  // Along the first axis of a 2-D complex64 array: irfft of the conjugates, unscaled.
  kernel::ndarray<cf, 2> m({5, 3});
  const std::vector<cd> v = random_complex(15, 7);
  for (std::size_t i = 0; i < v.size(); ++i) m.data()[i] = cf(v[i]);
  kernel::ndarray<cf, 2> mc({5, 3});
  for (kernel::index_t i = 0; i < m.size(); ++i) mc.data()[i] = std::conj(m.data()[i]);
  const auto hm = kernel::hfft.on(t)(m, {}, 0);
  const auto direct = kernel::irfft.on(kernel::target::cpu)(mc, {}, 0, kernel::fft_norm::forward);
  ASSERT_EQ(hm.shape(), direct.shape());
  for (kernel::index_t i = 0; i < hm.size(); ++i) EXPECT_NEAR(hm.data()[i], direct.data()[i], 1e-4f) << i;
  // Errors name the call; the input is left alone.
  EXPECT_THROW((void)kernel::hfft.on(t)(a, 0), kernel::argument_error);
  EXPECT_THROW((void)kernel::ihfft.on(t)(r, {}, 1), kernel::argument_error);
  try {
    (void)kernel::hfft.on(t)(a, {}, 2);
    ADD_FAILURE() << "axis 2 of a vector";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.callee(), "hfft");
    EXPECT_EQ(e.argument(), 3);
  }
  EXPECT_EQ(a[0], cd(1, 2));
  if (t == kernel::target::cpu || t == kernel::target::parallel) return;
  const auto da = kernel::to_device(a, kernel_test::device());
  const kernel::device_array<double, 1> dh = kernel::hfft(da);
  const auto back = dh.copy_to_host();
  for (kernel::index_t i = 0; i < 6; ++i) EXPECT_NEAR(back(i), want[static_cast<std::size_t>(i)], 1e-7) << i;
  const kernel::device_array<cd, 1> dg = kernel::ihfft(kernel::to_device(r, kernel_test::device()));
  const auto gb = dg.copy_to_host();
  for (kernel::index_t i = 0; i < 3; ++i) EXPECT_LT(std::abs(gb(i) - want_g[static_cast<std::size_t>(i)]), 1e-7) << i;
}

TEST_P(Targets, ShiftsAndFrequencies) {
  const kernel::target t = GetParam();
  for (kernel::index_t n : {kernel::index_t{1}, kernel::index_t{2}, kernel::index_t{5}, kernel::index_t{8}}) {
    std::vector<double> x(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i);
    const auto shifted = kernel::fftshift.on(t)(x);
    const std::vector<double> want = rolled(x, {n}, {n / 2});
    for (kernel::index_t i = 0; i < n; ++i) ASSERT_EQ(shifted(i), want[static_cast<std::size_t>(i)]) << n;
    const auto back = kernel::ifftshift.on(t)(shifted);
    for (kernel::index_t i = 0; i < n; ++i) ASSERT_EQ(back(i), x[static_cast<std::size_t>(i)]) << n;
  }
  // fftshift of fftfreq is increasing: the zero frequency in the middle.
  const auto f = kernel::fftfreq(5, 0.1);
  const double want_f[] = {0, 2, 4, -4, -2};
  for (int i = 0; i < 5; ++i) EXPECT_DOUBLE_EQ(f(i), want_f[i]);
  const auto sorted = kernel::fftshift.on(t)(kernel::fftfreq(8));
  for (kernel::index_t i = 0; i < 8; ++i) EXPECT_DOUBLE_EQ(sorted(i), static_cast<double>(i - 4) / 8);
  const auto r = kernel::rfftfreq(9, 2.0);
  ASSERT_EQ(r.shape(0), 5);
  for (kernel::index_t i = 0; i < 5; ++i) EXPECT_DOUBLE_EQ(r(i), static_cast<double>(i) / 18);

  // Complex values, chosen axes of a 3-D array, a strided view.
  const std::vector<kernel::index_t> shape{3, 4, 5};
  const std::vector<cd> v = random_complex(60, 31);
  kernel::ndarray<cf, 3> a({3, 4, 5});
  for (std::size_t i = 0; i < v.size(); ++i) a.data()[i] = cf(v[i]);
  const std::vector<cf> flat(a.data(), a.data() + a.size());
  const auto all = kernel::fftshift.on(t)(a);
  const std::vector<cf> want_all = rolled(flat, shape, {1, 2, 2});
  for (std::size_t i = 0; i < flat.size(); ++i) ASSERT_EQ(all.data()[i], want_all[i]) << i;
  const auto two = kernel::ifftshift.on(t)(a, {2, 0});
  const std::vector<cf> want_two = rolled(flat, shape, {-1 + 3, 0, -2 + 5});
  for (std::size_t i = 0; i < flat.size(); ++i) ASSERT_EQ(two.data()[i], want_two[i]) << i;
  const kernel::array_view<const cf, 2> columns(a.data(), {5, 12}, {1, 5}); // a transposed view
  std::vector<cf> copy(60);
  for (kernel::index_t i = 0; i < 5; ++i)
    for (kernel::index_t j = 0; j < 12; ++j) copy[static_cast<std::size_t>(i * 12 + j)] = columns(i, j);
  const auto shifted_columns = kernel::fftshift.on(t)(columns, {-1});
  const std::vector<cf> want_columns = rolled(copy, {5, 12}, {0, 6});
  for (std::size_t i = 0; i < copy.size(); ++i) ASSERT_EQ(shifted_columns.data()[i], want_columns[i]) << i;

  // Errors: bad axes, bad lengths and spacings; an empty array is shifted to an empty one.
  EXPECT_THROW(kernel::fftshift.on(t)(a, {3}), kernel::argument_error);
  // As NumPy's roll: an axis named twice is rolled twice, none named is a copy.
  const auto twice = kernel::ifftshift.on(t)(a, {2, 2});
  const std::vector<cf> want_twice = rolled(flat, shape, {0, 0, -4 + 5});
  for (std::size_t i = 0; i < flat.size(); ++i) ASSERT_EQ(twice.data()[i], want_twice[i]) << i;
  const auto none = kernel::fftshift.on(t)(a, kernel::fft_axes{});
  for (std::size_t i = 0; i < flat.size(); ++i) ASSERT_EQ(none.data()[i], flat[i]) << i;
  // Any element type, integers too.
  EXPECT_EQ(kernel::fftshift.on(t)(std::vector<int>{0, 1, 2, 3, 4}).to_vector(), (std::vector<int>{3, 4, 0, 1, 2}));
  EXPECT_EQ(kernel::ifftshift.on(t)(std::vector<std::uint8_t>{3, 4, 0, 1, 2}).to_vector(),
            (std::vector<std::uint8_t>{0, 1, 2, 3, 4}));
  EXPECT_THROW(kernel::fftfreq(0), kernel::argument_error);
  // A length whose result could not exist is the call's error, not the result array's.
  const auto too_long = [](const char *callee, auto &&call) {
    try {
      call();
      ADD_FAILURE() << callee << ": no error";
    } catch (const kernel::argument_error &e) {
      EXPECT_EQ(e.callee(), callee) << e.what();
      EXPECT_NE(std::string(e.what()).find("too large"), std::string::npos) << e.what();
    }
  };
  too_long("fft", [&] { (void)kernel::fft.on(t)(std::vector<cf>(4), kernel::index_t{1} << 62); });
  too_long("irfft", [&] { (void)kernel::irfft.on(t)(std::vector<cf>(4), kernel::index_t{1} << 62); });
  too_long("fftfreq", [] { (void)kernel::fftfreq(kernel::index_t{1} << 62); });
  EXPECT_THROW(kernel::rfftfreq(4, 0.0), kernel::argument_error);
  EXPECT_EQ(kernel::fftshift.on(t)(std::vector<float>{}).size(), 0);
  if (t == kernel::target::cpu || t == kernel::target::parallel) return;
  // Device arrays stay on the device.
  auto da = kernel::to_device(a, kernel_test::device());
  kernel::device_array<cf, 3> dshift = kernel::fftshift(da, {0, 1, 2});
  const auto host = dshift.copy_to_host();
  for (std::size_t i = 0; i < flat.size(); ++i) ASSERT_EQ(host.data()[i], want_all[i]) << i;
}

INSTANTIATE_TEST_SUITE_P(Fft, Targets,
                         testing::Values(kernel::target::cpu, kernel::target::parallel, kernel_test::target()),
                         [](const auto &info) { return std::string(kernel::target_name(info.param)); });

} // namespace
