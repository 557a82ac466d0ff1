// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A number, or anything else that is no array, given where a library call takes an array (an
// algorithm, a transform, a product, a conversion, a fill, a reduction): one error each, with
// the chain from the user's line, and nothing of the call compiled after it (its view, rank,
// shape and output gave one to six more each), and a call that returns gives a value (no
// error at `auto r`). So are values that cannot go where they are put, a complex factor of
// a real matrix, and a scan's operator of three values (its calls gave a dozen errors more).
// (Clang reports a failed specialization once: each call here gives the argument a type of
// its own, a number type or one of the `other` types.)
#include <complex>
#include <kernel/algorithm.h>
#include <kernel/fft.h>
#include <kernel/kernel.h>
#include <kernel/linalg.h>
#include <kernel/random_arrays.h>
#include <kernel/random_generators.h>
#include <kernel/reduce.h>
#include <kernel/sparse.h>
#include <vector>

[[kernel::vectorize]] bool positive(float x) { return x > 0; }
[[kernel::reduce]] float add(float a, float b) { return a + b; }
float three(float a, float b, float c) { return a + b + c; }

template <int N> struct other {};

namespace la = kernel::linalg;
namespace sp = kernel::sparse;

void algorithms(std::vector<float> &v, const std::vector<long> &idx, std::vector<std::complex<float>> &z) {
  float f = 1;
  kernel::sort(f);                                              // expected-note {{in instantiation of}}
  auto a = kernel::argsort(2.0);                                // expected-note {{in instantiation of}}
  kernel::sort_by_key(v, 3);                                    // expected-note {{in instantiation of}}
  auto t = kernel::top_k(4L, 2);                                // expected-note {{in instantiation of}}
  auto p = kernel::argpartition(short{5}, 1);                   // expected-note {{in instantiation of}}
  auto g = kernel::take(v, 6u);                                 // expected-note {{in instantiation of}}
  kernel::put(7ul, idx, v);                                     // expected-note {{in instantiation of}}
  auto s = kernel::select_if(8LL, kernel::ufunc<positive>{});   // expected-note {{in instantiation of}}
  auto c = kernel::count_if(other<1>{}, kernel::ufunc<positive>{}); // expected-note {{in instantiation of}}
  auto u = kernel::unique(std::complex<float>(9));              // expected-note {{in instantiation of}}
  auto h = kernel::histogram(std::complex<double>(10), 4, 0.0, 1.0); // expected-note {{in instantiation of}}
  kernel::cumsum(v, other<2>{});                                // expected-note {{in instantiation of}}
  kernel::put(v, idx, z);                                       // expected-note {{in instantiation of}}
  kernel::put(other<20>{}, idx, v);                             // expected-note {{in instantiation of}}
  kernel::cumsum(other<21>{}, v);                               // expected-note {{in instantiation of}}
  auto e = kernel::cumsum(other<22>{});                         // expected-note {{in instantiation of}}
  constexpr kernel::scan<three> sums_of_three;
  auto r = sums_of_three(v);                                    // expected-note {{in instantiation of}}
  (void)a, (void)t, (void)p, (void)g, (void)s, (void)c, (void)u, (void)h, (void)e, (void)r;
}

void transforms() {
  auto a = kernel::fft(other<3>{});         // expected-note {{in instantiation of}}
  auto b = kernel::rfft2(other<4>{});       // expected-note {{in instantiation of}}
  auto c = kernel::fftshift(other<5>{});    // expected-note {{in instantiation of}}
  other<6> d;
  kernel::fft_inplace(d);                   // expected-note {{in instantiation of}}
  auto e = kernel::hfft(other<7>{});        // expected-note {{in instantiation of}}
  (void)a, (void)b, (void)c, (void)e;
}

void products(const kernel::ndarray<float, 2> &m, std::vector<float> &v, const sp::csr_matrix<float> &s) {
  auto a = la::matrix_product(m, other<8>{});                         // expected-note {{in instantiation of}}
  auto b = la::matrix_vector_product(m, other<9>{});                  // expected-note {{in instantiation of}}
  auto c = la::dot(other<10>{}, v);                                   // expected-note {{in instantiation of}}
  auto d = la::vector_two_norm(other<11>{});                          // expected-note {{in instantiation of}}
  other<12> z;
  la::add(v, v, z);                                                   // expected-note {{in instantiation of}}
  other<13> x;
  la::scale(2.0f, x);                                                 // expected-note {{in instantiation of}}
  auto e = sp::spmv(s, other<14>{});                                  // expected-note {{in instantiation of}}
  auto f = sp::to_dense(other<15>{});                                 // expected-note {{in instantiation of}}
  auto g = sp::csr_from_dense(other<16>{});                           // expected-note {{in instantiation of}}
  auto h = la::matrix_product(la::scaled(std::complex<float>(2), m), m); // expected-note {{in instantiation of}}
  (void)a, (void)b, (void)c, (void)d, (void)e, (void)f, (void)g, (void)h;
}

void fills(kernel::random::philox &rng, const kernel::random::generator &gen) {
  other<17> a;
  rng.normal(a);          // expected-note {{in instantiation of}}
  other<18> b;
  gen.poisson(b, 1.0);    // expected-note {{in instantiation of}}
  constexpr kernel::reduce<add> sum;
  float r = sum(other<19>{}); // expected-note {{in instantiation of}}
  (void)r;
}

// expected-error@* 30 {{this argument is an array}}
// expected-error@* {{a scan's operator takes two values}}
// expected-error@* {{this argument is a sparse matrix (csr_matrix, coo_matrix or their device forms)}}
// expected-error@* {{a reduction takes an array}}
// expected-error@* {{put's values are complex but the array's elements are real}}
// expected-error@* {{a scaling factor is a real number or the matrix's own complex type}}
// The rest of each chain, inside the library.
// expected-note@* 0+ {{in instantiation of}}
// expected-note@* 0+ {{evaluates to}}
