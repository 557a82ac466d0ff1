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
  // Of all the text appended, kept too: a name longer than the buffer ends in its hash, so that
  // two long names differing past the buffer stay two names.
  std::size_t length = 0;
  unsigned long long hash = 14695981039346656037ull; // FNV-1a
  constexpr ctext &operator+=(std::string_view s) {
    for (char ch : s) {
      hash = (hash ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
      ++length;
      if (size + 1 < sizeof data) data[size++] = ch;
    }
    if (length > size) end_with_hash();
    return *this;
  }
  constexpr ctext &operator+=(const ctext &o) { return *this += o.view(); }
  constexpr std::string_view view() const { return {data, size}; }

private:
  static constexpr std::size_t hash_chars = 20; // "...#" and 16 hex digits
  constexpr void end_with_hash() {
    size = sizeof data - 1 - hash_chars;
    const char *prefix = "...#";
    for (int i = 0; i < 4; ++i) data[size++] = prefix[i];
    for (int shift = 60; shift >= 0; shift -= 4) data[size++] = "0123456789abcdef"[(hash >> shift) & 15];
  }
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
