// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A template's signatures are the instantiations that get GPU code: a library callable given
// another one is an error at the user's line (a host call of it is ordinary C++).
#include <kernel/kernel.h>

template <class T>
[[kernel::vectorize("float32(float32, float32)", "float64(float64, float64)")]] // expected-note {{the kernel::vectorize attribute is here}}
T plus(T a, T b) {
  return a + b;
}

template <class T>
[[kernel::jit("void(int32[:])")]] // expected-note {{the kernel::jit attribute is here}}
void bump(kernel::array_view<T> a) {
  a[kernel::threadIdx.x] += 1;
}

template <class T>
[[kernel::reduce("float32(float32, float32)")]] // expected-note {{the kernel::reduce attribute is here}}
T larger(T a, T b) {
  return a > b ? a : b;
}

constexpr kernel::ufunc<plus<float>, plus<double>> vplus; // both signed: fine
constexpr kernel::ufunc<plus<int>> vplus_int; // expected-error {{'plus<int>' is not one of the signatures of its kernel::vectorize attribute ('float32(float32, float32)', 'float64(float64, float64)'), so no GPU code is compiled for it; add a signature with its types}}
constexpr kernel::reduce<larger<double>> vmax; // expected-error {{'larger<double>' is not one of the signatures of its kernel::reduce attribute ('float32(float32, float32)')}}

int host_call() { return plus<int>(1, 2); } // not a library use: no error

void launches(kernel::array_view<int> i, kernel::array_view<float> f) {
  kernel::launch<bump<int>>(1, 32)(i);
  kernel::launch<bump<float>>(1, 32)(f); // expected-error {{'bump<float>' is not one of the signatures of its kernel::jit attribute ('void(int32[:])')}}
}
