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
