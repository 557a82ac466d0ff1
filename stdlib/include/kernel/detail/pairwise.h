// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The order in which the CPU targets combine a reduction's partial results: a balanced tree
// over blocks of reduce_leaf elements, as NumPy's pairwise summation. Folding a million
// float32s one after another loses three digits; a tree loses about log2 of the block count
// roundings. The tree splits a range of blocks at the largest power of two below its count, so
// a run on one core and a run in aligned chunks on many combine the same values in the same
// order: cpu and parallel give the same bits, and so do an array and the fused expression
// that would make it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "kernel/detail/runtime_api.h"
#include "kernel/types.h"

namespace kernel::detail {

/// Elements per leaf of the tree: folded one after another (in lanes where contiguous).
inline constexpr index_t reduce_leaf = 1024;

/// Elements per task of a reduction on target::parallel: whole leaves, a power of two of them.
inline constexpr index_t reduce_chunk = index_t{1} << 15;
static_assert(reduce_chunk % reduce_leaf == 0);

/// The fold of the `m` > 0 contiguous values of one leaf: eight partial results side by side
/// (the loop vectorizes when F does), then the tail. An array's leaves and a fused
/// expression's, mapped into a buffer, are folded by this one function.
template <auto F, class T, class V> T fold_leaf(const V *p, index_t m) {
  constexpr index_t lanes = 8;
  if (m >= 2 * lanes) {
    T acc[lanes];
    for (index_t j = 0; j < lanes; ++j) acc[j] = static_cast<T>(p[j]);
    index_t i = lanes;
    for (; i + lanes <= m; i += lanes)
      for (index_t j = 0; j < lanes; ++j) acc[j] = F(acc[j], static_cast<T>(p[i + j]));
    T r = acc[0];
    for (index_t j = 1; j < lanes; ++j) r = F(r, acc[j]);
    for (; i < m; ++i) r = F(r, static_cast<T>(p[i]));
    return r;
  }
  T r = static_cast<T>(p[0]);
  for (index_t i = 1; i < m; ++i) r = F(r, static_cast<T>(p[i]));
  return r;
}

/// Takes the partial results of consecutive ranges in order, each with its size in leaves
/// (powers of two but for the last), and combines them with F as the balanced tree would:
/// two neighbours of the same size at once, the rest from the right at the end.
template <auto F, class T> class pairwise_combiner {
public:
  void push(const T &value, index_t leaves) {
    values_[size_] = value;
    leaves_[size_] = leaves;
    ++size_;
    while (size_ >= 2 && leaves_[size_ - 2] == leaves_[size_ - 1]) {
      values_[size_ - 2] = F(values_[size_ - 2], values_[size_ - 1]);
      leaves_[size_ - 2] *= 2;
      --size_;
    }
  }

  std::optional<T> result() const {
    if (size_ == 0) return std::nullopt;
    T r = values_[size_ - 1];
    for (int i = size_ - 2; i >= 0; --i) r = F(values_[i], r);
    return r;
  }

private:
  // One entry per power of two of leaves (each size at most once), and the last range's.
  static constexpr int depth = 66;
  T values_[depth];
  index_t leaves_[depth] = {};
  int size_ = 0;
};

/// Leaves in `elements` elements: a range's size for pairwise_combiner::push.
constexpr index_t leaves_in(index_t elements) noexcept { return (elements + reduce_leaf - 1) / reduce_leaf; }

/// A reduction of n values on the host, in the tree's order: `fold_range(begin, end)` folds
/// a range that starts at a leaf (combining its leaves with a pairwise_combiner), into a
/// std::optional<T>. One range on target::cpu; on target::parallel, from two chunks on, tasks
/// fold reduce_chunk values each and their results are combined as the tree combines them,
/// so that both targets give the same bits. Through run_trapping: an integer division by zero
/// in the functions is an arithmetic_error naming `callee`.
template <auto F, class T, class FoldRange>
std::optional<T> fold_by_tree(std::string_view callee, bool parallel, index_t n, const FoldRange &fold_range) {
  if (!parallel || n < 2 * reduce_chunk) {
    struct whole {
      const FoldRange *fold;
      std::optional<T> result;
    } w{&fold_range, std::nullopt};
    run_trapping(
        callee,
        [](void *ctx, index_t b, index_t e) {
          whole &wh = *static_cast<whole *>(ctx);
          wh.result = (*wh.fold)(b, e);
        },
        &w, 0, n);
    return w.result;
  }
  const index_t chunks = (n + reduce_chunk - 1) / reduce_chunk;
  std::vector<std::optional<T>> partial(static_cast<std::size_t>(chunks));
  struct job {
    const FoldRange *fold;
    std::vector<std::optional<T>> *partial;
    index_t n;
  } j{&fold_range, &partial, n};
  loop_trapping(
      callee, true, chunks, 1,
      [](void *ctx, index_t b, index_t e) {
        const job &jb = *static_cast<const job *>(ctx);
        for (index_t c = b; c < e; ++c)
          (*jb.partial)[static_cast<std::size_t>(c)] =
              (*jb.fold)(c * reduce_chunk, std::min(jb.n, (c + 1) * reduce_chunk));
      },
      &j);
  pairwise_combiner<F, T> tree;
  for (index_t c = 0; c < chunks; ++c)
    tree.push(*partial[static_cast<std::size_t>(c)], leaves_in(std::min(reduce_chunk, n - c * reduce_chunk)));
  return tree.result();
}

} // namespace kernel::detail
