// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Memory of a block and of a thread inside kernels: shared arrays (static shape, or sized
// at launch), and local arrays.
//
//   auto tile = kernel::shared_array<float, 32, 33>();  // CUDA: __shared__ float tile[32][33];
//   auto buf = kernel::dynamic_shared_array<float>();  // CUDA: extern __shared__ float buf[];
//   kernel::local_array<float, 4, 4> acc{};            // a per-thread 4x4 array
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernel/array.h"
#include "kernel/config.h"
#include "kernel/types.h"

namespace kernel {

namespace detail {
extern "C" {
// The block's memory for the shared array declared at `site` (the pass gives each site a
// variable in the GPU's shared address space; the simulator, a buffer per block).
void *__kernel_shared_static(const void *site, std::size_t bytes, std::size_t align) noexcept;
// The block's dynamic shared memory, sized by the launch.
void *__kernel_shared_dynamic() noexcept;
std::uint32_t __kernel_shared_dynamic_bytes() noexcept;
}
} // namespace detail

/// Memory shared by the threads of a block, of shape D..., uninitialised. Each place in the
/// source where it is written is a distinct array (the default `Site` argument gives every
/// use its own instantiation); the same place reached again, in a loop or from another call
/// of the function, is the same array, as a __shared__ variable in CUDA.
template <class T, index_t... D, auto Site = [] {}>
KERNEL_ALWAYS_INLINE array_view<T, sizeof...(D)> shared_array() noexcept {
  static_assert(sizeof...(D) >= 1 && ((D > 0) && ...), "shared_array needs a positive extent per dimension");
  // Types whose objects may begin life in memory that was never constructed (trivially copyable
  // and destructible): plain structs, and std::complex, whose default constructor zeroes.
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "shared memory holds trivially copyable types: it is neither constructed nor destroyed");
  static constexpr char site = 0;
  void *p = detail::__kernel_shared_static(&site, sizeof(T) * static_cast<std::size_t>((D * ...)), alignof(T));
  return array_view<T, sizeof...(D)>(static_cast<T *>(p), {D...});
}

/// The block's dynamic shared memory (its size is given at launch) as an array of T,
/// starting `offset_bytes` in. Every call views the same memory, as `extern __shared__` in
/// CUDA.
template <class T> KERNEL_ALWAYS_INLINE array_view<T, 1> dynamic_shared_array(std::size_t offset_bytes = 0) noexcept {
  const std::size_t bytes = detail::__kernel_shared_dynamic_bytes();
  const std::size_t available = bytes > offset_bytes ? bytes - offset_bytes : 0;
  return array_view<T, 1>(reinterpret_cast<T *>(static_cast<char *>(detail::__kernel_shared_dynamic()) + offset_bytes),
                          {static_cast<index_t>(available / sizeof(T))});
}

/// An array private to a thread, of shape D... (Numba's cuda.local.array): `a(i, j)`.
template <class T, index_t... D> struct local_array {
  static constexpr std::size_t rank = sizeof...(D);
  T data[static_cast<std::size_t>((D * ...))];

  KERNEL_ALWAYS_INLINE array_view<T, rank> view() noexcept { return array_view<T, rank>(data, {D...}); }
  template <class... I>
    requires(sizeof...(I) == rank && (std::is_integral_v<I> && ...))
  KERNEL_ALWAYS_INLINE T &operator()(I... idx) noexcept {
    return view()(idx...);
  }
  /// 1-d element access, bounds-checked on the simulator as a(i) is.
  KERNEL_ALWAYS_INLINE T &operator[](index_t i) noexcept
    requires(rank == 1)
  {
    return view()(i);
  }
  static constexpr index_t size() noexcept { return static_cast<index_t>((D * ...)); }
};

} // namespace kernel
