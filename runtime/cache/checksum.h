// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// FNV-1a: names and checks cache entries, and keys the user's device code. Not a defence
// against tampering (cache keys are compared in full), only against accidental damage.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kernel::runtime {

inline constexpr std::uint64_t fnv1a_basis = 0xcbf29ce484222325ull;

/// Continues hash `h` over `bytes` (start with fnv1a_basis).
inline std::uint64_t fnv1a(std::string_view bytes, std::uint64_t h = fnv1a_basis) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

/// 16 lower-case hex digits.
inline std::string hex64(std::uint64_t v) {
  static const char digits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = digits[v & 15];
  return s;
}

} // namespace kernel::runtime
