// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The seed's polar distance: a ufunc that calls a [[kernel::device]] helper returning two
// values (here a std::pair, unpacked with structured bindings).
#include <kernel/kernel.h>

#include "worst_error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <utility>
#include <vector>

[[kernel::device]] std::pair<float, float> polar_to_cartesian(float rho, float theta) {
  return {rho * std::cos(theta), rho * std::sin(theta)};
}

[[kernel::vectorize("float32(float32, float32, float32, float32)")]]
float polar_distance(float rho1, float theta1, float rho2, float theta2) {
  auto [x1, y1] = polar_to_cartesian(rho1, theta1);
  auto [x2, y2] = polar_to_cartesian(rho2, theta2);
  return std::sqrt((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2));
}

int main() {
  const std::size_t n = 1 << 20;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> radius(0.5f, 1.5f), angle(-3.14159f, 3.14159f);
  std::vector<float> rho1(n), theta1(n), rho2(n), theta2(n);
  for (std::size_t i = 0; i < n; ++i) {
    rho1[i] = radius(rng);
    theta1[i] = angle(rng);
    rho2[i] = radius(rng);
    theta2[i] = angle(rng);
  }
  // The law of cosines, in double precision, as the reference.
  auto reference = [&](std::size_t i) {
    const double a = rho1[i], b = rho2[i], d = double(theta1[i]) - double(theta2[i]);
    return std::sqrt(std::max(0.0, a * a + b * b - 2 * a * b * std::cos(d)));
  };
  auto check = [&](const char *where, const kernel::ndarray<float, 1> &r) {
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) worst = worse(worst, std::abs(r[i] - reference(i)));
    const bool ok = worst <= 1e-5;
    std::printf("polar_distance on %-8s: d[0] = %.6f, worst absolute error %.1e %s\n", where, r[0],
                worst, ok ? "ok" : "WRONG");
    return ok;
  };

  constexpr kernel::ufunc<polar_distance> distance;
  bool ok = check("cpu", distance(rho1, theta1, rho2, theta2));
  ok &= check("parallel", distance.on(kernel::target::parallel)(rho1, theta1, rho2, theta2));
  try {
    ok &= check("cuda", distance.on(kernel::target::cuda)(rho1, theta1, rho2, theta2));
  } catch (const kernel::target_unavailable_error &e) {
    std::printf("polar_distance on cuda    : not run here (%s)\n", e.what());
  }
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
