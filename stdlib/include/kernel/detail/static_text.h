// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Text built at compile time: the names of fused expressions and library algorithms, which
// the plugin reads back from their entry types to name their kernels. A fixed buffer, as
// std::string is not usable in constant expressions with every standard library.
#pragma once

#include <cstddef>
#include <string_view>

namespace kernel::detail {

struct ctext {
  char data[4096] = {};
  std::size_t size = 0;
  constexpr ctext &operator+=(std::string_view s) {
    for (char ch : s)
      if (size + 1 < sizeof data) data[size++] = ch;
    return *this;
  }
  constexpr ctext &operator+=(const ctext &o) { return *this += o.view(); }
  constexpr std::string_view view() const { return {data, size}; }
};

/// A string computed at compile time, stored with a terminating NUL: what the plugin reads
/// back from a program type to name its kernel.
template <std::size_t N> struct static_text {
  char text[N + 1] = {};
  constexpr std::string_view view() const noexcept { return {text, N}; }
};
template <auto Make> constexpr auto to_text() {
  constexpr ctext s = Make();
  static_text<s.size> f;
  for (std::size_t i = 0; i < s.size; ++i) f.text[i] = s.data[i];
  return f;
}

} // namespace kernel::detail
