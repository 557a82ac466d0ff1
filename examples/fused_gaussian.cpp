// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A chain of four ufuncs and a reduction, eager and fused, on every target.
//
// The eager chain is what NumPy does: every call reads and writes whole arrays (four passes
// over memory, three temporaries). The fused chain builds an expression from a lazy operand
// and runs it as one loop on the CPU or one kernel on a device, with the intermediate
// values in registers; the sum of the values is one more pass, fused with the map.
#include <kernel/kernel.h>

#include "worst_error.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

[[kernel::vectorize("float32(float32, float32)")]] float scale(float a, float x) { return a * x; }
[[kernel::vectorize("float32(float32, float32)")]] float shift(float x, float b) { return x + b; }
[[kernel::vectorize("float32(float32, float32, float32)")]] float gauss(float x, float mu, float sigma) {
  const float z = (x - mu) / sigma;
  return std::exp(-0.5f * z * z);
}
[[kernel::vectorize("float32(float32, float32)")]] float weight(float g, float w) { return g * w; }
[[kernel::reduce]] float add(float a, float b) { return a + b; }

constexpr kernel::ufunc<scale> vscale;
constexpr kernel::ufunc<shift> vshift;
constexpr kernel::ufunc<gauss> vgauss;
constexpr kernel::ufunc<weight> vweight;
constexpr kernel::reduce<add> sum;

int main() {
  const std::size_t n = 1 << 20;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> x(n);
  for (float &v : x) v = dist(rng);

  bool ok = true;
  auto run = [&](kernel::target t) {
    // Eager: four calls, four arrays.
    const auto eager = vweight.on(t)(vgauss.on(t)(vshift.on(t)(vscale.on(t)(1.5f, x), 0.25f), 0.0f, 1.0f), 0.5f);
    const float eager_sum = sum.on(t)(eager);
    // Fused: the same chain as one expression; nothing runs until it is evaluated.
    const auto e = vweight(vgauss(vshift(vscale(1.5f, kernel::lazy(x)), 0.25f), 0.0f, 1.0f), 0.5f);
    const kernel::ndarray<float> fused = e.eval(t);
    const float fused_sum = sum.on(t)(e); // map-reduce: no array of the values
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i)
      worst = worse(worst, std::abs(double(fused[i]) - double(eager[i])) / (std::abs(double(eager[i])) + 1e-30));
    const double sum_error = std::abs(double(fused_sum) - double(eager_sum)) / std::abs(double(eager_sum));
    const bool good = worst <= 1e-6 && sum_error <= 1e-4;
    std::printf("%-9s: %s\n           fused vs eager: worst relative difference %.1e; sum %.6g vs %.6g %s\n",
                std::string(kernel::target_name(t)).c_str(), std::string(e.name()).c_str(), worst, fused_sum,
                eager_sum, good ? "ok" : "WRONG");
    ok &= good;
  };
  run(kernel::target::cpu);
  run(kernel::target::parallel);
  run(kernel::target::simulator);
  try {
    run(kernel::target::cuda);
  } catch (const kernel::target_unavailable_error &e) {
    std::printf("cuda     : not run here (%s)\n", e.what());
  }
  for (const kernel::kernel_info &k : kernel::compiled_kernels())
    if (k.kind == "fused" || k.kind == "fused_reduce")
      std::printf("compiled ahead of time: %s kernel %s\n", k.kind.c_str(), k.name.c_str());
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
