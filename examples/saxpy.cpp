// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// saxpy as a ufunc: out = a * x + y over arrays, with `a` a scalar broadcast to every
// element. Checks every target against a plain loop and prints what it did.
#include <kernel/kernel.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

[[kernel::vectorize("float32(float32, float32, float32)")]]
float saxpy(float a, float x, float y) { return a * x + y; }

int main() {
  const int n = 1 << 20;
  std::vector<float> x(n), y(n), out(n), expected(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.001f * static_cast<float>(i % 1000);
    y[i] = static_cast<float>(i % 7);
  }
  for (int i = 0; i < n; ++i) expected[i] = 2.0f * x[i] + y[i];

  constexpr kernel::ufunc<saxpy> vsaxpy;
  bool ok = true;
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
    std::fill(out.begin(), out.end(), 0.0f);
    vsaxpy.on(t)(2.0f, x, y, out);
    const bool same = out == expected;
    ok = ok && same;
    std::printf("saxpy on %-8s: out[1234] = %.4f (expected %.4f) %s\n",
                kernel::target_name(t).data(), out[1234], expected[1234], same ? "ok" : "WRONG");
  }
  try {
    vsaxpy.on(kernel::target::cuda)(2.0f, x, y, out);
    const bool same = out == expected;
    ok = ok && same;
    std::printf("saxpy on cuda    : %s\n", same ? "ok" : "WRONG");
  } catch (const kernel::target_unavailable_error &e) {
    std::printf("saxpy on cuda    : not run here (%s)\n", e.what());
  }
  for (const kernel::kernel_info &k : vsaxpy.inspect())
    std::printf("GPU kernel %s %s: PTX for %zu architectures\n", k.name.c_str(),
                k.signature.c_str(), k.ptx.size());
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
