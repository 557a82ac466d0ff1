// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A program of another Bazel workspace built with @kernel's rules: a ufunc on the CPU targets
// and the simulator, and a kernel calling CUDA-C device code (weights.cu) on a GPU, or its host
// version on the simulator; each checked against a plain loop.
#include <kernel/kernel.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

// weights.cu on a GPU; weights_host.cpp on the simulator and in the check below.
extern "C" [[kernel::declare_device]] float weight(int i);

[[kernel::vectorize("float32(float32, float32)")]] float hypot2(float x, float y) { return x * x + y * y; }

[[kernel::jit]] void weigh(kernel::array_view<float> v) {
  const kernel::index_t i = kernel::grid<1>();
  if (i < v.size()) v[i] *= weight(static_cast<int>(i));
}

int main() {
  bool ok = true;
  const std::size_t n = 5000;
  std::vector<float> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 13);
    y[i] = 2.0f;
  }
  constexpr kernel::ufunc<hypot2> h;
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel, kernel::target::simulator}) {
    const auto r = h.on(t)(x, y);
    bool same = true;
    for (std::size_t i = 0; i < n; ++i) same &= r(static_cast<kernel::index_t>(i)) == x[i] * x[i] + 4.0f;
    std::printf("ufunc hypot2 on %s: %s\n", kernel::target_name(t).data(), same ? "ok" : "WRONG");
    ok &= same;
  }
  const auto run = [&](kernel::device d) {
    std::vector<float> v(n, 2.0f);
    kernel::launch<weigh>(static_cast<unsigned>((n + 127) / 128), 128u).on(d)(v);
    bool same = true;
    for (std::size_t i = 0; i < n; ++i) same &= v[i] == 2.0f * weight(static_cast<int>(i));
    std::printf("kernel weigh on %s: %s\n", d.name().c_str(), same ? "ok" : "WRONG");
    ok &= same;
  };
  run(kernel::device::simulator());
  try {
    run(kernel::device::cuda());
  } catch (const kernel::target_unavailable_error &) {
    std::printf("kernel weigh on cuda: no GPU here\n");
  }
  return ok && kernel::compiled_with_plugin ? EXIT_SUCCESS : EXIT_FAILURE;
}
