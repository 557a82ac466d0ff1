// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Fusion on the CPU: a chain of five elementwise ufuncs, and sum(exp(a*x + b)), fused
// against the eager chain and against one hand-written loop over the same data, in the same
// process with the same flags; and the parallel target against cpu.
//
//   bazel run //bench:fusion_cpu_bench            (2^24 float32 elements)
//   bazel run //bench:fusion_cpu_bench -- 22 30   (2^22, best of 30 rounds)
//
// Ratios are speeds relative to the baseline named (above 1: faster than it).
#include <kernel/kernel.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "timing.h"

[[kernel::vectorize("float32(float32, float32)")]] float scale(float x, float a) { return a * x; }
[[kernel::vectorize("float32(float32, float32)")]] float shift(float x, float b) { return x + b; }
[[kernel::vectorize("float32(float32)")]] float fexp(float x) { return std::exp(x); }
[[kernel::vectorize("float32(float32, float32)")]] float clamp_max(float x, float m) { return x < m ? x : m; }
[[kernel::reduce]] float add(float a, float b) { return a + b; }

constexpr kernel::ufunc<scale> vscale;
constexpr kernel::ufunc<shift> vshift;
constexpr kernel::ufunc<fexp> vexp;
constexpr kernel::ufunc<clamp_max> vclamp;
constexpr kernel::reduce<add> sum;

// The baselines: one loop computing the whole chain, as a C++ programmer writes it.
__attribute__((noinline)) void chain_loop(const float *x, float *out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::min(std::exp(x[i] * 0.5f + 0.25f), 2.0f) * 0.5f;
}
__attribute__((noinline)) float sum_exp_loop(const float *x, std::size_t n) {
  float acc[8] = {};
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) acc[j] += std::exp(0.5f * x[i + j] + 0.25f);
  float r = 0;
  for (int j = 0; j < 8; ++j) r += acc[j];
  for (; i < n; ++i) r += std::exp(0.5f * x[i] + 0.25f);
  return r;
}

int main(int argc, char **argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 24;
  const std::size_t n = std::size_t{1} << log2n;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  kernel::ndarray<float> x(static_cast<kernel::index_t>(n)), out(static_cast<kernel::index_t>(n));
  for (std::size_t i = 0; i < n; ++i) x[i] = dist(rng);
  const int runs = argc > 2 ? std::atoi(argv[2]) : 15;

  auto expression = [&] { return vscale(vclamp(vexp(vshift(vscale(kernel::lazy(x), 0.5f), 0.25f)), 2.0f), 0.5f); };
  std::printf("fusion on the CPU, 2^%d float32, best of %d runs\n", log2n, runs);
  std::printf("chain: %s\n", std::string(expression().name()).c_str());

  // Every variant once per round, best of the rounds: a noisy machine affects all alike.
  enum { loop, cpu_eager, cpu_fused, par_eager, par_fused, rloop, rcpu_eager, rcpu_fused, rpar_eager, rpar_fused, count };
  double best[count];
  std::fill(best, best + count, 1e300);
  volatile float sink = 0;
  auto chain_eager = [&](kernel::target t) {
    out = vscale.on(t)(vclamp.on(t)(vexp.on(t)(vshift.on(t)(vscale.on(t)(x, 0.5f), 0.25f)), 2.0f), 0.5f);
  };
  auto sum_eager = [&](kernel::target t) { sink = sum.on(t)(vexp.on(t)(vshift.on(t)(vscale.on(t)(x, 0.5f), 0.25f))); };
  auto sum_fused = [&](kernel::target t) { sink = sum.on(t)(vexp(vshift(vscale(kernel::lazy(x), 0.5f), 0.25f))); };
  const kernel::target cpu = kernel::target::cpu, par = kernel::target::parallel;
  // Each variant computes what the loops do (checked once, before the rounds; the sums against
  // one in double).
  {
    kernel::ndarray<float> want(static_cast<kernel::index_t>(n));
    chain_loop(x.data(), want.data(), n);
    double want_sum = 0; // in double: the float sums differ from it by their own rounding
    for (std::size_t i = 0; i < n; ++i) want_sum += std::exp(0.5f * x[i] + 0.25f);
    const auto chain_differs = [&] {
      for (std::size_t i = 0; i < n; ++i)
        if (!(std::abs(out[i] - want[i]) <= 1e-6f * std::abs(want[i]))) return true;
      return false;
    };
    for (kernel::target t : {cpu, par}) {
      chain_eager(t);
      if (chain_differs()) return std::puts("the eager chain differs from the loop"), 1;
      std::fill(out.data(), out.data() + n, std::nanf(""));
      kernel::eval(t, kernel::assign(out, expression()));
      if (chain_differs()) return std::puts("the fused chain differs from the loop"), 1;
      const auto sum_differs = [&] { return !(std::abs(sink - want_sum) <= 1e-3 * want_sum); };
      sum_eager(t);
      if (sum_differs()) return std::puts("the eager sum differs from the loop's"), 1;
      sum_fused(t);
      if (sum_differs()) return std::puts("the fused sum differs from the loop's"), 1;
    }
  }
  for (int r = 0; r < runs; ++r) {
    auto keep = [&](int v, auto &&f) { best[v] = std::min(best[v], bench::ms(f)); };
    keep(loop, [&] { chain_loop(x.data(), out.data(), n); });
    keep(cpu_eager, [&] { chain_eager(cpu); });
    keep(cpu_fused, [&] { kernel::eval(cpu, kernel::assign(out, expression())); });
    keep(par_eager, [&] { chain_eager(par); });
    keep(par_fused, [&] { kernel::eval(par, kernel::assign(out, expression())); });
    keep(rloop, [&] { sink = sum_exp_loop(x.data(), n); });
    keep(rcpu_eager, [&] { sum_eager(cpu); });
    keep(rcpu_fused, [&] { sum_fused(cpu); });
    keep(rpar_eager, [&] { sum_eager(par); });
    keep(rpar_fused, [&] { sum_fused(par); });
  }
  auto row = [&](const char *what, int base, int eager, int fused) {
    std::printf("  %-9s loop %8.2f ms  eager %8.2f ms  fused %8.2f ms   fused/loop %.2fx  fused/eager %.2fx\n", what,
                best[base], best[eager], best[fused], best[base] / best[fused], best[eager] / best[fused]);
  };
  row("cpu", loop, cpu_eager, cpu_fused);
  row("parallel", loop, par_eager, par_fused);
  std::printf("  parallel/cpu (fused) %.2fx\n", best[cpu_fused] / best[par_fused]);
  std::printf("map-reduce sum(exp(0.5 x + 0.25))\n");
  row("cpu", rloop, rcpu_eager, rcpu_fused);
  row("parallel", rloop, rpar_eager, rpar_fused);
  (void)sink;
  return 0;
}
