// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Atomic operations on global or shared memory, as Numba's cuda.atomic and CUDA's atomicAdd
// ...: each returns the value the target held before. On the GPU they are single atom
// instructions where PTX has one and compare-and-swap loops otherwise; in the simulator and
// on the CPU they are host atomics, so blocks running on several cores see them as the GPU
// would.
//
//   kernel::atomic_add(hist[bin], 1u);
//   kernel::atomic_max(best, candidate);
#pragma once

#include <atomic>
#include <cstdint>
#include <type_traits>

#include "kernel/config.h"

namespace kernel {

/// The types atomics work on: 32- and 64-bit integers, float and double, not const (an
/// element of an array_view<const T> cannot be updated).
template <class T>
concept atomic_value =
    !std::is_const_v<T> && ((std::is_integral_v<T> && !std::is_same_v<T, bool> && (sizeof(T) == 4 || sizeof(T) == 8)) ||
                            std::is_same_v<T, float> || std::is_same_v<T, double>);

namespace detail {
// Applies `update(old)` atomically with a compare-and-swap loop; returns the old value. The
// generic builtins (not the _n ones, which take integers only) so that floats work too.
template <atomic_value T, class Update> KERNEL_ALWAYS_INLINE T atomic_update(T &target, Update update) noexcept {
  T old;
  __atomic_load(&target, &old, __ATOMIC_RELAXED);
  T desired = update(old);
  while (!__atomic_compare_exchange(&target, &old, &desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    desired = update(old);
  return old;
}
} // namespace detail

template <atomic_value T> KERNEL_ALWAYS_INLINE T atomic_add(T &target, std::type_identity_t<T> value) noexcept {
#if defined(__clang__)
  return __atomic_fetch_add(&target, value, __ATOMIC_RELAXED); // atom.add, floats included
#else
  if constexpr (std::is_integral_v<T>)
    return __atomic_fetch_add(&target, value, __ATOMIC_RELAXED);
  else
    return detail::atomic_update(target, [value](T old) { return old + value; });
#endif
}

template <atomic_value T> KERNEL_ALWAYS_INLINE T atomic_sub(T &target, std::type_identity_t<T> value) noexcept {
#if defined(__clang__)
  return __atomic_fetch_sub(&target, value, __ATOMIC_RELAXED);
#else
  if constexpr (std::is_integral_v<T>)
    return __atomic_fetch_sub(&target, value, __ATOMIC_RELAXED);
  else
    return detail::atomic_update(target, [value](T old) { return old - value; });
#endif
}

template <atomic_value T>
  requires std::is_integral_v<T>
KERNEL_ALWAYS_INLINE T atomic_and(T &target, std::type_identity_t<T> value) noexcept {
  return __atomic_fetch_and(&target, value, __ATOMIC_RELAXED);
}
template <atomic_value T>
  requires std::is_integral_v<T>
KERNEL_ALWAYS_INLINE T atomic_or(T &target, std::type_identity_t<T> value) noexcept {
  return __atomic_fetch_or(&target, value, __ATOMIC_RELAXED);
}
template <atomic_value T>
  requires std::is_integral_v<T>
KERNEL_ALWAYS_INLINE T atomic_xor(T &target, std::type_identity_t<T> value) noexcept {
  return __atomic_fetch_xor(&target, value, __ATOMIC_RELAXED);
}

/// Stores `value`, returns the old one.
template <atomic_value T> KERNEL_ALWAYS_INLINE T atomic_exch(T &target, std::type_identity_t<T> value) noexcept {
  T old;
  __atomic_exchange(&target, &value, &old, __ATOMIC_RELAXED);
  return old;
}

template <atomic_value T> KERNEL_ALWAYS_INLINE T atomic_max(T &target, std::type_identity_t<T> value) noexcept {
#if defined(__clang__)
  if constexpr (std::is_integral_v<T>) return __atomic_fetch_max(&target, value, __ATOMIC_RELAXED);
#endif
  return detail::atomic_update(target, [value](T old) { return old < value ? value : old; });
}

template <atomic_value T> KERNEL_ALWAYS_INLINE T atomic_min(T &target, std::type_identity_t<T> value) noexcept {
#if defined(__clang__)
  if constexpr (std::is_integral_v<T>) return __atomic_fetch_min(&target, value, __ATOMIC_RELAXED);
#endif
  return detail::atomic_update(target, [value](T old) { return value < old ? value : old; });
}

/// The types atomic_inc and atomic_dec work on: 32- and 64-bit unsigned integers (Numba's
/// uint32 and uint64).
template <class T>
concept atomic_counter = atomic_value<T> && std::is_integral_v<T> && std::is_unsigned_v<T>;

/// CUDA's atomicInc: the target becomes 0 when it was at least `limit`, else one more.
template <atomic_counter T> KERNEL_ALWAYS_INLINE T atomic_inc(T &target, std::type_identity_t<T> limit) noexcept {
  return detail::atomic_update(target, [limit](T old) { return old >= limit ? T(0) : T(old + 1); });
}

/// CUDA's atomicDec: the target becomes `limit` when it was 0 or more than `limit`, else
/// one less.
template <atomic_counter T> KERNEL_ALWAYS_INLINE T atomic_dec(T &target, std::type_identity_t<T> limit) noexcept {
  return detail::atomic_update(target, [limit](T old) { return (old == 0 || old > limit) ? limit : T(old - 1); });
}

/// Compare and swap: stores `desired` if the target holds `expected` (compared bit for bit);
/// returns the old value either way.
template <atomic_value T>
KERNEL_ALWAYS_INLINE T atomic_cas(T &target, std::type_identity_t<T> expected,
                                  std::type_identity_t<T> desired) noexcept {
  __atomic_compare_exchange(&target, &expected, &desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return expected;
}

} // namespace kernel
