// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The GPU side of a reduction (`[[kernel::reduce]]`): each thread folds its share of the
// input (a grid-stride loop), warps combine with shuffles, the warps of a block through
// shared memory, and one value per block is written. A second launch of the same kernel
// over the per-block values, in one block, gives the result. The function must be
// associative (as for Numba's reduce); the order of combination is not the input's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernel/config.h"
#include "kernel/detail/sixteen_bytes.h"
#include "kernel/detail/ufunc_kernel.h"
#include "kernel/intrinsics.h"
#include "kernel/memory.h"

namespace kernel::detail {

template <class T> struct reduce_params {
  const T *data;
  index_t size;
  std::int32_t ndim;              // 1 for contiguous input
  index_t shape[max_device_dims]; // and strides, in elements, for strided input
  index_t strides[max_device_dims];
  T *out; // one value per block
};

template <class F> struct reduce_params_of;
template <class F> struct reduce_params_of<F const> : reduce_params_of<F> {};
template <class T, class A, class B> struct reduce_params_of<T (*)(A, B)> {
  using value = std::remove_cvref_t<T>;
  using type = reduce_params<value>;
};
template <class T, class A, class B> struct reduce_params_of<T (*)(A, B) noexcept> : reduce_params_of<T (*)(A, B)> {};
template <auto F> using reduce_params_for = typename reduce_params_of<decltype(F)>::type;

template <class T> KERNEL_ALWAYS_INLINE T reduce_load(const reduce_params<T> &p, index_t i) noexcept {
  if (p.ndim <= 1) return p.data[i * p.strides[0]];
  index_t offset = 0, rest = i;
  for (int d = p.ndim - 1; d >= 0; --d) {
    offset += rest % p.shape[d] * p.strides[d];
    rest /= p.shape[d];
  }
  return p.data[offset];
}

// Folds `other` (when present) into `acc`.
template <auto F, class T>
KERNEL_ALWAYS_INLINE void reduce_combine(T &acc, bool &have, T other, bool other_have) noexcept {
  if (other_have) {
    acc = have ? F(acc, other) : other;
    have = true;
  }
}

/// How many elements each thread loads before it combines any: a grid-stride loop that loaded
/// one at a time kept one load in flight per thread, and read at a fifth of memory speed.
inline constexpr int reduce_unroll = 8;

/// Folds load(i) for i = first, first + step, ... below n into `acc`, reduce_unroll loads a
/// trip (values of at most 16 bytes: more would spill registers).
template <auto F, class T, class Load>
KERNEL_ALWAYS_INLINE void reduce_range(T &acc, bool &have, index_t first, index_t n, index_t step,
                                       Load &&load) noexcept {
  index_t i = first;
  if constexpr (sizeof(T) <= 16)
    for (; i + (reduce_unroll - 1) * step < n; i += reduce_unroll * step)
      [&]<std::size_t... U>(std::index_sequence<U...>) {
        const T v[] = {static_cast<T>(load(i + index_t{U} * step))...};
        T x = v[0];
        for (std::size_t u = 1; u < sizeof...(U); ++u) x = F(x, v[u]);
        reduce_combine<F>(acc, have, x, true);
      }(std::make_index_sequence<reduce_unroll>{});
  for (; i < n; i += step) reduce_combine<F>(acc, have, static_cast<T>(load(i)), true);
}

template <auto F, class T> KERNEL_ALWAYS_INLINE void reduce_warp(T &acc, bool &have) noexcept {
  for (unsigned offset = warpsize / 2; offset > 0; offset /= 2) {
    const T other = shfl_down_sync(full_mask, acc, offset);
    const bool other_have = shfl_down_sync(full_mask, static_cast<std::uint32_t>(have), offset) != 0;
    reduce_combine<F>(acc, have, other, other_have);
  }
}

/// Combines the values of a block's threads (warps of 32: the shuffles need whole warps) and
/// writes the block's value to out[blockIdx.x].
template <auto F, class T> KERNEL_ALWAYS_INLINE void reduce_block(T acc, bool have, T *out) noexcept {
  reduce_warp<F>(acc, have);
  auto values = shared_array<T, warpsize>();
  auto present = shared_array<std::uint32_t, warpsize>();
  const unsigned lane = threadIdx.x % warpsize, warp = threadIdx.x / warpsize;
  const unsigned warps = (blockDim.x + warpsize - 1) / warpsize;
  if (lane == 0) {
    values[warp] = acc;
    present[warp] = have;
  }
  syncthreads();
  if (warp == 0) {
    have = lane < warps && present[lane] != 0;
    acc = have ? values[lane] : T{};
    reduce_warp<F>(acc, have);
    if (lane == 0) out[blockIdx.x] = acc;
  }
}

/// The entry: every block writes the reduction of its elements to p.out[blockIdx.x]; a
/// block is launched with at least one element (the host sizes the grid so).
template <auto F> void reduce_kernel(const reduce_params_for<F> &p) {
  using T = typename reduce_params_of<decltype(F)>::value;
  constexpr int width = sixteen_bytes_of<T>;
  T acc{};
  bool have = false;
  if constexpr (width > 1) {
    // Contiguous numbers 16 bytes a load, combined in the vector first: a float sum loading
    // one value a time spent as many instructions on addresses as on loads, and read at
    // half of CUB's speed. The elements past the last whole vector are folded one by one.
    // Only where every thread has a vector: the host sizes the grid by elements, and a block
    // left without any would write a value (T{}) that is no element's.
    if (p.ndim <= 1 && p.strides[0] == 1 && reinterpret_cast<std::uintptr_t>(p.data) % 16 == 0 &&
        p.size / width >= static_cast<index_t>(gridsize<1>())) {
      const auto *vectors = reinterpret_cast<const sixteen_bytes<T> *>(p.data);
      const index_t whole = p.size / width;
      reduce_range<F>(acc, have, grid<1>(), whole, gridsize<1>(), [&](index_t i) {
        const sixteen_bytes<T> v = vectors[i];
        T x = v.v[0];
        for (int u = 1; u < width; ++u) x = F(x, v.v[u]);
        return x;
      });
      for (index_t i = whole * width + grid<1>(); i < p.size; i += gridsize<1>())
        reduce_combine<F>(acc, have, p.data[i], true);
      reduce_block<F>(acc, have, p.out);
      return;
    }
  }
  if (p.ndim <= 1) {
    const index_t stride = p.strides[0];
    reduce_range<F>(acc, have, grid<1>(), p.size, gridsize<1>(), [&](index_t i) { return p.data[i * stride]; });
  } else {
    for (index_t i = grid<1>(); i < p.size; i += gridsize<1>()) reduce_combine<F>(acc, have, reduce_load(p, i), true);
  }
  reduce_block<F>(acc, have, p.out);
}

} // namespace kernel::detail
