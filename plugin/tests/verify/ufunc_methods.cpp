// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ufunc.outer, accumulate, reduce, reduceat and at given what they cannot take: one error each, at the
// library's check, with the chain of instantiations from the user's line.
#include <complex>
#include <kernel/kernel.h>
#include <list>
#include <vector>

[[kernel::vectorize("float32(float32, float32)")]] float add(float a, float b) { return a + b; }
[[kernel::vectorize("float32(float32)")]] float negated(float a) { return -a; }

constexpr kernel::ufunc<add> vadd;
constexpr kernel::ufunc<negated> vnegated;

void outer_of_a_unary_ufunc(std::vector<float> &x) {
  (void)vnegated.outer(x, x); // expected-note {{in instantiation of function template specialization 'kernel::ufunc<&negated>::outer<std::vector<float> &, std::vector<float> &>' requested here}}
}
// expected-error@* {{outer needs a binary ufunc}}
// expected-note@* {{expression evaluates to '1 == 2'}}

void outer_of_an_expression(std::vector<float> &x) {
  (void)vadd.outer(kernel::lazy(x), x); // expected-note {{in instantiation of function template specialization}}
}
// expected-error@* {{outer takes arrays or scalars, not a lazy expression}}

void outer_of_a_list(std::list<float> &l, std::vector<float> &x) {
  (void)vadd.outer(l, x); // expected-note {{in instantiation of function template specialization 'kernel::ufunc<&add>::outer<std::list<float> &, std::vector<float> &>' requested here}}
}
// expected-error@* {{outer takes arrays or scalars}}

void outer_of_three(std::vector<float> &x) {
  vadd.outer(x, x, x, x); // expected-note {{in instantiation of function template specialization}}
}
// expected-error@* {{outer takes two inputs, optionally followed by one output array}}
// expected-note@* {{expression evaluates to '2 <= 1'}}

void accumulate_of_a_unary_ufunc(std::vector<float> &x) {
  (void)vnegated.accumulate(x); // expected-note {{in instantiation of function template specialization 'kernel::ufunc<&negated>::accumulate<std::vector<float>, int>' requested here}}
}
// expected-error@* {{accumulate needs a binary ufunc}}
// expected-note@* {{expression evaluates to '1 == 2'}}

void accumulate_of_a_number() {
  (void)vadd.accumulate(1.0f); // expected-note {{in instantiation of function template specialization 'kernel::ufunc<&add>::accumulate<float, int>' requested here}}
}
// expected-error@* {{accumulate takes an array}}

void accumulate_of_a_list(std::list<float> &l) {
  (void)vadd.accumulate(l); // expected-note {{in instantiation of function template specialization 'kernel::ufunc<&add>::accumulate<std::list<float>, int>' requested here}}
}
// expected-error@* {{accumulate takes an array}}

void reduce_from_an_array(std::vector<float> &x) {
  (void)vadd.reduce(x, 0, x); // expected-note {{in instantiation of function template specialization}}
}
// expected-error@* {{reduce's initial value is a number}}
// expected-note@*:* {{because 'std::vector<float>' does not satisfy 'scalar'}}
// expected-note@* {{evaluated to false}}

void reduce_from_a_complex_number(std::vector<float> &x) {
  (void)vadd.reduce(x, 0, std::complex<float>(1, 0)); // expected-note {{in instantiation of function template specialization}}
}
// expected-error@* {{reduce's initial value is not a scalar the loop's first parameter takes}}
// expected-note@*:* {{in instantiation of function template specialization 'kernel::ufunc<&add>::reduce_fitting<std::vector<float>, std::complex<float>>' requested here}}

void reduce_over_more_axes_than_there_are(std::vector<float> &x) {
  (void)vadd.reduce(x, {0, 1}); // expected-note {{in instantiation of function template specialization}}
}
// expected-error@* {{reduce over more axes than the array has dimensions}}
// expected-note@* {{expression evaluates to '2 <= 1'}}
// expected-note@*:* {{in instantiation of function template specialization 'kernel::ufunc<&add>::reduce_axes_checked<std::vector<float>, 2UL, kernel::ufunc<&add>::no_initial>' requested here}}

void reduce_over_axes_from_an_array(std::vector<float> &x) {
  (void)vadd.reduce(x, kernel::all_axes, x); // expected-note {{in instantiation of function template specialization}}
}
// expected-error@* {{reduce's initial value is a number}}
// expected-note@*:* {{because 'std::vector<float>' does not satisfy 'scalar'}}
// expected-note@* {{evaluated to false}}

void reduce_of_a_unary_ufunc_over_axes(kernel::ndarray<float, 2> &m) {
  (void)vnegated.reduce(m, {0, 1}); // expected-note {{in instantiation of function template specialization}}
}
// expected-error@* {{reduce needs a binary ufunc}}
// expected-note@* {{expression evaluates to '1 == 2'}}
// expected-note@*:* {{in instantiation of function template specialization 'kernel::ufunc<&negated>::reduce_axes_checked<kernel::ndarray<float, 2>, 2UL, kernel::ufunc<&negated>::no_initial>' requested here}}

void at_of_a_constant_array(const std::vector<float> &x) {
  vadd.at(x, std::vector<int>{0}, 1.0f); // expected-note {{in instantiation of function template specialization}}
}
// expected-error@*:* {{at changes an array in place: its first argument is a writable array}}

void at_with_float_indices(std::vector<float> &x) {
  vadd.at(x, std::vector<float>{0}, 1.0f); // expected-note {{in instantiation of function template specialization}}
}
// expected-error@*:* {{at's indices are integers: an integer array or one integer}}

void at_without_the_operand(std::vector<float> &x) {
  vadd.at(x, 0); // expected-note {{in instantiation of function template specialization}}
}
// expected-error@* {{at takes the array and the indices, and for a binary ufunc the second operand too}}
// expected-note@* {{expression evaluates to '1 == 2'}}

void at_into_a_narrower_array(std::vector<short> &x) {
  vadd.at(x, 0, 1.0f); // expected-note {{in instantiation of function template specialization}}
}
// expected-error@* {{at writes the loop's result into the array, whose element type cannot hold it}}
// expected-note@*:* {{in instantiation of function template specialization 'kernel::ufunc<&add>::at_fitting<std::vector<short>, int, float>' requested here}}

void reduce_over_no_axes(kernel::ndarray<float, 2> &m) {
  (void)vadd.reduce(m, {}); // expected-note {{in instantiation of function template specialization}}
}
// expected-error@*:* {{reduce over no axes: give one at least (empty braces would be NumPy's axis=(), which reduces nothing)}}
// expected-note@*:* {{in instantiation of function template specialization 'kernel::ufunc<&add>::reduce_axes_checked<kernel::ndarray<float, 2>, 0UL, kernel::ufunc<&add>::no_initial>' requested here}}

void reduce_over_a_fractional_axis(std::vector<float> &x) {
  (void)vadd.reduce(x, 0.5); // expected-error {{no matching member function for call to 'reduce'}}
}
// expected-note@*:* 0+ {{candidate}}
// expected-note@*:* 1+ {{because 'double' does not satisfy 'integer_argument'}}
// expected-note@*:* 1+ {{because 'double' does not satisfy 'integral'}}
// expected-note@*:* 0+ {{evaluated to false}}

void reduceat_along_a_fractional_axis(std::vector<float> &x) {
  (void)vadd.reduceat(x, std::vector<int>{0}, 0.5); // expected-error {{no matching member function for call to 'reduceat'}}
}

void accumulate_along_a_fractional_axis(std::vector<float> &x) {
  (void)vadd.accumulate(x, 0.5); // expected-error {{no matching member function for call to 'accumulate'}}
}

void reduceat_of_a_unary_ufunc(std::vector<float> &x) {
  (void)vnegated.reduceat(x, std::vector<int>{0}); // expected-note {{in instantiation of function template specialization}}
}
// expected-error@* {{reduceat needs a binary ufunc}}
// expected-note@* {{expression evaluates to '1 == 2'}}

void reduceat_at_one_index(std::vector<float> &x) {
  (void)vadd.reduceat(x, 0); // expected-note {{in instantiation of function template specialization}}
}
// expected-error@* {{reduceat's indices are a 1-d integer array}}

void reduceat_at_a_matrix_of_indices(std::vector<float> &x, kernel::ndarray<int, 2> &indices) {
  (void)vadd.reduceat(x, indices); // expected-note {{in instantiation of function template specialization}}
}
// expected-error@* {{reduceat's indices are a 1-d integer array}}

void reduceat_at_float_indices(std::vector<float> &x) {
  (void)vadd.reduceat(x, std::vector<float>{0}); // expected-note {{in instantiation of function template specialization}}
}
// expected-error@* {{reduceat's indices are a 1-d integer array}}

void reduceat_of_a_number() {
  (void)vadd.reduceat(1.0f, std::vector<int>{0}); // expected-note {{in instantiation of function template specialization}}
}
// expected-error@* {{reduceat takes an array}}

// What they take compiles.
void valid(std::vector<float> &x, kernel::ndarray<float, 2> &into) {
  auto pairs = vadd.outer(x, x);
  auto scaled = vadd.outer(x, 2.0f);
  vadd.outer(x, x, into);
  auto running = vadd.accumulate(x);
  auto along = vadd.on(kernel::target::parallel).accumulate(into, -1);
  auto from = vadd.reduce(x, 0, 1.0);
  float everything = vadd.reduce(into, kernel::all_axes);
  auto both = vadd.reduce(into, {1, 0}, 2.0f);
  auto one_axis = vadd.reduce(into, {1});
  auto unsigned_axis = vadd.reduce(into, std::size_t{1}, 0.0f);
  auto slices = vadd.reduceat(into, std::vector<long>{0, 1}, -1);
  (void)everything, (void)both, (void)one_axis, (void)unsigned_axis, (void)slices;
  vadd.at(x, std::vector<long>{0, 0}, 2.0f);
  vnegated.at(into, 1);
  (void)pairs, (void)scaled, (void)running, (void)along, (void)from;
}
