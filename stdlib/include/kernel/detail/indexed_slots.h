// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Values of several types in one flat aggregate, slot I a base of its own: reaching one is a
// cast (slot<I>), not the I nested members of a recursive pack or a tuple grown one type at a
// time, whose instantiations were quadratic in the count (a fused expression's steps and its
// launch operands, hundreds deep).
#pragma once

#include <cstddef>
#include <utility>

#include "kernel/config.h"

namespace kernel::detail {

template <std::size_t I, class T> struct indexed_slot {
  T value;
};
template <class Seq, class... T> struct indexed_slots_of;
template <std::size_t... I, class... T>
struct indexed_slots_of<std::index_sequence<I...>, T...> : indexed_slot<I, T>... {};
/// One slot per type, in order: an aggregate (a kernel's parameter block) when the types are.
template <class... T> using indexed_slots = indexed_slots_of<std::index_sequence_for<T...>, T...>;

template <std::size_t I, class T> KERNEL_ALWAYS_INLINE constexpr T &slot(indexed_slot<I, T> &s) noexcept {
  return s.value;
}
template <std::size_t I, class T> KERNEL_ALWAYS_INLINE constexpr const T &slot(const indexed_slot<I, T> &s) noexcept {
  return s.value;
}

/// Room for a T constructed later (placement new into `value`), as a slot's type where the
/// values are made one by one, each from those before it.
template <class T> struct deferred {
  union {
    T value;
  };
  KERNEL_ALWAYS_INLINE deferred() noexcept {}
};

} // namespace kernel::detail
