// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The attribute's rules are checked one family at a time: where the function is declared,
// then what every written signature says, then the C++ type against the signatures. A failing
// family ends the check, so that the next family does not report the same mistake again.
#include <kernel/kernel.h>

using kernel::array_view;

// The declaration comes first: the signature's array is not reported as well.
// expected-error@+1 {{kernel::vectorize cannot apply to the variadic function 'variadic'}}
[[kernel::vectorize("float32(float32[:])")]] float variadic(float x, ...) { return x; }

// Each array of a kernel::vectorize signature is reported, in every signature.
// expected-error@+3 {{kernel::vectorize signatures take and return scalars; 'float32[:]' is an array (use kernel::guvectorize for functions of arrays)}}
// expected-error@+2 {{kernel::vectorize signatures take and return scalars; 'float64[:, :]' is an array (use kernel::guvectorize for functions of arrays)}}
// expected-error@+1 {{kernel::vectorize functions return their result; the signature 'void(float32)' returns void}}
[[kernel::vectorize("float32(float32[:], float64[:, :])", "void(float32)")]] float arrays(float x, double y) { return x; }

// A signature the attribute does not allow is not matched against the C++ type as well.
// expected-error@+1 {{kernel::jit kernels return void and write results through array arguments; the signature 'float32(float32)' returns float32}}
[[kernel::jit("float32(float32)")]] void returns_value(int x) {}

// A reduction's C++ type is checked before its signatures are matched.
// expected-error@+1 {{kernel::reduce needs a function combining two values of its result type, T f(T, T); 'narrowing' is int (int, long)}}
[[kernel::reduce("int32(int32, int32)")]] int narrowing(int a, long b) { return a; }
// expected-error@+1 {{signature 'int64(int64, int64)' does not match 'other_type': the return type is 'int' but the signature says int64}}
[[kernel::reduce("int64(int64, int64)")]] int other_type(int a, int b) { return a; }

// Templates need a signature to be instantiated with, whatever the attribute; not
// kernel::device templates, which their callers instantiate.
// expected-error@+1 {{kernel::reduce on the function template 'reduce_template' needs at least one signature to instantiate it with}}
template <class T> [[kernel::reduce]] T reduce_template(T a, T b) { return a + b; }
// expected-error@+1 {{kernel::guvectorize on the function template 'gufunc_template' needs at least one signature to instantiate it with}}
template <class T> [[kernel::guvectorize("(n)->()")]] void gufunc_template(array_view<const T> a, T &out) {}
template <class T> [[kernel::device]] T device_template(T a) { return a; }

// A gufunc without a layout is not checked further, even when it is a template.
// expected-error@+1 {{kernel::guvectorize needs a layout string such as "(n),(n)->()"}}
template <class T> [[kernel::guvectorize]] void no_layout_template(array_view<const T> a, T &out) {}

// Each signature of a gufunc is checked against the layout and the C++ type.
// expected-error@+2 {{layout '(n)->()' does not match 'two_signatures': input 1 (parameter 1) is 'array_view<const float>' but the signature says float64[:]}}
// expected-error@+1 {{layout '(n)->()' does not match 'two_signatures': input 1 (parameter 1) is 'array_view<const float>' but the signature says int32[:]}}
[[kernel::guvectorize("(n)->()", "void(float64[:], float64)", "void(int32[:], int32)")]] void two_signatures(array_view<const float> a, float &out) {}
