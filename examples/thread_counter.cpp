// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The seed's thread counter: every thread adds one to a counter in global memory. Without
// atomics the read-modify-writes of different threads race (a GPU loses most of them); the
// simulator reports the race. With an atomic add, the count is exact.
#include <kernel/kernel.h>

#include <cstdio>
#include <cstdlib>

using kernel::array_view;

[[kernel::jit]] void thread_counter_race_condition(array_view<unsigned> counter) { counter[0] += 1; }

[[kernel::jit]] void thread_counter_safe(array_view<unsigned> counter) { kernel::atomic_add(counter[0], 1u); }

int main() {
  const unsigned blocks = 128, threads = 128, expected = blocks * threads;
  bool ok = true;

  kernel::device sim = kernel::device::simulator();
  std::vector<unsigned> counter{0};
  try {
    kernel::launch<thread_counter_race_condition>(blocks, threads).on(sim)(counter);
    if (kernel::compiled_with_plugin) {
      std::printf("simulator: the race went unnoticed (count %u) WRONG\n", counter[0]);
      ok = false;
    } else {
      // The race checks need the kernel plugin's instrumentation of the kernel.
      std::printf("simulator: race not checked (compiled without the kernel plugin)\n");
    }
  } catch (const kernel::simulator_error &e) {
    std::printf("simulator: found the race: %.150s...\n", e.what());
  }
  counter[0] = 0;
  kernel::launch<thread_counter_safe>(blocks, threads).on(sim)(counter);
  std::printf("simulator: atomic count %u of %u %s\n", counter[0], expected, counter[0] == expected ? "ok" : "WRONG");
  ok &= counter[0] == expected;

  try {
    kernel::device gpu = kernel::device::cuda();
    counter[0] = 0;
    kernel::launch<thread_counter_race_condition>(blocks, threads).on(gpu)(counter);
    std::printf("%s: unsafe count %u of %u (updates lost to the race)\n", gpu.name().c_str(), counter[0], expected);
    counter[0] = 0;
    kernel::launch<thread_counter_safe>(blocks, threads).on(gpu)(counter);
    std::printf("%s: atomic count %u of %u %s\n", gpu.name().c_str(), counter[0], expected,
                counter[0] == expected ? "ok" : "WRONG");
    ok &= counter[0] == expected;
  } catch (const kernel::target_unavailable_error &e) {
    std::printf("cuda: not run here (%s)\n", e.what());
  }
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
