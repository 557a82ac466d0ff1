// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Ordinary C++ that runs on a GPU is accepted without a diagnostic.
// expected-no-diagnostics
#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <complex>
#include <cstring>
#include <kernel/kernel.h>
#include <limits>
#include <new>
#include <stdexcept>
#include <utility>

// A branch `if constexpr` discards is never generated: what it does is not GPU code.
constexpr bool debug_checks = false;
[[kernel::vectorize]] float checked_when_debugging(float x) {
  if constexpr (debug_checks) {
    if (x < 0)
      throw std::runtime_error("negative");
  }
  return x;
}

constexpr float coefficients[] = {0.5f, 0.25f, 0.125f};
constexpr double pi = 3.141592653589793;

struct Vec2 {
  float x, y;
  float norm() const { return std::sqrt(x * x + y * y); }
};

template <class T> T clamp01(T v) { return std::min(std::max(v, T(0)), T(1)); }

[[kernel::device]] std::pair<float, float> polar_to_cartesian(float rho, float theta) {
  return {rho * std::cos(theta), rho * std::sin(theta)};
}

[[kernel::vectorize("float32(float32, float32, float32, float32)")]]
float polar_distance(float rho1, float theta1, float rho2, float theta2) {
  auto [x1, y1] = polar_to_cartesian(rho1, theta1);
  auto [x2, y2] = polar_to_cartesian(rho2, theta2);
  return Vec2{x1 - x2, y1 - y2}.norm();
}

[[kernel::vectorize]] float math(float x) {
  float s = 0;
  for (float c : coefficients) s += c * std::exp(-x) + std::hypot(x, c) + std::pow(x, c);
  auto square = [](float v) { return v * v; };
  assert(x == x || true);
  return clamp01(square(s)) + float(pi) + std::numeric_limits<float>::epsilon();
}

[[kernel::vectorize]] double with_memcpy(double x) {
  double y;
  std::memcpy(&y, &x, sizeof y);
  double *slot = ::new (static_cast<void *>(&y)) double(y + 1);
  return *slot + std::move(x);
}

[[kernel::vectorize("complex128(complex128, complex128)")]]
std::complex<double> complex_ops(std::complex<double> a, std::complex<double> b) {
  return std::exp(a) * b / (a + 1.0) + std::abs(b) + std::sqrt(a);
}

[[kernel::jit("void(float32[:, :], float32[:, :])")]]
void transpose(kernel::array_view<const float, 2> in, kernel::array_view<float, 2> out) {
  auto [x, y] = kernel::grid<2>();
  if (x < out.shape(0) && y < out.shape(1)) out(x, y) = in(y, x);
}

[[kernel::jit]] void report(kernel::array_view<const float> values) {
  const kernel::index_t i = kernel::grid<1>();
  if (i < values.size() && values[i] < 0)
    std::printf("negative value %f at %ld in block %u\n", double(values[i]), long(i), unsigned(kernel::blockIdx.x));
}

// Generic lambdas: their bodies are templates until called; std algorithms take them.
template <class F> float apply_twice(F f, float x) { return f(f(x)); }
[[kernel::vectorize("float32(float32)")]] float generic_lambdas(float x) {
  auto h = [](auto y) { return std::abs(y) + std::fma(y, y, 1.0f); };
  float v[4] = {x, -x, 2 * x, h(x)};
  std::sort(v, v + 4, [](auto p, auto q) { return std::abs(p) > std::abs(q); });
  return apply_twice([&](auto y) { return h(y) + v[0]; }, x);
}

// Return types deduced from the body are checked once the body is parsed.
[[kernel::vectorize("float32(float32, float32)")]] auto deduced_sum(float a, float b) { return a + b; }
[[kernel::vectorize]] auto deduced_derived(double a) { return a * 2; }
[[kernel::jit]] auto deduced_kernel(kernel::array_view<float> x) { x[0] = 1; }
[[kernel::reduce]] decltype(auto) deduced_reduce(int a, int b) { return a + b; }
[[kernel::vectorize("int32(int32)")]] auto deduced_later(int a);
auto deduced_later(int a) { return a + 1; }
struct DeducedMember {
  [[kernel::vectorize("int32(int32)")]] static auto inc(int a) { return a + 1; }
};
