// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// After clang's own error in GPU code, the plugin adds no follow-on error about code clang
// could not make sense of.
#include <cmath>
#include <kernel/kernel.h>

[[kernel::vectorize]] float unknown_member(float x) {
  return std::not_a_function(x, x); // expected-error {{no member named 'not_a_function' in namespace 'std'}}
}

struct Shape {
  float area(float) const;
};
[[kernel::vectorize]] float wrong_arguments(float x) {
  Shape s;
  return s.area(x, x); // expected-error {{too many arguments to function call, expected 1, have 2}}
}
// expected-note@-6 {{'area' declared here}}

// A real indirect call is still reported.
float twice(float x) { return 2 * x; }
// expected-note@+1 {{'indirect' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] float indirect(float x) {
  float (*volatile f)(float) = twice;
  return f(x); // expected-error {{GPU code cannot make indirect calls (through a function pointer or std::function)}}
}

// A template whose instantiation failed loses its body: the error inside it is the one
// reported, not that its definition is not visible.
template <class T> T halved(T x) {
  return x.half(); // expected-error {{member reference base type 'float' is not a structure or union}}
}
[[kernel::vectorize]] float failed_instantiation(float x) {
  return halved(x); // expected-note {{in instantiation of function template specialization 'halved<float>' requested here}}
}

// Atomics refuse a const target at the call, not inside the library.
[[kernel::jit]] void const_atomic(kernel::array_view<const int, 1> a) {
  kernel::atomic_add(a[0], 1); // expected-error {{no matching function for call to 'atomic_add'}}
}
// expected-note@kernel/atomic.h:* {{candidate template ignored: constraints not satisfied [with T = const int]}}
// expected-note@kernel/atomic.h:* {{because 'const int' does not satisfy 'atomic_value'}}
// expected-note@kernel/atomic.h:* {{because '!std::is_const_v<const int>' evaluated to false}}

// An extern template's explicit instantiation declaration has no body here either: it is
// still reported after the errors above.
template <class T> T tripled(T x) { return x * 3; }
extern template float tripled<float>(float);
// expected-note@+1 {{'uses_extern_template' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] float uses_extern_template(float x) {
  // expected-note@+1 {{an explicit instantiation declaration ('extern template') keeps the body out of this translation unit, and GPU code needs it here; instantiate it here without 'extern'}}
  return tripled(x); // expected-error {{GPU code cannot call 'tripled<float>': its definition is not visible in this translation unit}}
}
