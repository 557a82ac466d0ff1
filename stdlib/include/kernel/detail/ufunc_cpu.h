// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The CPU loops of a ufunc. The common case (every operand contiguous or broadcast along
// the innermost dimension) runs as a plain loop that the compiler vectorizes with the
// ufunc's function inlined. Scalar arguments are known at compile time and stay in
// registers; array operands broadcast along the row (stride 0) are read from a small buffer
// of copies, so that they too are read at unit stride and the loop keeps one vector shape.
#pragma once

#include <algorithm>
#include <cstddef>
#include <tuple>
#include <utility>

#include "kernel/config.h"
#include "kernel/detail/broadcast.h"
#include "kernel/detail/function_traits.h"
#include "kernel/types.h"

namespace kernel::detail {

/// Elements per pass of the unit-stride loop; broadcast operands are buffered this many.
inline constexpr index_t cpu_chunk = 512;

/// An input read from memory: array elements of type T.
template <class T> struct array_input {
  using element = T;
  using source = const T *;
};
/// An input passed as a scalar argument, already converted to the loop's parameter type.
template <class T> struct scalar_input {
  using element = T;
  struct source {
    T value;
    KERNEL_ALWAYS_INLINE T operator[](index_t) const noexcept { return value; }
  };
};

// Left uninitialized on purpose: only the part a row uses is filled.
template <class T> struct chunk_buffer {
  chunk_buffer() noexcept {}
  T data[cpu_chunk];
};

/// The loop of ufunc function `F` writing `Out` elements from inputs `In...` (each an
/// array_input or a scalar_input).
template <auto F, class Out, class... In> struct cpu_loop {
  using traits = function_traits<decltype(F)>;
  static constexpr std::size_t nin = sizeof...(In);
  static constexpr std::size_t noperands = nin + 1;
  using plan_type = loop_plan<noperands>;
  using inputs = std::tuple<typename In::source...>;

  /// Runs elements [begin, end) of the plan's flattened iteration space.
  static void run(const plan_type &plan, Out *out, const inputs &in, index_t begin, index_t end) {
    if (begin >= end) return;
    const int inner = plan.ndim - 1;
    const index_t width = plan.shape[inner];
    const bool unit = plan.inner_unit_stride() && plan.strides[nin][inner] == 1;

    // Start at `begin`: its column, and the outer multi-index of its row.
    index_t row = begin / width, col = begin % width;
    index_t idx[max_dims] = {};
    for (int d = inner - 1; d >= 0; --d) {
      idx[d] = row % plan.shape[d];
      row /= plan.shape[d];
    }
    index_t offset[noperands] = {};
    for (std::size_t k = 0; k < noperands; ++k)
      for (int d = 0; d < inner; ++d) offset[k] += idx[d] * plan.strides[k][d];

    for (index_t remaining = end - begin; remaining > 0;) {
      const index_t n = std::min(width - col, remaining);
      run_row(plan, out, in, offset, col, n, unit, std::index_sequence_for<In...>{});
      remaining -= n;
      col = 0;
      // Next row: advance the odometer over the outer dimensions.
      for (int d = inner - 1; d >= 0; --d) {
        for (std::size_t k = 0; k < noperands; ++k) offset[k] += plan.strides[k][d];
        if (++idx[d] < plan.shape[d]) break;
        for (std::size_t k = 0; k < noperands; ++k) offset[k] -= idx[d] * plan.strides[k][d];
        idx[d] = 0;
      }
    }
  }

private:
  template <class I> static constexpr bool is_scalar = !std::is_pointer_v<typename I::source>;

  // Where input K's row starts: scalars are their value, arrays a pointer.
  template <std::size_t K>
  static auto row_source(const plan_type &plan, const inputs &in, const index_t *offset, index_t col) {
    using I = std::tuple_element_t<K, std::tuple<In...>>;
    if constexpr (is_scalar<I>)
      return std::get<K>(in);
    else
      return std::get<K>(in) + offset[K] + col * plan.strides[K][plan.ndim - 1];
  }

  template <std::size_t... K>
  static void run_row(const plan_type &plan, Out *out, const inputs &in, const index_t *offset, index_t col, index_t n,
                      bool unit, std::index_sequence<K...>) {
    const int inner = plan.ndim - 1;
    Out *o = out + offset[nin] + col * plan.strides[nin][inner];
    const inputs src{row_source<K>(plan, in, offset, col)...};
    if (!unit) {
      const index_t ostride = plan.strides[nin][inner];
      for (index_t j = 0; j < n; ++j)
        o[j * ostride] = static_cast<Out>(
            F(static_cast<typename traits::template arg<K>>(std::get<K>(src)[j * plan.strides[K][inner]])...));
      return;
    }
    // A broadcast array operand repeats one value along the row: read it from a buffer of
    // copies so that it too is read at unit stride.
    const bool broadcast[nin + 1] = {(!is_scalar<In> && plan.strides[K][inner] == 0)..., false};
    std::tuple<chunk_buffer<typename In::element>...> buffers;
    const index_t fill = std::min(n, cpu_chunk);
    (void)fill;
    (fill_if_broadcast<K>(broadcast[K], buffers, src, fill), ...);
    for (index_t base = 0; base < n; base += cpu_chunk) {
      const index_t m = std::min(cpu_chunk, n - base);
      body<K...>(o + base, m, advance<K>(broadcast[K], buffers, src, base)...);
    }
  }

  template <std::size_t K, class Buffers>
  static void fill_if_broadcast(bool broadcast, Buffers &buffers, const inputs &src, index_t fill) {
    using I = std::tuple_element_t<K, std::tuple<In...>>;
    if constexpr (!is_scalar<I>)
      if (broadcast) std::fill_n(std::get<K>(buffers).data, fill, *std::get<K>(src));
  }

  template <std::size_t K, class Buffers>
  static auto advance(bool broadcast, const Buffers &buffers, const inputs &src, index_t base) {
    using I = std::tuple_element_t<K, std::tuple<In...>>;
    if constexpr (is_scalar<I>)
      return std::get<K>(src);
    else
      return broadcast ? static_cast<typename I::source>(std::get<K>(buffers).data) : std::get<K>(src) + base;
  }

  // `out` is restrict: every other overlap with the inputs is rejected before the loop but
  // in-place calls, where the output is exactly one of the inputs; each element is then read
  // before it is written and never read again, so no reordering can change a result, and
  // the vectorizer is spared runtime overlap checks that would send in-place calls to the
  // scalar loop.
  template <std::size_t... K, class... Src>
  static KERNEL_ALWAYS_INLINE void body(Out *__restrict out, index_t m, Src... in) {
    for (index_t j = 0; j < m; ++j)
      out[j] = static_cast<Out>(F(static_cast<typename traits::template arg<K>>(in[j])...));
  }
};

} // namespace kernel::detail
