// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// An eager call of a ufunc or gufunc that no loop accepts is two errors from the library (what
// failed, then the arguments' and loops' types in a template's name) with the chain of
// instantiations from the user's line, and nothing more: no errors from instantiating a loop
// that does not fit, none at the user's line from the result it could not make.
#include <cstdint>
#include <kernel/kernel.h>
#include <vector>

[[kernel::vectorize("float32(float32, float32)")]] float add(float a, float b) { return a + b; }
[[kernel::guvectorize("(n)->(n)")]] void copy(kernel::array_view<const float> a, kernel::array_view<float> b) {
  for (kernel::index_t i = 0; i < a.size(); ++i)
    b[i] = a[i];
}

constexpr kernel::ufunc<add> vadd;
constexpr kernel::gufunc<"(n)->(n)", copy> gcopy;

void ufunc_result(const std::vector<std::int64_t> &a) {
  auto r = vadd(a, a); // expected-note {{in instantiation of function template specialization 'kernel::ufunc<&add>::operator()<const std::vector<long> &, const std::vector<long> &>' requested here}}
  (void)r;
}
// expected-error@* {{no loop of this ufunc accepts these argument types}}
// expected-error@*:* {{implicit instantiation of undefined template 'kernel::detail::no_loop_accepts<std::tuple<const std::vector<long> &, const std::vector<long> &>, float (*)(float, float)>'}}

void gufunc_result(const std::vector<std::int64_t> &a) {
  auto r = gcopy(a); // expected-note {{in instantiation of function template specialization 'kernel::gufunc<detail::fixed_string<9>{"(n)->(n)"}, &copy>::operator()<const std::vector<long> &>' requested here}}
  (void)r;
}
// expected-error@* {{no loop of this gufunc accepts these inputs}}
// expected-error@*:* {{implicit instantiation of undefined template 'kernel::detail::no_loop_accepts<std::tuple<const std::vector<long> &>, void (*)(kernel::array_view<const float>, kernel::array_view<float>)>'}}

void gufunc_output(const std::vector<float> &a, std::vector<double> &out) {
  gcopy(a, out); // expected-note {{in instantiation of function template specialization 'kernel::gufunc<detail::fixed_string<9>{"(n)->(n)"}, &copy>::operator()<const std::vector<float> &, std::vector<double> &>' requested here}}
}
// expected-error@* {{no loop of this gufunc accepts these arguments}}
// expected-error@*:* {{implicit instantiation of undefined template 'kernel::detail::no_loop_accepts<std::tuple<const std::vector<float> &, std::vector<double> &>, void (*)(kernel::array_view<const float>, kernel::array_view<float>)>'}}

void ufunc_output(const std::vector<std::int64_t> &a, std::vector<float> &out) {
  vadd(a, a, out); // expected-note {{in instantiation of function template specialization 'kernel::ufunc<&add>::operator()<const std::vector<long> &, const std::vector<long> &, std::vector<float> &>' requested here}}
}
// expected-error@* {{no loop of this ufunc accepts these argument types}}
// expected-error@*:* {{implicit instantiation of undefined template 'kernel::detail::no_loop_accepts<std::tuple<const std::vector<long> &, const std::vector<long> &>, float (*)(float, float)>'}}

// An expression's output that cannot hold its values: the same, through a ufunc call with an
// output and through kernel::eval.
void narrowing_output(const std::vector<float> &a, std::vector<std::int16_t> &out) {
  vadd(kernel::lazy(a), a, out); // expected-note {{in instantiation of function template specialization 'kernel::ufunc<&add>::operator()<kernel::expr<}}
}
void narrowing_eval(const std::vector<float> &a, std::vector<std::int32_t> &out) {
  kernel::eval(kernel::assign(out, vadd(kernel::lazy(a), a))); // expected-note {{in instantiation of function template specialization 'kernel::eval<std::vector<int>}}
}
// expected-error@* 2 {{the output's element type cannot hold the expression's result}}
void inexact_outputs(const std::vector<float> &a, std::vector<double> &d, std::vector<float> &f) {
  kernel::eval(kernel::assign(d, vadd(kernel::lazy(a), a)), kernel::assign(f, vadd(kernel::lazy(a), 1.0f))); // expected-note {{in instantiation of function template specialization 'kernel::eval<std::vector<double>}}
}
// expected-error@* {{the outputs of a multi-output evaluation have the element types of their expressions}}

// expected-note@* 4 {{template is declared here}}
// The rest of each chain, inside the library.
// expected-note@* 0+ {{in instantiation of}}
// expected-note@* 0+ {{evaluates to}}
