// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// CPU ufuncs against hand-written loops over the same data, in the same process and
// compiled with the same flags; and the parallel target against the cpu target.
//
//   bazel run //bench:ufunc_cpu_bench            (2^24 float32 elements)
//   bazel run //bench:ufunc_cpu_bench -- 22      (2^22)
//
// Prints times (best of several runs) and ratios: "ufunc/loop" is the loop's time divided
// by the ufunc's (1.0 = as fast as the hand-written loop), "parallel/cpu" the speed-up.
#include <kernel/kernel.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

[[kernel::vectorize("float32(float32, float32, float32)")]]
float saxpy(float a, float x, float y) { return a * x + y; }

constexpr float sqrt_2pi = 2.5066282746310002f;

[[kernel::vectorize("float32(float32, float32, float32)")]]
float gaussian_pdf(float x, float mean, float sigma) {
  const float z = (x - mean) / sigma;
  return std::exp(-0.5f * z * z) / (sigma * sqrt_2pi);
}

[[kernel::vectorize("float32(float32, float32)")]]
float add(float a, float b) { return a + b; }

// The baselines: what a C++ programmer writes by hand. Not inlined into main, so that the
// compiler sees a loop over pointers as in any library function.
__attribute__((noinline)) void saxpy_loop(float a, const float *x, const float *y, float *out,
                                          std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = a * x[i] + y[i];
}
__attribute__((noinline)) void gaussian_loop(const float *x, float mean, float sigma, float *out,
                                             std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const float z = (x[i] - mean) / sigma;
    out[i] = std::exp(-0.5f * z * z) / (sigma * sqrt_2pi);
  }
}

template <class F> double seconds(F &&f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
  return dt.count();
}

__attribute__((noinline)) float sum_loop(const float *x, std::size_t n) {
  float s = 0;
  for (std::size_t i = 0; i < n; ++i) s += x[i];
  return s;
}

// reduceat's baseline: the sums of the slices [starts[i], starts[i + 1]), in order.
__attribute__((noinline)) void segment_sums(const float *x, std::size_t n, const std::vector<long> &starts,
                                            float *out) {
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const std::size_t end = i + 1 < starts.size() ? static_cast<std::size_t>(starts[i + 1]) : n;
    float s = x[starts[i]];
    for (std::size_t k = static_cast<std::size_t>(starts[i]) + 1; k < end; ++k) s += x[k];
    out[i] = s;
  }
}

// The three variants run in turn, so that each sees the same machine state (frequency,
// the other tenants of a shared host); each keeps its best time.
template <class A, class B, class C> std::array<double, 3> best_of(int runs, A &&a, B &&b, C &&c) {
  std::array<double, 3> best{1e30, 1e30, 1e30};
  for (int r = 0; r < runs; ++r) {
    best[0] = std::min(best[0], seconds(a));
    best[1] = std::min(best[1], seconds(b));
    best[2] = std::min(best[2], seconds(c));
  }
  return best;
}

int main(int argc, char **argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 24;
  const std::size_t n = std::size_t{1} << log2n;
  const int runs = 25;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  std::vector<float> x(n), y(n), out(n), check(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = dist(rng);
    y[i] = dist(rng);
  }
  constexpr kernel::ufunc<saxpy> vsaxpy;
  constexpr kernel::ufunc<gaussian_pdf> vpdf;
  const auto parallel = kernel::target::parallel;

  std::printf("%zu float32 elements (2^%d), best of %d runs, %u hardware threads\n", n, log2n,
              runs, std::thread::hardware_concurrency());
  std::printf("%-14s %12s %12s %12s %11s %13s\n", "function", "loop ms", "cpu ms", "parallel ms",
              "ufunc/loop", "parallel/cpu");

  // Warm up pages and caches once, and check the ufuncs compute what the loops do.
  // On both targets: a parallel split that dropped or repeated a chunk would show here.
  for (kernel::target t : {kernel::target::cpu, parallel}) {
    saxpy_loop(2.0f, x.data(), y.data(), check.data(), n);
    out.assign(n, std::nanf(""));
    vsaxpy.on(t)(2.0f, x, y, out);
    if (out != check) return std::puts("saxpy ufunc differs from the loop"), 1;
    gaussian_loop(x.data(), 0.0f, 1.0f, check.data(), n);
    out.assign(n, std::nanf(""));
    vpdf.on(t)(x, 0.0f, 1.0f, out);
    for (std::size_t i = 0; i < n; ++i)
      if (!(std::abs(out[i] - check[i]) <= 1e-6f * std::abs(check[i])))
        return std::puts("gaussian_pdf ufunc differs from the loop"), 1;
  }

  const auto [sl, su, sp] =
      best_of(runs, [&] { saxpy_loop(2.0f, x.data(), y.data(), out.data(), n); },
              [&] { vsaxpy(2.0f, x, y, out); }, [&] { vsaxpy.on(parallel)(2.0f, x, y, out); });
  std::printf("%-14s %12.2f %12.2f %12.2f %11.3f %13.2f\n", "saxpy", sl * 1e3, su * 1e3, sp * 1e3,
              sl / su, su / sp);

  const auto [gl, gu, gp] =
      best_of(runs, [&] { gaussian_loop(x.data(), 0.0f, 1.0f, out.data(), n); },
              [&] { vpdf(x, 0.0f, 1.0f, out); }, [&] { vpdf.on(parallel)(x, 0.0f, 1.0f, out); });
  std::printf("%-14s %12.2f %12.2f %12.2f %11.3f %13.2f\n", "gaussian_pdf", gl * 1e3, gu * 1e3,
              gp * 1e3, gl / gu, gu / gp);

  // reduce: in order on cpu, as the loop; on parallel, with an identity, in chunks on the cores.
  constexpr kernel::ufunc<add> vsum{kernel::identity::zero};
  const float in_order = sum_loop(x.data(), n);
  if (vsum.reduce(x) != in_order) return std::puts("add.reduce differs from the loop"), 1;
  if (!(std::abs(vsum.on(parallel).reduce(x) - in_order) <= 1e-3f * n))
    return std::puts("add.reduce on parallel differs from the loop"), 1;
  volatile float sink = 0;
  const auto [rl, ru, rp] = best_of(
      runs, [&] { sink = sum_loop(x.data(), n); }, [&] { sink = vsum.reduce(x); },
      [&] { sink = vsum.on(parallel).reduce(x); });
  std::printf("%-14s %12.2f %12.2f %12.2f %11.3f %13.2f\n", "add.reduce", rl * 1e3, ru * 1e3, rp * 1e3, rl / ru,
              ru / rp);

  // reduceat over slices of 16 elements, the indices checked and copied by each call.
  std::vector<long> starts;
  for (std::size_t k = 0; k < n; k += 16) starts.push_back(static_cast<long>(k));
  std::vector<float> sums(starts.size());
  segment_sums(x.data(), n, starts, sums.data());
  if (vsum.reduceat(x, starts).to_vector() != sums) return std::puts("add.reduceat differs from the loop"), 1;
  if (vsum.on(parallel).reduceat(x, starts).to_vector() != sums)
    return std::puts("add.reduceat on parallel differs from the loop"), 1;
  const auto [al, au, ap] = best_of(
      runs, [&] { segment_sums(x.data(), n, starts, sums.data()); }, [&] { (void)vsum.reduceat(x, starts); },
      [&] { (void)vsum.on(parallel).reduceat(x, starts); });
  std::printf("%-14s %12.2f %12.2f %12.2f %11.3f %13.2f\n", "add.reduceat", al * 1e3, au * 1e3, ap * 1e3, al / au,
              au / ap);
  return 0;
}
