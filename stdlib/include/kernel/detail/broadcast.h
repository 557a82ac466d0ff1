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

#include "kernel/array.h"
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
  index_t shape[max_dims] = {};
  index_t strides[max_dims] = {}; // elements
  int argument = 0;               // 1-based position in the user's call, for messages
  bool is_output = false;
};

template <class T, std::size_t Rank>
operand_layout layout_of(const array_view<T, Rank> &a, int argument, bool is_output = false) {
  static_assert(Rank <= max_dims, "arrays have at most 32 dimensions");
  operand_layout l;
  l.data = a.data();
  l.elem_size = sizeof(T);
  l.rank = static_cast<int>(Rank);
  for (std::size_t d = 0; d < Rank; ++d) {
    l.shape[d] = a.shape(d);
    l.strides[d] = a.stride(d);
  }
  l.argument = argument;
  l.is_output = is_output;
  return l;
}

/// The shape every operand is broadcast to.
struct iteration_space {
  int rank = 0;
  index_t shape[max_dims] = {};
  index_t size() const noexcept {
    index_t n = 1;
    for (int d = 0; d < rank; ++d) n *= shape[d];
    return n;
  }
};

inline std::string shape_string(const index_t *shape, int rank) {
  std::string s = "(";
  for (int d = 0; d < rank; ++d) {
    if (d) s += ", ";
    s += std::to_string(shape[d]);
  }
  if (rank == 1) s += ",";
  return s + ")";
}

/// Broadcasts the shapes of `ops` (NumPy rules: align on the right, extents equal or 1).
/// An output operand is never stretched: the inputs must broadcast to its shape, which
/// then is the iteration space (it may add leading dimensions, as in NumPy).
inline iteration_space broadcast_shapes(std::string_view callee, std::span<const operand_layout> ops) {
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
                           "shape " + shape_string(op.shape, op.rank) + " cannot be broadcast with " + others);
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
                           "output has shape " + shape_string(op.shape, op.rank) + " but the inputs broadcast to " +
                               shape_string(space.shape, space.rank));
    space.rank = op.rank;
    for (int d = 0; d < op.rank; ++d) space.shape[d] = op.shape[d];
  }
  return space;
}

/// The loop an elementwise call runs: `ndim` nested dimensions (innermost last) and, for
/// each of N operands, its stride in elements along each (0 where it is broadcast).
template <std::size_t N> struct loop_plan {
  int ndim = 1;
  index_t shape[max_dims] = {1};
  index_t strides[N][max_dims] = {};
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

/// Rejects an input that shares memory with the output unless it is exactly the output's
/// elements in the same order (in-place `f(x, out=x)` is safe elementwise; a shifted or
/// broadcast overlap would read values the loop has already overwritten).
template <std::size_t N>
void check_output_aliasing(std::string_view callee, const std::array<operand_layout, N> &ops,
                           const loop_plan<N> &plan) {
  const operand_layout &out = ops[N - 1];
  const auto [olo, ohi] = memory_extent(out);
  if (olo == ohi) return;
  for (std::size_t k = 0; k + 1 < N; ++k) {
    const operand_layout &in = ops[k];
    if (in.rank == 0 || in.data == nullptr) continue;
    const auto [ilo, ihi] = memory_extent(in);
    if (ihi <= olo || ohi <= ilo) continue;
    bool identical = in.data == out.data && in.elem_size == out.elem_size;
    for (int d = 0; identical && d < plan.ndim; ++d) identical = plan.strides[k][d] == plan.strides[N - 1][d];
    if (!identical)
      throw argument_error(std::string(callee), in.argument,
                           "shares memory with the output (argument " + std::to_string(out.argument) +
                               ") without being the same elements; pass a copy");
  }
}

} // namespace kernel::detail
