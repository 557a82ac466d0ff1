// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What a thread of a kernel can ask about its place in the launch (CUDA's threadIdx,
// blockIdx, blockDim and gridDim, Numba's grid() and gridsize()), and how it works with the
// other threads: barriers, memory fences, and warp shuffles and votes.
//
// On the GPU the pass replaces each `__kernel_*` hook with the matching PTX special register
// or instruction. On the host the runtime implements them for the thread the simulator is
// running; outside a simulated launch they describe a launch of one thread.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <source_location>
#include <type_traits>

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

// Barriers take the source location of their call, so that the simulator can say which
// barriers the threads of a divergent block were waiting at (the column tells apart two on
// one line, as the branches of `if (c) syncthreads(); else syncthreads();`). Named for it: an
// object compiled against the hooks without the column would not link, rather than pass none.
void __kernel_syncthreads_at(const char *file, std::uint32_t line, std::uint32_t column) noexcept;
int __kernel_syncthreads_count_at(int predicate, const char *file, std::uint32_t line, std::uint32_t column) noexcept;
int __kernel_syncthreads_and_at(int predicate, const char *file, std::uint32_t line, std::uint32_t column) noexcept;
int __kernel_syncthreads_or_at(int predicate, const char *file, std::uint32_t line, std::uint32_t column) noexcept;
void __kernel_syncwarp(std::uint32_t mask) noexcept;
void __kernel_threadfence() noexcept;
void __kernel_threadfence_block() noexcept;
void __kernel_threadfence_system() noexcept;
void __kernel_nanosleep(std::uint32_t nanoseconds) noexcept;

std::uint32_t __kernel_laneid() noexcept;
// Not merged across branches: in a divergent if/else each branch's call sees its own lanes.
KERNEL_NOMERGE std::uint32_t __kernel_activemask() noexcept;
std::uint32_t __kernel_shfl_idx(std::uint32_t mask, std::uint32_t value, std::int32_t lane,
                                std::int32_t width) noexcept;
std::uint32_t __kernel_shfl_up(std::uint32_t mask, std::uint32_t value, std::int32_t delta,
                               std::int32_t width) noexcept;
std::uint32_t __kernel_shfl_down(std::uint32_t mask, std::uint32_t value, std::int32_t delta,
                                 std::int32_t width) noexcept;
std::uint32_t __kernel_shfl_xor(std::uint32_t mask, std::uint32_t value, std::int32_t lane_mask,
                                std::int32_t width) noexcept;
int __kernel_vote_all(std::uint32_t mask, int predicate) noexcept;
int __kernel_vote_any(std::uint32_t mask, int predicate) noexcept;
int __kernel_vote_uni(std::uint32_t mask, int predicate) noexcept;
std::uint32_t __kernel_vote_ballot(std::uint32_t mask, int predicate) noexcept;
std::uint32_t __kernel_lanemask_lt() noexcept;
std::uint32_t __kernel_match_any_32(std::uint32_t mask, std::uint32_t value) noexcept;
std::uint32_t __kernel_match_any_64(std::uint32_t mask, std::uint64_t value) noexcept;
// *all_equal becomes 1 when every lane in `mask` has the same value, else 0.
std::uint32_t __kernel_match_all_32(std::uint32_t mask, std::uint32_t value, int *all_equal) noexcept;
std::uint32_t __kernel_match_all_64(std::uint32_t mask, std::uint64_t value, int *all_equal) noexcept;
}

// The special registers live in a namespace of their own: the printf below, found by
// argument-dependent lookup, must not hide C's printf from the rest of the library.
namespace special_registers {

// `threadIdx.x` reads a register each time it is used, as in CUDA, so the components are
// objects that convert to unsigned rather than stored numbers.
template <std::uint32_t (*X)() noexcept, std::uint32_t (*Y)() noexcept, std::uint32_t (*Z)() noexcept>
struct special_register3 {
  template <std::uint32_t (*Read)() noexcept> struct component {
    static constexpr bool special_register = true;
    KERNEL_ALWAYS_INLINE operator std::uint32_t() const noexcept { return Read(); }
  };
  [[no_unique_address]] component<X> x;
  [[no_unique_address]] component<Y> y;
  [[no_unique_address]] component<Z> z;
};

template <class T>
concept special_register_component = requires { T::special_register; };

template <class T> KERNEL_ALWAYS_INLINE auto printf_argument(const T &v) noexcept {
  if constexpr (special_register_component<T>)
    return static_cast<std::uint32_t>(v);
  else
    return v;
}

/// printf given threadIdx.x and its kind, which are objects, not numbers: found by
/// argument-dependent lookup and preferred to C's printf (whose `...` would take the empty
/// object), it passes them as the unsigned values CUDA's are. (std::printf, named, is C's.)
template <class... A>
  requires(special_register_component<A> || ...)
KERNEL_ALWAYS_INLINE int printf(const char *format, const A &...args) noexcept {
  return ::printf(format, printf_argument(args)...);
}
} // namespace special_registers
} // namespace detail

/// A launch extent, as CUDA's dim3.
struct dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
  constexpr dim3() noexcept = default;
  constexpr dim3(std::uint32_t x_, std::uint32_t y_ = 1, std::uint32_t z_ = 1) noexcept : x(x_), y(y_), z(z_) {}
  constexpr std::uint64_t count() const noexcept { return std::uint64_t{x} * y * z; }
};

inline constexpr detail::special_registers::special_register3<detail::__kernel_tid_x, detail::__kernel_tid_y,
                                                              detail::__kernel_tid_z>
    threadIdx{};
inline constexpr detail::special_registers::special_register3<detail::__kernel_ntid_x, detail::__kernel_ntid_y,
                                                              detail::__kernel_ntid_z>
    blockDim{};
inline constexpr detail::special_registers::special_register3<detail::__kernel_ctaid_x, detail::__kernel_ctaid_y,
                                                              detail::__kernel_ctaid_z>
    blockIdx{};
inline constexpr detail::special_registers::special_register3<detail::__kernel_nctaid_x, detail::__kernel_nctaid_y,
                                                              detail::__kernel_nctaid_z>
    gridDim{};

/// The absolute index of this thread in the grid (Numba's `cuda.grid(N)`): an index_t for
/// N = 1, else {x, y[, z]} for `auto [x, y] = kernel::grid<2>();`.
template <int N> KERNEL_ALWAYS_INLINE auto grid() noexcept {
  static_assert(N >= 1 && N <= 3, "kernel::grid<N>: N is 1, 2 or 3");
  const index_t x = index_t{detail::__kernel_ctaid_x()} * detail::__kernel_ntid_x() + detail::__kernel_tid_x();
  if constexpr (N == 1) {
    return x;
  } else {
    const index_t y = index_t{detail::__kernel_ctaid_y()} * detail::__kernel_ntid_y() + detail::__kernel_tid_y();
    if constexpr (N == 2) {
      return std::array<index_t, 2>{x, y};
    } else {
      const index_t z = index_t{detail::__kernel_ctaid_z()} * detail::__kernel_ntid_z() + detail::__kernel_tid_z();
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

/// Threads in a warp, and the mask naming all of them.
inline constexpr int warpsize = 32;
inline constexpr std::uint32_t full_mask = 0xffffffffu;

/// Waits until every thread of the block reaches this barrier; their writes to shared and
/// global memory before it are then visible to all of them. Every thread of the block must
/// call the same syncthreads (the simulator reports those that do not).
KERNEL_ALWAYS_INLINE void syncthreads(std::source_location site = std::source_location::current()) noexcept {
  detail::__kernel_syncthreads_at(site.file_name(), site.line(), site.column());
}
/// syncthreads that also counts the threads whose `predicate` is true.
KERNEL_ALWAYS_INLINE int syncthreads_count(bool predicate,
                                           std::source_location site = std::source_location::current()) noexcept {
  return detail::__kernel_syncthreads_count_at(predicate, site.file_name(), site.line(), site.column());
}
/// syncthreads that tells whether `predicate` is true for every thread of the block.
KERNEL_ALWAYS_INLINE bool syncthreads_and(bool predicate,
                                          std::source_location site = std::source_location::current()) noexcept {
  return detail::__kernel_syncthreads_and_at(predicate, site.file_name(), site.line(), site.column()) != 0;
}
/// syncthreads that tells whether `predicate` is true for any thread of the block.
KERNEL_ALWAYS_INLINE bool syncthreads_or(bool predicate,
                                         std::source_location site = std::source_location::current()) noexcept {
  return detail::__kernel_syncthreads_or_at(predicate, site.file_name(), site.line(), site.column()) != 0;
}
/// Waits until the threads of the warp in `mask` reach this point.
KERNEL_ALWAYS_INLINE void syncwarp(std::uint32_t mask = full_mask) noexcept { detail::__kernel_syncwarp(mask); }

/// Orders this thread's memory writes before its later ones, as seen by all threads of the
/// device (threadfence), of the block, or of the system (including the host).
KERNEL_ALWAYS_INLINE void threadfence() noexcept { detail::__kernel_threadfence(); }
KERNEL_ALWAYS_INLINE void threadfence_block() noexcept { detail::__kernel_threadfence_block(); }
KERNEL_ALWAYS_INLINE void threadfence_system() noexcept { detail::__kernel_threadfence_system(); }

/// Suspends the thread for about `nanoseconds` (0 to 1 ms; CUDA's __nanosleep, Numba's
/// cuda.nanosleep): the back-off of a loop that waits for another block, so that the waiting
/// warps leave the multiprocessor's issue slots to the others. The simulator and the CPU
/// targets yield the host thread instead.
KERNEL_ALWAYS_INLINE void nanosleep(std::uint32_t nanoseconds) noexcept { detail::__kernel_nanosleep(nanoseconds); }

/// This thread's lane in its warp (0 to 31), and the lanes of the warp now executing.
KERNEL_ALWAYS_INLINE std::uint32_t laneid() noexcept { return detail::__kernel_laneid(); }
KERNEL_ALWAYS_INLINE std::uint32_t activemask() noexcept { return detail::__kernel_activemask(); }

namespace detail {
/// What a shuffle moves: any trivially copyable value, as cooperative groups' shfl takes
/// (`int8_t`, `std::complex<float>`, a struct of a few fields).
template <class T>
concept shuffleable = std::is_trivially_copyable_v<T>;
/// What match_any_sync and match_all_sync compare: 32- or 64-bit values, as in CUDA.
template <class T>
concept matchable = std::is_trivially_copyable_v<T> && (sizeof(T) == 4 || sizeof(T) == 8);

/// What a warp operation moves or compares of an argument of type T: threadIdx.x and its
/// kind are objects that read a register, taken as the unsigned values they stand for (as
/// themselves, a shuffle moved an empty object and each lane read its own register again).
template <class T> struct warp_value {
  using type = T;
};
template <special_registers::special_register_component T> struct warp_value<T> {
  using type = std::uint32_t;
};
template <class T> using warp_value_t = typename warp_value<T>::type;

// Shuffles move 32-bit registers: 64-bit values go as two halves, other sizes as the 32-bit
// words that hold them (the last one padded with zeros).
template <shuffleable T, class Op> KERNEL_ALWAYS_INLINE T shuffle(T value, Op op) noexcept {
  if constexpr (sizeof(T) == 4) {
    return std::bit_cast<T>(op(std::bit_cast<std::uint32_t>(value)));
  } else if constexpr (sizeof(T) == 8) {
    const auto bits = std::bit_cast<std::uint64_t>(value);
    const std::uint32_t lo = op(static_cast<std::uint32_t>(bits));
    const std::uint32_t hi = op(static_cast<std::uint32_t>(bits >> 32));
    return std::bit_cast<T>((std::uint64_t{hi} << 32) | lo);
  } else {
    constexpr std::size_t words = (sizeof(T) + 3) / 4;
    std::uint32_t w[words] = {};
    __builtin_memcpy(w, &value, sizeof(T));
    KERNEL_UNROLL
    for (std::size_t i = 0; i < words; ++i) w[i] = op(w[i]);
    __builtin_memcpy(&value, w, sizeof(T));
    return value;
  }
}
} // namespace detail

/// The `value` of lane `src_lane` (within groups of `width` lanes) of the warp: CUDA's
/// __shfl_sync. Every lane in `mask` must call it.
template <class T>
  requires detail::shuffleable<detail::warp_value_t<T>>
KERNEL_ALWAYS_INLINE detail::warp_value_t<T> shfl_sync(std::uint32_t mask, T value, int src_lane,
                                                       int width = warpsize) noexcept {
  return detail::shuffle(detail::warp_value_t<T>(value),
                         [&](std::uint32_t v) { return detail::__kernel_shfl_idx(mask, v, src_lane, width); });
}
/// The `value` of the lane `delta` below this one (this lane's own when there is none).
template <class T>
  requires detail::shuffleable<detail::warp_value_t<T>>
KERNEL_ALWAYS_INLINE detail::warp_value_t<T> shfl_up_sync(std::uint32_t mask, T value, unsigned delta,
                                                          int width = warpsize) noexcept {
  return detail::shuffle(detail::warp_value_t<T>(value), [&](std::uint32_t v) {
    return detail::__kernel_shfl_up(mask, v, static_cast<std::int32_t>(delta), width);
  });
}
/// The `value` of the lane `delta` above this one (this lane's own when there is none).
template <class T>
  requires detail::shuffleable<detail::warp_value_t<T>>
KERNEL_ALWAYS_INLINE detail::warp_value_t<T> shfl_down_sync(std::uint32_t mask, T value, unsigned delta,
                                                            int width = warpsize) noexcept {
  return detail::shuffle(detail::warp_value_t<T>(value), [&](std::uint32_t v) {
    return detail::__kernel_shfl_down(mask, v, static_cast<std::int32_t>(delta), width);
  });
}
/// The `value` of the lane whose id is this one's xor `lane_mask` (butterfly exchange).
template <class T>
  requires detail::shuffleable<detail::warp_value_t<T>>
KERNEL_ALWAYS_INLINE detail::warp_value_t<T> shfl_xor_sync(std::uint32_t mask, T value, int lane_mask,
                                                           int width = warpsize) noexcept {
  return detail::shuffle(detail::warp_value_t<T>(value),
                         [&](std::uint32_t v) { return detail::__kernel_shfl_xor(mask, v, lane_mask, width); });
}

/// Warp votes over the lanes in `mask`: whether the predicate holds for all, for any, or
/// for all or none of them; and the bitmask of lanes where it holds.
KERNEL_ALWAYS_INLINE bool all_sync(std::uint32_t mask, bool predicate) noexcept {
  return detail::__kernel_vote_all(mask, predicate) != 0;
}
KERNEL_ALWAYS_INLINE bool any_sync(std::uint32_t mask, bool predicate) noexcept {
  return detail::__kernel_vote_any(mask, predicate) != 0;
}
KERNEL_ALWAYS_INLINE bool eq_sync(std::uint32_t mask, bool predicate) noexcept {
  return detail::__kernel_vote_uni(mask, predicate) != 0;
}
KERNEL_ALWAYS_INLINE std::uint32_t ballot_sync(std::uint32_t mask, bool predicate) noexcept {
  return detail::__kernel_vote_ballot(mask, predicate);
}

/// The lanes below this one in the warp: bits 0 to laneid() - 1 (CUDA's %lanemask_lt).
KERNEL_ALWAYS_INLINE std::uint32_t lanemask_lt() noexcept { return detail::__kernel_lanemask_lt(); }

/// The lanes in `mask` whose `value` equals this lane's (compared bit for bit): CUDA's
/// __match_any_sync, Numba's cuda.match_any_sync. Every lane in `mask` must call it.
template <class T>
  requires detail::matchable<detail::warp_value_t<T>>
KERNEL_ALWAYS_INLINE std::uint32_t match_any_sync(std::uint32_t mask, T given) noexcept {
  const detail::warp_value_t<T> value(given);
  if constexpr (sizeof(value) == 4)
    return detail::__kernel_match_any_32(mask, std::bit_cast<std::uint32_t>(value));
  else
    return detail::__kernel_match_any_64(mask, std::bit_cast<std::uint64_t>(value));
}
/// `mask` when every lane in it has the same `value` (bit for bit), else 0; `all_equal`
/// says which: CUDA's __match_all_sync, Numba's cuda.match_all_sync.
template <class T>
  requires detail::matchable<detail::warp_value_t<T>>
KERNEL_ALWAYS_INLINE std::uint32_t match_all_sync(std::uint32_t mask, T given, bool &all_equal) noexcept {
  const detail::warp_value_t<T> value(given);
  int equal = 0;
  std::uint32_t lanes;
  if constexpr (sizeof(value) == 4)
    lanes = detail::__kernel_match_all_32(mask, std::bit_cast<std::uint32_t>(value), &equal);
  else
    lanes = detail::__kernel_match_all_64(mask, std::bit_cast<std::uint64_t>(value), &equal);
  all_equal = equal != 0;
  return lanes;
}

} // namespace kernel
