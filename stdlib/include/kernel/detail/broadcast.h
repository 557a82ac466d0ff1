// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// NumPy broadcasting for elementwise calls: the iteration space of a call, each operand's
// strides in it, and the collapse of that space to as few dimensions as possible so that
// most calls become one flat loop.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "kernel/array.h"
#include "kernel/detail/device_api.h"
#include "kernel/detail/shape_check.h"
#include "kernel/errors.h"
#include "kernel/types.h"

namespace kernel::detail {

/// Most dimensions an elementwise call may have (NumPy allows 32 too).
inline constexpr int max_dims = 32;

/// One operand of an elementwise call, as broadcasting sees it. Scalars have rank 0.
struct operand_layout {
  const void *data = nullptr;
  std::size_t elem_size = 0;
  int rank = 0;
  // The first `rank` of each, as set by whoever makes the layout; the rest are not read, and
  // not zeroed (zeroing 32 of each per operand was half the instructions of a device ufunc
  // call's host side). Braces, `layouts{}`, still zero them.
  index_t shape[max_dims];
  index_t strides[max_dims]; // elements
  int argument = 0;          // 1-based position in the user's call, for messages
  bool is_output = false;
  // For the overlap check: the trailing dimensions a gufunc's function sees whole (its core;
  // 0 for elementwise access), and whose memory `data` is in (null: the host's; else a device).
  int core_rank = 0;
  const void *memory = nullptr;
};

/// Waits for the results that calls on streams are delivering into the host memory of `ops`
/// (a host call's operands, read or written): the call comes after those calls in program
/// order, as a device call's reads of host memory do (a late delivery would otherwise be
/// read over, or overwrite the call's results).
template <std::size_t N> void await_host_operands(const std::array<operand_layout, N> &ops) {
  if (!host_deliveries_pending()) return;
  for (const operand_layout &l : ops) {
    if (l.memory || !l.data) continue; // a device's memory, or a scalar's
    const auto [first, past] = element_bytes(l.data, l.shape, l.strides, static_cast<std::size_t>(l.rank), l.elem_size);
    await_host_writes(first, past); // nothing for no element: first == past
  }
}

/// layout_of into `l`, a layout as made (zeros past the view's rank, no memory or core): a
/// layout is half a kilobyte, and a call's layouts were copied about as often as checked.
template <class T, std::size_t Rank>
void fill_layout(operand_layout &l, std::string_view callee, const array_view<T, Rank> &a, int argument,
                 bool is_output = false) {
  static_assert(Rank <= max_dims, "arrays have at most 32 dimensions");
  check_view(callee, argument, a);
  l.data = a.data();
  l.elem_size = sizeof(T);
  l.rank = static_cast<int>(Rank);
  for (std::size_t d = 0; d < Rank; ++d) {
    l.shape[d] = a.shape(d);
    l.strides[d] = a.stride(d);
  }
  l.argument = argument;
  l.is_output = is_output;
}

/// The layout of view `a`, argument `argument` of `callee`, after checking its shape.
template <class T, std::size_t Rank>
operand_layout layout_of(std::string_view callee, const array_view<T, Rank> &a, int argument, bool is_output = false) {
  operand_layout l;
  fill_layout(l, callee, a, argument, is_output);
  return l;
}

/// The shape every operand is broadcast to.
struct iteration_space {
  int rank = 0;
  index_t shape[max_dims]; // the first `rank`, as operand_layout's
  index_t size() const noexcept {
    index_t n = 1;
    for (int d = 0; d < rank; ++d) n *= shape[d];
    return n;
  }
};

/// Broadcasts the shapes of `ops` (NumPy rules: align on the right, extents equal or 1).
/// An output operand is never stretched: the inputs must broadcast to its shape, which
/// then is the iteration space (it may add leading dimensions, as in NumPy). `loop_dims`:
/// the shapes are a gufunc's loop dimensions (its operands' shapes less the core ones), and
/// errors say so.
inline iteration_space broadcast_shapes(std::string_view callee, std::span<const operand_layout> ops,
                                        bool loop_dims = false) {
  const std::string shape_word = loop_dims ? "loop dimensions " : "shape ";
  iteration_space space;
  for (const operand_layout &op : ops)
    if (!op.is_output) space.rank = op.rank > space.rank ? op.rank : space.rank;
  for (int d = 0; d < space.rank; ++d) space.shape[d] = 1;
  for (const operand_layout &op : ops) {
    if (op.is_output) continue;
    const int offset = space.rank - op.rank;
    for (int d = 0; d < op.rank; ++d) {
      index_t &extent = space.shape[offset + d];
      const index_t e = op.shape[d];
      if (e == extent || e == 1) continue;
      if (extent == 1) {
        extent = e;
        continue;
      }
      // Name every shape involved: the user sees which argument is the odd one out.
      std::string others;
      for (const operand_layout &o : ops)
        if (&o != &op && o.rank > 0 && !o.is_output)
          others += (others.empty() ? "" : ", ") + std::string("argument ") + std::to_string(o.argument) + " " +
                    shape_string(o.shape, o.rank);
      throw argument_error(std::string(callee), op.argument,
                           shape_word + shape_string(op.shape, op.rank) + " cannot be broadcast with " + others);
    }
  }
  for (const operand_layout &op : ops) {
    if (!op.is_output) continue;
    bool fits = op.rank >= space.rank;
    for (int d = 0; fits && d < space.rank; ++d) {
      const index_t e = space.shape[d];
      fits = e == 1 || e == op.shape[op.rank - space.rank + d];
    }
    if (!fits)
      throw argument_error(std::string(callee), op.argument,
                           "output has " + shape_word + shape_string(op.shape, op.rank) +
                               " but the inputs broadcast to " + shape_string(space.shape, space.rank));
    space.rank = op.rank;
    for (int d = 0; d < op.rank; ++d) space.shape[d] = op.shape[d];
  }
  // An output may widen the space past the inputs' (NumPy broadcasts inputs to `out`), but
  // outputs themselves are never broadcast: each has the final shape (leading extents of 1
  // aside, which repeat nothing), or one would be written once per step of another's extra
  // dimensions.
  for (const operand_layout &op : ops) {
    if (!op.is_output) continue;
    bool same = true;
    for (int i = 1; same && i <= (op.rank > space.rank ? op.rank : space.rank); ++i)
      same = (i <= op.rank ? op.shape[op.rank - i] : 1) == (i <= space.rank ? space.shape[space.rank - i] : 1);
    if (!same)
      throw argument_error(std::string(callee), op.argument,
                           "output has " + shape_word + shape_string(op.shape, op.rank) + " but another output has " +
                               shape_string(space.shape, space.rank) + ": the outputs have one shape");
  }
  checked_size(callee, 0, space.shape, space.rank, 1); // the broadcast shape's size fits
  return space;
}

/// The loop an elementwise call runs: `ndim` nested dimensions (innermost last) and, for
/// each of N operands, its stride in elements along each (0 where it is broadcast).
/// Made by plan_loop alone, which sets the first `ndim` of each (the rest are not read).
template <std::size_t N> struct loop_plan {
  int ndim = 1;
  index_t shape[max_dims];
  index_t strides[N][max_dims];
  index_t size() const noexcept {
    index_t n = 1;
    for (int d = 0; d < ndim; ++d) n *= shape[d];
    return n;
  }
  /// True when every operand walks the innermost dimension with stride 0 or 1.
  bool inner_unit_stride() const noexcept {
    for (std::size_t k = 0; k < N; ++k)
      if (strides[k][ndim - 1] != 0 && strides[k][ndim - 1] != 1) return false;
    return true;
  }
};

/// Lays out the operands in `space`, drops extent-1 dimensions and merges neighbours that
/// every operand walks contiguously, so that a C-contiguous call becomes one dimension.
template <std::size_t N>
loop_plan<N> plan_loop(const iteration_space &space, const std::array<operand_layout, N> &ops) {
  index_t shape[max_dims];
  index_t strides[N][max_dims];
  int n = 0;
  for (int d = 0; d < space.rank; ++d) {
    if (space.shape[d] == 1) continue;
    shape[n] = space.shape[d];
    for (std::size_t k = 0; k < N; ++k) {
      const operand_layout &op = ops[k];
      const int od = d - (space.rank - op.rank);
      strides[k][n] = (od < 0 || op.shape[od] == 1) ? 0 : op.strides[od];
    }
    ++n;
  }
  loop_plan<N> plan;
  if (n == 0 || space.size() == 0) {
    plan.ndim = 1;
    plan.shape[0] = space.size();
    for (std::size_t k = 0; k < N; ++k) plan.strides[k][0] = 1;
    return plan;
  }
  plan.ndim = 0;
  for (int d = 0; d < n; ++d) {
    bool merge = plan.ndim > 0;
    for (std::size_t k = 0; merge && k < N; ++k) merge = plan.strides[k][plan.ndim - 1] == strides[k][d] * shape[d];
    if (merge) {
      plan.shape[plan.ndim - 1] *= shape[d];
      for (std::size_t k = 0; k < N; ++k) plan.strides[k][plan.ndim - 1] = strides[k][d];
      continue;
    }
    plan.shape[plan.ndim] = shape[d];
    for (std::size_t k = 0; k < N; ++k) plan.strides[k][plan.ndim] = strides[k][d];
    ++plan.ndim;
  }
  return plan;
}

/// Byte range [lo, hi) an operand touches in `space`.
inline std::pair<std::uintptr_t, std::uintptr_t> memory_extent(const operand_layout &op) {
  auto base = reinterpret_cast<std::uintptr_t>(op.data);
  std::intptr_t lo = 0, hi = 0;
  for (int d = 0; d < op.rank; ++d) {
    if (op.shape[d] == 0) return {base, base};
    const std::intptr_t span = static_cast<std::intptr_t>((op.shape[d] - 1) * op.strides[d]);
    (span < 0 ? lo : hi) += span;
  }
  const auto es = static_cast<std::intptr_t>(op.elem_size);
  return {base + static_cast<std::uintptr_t>(lo * es), base + static_cast<std::uintptr_t>(hi * es + es)};
}

inline strided_bytes bytes_of_layout(const operand_layout &op) noexcept {
  return {op.data, op.elem_size, op.shape, op.strides, static_cast<std::size_t>(op.rank)};
}

// True when `a` and `b` are the same elements visited in the same order over the broadcast
// iteration space: extents of 1 are dropped (they do not move), the rest compared from the
// innermost out, so that a broadcast operand (missing or 1-extent dimensions) differs.
inline bool same_elements(const operand_layout &a, const operand_layout &b) {
  if (a.data != b.data || a.elem_size != b.elem_size) return false;
  int i = a.rank, j = b.rank;
  while (true) {
    while (i > 0 && a.shape[i - 1] == 1) --i;
    while (j > 0 && b.shape[j - 1] == 1) --j;
    if (i == 0 || j == 0) return i == 0 && j == 0;
    --i, --j;
    if (a.shape[i] != b.shape[j] || a.strides[i] != b.strides[j]) return false;
  }
}

/// The overlap rule of every elementwise call (ufuncs and gufuncs, on every target, checked
/// on the user's arrays before anything is staged or written): an output may share memory
/// with an input only when both are accessed elementwise (no gufunc core) and are exactly
/// the same elements in the same order (in-place `f(x, out=x)`); interleaved layouts that
/// share no byte (x[::2] and x[1::2]) do not overlap; any other overlap would read
/// values the loop has already overwritten, or write one element twice, as an output that
/// repeats its own elements (a zero stride) would. Operands in different memories (the host's,
/// a device's) never overlap.
/// `output_owner`: the call whose output it is, where another's argument is checked against it
/// (a fused expression's leaf against the expression's output).
inline void check_overlap(std::string_view callee, std::span<const operand_layout> ops,
                          std::string_view output_owner = {}) {
  for (const operand_layout &out : ops) {
    if (!out.is_output) continue;
    require_distinct_elements(callee, out.argument, out.shape, out.strides, out.rank);
    const auto [olo, ohi] = memory_extent(out);
    if (olo == ohi) continue;
    for (const operand_layout &other : ops) {
      if (&other == &out || other.rank == 0 || other.data == nullptr || other.memory != out.memory) continue;
      const auto [lo, hi] = memory_extent(other);
      if (hi <= olo || ohi <= lo || elements_apart(bytes_of_layout(other), bytes_of_layout(out))) continue;
      const std::string output =
          output_owner.empty() || output_owner == callee
              ? "the output (argument " + std::to_string(out.argument) + ")"
              : "the output of '" + std::string(output_owner) + "' (its argument " + std::to_string(out.argument) + ")";
      if (other.is_output) {
        // Reported once, at the later of the two outputs.
        if (other.argument < out.argument) continue;
        throw argument_error(std::string(callee), other.argument,
                             "shares memory with " + output + "; outputs must not overlap");
      }
      if (other.core_rank > 0 || out.core_rank > 0)
        throw argument_error(std::string(callee), other.argument,
                             "shares memory with " + output +
                                 " and the function reads or writes it as a whole core; pass a copy");
      if (!same_elements(other, out))
        throw argument_error(std::string(callee), other.argument,
                             "shares memory with " + output + " without being the same elements; pass a copy");
    }
  }
}

} // namespace kernel::detail
