// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A histogram with shared-memory atomics: each block counts its share of the values in a
// block-local histogram (fast shared atomics), then adds it to the global one.
#include <kernel/kernel.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using kernel::array_view;
using kernel::index_t;

constexpr int bins = 64;

[[kernel::jit]] void histogram(array_view<const float> values, float low, float high, array_view<unsigned> counts) {
  auto local = kernel::shared_array<unsigned, bins>();
  for (unsigned b = kernel::threadIdx.x; b < bins; b += kernel::blockDim.x) local[b] = 0;
  kernel::syncthreads();
  const float scale = bins / (high - low);
  for (index_t i = kernel::grid<1>(); i < values.size(); i += kernel::gridsize<1>()) {
    int b = static_cast<int>((values[i] - low) * scale);
    b = b < 0 ? 0 : (b >= bins ? bins - 1 : b);
    kernel::atomic_add(local[b], 1u);
  }
  kernel::syncthreads();
  for (unsigned b = kernel::threadIdx.x; b < bins; b += kernel::blockDim.x) kernel::atomic_add(counts[b], local[b]);
}

bool run(kernel::device d, const std::vector<float> &values, const std::vector<unsigned> &expected) {
  std::vector<unsigned> counts(bins, 0);
  kernel::launch<histogram>(32, 256).on(d)(values, -4.0f, 4.0f, counts);
  const bool ok = counts == expected;
  std::printf("histogram on %-40s bin[32] = %u (expected %u) %s\n", d.name().c_str(), counts[32], expected[32],
              ok ? "ok" : "WRONG");
  return ok;
}

int main() {
  std::vector<float> values(1 << 16);
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (float &v : values) v = normal(rng);
  std::vector<unsigned> expected(bins, 0);
  for (float v : values) {
    int b = static_cast<int>((v + 4.0f) * (bins / 8.0f));
    ++expected[static_cast<std::size_t>(b < 0 ? 0 : (b >= bins ? bins - 1 : b))];
  }
  bool ok = run(kernel::device::simulator(), values, expected);
  try {
    ok &= run(kernel::device::cuda(), values, expected);
  } catch (const kernel::target_unavailable_error &e) {
    std::printf("cuda: not run here (%s)\n", e.what());
  }
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
