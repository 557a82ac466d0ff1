// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel::guvectorize: the layout string, and the function against it.
#include <kernel/kernel.h>

using kernel::array_view;

// expected-error@+1 {{kernel::guvectorize needs a layout string such as "(n),(n)->()"}}
[[kernel::guvectorize("void(float32[:], float32[:])")]] void no_layout(array_view<const float> a, array_view<float> b) {}

// expected-error@+1 {{malformed kernel::guvectorize layout: expected ',' or ')' after a dimension name}}
[[kernel::guvectorize("(n m)->()")]] void bad_layout(array_view<const float> a, float &b) {}

// expected-error@+1 {{malformed kernel::guvectorize layout: expected '(' to start an output (core dimensions like "(n)" or "()")}}
[[kernel::guvectorize("(n)->")]] void no_output(array_view<const float> a, float &b) {}

// A layout without its outputs: read as a layout, not as a signature of an unknown type 'n'.
// expected-error@+1 {{malformed kernel::guvectorize layout: expected '->' and the outputs after the inputs}}
[[kernel::guvectorize("(n)")]] void no_arrow(array_view<const float> a, float &b) {}

// expected-error@+1 {{kernel::guvectorize takes one layout string; this is a second}}
[[kernel::guvectorize("(n)->()", "(m)->()")]] void two_layouts(array_view<const float> a, float &b) {}

// expected-error@+1 {{layout '(n),(n)->()' does not match 'too_few': the layout has 3 operands but 'too_few' has 2 parameters}}
[[kernel::guvectorize("(n),(n)->()")]] void too_few(array_view<const float> a, float &b) {}

// expected-error@+1 {{layout '(m,n)->(m)' does not match 'wrong_rank': input 1 (parameter 1) is 'array_view<const float>', with 1 dimensions, but the layout gives it 2 core dimensions}}
[[kernel::guvectorize("(m,n)->(m)")]] void wrong_rank(array_view<const float> a, array_view<float> b) {}

// expected-error@+1 {{layout '(n)->()' does not match 'output_by_value': output 1 (parameter 2): 'float' is passed by value, so the function cannot write it; a scalar output is a non-const reference}}
[[kernel::guvectorize("(n)->()")]] void output_by_value(array_view<const float> a, float b) {}

// expected-error@+1 {{layout '(n)->(n)' does not match 'const_output': output 1 (parameter 2): 'array_view<const float>' is a view of const elements; an output must be writable}}
[[kernel::guvectorize("(n)->(n)")]] void const_output(array_view<const float> a, array_view<const float> b) {}

// expected-error@+1 {{layout '(n)->()' does not match 'returns': a kernel::guvectorize function returns void and writes its outputs through its parameters}}
[[kernel::guvectorize("(n)->()")]] float returns(array_view<const float> a, float &b) { return 0; }

// expected-error@+1 {{kernel::guvectorize signatures return void (outputs are parameters); 'float32(float32[:], float32)' returns float32}}
[[kernel::guvectorize("float32(float32[:], float32)", "(n)->()")]] void signature_result(array_view<const float> a, float &b) {}

// expected-error@+1 {{layout '(n)->()' does not match 'signature_types': input 1 (parameter 1) is 'array_view<const float>' but the signature says float64[:]}}
[[kernel::guvectorize("void(float64[:], float64)", "(n)->()")]] void signature_types(array_view<const float> a, float &b) {}

// These are fine: Numba's one-element array for a scalar output, scalar inputs, templates.
[[kernel::guvectorize("void(float32[:], float32, float32[:])", "(n),()->()")]]
void numba_style(array_view<const float> a, float scale, float &out) { out = a[0] * scale; }
template <class T>
[[kernel::guvectorize("void(float32[:], float32[:])", "void(float64[:], float64[:])", "(n)->(n)")]]
void negate(array_view<const T> a, array_view<T> b) {
  for (kernel::index_t i = 0; i < a.size(); ++i) b[i] = -a[i];
}

// A gufunc's layout is the attribute's, names aside: one that binds other dimensions together
// would pass arguments the function reads past (dot of 3 and 8 elements).
// expected-note@+1 {{the kernel::guvectorize attribute is here}}
[[kernel::guvectorize("(n),(n)->()")]] void dot(array_view<const float> a, array_view<const float> b, float &out) {
  out = 0;
  for (kernel::index_t i = 0; i < a.size(); ++i) out += a[i] * b[i];
}
constexpr kernel::gufunc<"(n),(n)->()", dot> same;
constexpr kernel::gufunc<"(k), (k) -> ()", dot> renamed;
constexpr kernel::gufunc<"(n),(m)->()", dot> unbound; // expected-error {{kernel::gufunc's layout '(n),(m)->()' differs from '(n),(n)->()', the layout of 'dot''s kernel::guvectorize attribute}}
constexpr kernel::gufunc<"(n)->(n)", negate<float>, negate<double>> negated;
constexpr kernel::gufunc<"(n)->(m)", negate<float>> widened; // expected-error {{kernel::gufunc's layout '(n)->(m)' differs from '(n)->(n)', the layout of 'negate<float>''s kernel::guvectorize attribute}}
// expected-note@-17 {{the kernel::guvectorize attribute is here}}
template <class G> void named(const G &) {}
void uses() {
  named(same);
  named(renamed);
  named(unbound);
  named(negated);
  named(widened);
}
