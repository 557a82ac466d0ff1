// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Numbers in error messages, as the caller wrote them.
#pragma once

#include <charconv>
#include <string>
#include <type_traits>

namespace kernel::detail {

/// `v` as the shortest decimal text that reads back as `v` (1e-07, 0.1, 1e+308, nan, -inf):
/// std::to_string's six fixed decimals show 1e-7 as 0.000000 and 1e308 as 309 digits.
template <class T> std::string number_text(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    char text[64];
    const std::to_chars_result r = std::to_chars(text, text + sizeof text, v);
    return std::string(text, r.ptr);
  } else {
    return std::to_string(v);
  }
}

} // namespace kernel::detail
