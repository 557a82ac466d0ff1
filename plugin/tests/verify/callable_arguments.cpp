// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ufunc, gufunc and reduce take functions (their addresses): a lambda or another function
// object, of which no GPU entry is made, is one error at the user's line, not a cascade from
// the library's function traits.
#include <kernel/kernel.h>

constexpr auto twice = [](double a) { return a * 2; };
struct doubler {
  constexpr double operator()(double a) const { return a * 2; }
};

constexpr kernel::ufunc<twice> lambda_ufunc;                  // expected-error {{constraints not satisfied for class template 'ufunc'}}
constexpr kernel::ufunc<doubler{}> object_ufunc;              // expected-error {{constraints not satisfied for class template 'ufunc'}}
constexpr kernel::reduce<twice> lambda_reduce;                // expected-error {{constraints not satisfied for class template 'reduce'}}
constexpr kernel::gufunc<"()->()", twice> lambda_gufunc;      // expected-error {{constraints not satisfied for class template 'gufunc'}}
// expected-note@* 4 {{does not satisfy 'function_pointer'}}
// expected-note@* 4 {{evaluated to false}}

// Functions compile, with or without the attribute (the plugin checks those on its own).
[[kernel::vectorize("float64(float64)")]] double doubled(double a) { return a * 2; }
[[kernel::reduce]] double plus(double a, double b) { return a + b; }
constexpr kernel::ufunc<doubled> vdoubled;
constexpr kernel::reduce<plus> sum;
