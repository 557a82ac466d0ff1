// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A vectorized function that calls a CUDA-C device function from a prebuilt static library
// (libfastmath.a: nvcc -dc, nvcc -lib). On the CPU targets the host implementation below
// the kernel is used; on the GPU the library's, linked by nvJitLink.
#include <kernel/kernel.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "../worst_error.h"
#include "link_report.h"

extern "C" [[kernel::declare_device]] float fast_rsqrt(float x);

[[kernel::vectorize("float32(float32, float32)")]]
float normalize(float x, float y) { return x * fast_rsqrt(x * x + y * y); }

int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "--link") == 0) return print_linked_modules();
  std::vector<float> x(4096), y(4096);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = 0.5f + static_cast<float>(i % 97);
    y[i] = 1.0f + static_cast<float>(i % 13);
  }
  constexpr kernel::ufunc<normalize> vnormalize;
  bool ok = true;
  auto check = [&](const char *where, const kernel::ndarray<float, 1> &r) {
    float worst = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
      worst = worse(worst, std::abs(r[i] - x[i] / std::sqrt(x[i] * x[i] + y[i] * y[i])));
    const bool good = worst <= 1e-5f; // rsqrtf is accurate to 2 ulp on the GPU
    std::printf("normalize on %-9s: r[3] = %.6f, worst error %.1e %s\n", where, r[3], worst, good ? "ok" : "WRONG");
    ok &= good;
  };
  check("cpu", vnormalize(x, y));
  check("parallel", vnormalize.on(kernel::target::parallel)(x, y));
  try {
    check("cuda", vnormalize.on(kernel::target::cuda)(x, y));
  } catch (const kernel::target_unavailable_error &e) {
    std::printf("cuda: not run here (%s)\n", e.what());
  }
  return ok ? 0 : 1;
}
