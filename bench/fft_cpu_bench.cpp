// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel/fft.h on the CPU targets: a 1-D transform of 2^20 complex64 and a 2-D transform of
// 1024 x 1024 complex64, cpu and parallel, against a baseline in the same process: a plain
// radix-2 FFT written the textbook way (iterative, bit-reversed), the code a user would
// otherwise write. Then the real transforms of the same sizes (rfft of 2^20 float32, rfft2
// of 1024 x 1024 float32, and their inverses) against the complex transform of the same
// values. Prints times, ratios and `result` lines for bench/numpy_fft_compare.py.
//
//   bazel run --config=ci //bench:fft_cpu_bench -- [runs]
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <random>
#include <vector>

#include "kernel/fft.h"
#include "timing.h"

namespace {

using cf = std::complex<float>;

// In place, n a power of two.
void textbook_fft(std::vector<cf> &a) {
  const std::size_t n = a.size();
  for (std::size_t i = 1, j = 0; i < n; ++i) {
    std::size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  for (std::size_t len = 2; len <= n; len <<= 1) {
    const double angle = -2 * std::numbers::pi / static_cast<double>(len);
    const cf step(static_cast<float>(std::cos(angle)), static_cast<float>(std::sin(angle)));
    for (std::size_t i = 0; i < n; i += len) {
      cf w(1, 0);
      for (std::size_t k = 0; k < len / 2; ++k) {
        const cf u = a[i + k], v = a[i + k + len / 2] * w;
        a[i + k] = u + v;
        a[i + k + len / 2] = u - v;
        w *= step;
      }
    }
  }
}

} // namespace

int main(int argc, char **argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 5;
  std::mt19937 g(1);
  std::uniform_real_distribution<float> u(-1, 1);
  const std::size_t n = std::size_t{1} << 20;
  std::vector<cf> x(n);
  for (cf &v : x) v = {u(g), u(g)};
  std::vector<cf> work;
  const double textbook = bench::best_ms(runs,
                                         [&] {
                                           work = x;
                                           textbook_fft(work);
                                         }) -
                          bench::best_ms(runs, [&] { work = x; });
  // Both targets' transforms against the textbook's: an RMS difference of 1e-4 of the
  // spectrum's size, above the textbook's own rounding (its twiddles are a float recurrence,
  // about 1e-5), far below a wrong transform's (about 1).
  const auto differs = [](const cf *got, const cf *want, std::size_t count) {
    double error = 0, norm = 0;
    for (std::size_t i = 0; i < count; ++i) {
      error += std::norm(std::complex<double>(got[i]) - std::complex<double>(want[i]));
      norm += std::norm(std::complex<double>(want[i]));
    }
    return !(error <= 1e-8 * norm);
  };
  work = x; // (the timing above left it untransformed)
  textbook_fft(work);
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
    const auto spectrum = kernel::fft.on(t)(x);
    if (differs(spectrum.data(), work.data(), n)) return std::printf("fft differs from the textbook's\n"), 1;
  }
  const double cpu = bench::best_ms(runs, [&] { (void)kernel::fft(x); });
  const double parallel = bench::best_ms(runs, [&] { (void)kernel::fft.on(kernel::target::parallel)(x); });
  std::printf("fft 2^20 complex64    textbook radix-2 %8.2f ms  cpu %8.2f ms  parallel %8.2f ms  ratios: cpu %.2fx  "
              "parallel %.2fx\n",
              textbook, cpu, parallel, textbook / cpu, textbook / parallel);
  std::printf("result fft_1d cpu %.3f\nresult fft_1d parallel %.3f\n", cpu, parallel);

  kernel::ndarray<cf, 2> image({1024, 1024});
  for (kernel::index_t i = 0; i < image.size(); ++i) image.data()[i] = {u(g), u(g)};
  {
    // One row checked: the 2-D transform's first row is the 1-D transform of the sums down
    // the columns; both targets.
    std::vector<cf> sums(1024), want(1024);
    for (kernel::index_t j = 0; j < 1024; ++j) {
      std::complex<double> s = 0;
      for (kernel::index_t i = 0; i < 1024; ++i) s += std::complex<double>(image(i, j));
      sums[static_cast<std::size_t>(j)] = cf(s);
    }
    want = sums;
    textbook_fft(want);
    for (kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
      const auto spectrum = kernel::fft2.on(t)(image);
      if (differs(spectrum.data(), want.data(), 1024)) return std::printf("fft2 differs from the textbook's\n"), 1;
    }
  }
  const double cpu2 = bench::best_ms(runs, [&] { (void)kernel::fft2(image); });
  const double parallel2 = bench::best_ms(runs, [&] { (void)kernel::fft2.on(kernel::target::parallel)(image); });
  std::printf("fft2 1024^2 complex64 cpu %8.2f ms  parallel %8.2f ms  parallel/cpu %.2fx\n", cpu2, parallel2,
              cpu2 / parallel2);
  std::printf("result fft_2d cpu %.3f\nresult fft_2d parallel %.3f\n", cpu2, parallel2);

  std::vector<float> signal(n);
  for (float &v : signal) v = u(g);
  kernel::ndarray<float, 2> photo({1024, 1024});
  for (kernel::index_t i = 0; i < photo.size(); ++i) photo.data()[i] = u(g);
  const auto row = [&](const char *what, const char *key, auto &&complex_steps, auto &&real_steps) {
    for (auto [label, t] : {std::pair{"cpu", kernel::target::cpu}, std::pair{"parallel", kernel::target::parallel}}) {
      const double base = bench::best_ms(runs, [&] { complex_steps(t); });
      const double real = bench::best_ms(runs, [&] { real_steps(t); });
      std::printf("%-28s %-9s complex %8.2f ms  real %8.2f ms  ratio %.2fx\n", what, label, base, real, base / real);
      std::printf("result %s %s %.3f\n", key, label, real);
    }
  };
  const auto spectrum = kernel::rfft(signal);
  const auto photo_spectrum = kernel::rfft2(photo);
  row(
      "rfft 2^20 float32", "rfft_1d", [&](kernel::target t) { (void)kernel::fft.on(t)(signal); },
      [&](kernel::target t) { (void)kernel::rfft.on(t)(signal); });
  row(
      "irfft 2^20 -> float32", "irfft_1d", [&](kernel::target t) { (void)kernel::ifft.on(t)(x); },
      [&](kernel::target t) { (void)kernel::irfft.on(t)(spectrum, kernel::index_t(n)); });
  row(
      "rfft2 1024^2 float32", "rfft_2d", [&](kernel::target t) { (void)kernel::fft2.on(t)(photo); },
      [&](kernel::target t) { (void)kernel::rfft2.on(t)(photo); });
  row(
      "irfft2 1024^2 -> float32", "irfft_2d", [&](kernel::target t) { (void)kernel::ifft2.on(t)(image); },
      [&](kernel::target t) { (void)kernel::irfft2.on(t)(photo_spectrum); });
  return 0;
}
