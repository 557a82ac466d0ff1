// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The seed's hand-written hypot as a ufunc with two loops (float32 and float64): a function
// template instantiated by the plugin for each signature. A call picks the loop from the
// argument types, as a NumPy ufunc does.
#include <kernel/kernel.h>

#include "worst_error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

template <class T>
[[kernel::vectorize("float32(float32, float32)", "float64(float64, float64)")]]
T cu_hypot(T x, T y) {
  x = std::abs(x);
  y = std::abs(y);
  T t = std::min(x, y);
  x = std::max(x, y);
  t = t / x;
  return x * std::sqrt(1 + t * t);
}

template <class T> bool check(const char *what, const std::vector<T> &x, const std::vector<T> &y,
                              const kernel::ndarray<T, 1> &r, double tolerance) {
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double ref = std::hypot(double(x[i]), double(y[i]));
    worst = worse(worst, std::abs(double(r[i]) - ref) / ref);
  }
  const bool ok = worst <= tolerance;
  std::printf("%-28s worst relative error %.2e (tolerance %.0e) %s\n", what, worst, tolerance,
              ok ? "ok" : "WRONG");
  return ok;
}

int main() {
  const std::size_t n = 1 << 18;
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> dist(-1e3, 1e3);
  std::vector<float> xf(n), yf(n);
  std::vector<double> xd(n), yd(n);
  for (std::size_t i = 0; i < n; ++i) {
    xd[i] = dist(rng);
    yd[i] = dist(rng);
    xf[i] = static_cast<float>(xd[i]);
    yf[i] = static_cast<float>(yd[i]);
  }

  constexpr kernel::ufunc<cu_hypot<float>, cu_hypot<double>> hypot;
  bool ok = true;
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
    char label[64];
    std::snprintf(label, sizeof label, "float32 loop on %s:", kernel::target_name(t).data());
    ok &= check(label, xf, yf, hypot.on(t)(xf, yf), 3e-7);
    std::snprintf(label, sizeof label, "float64 loop on %s:", kernel::target_name(t).data());
    ok &= check(label, xd, yd, hypot.on(t)(xd, yd), 1e-15);
  }
  try {
    ok &= check("float32 loop on cuda:", xf, yf, hypot.on(kernel::target::cuda)(xf, yf), 3e-7);
  } catch (const kernel::target_unavailable_error &e) {
    std::printf("cuda: not run here (%s)\n", e.what());
  }
  for (const kernel::kernel_info &k : hypot.inspect())
    std::printf("GPU kernel %s %s\n", k.name.c_str(), k.signature.c_str());
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
