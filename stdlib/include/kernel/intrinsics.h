// What a thread of a kernel can ask about its place in the launch: CUDA's threadIdx,
// blockIdx, blockDim and gridDim, and Numba's grid() and gridsize().
//
// On the GPU the pass replaces each `__kernel_*` hook with the matching PTX special register.
// On the host the runtime implements them for the thread the simulator is running, and
// outside a simulated launch they describe a launch of one thread.
#pragma once

#include <array>
#include <cstdint>

#include "kernel/config.h"
#include "kernel/types.h"

namespace kernel {
namespace detail {
extern "C" {
std::uint32_t __kernel_tid_x() noexcept;
std::uint32_t __kernel_tid_y() noexcept;
std::uint32_t __kernel_tid_z() noexcept;
std::uint32_t __kernel_ntid_x() noexcept;
std::uint32_t __kernel_ntid_y() noexcept;
std::uint32_t __kernel_ntid_z() noexcept;
std::uint32_t __kernel_ctaid_x() noexcept;
std::uint32_t __kernel_ctaid_y() noexcept;
std::uint32_t __kernel_ctaid_z() noexcept;
std::uint32_t __kernel_nctaid_x() noexcept;
std::uint32_t __kernel_nctaid_y() noexcept;
std::uint32_t __kernel_nctaid_z() noexcept;
}

// `threadIdx.x` reads a register each time it is used, as in CUDA, so the components are
// objects that convert to unsigned rather than stored numbers.
template <std::uint32_t (*X)() noexcept, std::uint32_t (*Y)() noexcept,
          std::uint32_t (*Z)() noexcept>
struct special_register3 {
  template <std::uint32_t (*Read)() noexcept> struct component {
    KERNEL_ALWAYS_INLINE operator std::uint32_t() const noexcept { return Read(); }
  };
  [[no_unique_address]] component<X> x;
  [[no_unique_address]] component<Y> y;
  [[no_unique_address]] component<Z> z;
};
} // namespace detail

/// A launch extent, as CUDA's dim3.
struct dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
  constexpr dim3() noexcept = default;
  constexpr dim3(std::uint32_t x_, std::uint32_t y_ = 1, std::uint32_t z_ = 1) noexcept
      : x(x_), y(y_), z(z_) {}
  constexpr std::uint64_t count() const noexcept { return std::uint64_t{x} * y * z; }
};

inline constexpr detail::special_register3<detail::__kernel_tid_x, detail::__kernel_tid_y,
                                           detail::__kernel_tid_z>
    threadIdx{};
inline constexpr detail::special_register3<detail::__kernel_ntid_x, detail::__kernel_ntid_y,
                                           detail::__kernel_ntid_z>
    blockDim{};
inline constexpr detail::special_register3<detail::__kernel_ctaid_x, detail::__kernel_ctaid_y,
                                           detail::__kernel_ctaid_z>
    blockIdx{};
inline constexpr detail::special_register3<detail::__kernel_nctaid_x, detail::__kernel_nctaid_y,
                                           detail::__kernel_nctaid_z>
    gridDim{};

/// The absolute index of this thread in the grid (Numba's `cuda.grid(N)`): an index_t for
/// N = 1, else {x, y[, z]} for `auto [x, y] = kernel::grid<2>();`.
template <int N> KERNEL_ALWAYS_INLINE auto grid() noexcept {
  static_assert(N >= 1 && N <= 3, "kernel::grid<N>: N is 1, 2 or 3");
  const index_t x = index_t{detail::__kernel_ctaid_x()} * detail::__kernel_ntid_x() +
                    detail::__kernel_tid_x();
  if constexpr (N == 1) {
    return x;
  } else {
    const index_t y = index_t{detail::__kernel_ctaid_y()} * detail::__kernel_ntid_y() +
                      detail::__kernel_tid_y();
    if constexpr (N == 2) {
      return std::array<index_t, 2>{x, y};
    } else {
      const index_t z = index_t{detail::__kernel_ctaid_z()} * detail::__kernel_ntid_z() +
                        detail::__kernel_tid_z();
      return std::array<index_t, 3>{x, y, z};
    }
  }
}

/// The number of threads in the grid along each dimension (Numba's `cuda.gridsize(N)`).
template <int N> KERNEL_ALWAYS_INLINE auto gridsize() noexcept {
  static_assert(N >= 1 && N <= 3, "kernel::gridsize<N>: N is 1, 2 or 3");
  const index_t x = index_t{detail::__kernel_nctaid_x()} * detail::__kernel_ntid_x();
  if constexpr (N == 1) {
    return x;
  } else {
    const index_t y = index_t{detail::__kernel_nctaid_y()} * detail::__kernel_ntid_y();
    if constexpr (N == 2) {
      return std::array<index_t, 2>{x, y};
    } else {
      const index_t z = index_t{detail::__kernel_nctaid_z()} * detail::__kernel_ntid_z();
      return std::array<index_t, 3>{x, y, z};
    }
  }
}

} // namespace kernel
