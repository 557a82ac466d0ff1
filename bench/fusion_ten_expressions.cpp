// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Ten fused expressions in one translation unit: what bench/compile_time.sh measures for
// the cost of fusion at compile time (each expression is one GPU kernel made by the plugin
// and the pass, and one CPU loop).
#include <kernel/kernel.h>

#include <cmath>

[[kernel::vectorize("float32(float32, float32)")]] float scale(float x, float a) { return a * x; }
[[kernel::vectorize("float32(float32, float32)")]] float shift(float x, float b) { return x + b; }
[[kernel::vectorize("float32(float32)")]] float fexp(float x) { return std::exp(x); }
[[kernel::vectorize("float32(float32, float32)")]] float clamp_max(float x, float m) { return x < m ? x : m; }
[[kernel::vectorize("float32(float32, float32)")]] float mul(float a, float b) { return a * b; }
[[kernel::reduce]] float add(float a, float b) { return a + b; }

constexpr kernel::ufunc<scale> vscale;
constexpr kernel::ufunc<shift> vshift;
constexpr kernel::ufunc<fexp> vexp;
constexpr kernel::ufunc<clamp_max> vclamp;
constexpr kernel::ufunc<mul> vmul;
constexpr kernel::reduce<add> sum;

float ten(const kernel::ndarray<float> &x, const kernel::ndarray<float> &y, kernel::ndarray<float> &out) {
  const auto lx = kernel::lazy(x);
  kernel::eval(kernel::assign(out, vscale(lx, 2.0f)));
  kernel::eval(kernel::assign(out, vshift(vscale(lx, 2.0f), 1.0f)));
  kernel::eval(kernel::assign(out, vexp(vshift(vscale(lx, 2.0f), 1.0f))));
  kernel::eval(kernel::assign(out, vclamp(vexp(vshift(vscale(lx, 2.0f), 1.0f)), 3.0f)));
  kernel::eval(kernel::assign(out, vmul(lx, y)));
  kernel::eval(kernel::assign(out, vmul(vexp(lx), vexp(y))));
  kernel::eval(kernel::assign(out, vshift(vmul(lx, vmul(lx, lx)), 0.5f)));
  kernel::eval(kernel::assign(out, vclamp(vmul(vshift(lx, 1.0f), y), 4.0f)));
  kernel::eval(kernel::assign(out, vscale(vclamp(vexp(vshift(vscale(lx, 0.5f), 0.25f)), 2.0f), 0.5f)));
  return sum(vexp(vscale(lx, 0.5f)));
}
