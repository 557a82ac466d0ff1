// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Malformed signature strings. The error points at the offending character inside the
// string (checked by signature_columns.sh); here each is matched by its message.
#include <kernel/kernel.h>

// expected-error@+1 {{malformed kernel::vectorize signature: the signature is empty; write it like "float32(float32, float32)"}}
[[kernel::vectorize("")]] float empty(float x) { return x; }

// expected-error@+1 {{malformed kernel::vectorize signature: unknown type 'flaot32'; did you mean 'float32'?}}
[[kernel::vectorize("float32(flaot32)")]] float typo(float x) { return x; }

// expected-error@+1 {{malformed kernel::vectorize signature: unknown type 'real'; types are boolean, int8..int64, uint8..uint64, float32, float64, complex64, complex128 and their aliases (i4, f8, c8 ...)}}
[[kernel::vectorize("float32(real)")]] float unknown(float x) { return x; }

// expected-error@+1 {{malformed kernel::vectorize signature: expected ',' or ')' after a parameter type}}
[[kernel::vectorize("float32(float32 float32)")]] float missing_comma(float x, float y) { return x; }

// expected-error@+1 {{malformed kernel::vectorize signature: expected ')' to close the parameter list}}
[[kernel::vectorize("float32(float32")]] float unclosed(float x) { return x; }

// expected-error@+1 {{malformed kernel::vectorize signature: expected '(' after the return type}}
[[kernel::vectorize("float32 float32")]] float no_params(float x) { return x; }

// expected-error@+1 {{malformed kernel::vectorize signature: expected '(' and the parameter types after the return type}}
[[kernel::vectorize("float32")]] float only_result(float x) { return x; }

// expected-error@+1 {{malformed kernel::vectorize signature: unexpected text after the signature}}
[[kernel::vectorize("float32(float32) extra")]] float trailing(float x) { return x; }

// expected-error@+1 {{malformed kernel::vectorize signature: expected a type name}}
[[kernel::vectorize("float32(, float32)")]] float leading_comma(float x) { return x; }

// expected-error@+1 {{malformed kernel::jit signature: 'void' is only allowed as the return type}}
[[kernel::jit("void(void)")]] void void_parameter() {}

// expected-error@+1 {{malformed kernel::jit signature: expected ':' or '::1' for an array dimension}}
[[kernel::jit("void(float32[1])")]] void bad_dimension(kernel::array_view<float, 1> a) {}

// expected-error@+1 {{malformed kernel::jit signature: expected '1' after '::' (unit stride)}}
[[kernel::jit("void(float32[::2])")]] void bad_unit_stride(kernel::array_view<float, 1> a) {}

// expected-error@+1 {{malformed kernel::jit signature: only one dimension can have unit stride ('::1')}}
[[kernel::jit("void(float32[::1, ::1])")]] void two_unit(kernel::array_view<float, 2> a) {}

// expected-error@+1 {{malformed kernel::jit signature: '::1' must be the last dimension (C order) or the first (Fortran order)}}
[[kernel::jit("void(float32[:, ::1, :])")]] void middle_unit(kernel::array_view<float, 3> a) {}

// expected-error@+1 {{malformed kernel::jit signature: expected ']' to close the array dimensions}}
[[kernel::jit("void(float32[:, :")]] void unclosed_dims(kernel::array_view<float, 2> a) {}

// Every alias and layout parses.
[[kernel::vectorize("f4(f4, f8, i1, i2, i4, i8, u1, u2, u4, u8, b1)")]]
float aliases(float a, double b, signed char c, short d, int e, long f, unsigned char g,
              unsigned short h, unsigned i, unsigned long j, bool k) { return a; }
[[kernel::vectorize("float64(double, intp, int_, uintp, intc, uintc, byte, bool_, boolean)")]]
double more_aliases(double a, long b, long c, unsigned long d, int e, unsigned f,
                    unsigned char g, bool h, bool i) { return a; }
[[kernel::jit("void(float32[:, ::1], float32[::1, :], float64[:], int32)")]]
void layouts(kernel::array_view<float, 2> c, kernel::array_view<const float, 2> f,
             kernel::array_view<double, 1> a, int n) {}
[[kernel::jit("(float32[:])")]] void result_left_out(kernel::array_view<float, 1> a) {}
