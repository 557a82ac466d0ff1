// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A project built with CMake against the installed SDK: a ufunc on cpu, parallel and the
// simulator, and a CUDA-style kernel on the simulator (and on a GPU when there is one), each
// checked against a plain loop.
#include <kernel/kernel.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

[[kernel::vectorize("float32(float32, float32, float32)")]] float axpy(float a, float x, float y) {
  return a * x + y;
}

[[kernel::jit]] void scale_rows(kernel::array_view<float, 2> m, float factor) {
  auto [x, y] = kernel::grid<2>();
  if (y < m.shape(0) && x < m.shape(1)) m(y, x) *= factor;
}

int main() {
  bool ok = true;
  const std::size_t n = 10000;
  std::vector<float> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = 1.0f;
  }
  constexpr kernel::ufunc<axpy> saxpy;
  for (auto [name, t] : {std::pair{"cpu", kernel::target::cpu}, std::pair{"parallel", kernel::target::parallel},
                         std::pair{"simulator", kernel::target::simulator}}) {
    const auto r = saxpy.on(t)(2.0f, x, y);
    bool same = true;
    for (std::size_t i = 0; i < n; ++i) same &= r(static_cast<kernel::index_t>(i)) == 2.0f * x[i] + 1.0f;
    std::printf("ufunc axpy on %-9s %s\n", name, same ? "ok" : "WRONG");
    ok &= same;
  }

  kernel::ndarray<float, 2> m({64, 48}, 3.0f);
  kernel::launch<scale_rows>(kernel::dim3(3, 4), kernel::dim3(16, 16)).on(kernel::device::simulator())(m, 0.5f);
  bool scaled = true;
  for (kernel::index_t i = 0; i < m.size(); ++i) scaled &= m.data()[i] == 1.5f;
  std::printf("kernel scale_rows on the simulator %s\n", scaled ? "ok" : "WRONG");
  ok &= scaled;
  try {
    kernel::device gpu = kernel::device::cuda();
    kernel::launch<scale_rows>(kernel::dim3(3, 4), kernel::dim3(16, 16)).on(gpu)(m, 2.0f);
    bool back = true;
    for (kernel::index_t i = 0; i < m.size(); ++i) back &= m.data()[i] == 3.0f;
    std::printf("kernel scale_rows on %s %s\n", gpu.name().c_str(), back ? "ok" : "WRONG");
    ok &= back;
  } catch (const kernel::target_unavailable_error &) {
    std::printf("kernel scale_rows on cuda: no GPU here\n");
  }
  std::printf("compiled with the kernel plugin: %s\n", kernel::compiled_with_plugin ? "yes" : "no");
  return ok && kernel::compiled_with_plugin ? EXIT_SUCCESS : EXIT_FAILURE;
}
