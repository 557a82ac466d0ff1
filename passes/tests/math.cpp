// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// C and C++ math in GPU code: every call must end up in libdevice or a PTX instruction.
#include <cmath>
#include <complex>
#include <cstdint>
#include <kernel/kernel.h>

[[kernel::vectorize]] float float_math(float x, float y) {
  return std::exp(x) + std::log(y) + std::sin(x) * std::cos(y) + std::tan(x) + std::pow(x, y) +
         std::hypot(x, y) + std::atan2(y, x) + std::erf(x) + std::cbrt(y) + std::sqrt(y) +
         std::fabs(x) + std::floor(y) + std::fma(x, y, 1.0f) + std::exp2(x) + std::log10(y) +
         std::tgamma(x) + std::asinh(y) + std::fmod(x, y) + std::fmin(x, y) + std::ldexp(x, 3) +
         expf(x) + sinhf(y) + powf(x, 2.0f);
}

[[kernel::vectorize]] double double_math(double x, double y) {
  return std::exp(x) + std::log1p(y) + std::sin(x) + std::acos(y) + std::pow(x, y) +
         std::hypot(x, y) + std::sqrt(y) + std::round(x) + std::expm1(x) + std::lgamma(y) +
         std::remainder(x, y) + std::pow(x, 3);
}

[[kernel::vectorize]] std::complex<float> complex_math(std::complex<float> a,
                                                       std::complex<float> b) {
  return a * b + a / b + std::exp(a) + std::sqrt(b) + std::abs(a) + std::log(b) + std::pow(a, b);
}

// Rounding to integers (LLVM's lround/llrint intrinsics): libdevice's llround and llrint.
[[kernel::vectorize]] std::int64_t to_integers(float x, double y) {
  return std::lround(x) + std::llround(y) + std::lrint(x) + std::llrint(y) + lroundf(x) + llrint(y);
}

// GNU math functions libdevice implements.
[[kernel::vectorize]] double gnu_math(double x) {
  double s = 0, c = 0;
  sincos(x, &s, &c);
  float sf = 0, cf = 0;
  sincosf(static_cast<float>(x), &sf, &cf);
  return s + c + sf + cf + exp10(x) + exp10f(static_cast<float>(x));
}
