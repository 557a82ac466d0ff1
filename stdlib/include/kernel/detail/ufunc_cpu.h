// The CPU loops of a ufunc. The common case (every operand contiguous or broadcast along
// the innermost dimension) runs as a plain loop over unit-stride pointers that the compiler
// vectorizes with the ufunc's function inlined; broadcast operands read from a small
// buffer filled with their value, so one loop body serves every mix of arrays and scalars.
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

// Left uninitialized on purpose: only the part a row uses is filled.
template <class T> struct chunk_buffer {
  chunk_buffer() noexcept {}
  T data[cpu_chunk];
};

/// The loop of ufunc function `F` writing `Out` elements from inputs stored as `Src...`
/// (array elements, or the already converted value of a scalar argument).
template <auto F, class Out, class... Src> struct cpu_loop {
  using traits = function_traits<decltype(F)>;
  static constexpr std::size_t nin = sizeof...(Src);
  static constexpr std::size_t noperands = nin + 1;
  using plan_type = loop_plan<noperands>;
  using inputs = std::tuple<const Src *...>;

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
      run_row(plan, out, in, offset, col, n, unit, std::index_sequence_for<Src...>{});
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
  template <std::size_t... I>
  static void run_row(const plan_type &plan, Out *out, const inputs &in, const index_t *offset,
                      index_t col, index_t n, bool unit, std::index_sequence<I...>) {
    const int inner = plan.ndim - 1;
    Out *o = out + offset[nin] + col * plan.strides[nin][inner];
    const std::tuple<const Src *...> p{(std::get<I>(in) + offset[I] + col * plan.strides[I][inner])...};
    if (!unit) {
      for (index_t j = 0; j < n; ++j)
        o[j * plan.strides[nin][inner]] = static_cast<Out>(F(static_cast<typename traits::template arg<I>>(
            std::get<I>(p)[j * plan.strides[I][inner]])...));
      return;
    }
    // A broadcast operand's value repeats along the row: read it from a buffer of copies so
    // that every operand is read at unit stride and the loop keeps a single vector shape.
    const bool broadcast[nin + 1] = {(plan.strides[I][inner] == 0)..., false};
    std::tuple<chunk_buffer<Src>...> buffers;
    const index_t fill = std::min(n, cpu_chunk);
    (void)fill;
    ((broadcast[I] ? (void)std::fill_n(std::get<I>(buffers).data, fill, *std::get<I>(p)) : (void)0),
     ...);
    for (index_t base = 0; base < n; base += cpu_chunk) {
      const index_t m = std::min(cpu_chunk, n - base);
      body<I...>(o + base, m,
                 (broadcast[I] ? static_cast<const Src *>(std::get<I>(buffers).data)
                               : std::get<I>(p) + base)...);
    }
  }

  // `restrict` holds for everything but in-place calls, where the output is exactly one of
  // the inputs (other overlaps are rejected before the loop): each element is then read
  // before it is written and never read again, so no reordering can change a result, and
  // the vectorizer is spared runtime overlap checks that would send in-place calls to the
  // scalar loop.
  template <std::size_t... I>
  static KERNEL_ALWAYS_INLINE void body(Out *__restrict out, index_t m, const Src *__restrict... in) {
    for (index_t j = 0; j < m; ++j)
      out[j] = static_cast<Out>(F(static_cast<typename traits::template arg<I>>(in[j])...));
  }
};

} // namespace kernel::detail
