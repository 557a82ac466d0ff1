// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Monte-Carlo estimate of pi with a random generator per thread (xoroshiro128+, as Numba's
// numba.cuda.random): each thread throws darts at the unit square and counts those inside the
// quarter circle. Run on the simulator and the GPU with the same seeds, the counts are the
// same; the estimate is checked against pi.
#include <kernel/kernel.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numbers>

using kernel::array_view;
using kernel::index_t;

[[kernel::jit]] void count_inside(array_view<kernel::random::xoroshiro128p_state> states, int darts,
                                  array_view<unsigned> inside) {
  const index_t i = kernel::grid<1>();
  if (i >= states.size()) return;
  unsigned hits = 0;
  for (int d = 0; d < darts; ++d) {
    const float x = kernel::random::uniform_float32(states, i);
    const float y = kernel::random::uniform_float32(states, i);
    hits += x * x + y * y <= 1.0f;
  }
  inside[i] = hits;
}

unsigned run(kernel::device d, unsigned blocks, unsigned threads, int darts) {
  auto states = kernel::random::create_xoroshiro128p_states(blocks * threads, /*seed=*/1);
  std::vector<unsigned> inside(blocks * threads);
  kernel::launch<count_inside>(blocks, threads).on(d)(states, darts, inside);
  unsigned total = 0;
  for (unsigned h : inside) total += h;
  return total;
}

int main() {
  const unsigned blocks = 64, threads = 64;
  const int darts = 1000;
  const double samples = double(blocks) * threads * darts;
  const unsigned on_simulator = run(kernel::device::simulator(), blocks, threads, darts);
  const double estimate = 4.0 * on_simulator / samples;
  // About 4e6 darts: the standard error of the estimate is under 1e-3.
  bool ok = std::abs(estimate - std::numbers::pi) < 5e-3;
  std::printf("simulator: pi ~ %.5f from %.0f darts %s\n", estimate, samples, ok ? "ok" : "WRONG");
  try {
    kernel::device gpu = kernel::device::cuda();
    const unsigned on_gpu = run(gpu, blocks, threads, darts);
    const bool same = on_gpu == on_simulator;
    std::printf("%s: %u darts inside, the simulator %u %s\n", gpu.name().c_str(), on_gpu, on_simulator,
                same ? "(same) ok" : "WRONG");
    ok &= same;
  } catch (const kernel::target_unavailable_error &e) {
    std::printf("cuda: not run here (%s)\n", e.what());
  }
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
