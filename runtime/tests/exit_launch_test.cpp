// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A static object's destructor launches on the simulator after main has: the race detector's
// pool of shadow memory, made at main's launch and so destroyed before this object, was used
// after it was freed ("free(): invalid pointer", a segfault or a hang, by the run). Passes when
// the process exits with 0.
#include <kernel/kernel.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

[[kernel::jit]] void increment(kernel::array_view<int> a) {
  const kernel::index_t i = kernel::grid<1>();
  if (i < a.size()) a[i] += 1;
}

namespace {

struct launches_at_exit {
  ~launches_at_exit() {
    std::vector<int> v(64, 1);
    kernel::launch<increment>(2, 32).on(kernel::target::simulator)(v);
    for (int x : v)
      if (x != 2) {
        std::fprintf(stderr, "the launch at exit gave %d, not 2\n", x);
        std::_Exit(1);
      }
  }
};

} // namespace

int main() {
  // Made before main's launch, destroyed after the simulator's statics made by it.
  static launches_at_exit at_exit;
  std::vector<int> v(64, 0);
  kernel::launch<increment>(2, 32).on(kernel::target::simulator)(v);
  return v[0] == 1 ? 0 : 1;
}
