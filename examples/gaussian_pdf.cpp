// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The seed's Gaussian probability density over a million float32 values: std::exp in a
// ufunc, vectorized on the CPU (glibc's libmvec) and mapped to libdevice on the GPU.
#include <kernel/kernel.h>

#include "worst_error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

constexpr float sqrt_2pi = 2.5066282746310002f;

[[kernel::vectorize("float32(float32, float32, float32)")]]
float gaussian_pdf(float x, float mean, float sigma) {
  const float z = (x - mean) / sigma;
  return std::exp(-0.5f * z * z) / (sigma * sqrt_2pi);
}

int main() {
  const std::size_t n = 1000000;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  std::vector<float> x(n);
  for (float &v : x) v = dist(rng);
  const float mean = 0.0f, sigma = 1.0f;

  std::vector<double> reference(n);
  for (std::size_t i = 0; i < n; ++i)
    reference[i] = std::exp(-0.5 * double(x[i]) * double(x[i])) / std::sqrt(2 * M_PI);

  auto check = [&](const char *where, const kernel::ndarray<float, 1> &r) {
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i)
      worst = worse(worst, std::abs(double(r[i]) - reference[i]) / reference[i]);
    const bool ok = worst <= 1e-6;
    std::printf("gaussian_pdf on %-8s: pdf(%.3f) = %.6f, worst relative error %.1e %s\n", where,
                x[0], r[0], worst, ok ? "ok" : "WRONG");
    return ok;
  };

  constexpr kernel::ufunc<gaussian_pdf> pdf;
  bool ok = check("cpu", pdf(x, mean, sigma));
  ok &= check("parallel", pdf.on(kernel::target::parallel)(x, mean, sigma));
  try {
    ok &= check("cuda", pdf.on(kernel::target::cuda)(x, mean, sigma));
  } catch (const kernel::target_unavailable_error &e) {
    std::printf("gaussian_pdf on cuda    : not run here (%s)\n", e.what());
  }
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
