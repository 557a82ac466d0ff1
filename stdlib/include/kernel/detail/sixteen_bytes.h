// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Sixteen bytes of numbers as one value, for the library's kernels to load or store in one
// access (ld/st.global.v4 on a GPU) where a thread reads or writes neighbouring elements.
#pragma once

#include <type_traits>

namespace kernel::detail {

/// How many T fill sixteen bytes: numbers of at most 8 bytes; 1 for any other T.
template <class T>
inline constexpr int sixteen_bytes_of = std::is_arithmetic_v<T> && sizeof(T) <= 8 ? 16 / sizeof(T) : 1;

/// sixteen_bytes_of<T> values, aligned as one 16-byte access needs.
template <class T> struct alignas(16) sixteen_bytes {
  T v[sixteen_bytes_of<T>];
};

} // namespace kernel::detail
