// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Signatures checked against the C++ function: types, arity, and what each attribute allows.
#include <complex>
#include <cstdint>
#include <kernel/kernel.h>

// expected-error@+1 {{signature 'float64(float32, float32)' does not match 'wrong_result': the return type is 'float' but the signature says float64}}
[[kernel::vectorize("float64(float32, float32)")]] float wrong_result(float x, float y) { return x + y; }

// expected-error@+1 {{signature 'float32(float32, int32)' does not match 'wrong_parameter': parameter 2 is 'float' but the signature says int32}}
[[kernel::vectorize("float32(float32, int32)")]] float wrong_parameter(float x, float y) { return x + y; }

// expected-error@+1 {{signature 'float32(float32)' does not match 'wrong_arity': the signature has 1 parameter but 'wrong_arity' has 2}}
[[kernel::vectorize("float32(float32)")]] float wrong_arity(float x, float y) { return x + y; }

// expected-error@+1 {{signature 'uint32(uint32)' does not match 'wrong_sign': the return type is 'int' but the signature says uint32}}
[[kernel::vectorize("uint32(uint32)")]] int wrong_sign(int x) { return x; }

// expected-error@+1 {{signature 'float32(float32)' does not match 'by_reference': parameter 1 is 'float &' but the signature says float32 ('float &' is a non-const reference; parameters of GPU entry points are passed by value (or const reference))}}
[[kernel::vectorize("float32(float32)")]] float by_reference(float &x) { return x; }

// expected-error@+1 {{kernel::vectorize signatures take and return scalars; 'float32[:]' is an array (use kernel::guvectorize for functions of arrays)}}
[[kernel::vectorize("float32(float32[:])")]] float array_parameter(kernel::array_view<float, 1> a) { return a[0]; }
// Without a written signature too: the one derived from an array parameter, said at the attribute.
// expected-error@+1 {{kernel::vectorize signatures take and return scalars; 'float32[:]' is an array (use kernel::guvectorize for functions of arrays)}}
[[kernel::vectorize]] float derived_from_array(kernel::array_view<const float> a) { return a[0]; }

// expected-error@+1 {{kernel::vectorize functions return their result; the signature 'void(float32)' returns void}}
[[kernel::vectorize("void(float32)")]] void returns_nothing(float x) {}

// expected-error@+1 {{kernel::jit kernels return void and write results through array arguments; the signature 'float32(float32[:])' returns float32}}
[[kernel::jit("float32(float32[:])")]] void jit_with_result(kernel::array_view<float, 1> a) {}

// expected-error@+1 {{signature 'void(float32[:, :])' does not match 'wrong_rank': parameter 1 is 'kernel::array_view<float, 1>' but the signature says float32[:, :]}}
[[kernel::jit("void(float32[:, :])")]] void wrong_rank(kernel::array_view<float, 1> a) {}

// expected-error@+1 {{kernel::vectorize 'no_signature_type' needs a signature string: it cannot be derived from its C++ types (parameter 1: 'long double' has no GPU type; use double)}}
[[kernel::vectorize]] float no_signature_type(long double x) { return x; }

// expected-error@+1 {{kernel::vectorize on the function template 'needs_signature' needs at least one signature to instantiate it with}}
template <class T> [[kernel::vectorize]] T needs_signature(T x) { return x; }

// expected-error@+1 {{signature 'float32(float32, float64)' cannot instantiate 'conflicting': template argument deduction failed: conflicting types for 'T' ('float' and 'double')}}
template <class T> [[kernel::vectorize("float32(float32, float64)")]] T conflicting(T x, T y) { return x + y; }

// expected-error@+1 {{signature 'float32(float32)' cannot instantiate 'mixed': 'mixed<float>': the return type is 'double' but the signature says float32}}
template <class T> [[kernel::vectorize("float32(float32)")]] double mixed(T x) { return x; }

// expected-error@+1 {{signature 'float32(float32, float32)' cannot instantiate 'one_param': template argument deduction failed: the signature has 2 parameters}}
template <class T> [[kernel::vectorize("float32(float32, float32)")]] T one_param(T x) { return x; }

// These match.
[[kernel::vectorize("int64(int64, int64)")]] long long long_long(long long a, long b) { return a + b; }
[[kernel::vectorize("complex64(complex64, complex64)")]]
std::complex<float> cmul(std::complex<float> a, std::complex<float> b) { return a * b; }
[[kernel::vectorize("float32(float32)")]] float by_const_reference(const float &x) { return x; }
template <class T>
[[kernel::vectorize("float32(float32, float32)", "float64(float64, float64)", "int32(int32, int32)")]]
T add(const T &a, T b) { return a + b; }
[[kernel::jit("void(float32[:, :], float32[:, :])")]]
void copy(kernel::array_view<const float, 2> in, kernel::array_view<float, 2> out) {}
struct Point { float x, y; };
[[kernel::jit]] void with_struct(Point p, kernel::array_view<float, 1> out) {}
[[kernel::vectorize]] std::int8_t derived(std::uint16_t a, bool b) { return b ? a : 0; }

// kernel::reduce: T f(T, T).
// expected-error@+1 {{kernel::reduce needs a function combining two values of its result type, T f(T, T); 'three' is float (float, float, float)}}
[[kernel::reduce]] float three(float a, float b, float c) { return a + b + c; }
// expected-error@+1 {{kernel::reduce needs a function combining two values of its result type, T f(T, T); 'mixed_types' is double (float, float)}}
[[kernel::reduce]] double mixed_types(float a, float b) { return a + b; }
// expected-error@+1 {{kernel::reduce signatures combine two values of their result type, like "float32(float32, float32)"; 'float32(float32, int32)' does not}}
template <class T> [[kernel::reduce("float32(float32, int32)")]] T odd(T a, int b) { return a; }
[[kernel::reduce]] int maximum(int a, int b) { return a > b ? a : b; }
// The shape is right; the type is no dtype.
struct interval {
  float lo, hi;
};
// expected-error@+1 {{kernel::reduce takes functions of numbers, bool or complex values (its signatures are dtypes); 'hull' combines values of type 'interval'. An associative function of a struct needs no attribute to be the operator of kernel::scan or of the array algorithms}}
[[kernel::reduce]] interval hull(interval a, const interval &b) { return {a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi}; }
template <class T> [[kernel::reduce("float32(float32, float32)", "int64(int64, int64)")]] T plus(T a, T b) { return a + b; }

// A deduced return type is checked against the signatures once the body gives it.
// expected-error@+1 {{signature 'float32(float32, float32)' does not match 'deduced_double': the return type is 'double' but the signature says float32}}
[[kernel::vectorize("float32(float32, float32)")]] auto deduced_double(float a, float b) { return double(a) + b; }
// expected-error@+1 {{kernel::jit kernels return void and write results through array arguments; 'deduced_value' returns 'float'}}
[[kernel::jit]] auto deduced_value(kernel::array_view<float> x) { return x[0]; }
// expected-error@+1 {{kernel::vectorize functions return their result; 'deduced_void' returns void}}
[[kernel::vectorize]] auto deduced_void(float a) {}
// expected-error@+1 {{kernel::reduce cannot combine bool values ('deduced_bool' returns bool); reduce integers instead}}
[[kernel::reduce]] auto deduced_bool(float a, float b) { return a > b; }
// Clang's own error for the body is the only one.
// expected-error@+1 {{use of undeclared identifier 'undeclared'}}
[[kernel::vectorize("float32(float32)")]] auto deduced_broken(float a) { return undeclared; }
