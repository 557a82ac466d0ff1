// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Integer arguments of the array calls (axes, counts, positions), taken as the caller gave them.
#pragma once

#include <concepts>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "kernel/errors.h"

namespace kernel::detail {

/// An axis or a count: an integer of any type but bool, or an unscoped enumerator. Not a
/// floating value, which a parameter of an integer type would take and silently cut (NumPy
/// refuses 1.5 as an axis), nor a bool, which reads as a flag of some other parameter.
template <class I>
concept integer_argument =
    (std::integral<I> && !std::is_same_v<I, bool>) || (std::is_enum_v<I> && std::is_convertible_v<I, int>);

/// `v`, argument `argument` of `name` (`what`, as the errors call it), in the range the calls
/// check: an unsigned value past long long's (a -1 that went through size_t) is refused.
template <integer_argument I> long long integer_value(std::string_view name, int argument, I v, std::string_view what) {
  if constexpr (std::is_enum_v<I>) {
    return static_cast<long long>(v);
  } else {
    if constexpr (std::is_unsigned_v<I>)
      if (v > static_cast<unsigned long long>(std::numeric_limits<long long>::max()))
        throw argument_error(std::string(name), argument,
                             std::string(what) + " " + std::to_string(v) + " is out of range");
    return static_cast<long long>(v);
  }
}

/// `v`, argument `argument` of `name` (`what`), as an unsigned 64-bit value (a seed, an
/// offset): a negative one is refused, where the conversion would wrap it (NumPy refuses a
/// negative seed too).
template <integer_argument I>
unsigned long long unsigned_integer_value(std::string_view name, int argument, I v, std::string_view what) {
  if constexpr (std::is_enum_v<I>) {
    return unsigned_integer_value(name, argument, static_cast<long long>(v), what);
  } else {
    if constexpr (std::is_signed_v<I>)
      if (v < 0)
        throw argument_error(std::string(name), argument,
                             std::string(what) + " " + std::to_string(v) + " is negative: it is 0 to 2^64 - 1");
    return static_cast<unsigned long long>(v);
  }
}

/// The axis `axis` of a rank-`rank` array (negative counts from the end), checked.
inline int normalize_axis(std::string_view name, int argument, long long axis, int rank) {
  const long long a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    throw argument_error(std::string(name), argument,
                         "axis " + std::to_string(axis) + " is out of range for an array of " + std::to_string(rank) +
                             " dimension" + (rank == 1 ? "" : "s"));
  return static_cast<int>(a);
}

/// An integer axis argument, checked against the array's rank.
template <integer_argument I> int axis_of(std::string_view name, int argument, I axis, int rank) {
  return normalize_axis(name, argument, integer_value(name, argument, axis, "axis"), rank);
}

} // namespace kernel::detail
