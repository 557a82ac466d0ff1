// Fusion on the CPU: a chain of four elementwise ufuncs, and sum(exp(a*x + b)), fused
// against the eager chain and against one hand-written loop over the same data, in the same
// process with the same flags; and the parallel target against cpu.
//
//   bazel run //bench:fusion_cpu_bench            (2^24 float32 elements)
//   bazel run //bench:fusion_cpu_bench -- 22      (2^22)
//
// Ratios are speeds relative to the baseline named (above 1: faster than it).
#include <kernel/kernel.h>

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
  const int runs = 7;

  auto expression = [&] { return vscale(vclamp(vexp(vshift(vscale(kernel::lazy(x), 0.5f), 0.25f)), 2.0f), 0.5f); };
  std::printf("fusion on the CPU, 2^%d float32, best of %d runs\n", log2n, runs);
  std::printf("chain: %s\n", std::string(expression().name()).c_str());

  const double loop = bench::best_ms(runs, [&] { chain_loop(x.data(), out.data(), n); });
  double cpu_fused = 0;
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
    const double eager = bench::best_ms(runs, [&] {
      out = vscale.on(t)(vclamp.on(t)(vexp.on(t)(vshift.on(t)(vscale.on(t)(x, 0.5f), 0.25f)), 2.0f), 0.5f);
    });
    const double fused = bench::best_ms(runs, [&] { kernel::eval(t, kernel::assign(out, expression())); });
    if (t == kernel::target::cpu) cpu_fused = fused;
    std::printf("  %-8s  loop %8.2f ms  eager %8.2f ms  fused %8.2f ms   fused/loop %.2fx  fused/eager %.2fx\n",
                std::string(kernel::target_name(t)).c_str(), loop, eager, fused, loop / fused, eager / fused);
    if (t == kernel::target::parallel) std::printf("  parallel/cpu (fused) %.2fx\n", cpu_fused / fused);
  }

  std::printf("map-reduce sum(exp(0.5 x + 0.25))\n");
  volatile float sink = 0;
  const double rloop = bench::best_ms(runs, [&] { sink = sum_exp_loop(x.data(), n); });
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
    const double eager = bench::best_ms(runs, [&] { sink = sum.on(t)(vexp.on(t)(vshift.on(t)(vscale.on(t)(x, 0.5f), 0.25f))); });
    const double fused =
        bench::best_ms(runs, [&] { sink = sum.on(t)(vexp(vshift(vscale(kernel::lazy(x), 0.5f), 0.25f))); });
    std::printf("  %-8s  loop %8.2f ms  eager %8.2f ms  fused %8.2f ms   fused/loop %.2fx  fused/eager %.2fx\n",
                std::string(kernel::target_name(t)).c_str(), rloop, eager, fused, rloop / fused, eager / fused);
  }
  (void)sink;
  return 0;
}
