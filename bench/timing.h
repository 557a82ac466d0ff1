// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Timing for the benchmarks: the best of several runs, which a noisy shared machine
// disturbs least.
#pragma once

#include <algorithm>
#include <chrono>

namespace bench {

template <class F> double ms(F &&f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

template <class F> double best_ms(int runs, F &&f) {
  double best = 1e300;
  for (int r = 0; r < runs; ++r) best = std::min(best, ms(f));
  return best;
}

} // namespace bench
