// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Integers wider than 64 bits are reported at the line that uses them in GPU code (the NVPTX
// backend would fail on some of their operations without a source location).
#include <cstdint>
#include <kernel/kernel.h>

// expected-note@+1 {{'from_double' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] int64_t from_double(double x) {
  unsigned __int128 w = (unsigned __int128)x; // expected-error {{GPU code cannot use 'unsigned __int128': GPU integers are at most 64 bits wide; use int64_t or uint64_t}}
  return int64_t(w >> 3);
}

// expected-note@+1 {{'signed_wide' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] double signed_wide(int64_t x) {
  return double(__int128(x) * x); // expected-error {{GPU code cannot use '__int128': GPU integers are at most 64 bits wide; use int64_t or uint64_t}}
}

// expected-note@+1 {{'bit_int' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] int64_t bit_int(int64_t x) {
  _BitInt(100) w = x; // expected-error {{GPU code cannot use '_BitInt(100)': GPU integers are at most 64 bits wide; use int64_t or uint64_t}}
  return int64_t(w * w);
}

// Reached through a call, in an array, in an enum: reported where it is used.
enum class Big : __int128 { one = 1 };
int64_t helper(int64_t x) {
  __int128 table[2] = {x, x}; // expected-error {{GPU code cannot use '__int128': GPU integers are at most 64 bits wide; use int64_t or uint64_t}}
  return int64_t(table[0]);
}
int64_t enum_user(int64_t x) {
  return x + int64_t(Big::one); // expected-error {{GPU code cannot use 'Big': GPU integers are at most 64 bits wide; use int64_t or uint64_t}}
}
// expected-note@+3 {{'helper' is called from 'through_calls' here}}
// expected-note@+2 {{'enum_user' is called from 'through_calls' here}}
// expected-note@+1 2 {{'through_calls' is compiled for the GPU because of this kernel::vectorize attribute}}
[[kernel::vectorize]] int64_t through_calls(int64_t x) { return helper(x) + enum_user(x); }

// 64 bits and narrower are fine, _BitInt included; so are wide integers in host code.
[[kernel::vectorize]] int64_t narrow(int64_t x) {
  _BitInt(64) a = x;
  _BitInt(37) b = 5;
  unsigned _BitInt(7) c = 3;
  return int64_t(a * b + c);
}
int64_t on_host(int64_t x) { return int64_t(__int128(x) * x >> 64); }
