// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Axes, counts and positions of the array calls are integers of any type: a floating value
// or a bool, which a parameter of type int would take and silently cut (an axis 1.5 becoming
// 1, k = 2.5 becoming 2), is a compile error at the caller's line, as NumPy refuses them.
#include <complex>
#include <cstddef>
#include <vector>

#include <kernel/algorithm.h>
#include <kernel/fft.h>
#include <kernel/random_arrays.h>
#include <kernel/random.h>
#include <kernel/random_generators.h>
#include <kernel/sparse.h>

using c64 = std::complex<float>;

void scans(kernel::ndarray<float, 2> &m) {
  (void)kernel::cumsum(m, 0.5);              // expected-note {{in instantiation of}}
  (void)kernel::cumsum.exclusive(m, 0.0, true); // expected-note {{in instantiation of}}
  kernel::cumsum(m, m, 1.0);                 // expected-error {{no matching function for call to object}}
}
// expected-error@* 2 {{a scan's argument after its input (and exclusive's initial value) is the output array or the axis, an integer}}

void sorts(kernel::ndarray<float, 2> &m, std::vector<float> &v) {
  kernel::sort(m, kernel::ascending, 0.5);             // expected-error {{no matching function for call to object}}
  (void)kernel::argsort(m, kernel::descending, 1.0f);  // expected-error {{no matching function for call to object}}
  (void)kernel::top_k(m, 2.5);                         // expected-error {{no matching function for call to object}}
  (void)kernel::top_k(m, 2, 0.0);                      // expected-error {{no matching function for call to object}}
  (void)kernel::argpartition(v, 1.5);                  // expected-error {{no matching function for call to object}}
  (void)kernel::histogram(v, 4.5, 0.0, 1.0);           // expected-error {{no matching function for call to object}}
}

void transforms(kernel::ndarray<c64, 2> &c, kernel::ndarray<float, 2> &r) {
  (void)kernel::fft(c, 8.5);           // expected-error {{no matching function for call to object}}
  (void)kernel::ifft(c, {}, 0.5);      // expected-error {{no matching function for call to object}}
  (void)kernel::rfft(r, 8, 1.0);       // expected-error {{no matching function for call to object}}
  (void)kernel::hfft(c, 6.0);          // expected-error {{no matching function for call to object}}
  (void)kernel::fftn(c, 1.5);          // expected-error {{no matching function for call to object}}
  (void)kernel::fftfreq(8.5);          // expected-error {{no matching function for call to 'fftfreq'}}
}

void seeds() {
  (void)kernel::random::philox(1.5);    // expected-error {{no matching conversion for functional-style cast}}
  (void)kernel::random::philox(1, 2.0); // expected-error {{no matching constructor for initialization of 'kernel::random::philox'}}
  (void)kernel::random::generator(kernel::random::engine::xorwow, 0.5); // expected-error {{no matching constructor for initialization of 'kernel::random::generator'}}
  (void)kernel::random::philox(7u, std::size_t{4});
  (void)kernel::random::generator(kernel::random::engine::xorwow, 7L, 2u);
  (void)kernel::random::create_xoroshiro128p_states(256, 1.5);    // expected-error {{no matching function for call to 'create_xoroshiro128p_states'}}
  (void)kernel::random::create_xoroshiro128p_states(256.0, 1);    // expected-error {{no matching function for call to 'create_xoroshiro128p_states'}}
  (void)kernel::random::create_xoroshiro128p_states(256, 1, 0.5); // expected-error {{no matching function for call to 'create_xoroshiro128p_states'}}
  (void)kernel::random::create_xoroshiro128p_states(std::size_t{256}, 7u, short{1});
}

void extents(std::vector<int> &offsets, std::vector<int> &columns, std::vector<float> &values) {
  (void)kernel::sparse::csr_matrix<float>(3.5, 4, offsets, columns, values); // expected-error {{no matching constructor for initialization of 'kernel::sparse::csr_matrix<float>'}}
  (void)kernel::sparse::coo_matrix<float>(3, 4.0f, offsets, columns, values); // expected-error {{no matching constructor for initialization of 'kernel::sparse::coo_matrix<float>'}}
  (void)kernel::sparse::csr_matrix<float>(std::size_t{3}, 4u, offsets, columns, values);
}

// What fits compiles: integers of any width or signedness, unscoped enumerators, `{}` or an
// optional for the input's length.
enum axis_name { rows = 0, columns = 1 };
void integers(kernel::ndarray<float, 2> &m, kernel::ndarray<c64, 2> &c, std::vector<float> &v) {
  const std::size_t one = 1;
  const long long last = -1;
  (void)kernel::cumsum(m, one);
  kernel::cumsum(m, m, columns);
  (void)kernel::cumsum.exclusive(m, 0.0, short{0});
  kernel::sort(m, kernel::ascending, rows);
  (void)kernel::argsort(m, kernel::ascending, last);
  (void)kernel::top_k(m, one, 0u);
  (void)kernel::argpartition(v, std::size_t{2});
  (void)kernel::histogram(v, 4u, 0.0, 1.0);
  (void)kernel::fft(c, 8u, rows);
  (void)kernel::fft(c, std::optional<int>(4), last);
  (void)kernel::fft(c, std::nullopt, 0);
  (void)kernel::fftn(c, one);
  (void)kernel::rfftfreq(std::size_t{8});
}

// The candidates, and why each is not viable: the concept the integers satisfy, or no
// conversion to the type fft's n is (which takes integers and `{}` alone).
// expected-note@* 10+ {{because 'double' does not satisfy 'integer_argument'}}
// expected-note@* 1+ {{because 'float' does not satisfy 'integer_argument'}}
// expected-note@* 2+ {{no known conversion from 'double' to 'fft_points'}}
// expected-note@* 0+ {{candidate}}
// expected-note@* 0+ {{because}}
// expected-note@* 0+ {{and}}
// expected-note@* 0+ {{in instantiation of}}
// expected-note@* 0+ {{evaluated to false}}
// expected-note@* 0+ {{evaluates to}}
