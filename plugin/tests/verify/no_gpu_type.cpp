// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Arrays of a type no GPU has ('long double', and complex numbers of it) are one error from
// the library at the user's line, on every target a call names: the GPU kernel every call
// instantiates could not be compiled (the backend stopped with "Undefined external symbol",
// at no line), and the sorts' traits gave errors of their own. Device arrays refuse them too.
// (Clang reports a failed specialization once: each call here has an array type of its own.)
#include <complex>
#include <kernel/algorithm.h>
#include <kernel/fft.h>
#include <kernel/kernel.h>
#include <kernel/random_arrays.h>
#include <span>
#include <vector>

void count(const std::vector<long double> &x) {
  auto h = kernel::histogram.on(kernel::target::cpu)(x, 3, 0.0, 3.0); // expected-note {{in instantiation of}}
  (void)h;
}
void sums(const kernel::ndarray<long double, 1> &x) {
  auto s = kernel::cumsum.on(kernel::target::parallel)(x); // expected-note {{in instantiation of}}
  (void)s;
}
void largest(std::span<const long double> x) {
  auto r = kernel::top_k(x, 2); // expected-note {{in instantiation of}}
  (void)r;
}
void spectrum(const kernel::ndarray<std::complex<long double>, 1> &x) {
  auto f = kernel::fft(x); // expected-note {{in instantiation of}}
  (void)f;
}
void fill(kernel::ndarray<long double, 2> &x) {
  kernel::random::philox rng(42);
  rng.uniform(x); // expected-note {{in instantiation of}}
}
// expected-error-re@* 5 {{this array{{.}}s elements have no GPU type}}

void on_the_device(const std::vector<long double> &x) {
  auto d = kernel::to_device(x); // expected-note {{in instantiation of}}
  (void)d;
}
// expected-error-re@* {{a device_array{{.}}s elements have no GPU type}}

// The rest of each chain, inside the library.
// expected-note@* 0+ {{in instantiation of}}
// expected-note@* 0+ {{evaluates to}}
// expected-note@* 0+ {{while substituting}}
// expected-note@* 0+ {{requested here}}
