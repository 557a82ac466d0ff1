// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The array algorithms on the host's cores (targets cpu and parallel), on contiguous
// row-major memory: scans, an LSD radix sort, selection of the k first in an order, and
// their batched forms over the segments of an axis. Results are the same as the device
// versions' (algorithm_device.h) wherever the result is defined uniquely: the same key
// order, ties broken by position.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "kernel/detail/algorithm_device.h"
#include "kernel/detail/algorithm_kernel.h"
#include "kernel/detail/algorithm_run.h"

namespace kernel::detail {

inline constexpr index_t algorithm_grain = index_t{1} << 15;

// ---------------------------------------------------------------------------------------
// Scans

template <auto Op, class T>
void scan_run_host(const T *in, T *out, index_t n, maybe<T> carry, bool exclusive) noexcept {
  for (index_t i = 0; i < n; ++i) {
    const T v = in[i];
    if (exclusive) {
      out[i] = carry.value;
      carry = combine<Op>(carry, maybe<T>{v, true});
    } else {
      carry = combine<Op>(carry, maybe<T>{v, true});
      out[i] = carry.value;
    }
  }
}

/// A scan along the segments of `l` (in and out may be the same memory). One long segment is
/// scanned in three phases on all cores: chunk totals, their scan, the chunks from their carries.
template <auto Op, class T>
void scan_host(const T *in, T *out, const segment_layout &l, std::optional<T> init, bool exclusive, bool parallel) {
  const maybe<T> start{init ? *init : T{}, init.has_value()};
  if (l.size() == 0) return;
  if (l.inner > 1) {
    // Along an axis that is not the last: rows of `inner` running values, one per segment.
    const index_t outer = l.segments / l.inner;
    maybe_parallel(parallel, outer, std::max<index_t>(1, algorithm_grain / (l.len * l.inner)),
                   [&](index_t b, index_t e) {
                     std::vector<maybe<T>> running(static_cast<std::size_t>(l.inner), start);
                     for (index_t o = b; o < e; ++o) {
                       std::fill(running.begin(), running.end(), start);
                       for (index_t j = 0; j < l.len; ++j) {
                         const index_t row = (o * l.len + j) * l.inner;
                         for (index_t i = 0; i < l.inner; ++i) {
                           const T v = in[row + i];
                           maybe<T> &r = running[static_cast<std::size_t>(i)];
                           if (exclusive) {
                             out[row + i] = r.value;
                             r = combine<Op>(r, maybe<T>{v, true});
                           } else {
                             r = combine<Op>(r, maybe<T>{v, true});
                             out[row + i] = r.value;
                           }
                         }
                       }
                     }
                   });
    return;
  }
  if (l.segments > 1 || !parallel || l.len < 4 * algorithm_grain) {
    maybe_parallel(parallel, l.segments, std::max<index_t>(1, algorithm_grain / l.len), [&](index_t b, index_t e) {
      for (index_t s = b; s < e; ++s) scan_run_host<Op>(in + s * l.len, out + s * l.len, l.len, start, exclusive);
    });
    return;
  }
  const index_t chunk = algorithm_grain * 4, chunks = (l.len + chunk - 1) / chunk;
  std::vector<maybe<T>> carry(static_cast<std::size_t>(chunks));
  maybe_parallel(true, chunks, 1, [&](index_t b, index_t e) {
    for (index_t c = b; c < e; ++c) {
      maybe<T> t{T{}, false};
      for (index_t i = c * chunk, end = std::min(l.len, (c + 1) * chunk); i < end; ++i)
        t = combine<Op>(t, maybe<T>{in[i], true});
      carry[static_cast<std::size_t>(c)] = t;
    }
  });
  maybe<T> running = start;
  for (maybe<T> &c : carry) {
    const maybe<T> total = c;
    c = running;
    running = combine<Op>(running, total);
  }
  maybe_parallel(true, chunks, 1, [&](index_t b, index_t e) {
    for (index_t c = b; c < e; ++c) {
      const index_t first = c * chunk;
      scan_run_host<Op>(in + first, out + first, std::min(l.len, first + chunk) - first,
                        carry[static_cast<std::size_t>(c)], exclusive);
    }
  });
}

// ---------------------------------------------------------------------------------------
// Sorting: keys in the order wanted (radix_traits), with their positions carried along

/// Stable insertion sort: for a few keys, cheaper than 256 buckets.
template <class U> void insertion_sort_host(U *keys, index_t *idx, index_t n) noexcept {
  for (index_t i = 1; i < n; ++i) {
    const U k = keys[i];
    const index_t x = idx ? idx[i] : 0;
    index_t j = i;
    for (; j > 0 && keys[j - 1] > k; --j) {
      keys[j] = keys[j - 1];
      if (idx) idx[j] = idx[j - 1];
    }
    keys[j] = k;
    if (idx) idx[j] = x;
  }
}

/// Sorts `n` keys (and positions, when `idx` is not null) stably on their `digits` low bytes,
/// LSD on one core, with `buffer` (and `idx_buffer`) of n as the other half of each pass.
/// Returns whether the result ended in the buffers.
template <class U>
bool lsd_sort_host(U *keys, U *buffer, index_t *idx, index_t *idx_buffer, index_t n, int digits) noexcept {
  if (n <= 64) {
    insertion_sort_host(keys, idx, n);
    return false;
  }
  // Every pass's histogram in one read of the keys.
  std::array<std::array<index_t, radix_digits>, sizeof(U)> counts{};
  for (index_t i = 0; i < n; ++i)
    for (int p = 0; p < digits; ++p) ++counts[static_cast<std::size_t>(p)][(keys[i] >> (8 * p)) & 0xff];
  U *src = keys, *dst = buffer;
  index_t *isrc = idx, *idst = idx_buffer;
  for (int p = 0; p < digits; ++p) {
    auto &c = counts[static_cast<std::size_t>(p)];
    if (c[(src[0] >> (8 * p)) & 0xff] == n) continue; // the same digit in every key
    index_t run = 0;
    for (index_t &x : c) run += std::exchange(x, run);
    const int shift = 8 * p;
    for (index_t i = 0; i < n; ++i) {
      const U k = src[i];
      const index_t to = c[(k >> shift) & 0xff]++;
      dst[to] = k;
      if (isrc) idst[to] = isrc[i];
    }
    std::swap(src, dst);
    std::swap(isrc, idst);
  }
  return src != keys;
}

/// Keys per bucket below which a bucket is sorted by LSD: its passes then stay in the caches.
inline constexpr index_t radix_cached = index_t{1} << 16;

/// Sorts `n` keys (and positions, when `idx` is not null) stably on their bytes up to `top`,
/// with `buffer`/`idx_buffer` of n as scratch: MSD by the highest byte not the same in every
/// key, each bucket the same way until it fits in the caches, then LSD. `parallel`: the
/// scatter in chunks and the buckets on all cores.
template <class U>
void msd_sort_host(U *keys, U *buffer, index_t *idx, index_t *idx_buffer, index_t n, int top, bool parallel) {
  const bool split = parallel && n > 4 * algorithm_grain;
  // The last byte of a long array still scatters in chunks on all cores (below).
  if (n <= radix_cached || (top == 0 && !split)) {
    if (lsd_sort_host(keys, buffer, idx, idx_buffer, n, top + 1)) {
      std::copy(buffer, buffer + n, keys);
      if (idx) std::copy(idx_buffer, idx_buffer + n, idx);
    }
    return;
  }
  const int shift = 8 * top;
  const index_t chunk = split ? std::max<index_t>(algorithm_grain * 4, n / 64) : n;
  const index_t chunks = (n + chunk - 1) / chunk;
  std::vector<std::array<index_t, radix_digits>> counts(static_cast<std::size_t>(chunks));
  maybe_parallel(split, chunks, 1, [&](index_t b, index_t e) {
    for (index_t c = b; c < e; ++c) {
      auto &h = counts[static_cast<std::size_t>(c)];
      h.fill(0);
      for (index_t i = c * chunk, end = std::min(n, (c + 1) * chunk); i < end; ++i) ++h[(keys[i] >> shift) & 0xff];
    }
  });
  // Offsets by digit, then by chunk, so that equal digits keep their order.
  std::array<index_t, radix_digits + 1> start{};
  std::vector<index_t> offset(static_cast<std::size_t>(chunks * radix_digits));
  index_t run = 0;
  for (unsigned d = 0; d < radix_digits; ++d) {
    start[d] = run;
    for (index_t c = 0; c < chunks; ++c) {
      offset[static_cast<std::size_t>(c * radix_digits + d)] = run;
      run += counts[static_cast<std::size_t>(c)][d];
    }
  }
  start[radix_digits] = n;
  if (start[((keys[0] >> shift) & 0xff) + 1] - start[(keys[0] >> shift) & 0xff] == n) {
    if (top > 0) msd_sort_host(keys, buffer, idx, idx_buffer, n, top - 1, parallel);
    return;
  }
  maybe_parallel(split, chunks, 1, [&](index_t b, index_t e) {
    for (index_t c = b; c < e; ++c) {
      index_t *o = &offset[static_cast<std::size_t>(c * radix_digits)];
      for (index_t i = c * chunk, end = std::min(n, (c + 1) * chunk); i < end; ++i) {
        const U k = keys[i];
        const index_t to = o[(k >> shift) & 0xff]++;
        buffer[to] = k;
        if (idx) idx_buffer[to] = idx[i];
      }
    }
  });
  if (top == 0) { // sorted by the last byte: back to `keys`
    maybe_parallel(true, n, algorithm_grain, [&](index_t b, index_t e) {
      std::copy(buffer + b, buffer + e, keys + b);
      if (idx) std::copy(idx_buffer + b, idx_buffer + e, idx + b);
    });
    return;
  }
  // Each bucket sorted in the buffer, with its part of `keys` as scratch, then copied back
  // while it is still in the caches.
  maybe_parallel(parallel, radix_digits, 1, [&](index_t b, index_t e) {
    for (index_t d = b; d < e; ++d) {
      const index_t first = start[static_cast<std::size_t>(d)], m = start[static_cast<std::size_t>(d) + 1] - first;
      if (m == 0) continue;
      msd_sort_host(buffer + first, keys + first, idx ? idx_buffer + first : nullptr, idx ? idx + first : nullptr, m,
                    top - 1, parallel && m > n / 4);
      std::copy(buffer + first, buffer + first + m, keys + first);
      if (idx) std::copy(idx_buffer + first, idx_buffer + first + m, idx + first);
    }
  });
}

/// Sorts `n` keys (and their positions, when `idx` is not null) stably by radix.
template <class U> void radix_sort_host(U *keys, index_t *idx, index_t n, bool parallel) {
  if (n < 2) return;
  if (n <= 64) {
    insertion_sort_host(keys, idx, n);
    return;
  }
  const auto buffer = std::make_unique_for_overwrite<U[]>(static_cast<std::size_t>(n));
  const auto idx_buffer = std::make_unique_for_overwrite<index_t[]>(idx ? static_cast<std::size_t>(n) : 0);
  msd_sort_host(keys, buffer.get(), idx, idx ? idx_buffer.get() : nullptr, n, static_cast<int>(sizeof(U)) - 1,
                parallel);
}

/// A key with its position, ordered by key and then position: selecting on these compares
/// values in place instead of through an index into the keys.
template <class U> struct ranked_key {
  U key;
  index_t pos;
  friend constexpr bool operator<(const ranked_key &a, const ranked_key &b) noexcept {
    return a.key < b.key || (a.key == b.key && a.pos < b.pos);
  }
};

/// The positions of the `take` first keys in order, sorted, in one pass over keys offered by
/// increasing position: candidates below the worst kept so far collect in a buffer that is cut
/// back to `take` whenever it fills, so that the work stays linear in the keys even when each
/// key is a new candidate (sorted input). Callers test `worth_offering` on many keys at once
/// (vectorized) and offer only those.
template <class U> class first_keys {
public:
  explicit first_keys(index_t take)
      : keep_(static_cast<std::size_t>(take)), capacity_(keep_ + std::max<std::size_t>(keep_, 32)) {
    buffer_.reserve(capacity_);
  }

  /// Whether a key at a later position than those offered before may be among the first.
  /// Positions increase, so a key equal to the worst kept never displaces it.
  KERNEL_ALWAYS_INLINE bool worth_offering(U key) const noexcept { return !full_ || key < worst_; }
  /// The key below which worth_offering holds, once the first `take` are known.
  U bound() const noexcept { return full_ ? worst_ : std::numeric_limits<U>::max(); }
  bool full() const noexcept { return full_; }

  void offer(U key, index_t pos) {
    if (!worth_offering(key)) return;
    buffer_.push_back({key, pos});
    if (buffer_.size() == capacity_) cut();
  }

  void positions(index_t *out) {
    if (buffer_.size() > keep_) cut();
    std::sort(buffer_.begin(), buffer_.end());
    for (std::size_t i = 0; i < keep_; ++i) out[i] = buffer_[i].pos;
  }

private:
  void cut() {
    std::nth_element(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(keep_ - 1), buffer_.end());
    buffer_.resize(keep_);
    worst_ = buffer_[keep_ - 1].key;
    full_ = true;
  }

  std::size_t keep_, capacity_;
  std::vector<ranked_key<U>> buffer_;
  U worst_{};
  bool full_ = false;
};

inline constexpr index_t selection_block = 512;

/// The first `take` (0 < take < len) positions of a contiguous segment in the order of its keys.
template <class T>
void select_first_host(const T *in, index_t len, key_order order, bool canonical, index_t take, index_t *positions) {
  using U = typename radix_traits<T>::bits;
  first_keys<U> first(take);
  std::array<U, selection_block> keys;
  for (index_t b = 0; b < len; b += selection_block) {
    const index_t m = std::min(selection_block, len - b);
    U least = std::numeric_limits<U>::max();
    for (index_t i = 0; i < m; ++i) {
      keys[static_cast<std::size_t>(i)] = order_key(in[b + i], order, canonical);
      least = std::min(least, keys[static_cast<std::size_t>(i)]);
    }
    if (first.full() && !first.worth_offering(least)) continue;
    for (index_t i = 0; i < m; ++i) first.offer(keys[static_cast<std::size_t>(i)], b + i);
  }
  first.positions(positions);
}

/// The same for `width` segments side by side (element j of segment c at rows[j * stride + c]),
/// read a row at a time: for an axis that is not the last, each read is of whole cache lines.
template <class T, class Done>
void select_first_host(const T *rows, index_t stride, index_t width, index_t len, key_order order, bool canonical,
                       index_t take, Done &&done) {
  using U = typename radix_traits<T>::bits;
  std::vector<first_keys<U>> first;
  first.reserve(static_cast<std::size_t>(width));
  for (index_t c = 0; c < width; ++c) first.emplace_back(take);
  std::vector<U> keys(static_cast<std::size_t>(width)), bound(static_cast<std::size_t>(width));
  // Rows are far apart: fetch ahead, as the hardware does not across pages.
  constexpr index_t ahead = 8, line = 64 / sizeof(T);
  for (index_t j = 0; j < len; ++j) {
    const T *row = rows + j * stride;
    if (j + ahead < len)
      for (index_t c = 0; c < width; c += line) __builtin_prefetch(row + ahead * stride + c);
    bool any = false;
    for (index_t c = 0; c < width; ++c) {
      const U k = order_key(row[c], order, canonical);
      keys[static_cast<std::size_t>(c)] = k;
      any |= k < bound[static_cast<std::size_t>(c)];
    }
    // Every segment gets a key per row, so all fill up at the same row.
    if (!first[0].full()) {
      for (index_t c = 0; c < width; ++c)
        first[static_cast<std::size_t>(c)].offer(keys[static_cast<std::size_t>(c)], j);
      if (first[0].full())
        for (index_t c = 0; c < width; ++c)
          bound[static_cast<std::size_t>(c)] = first[static_cast<std::size_t>(c)].bound();
    } else if (any) {
      for (index_t c = 0; c < width; ++c)
        if (keys[static_cast<std::size_t>(c)] < bound[static_cast<std::size_t>(c)]) {
          first_keys<U> &f = first[static_cast<std::size_t>(c)];
          f.offer(keys[static_cast<std::size_t>(c)], j);
          bound[static_cast<std::size_t>(c)] = f.bound();
        }
    }
  }
  std::vector<index_t> pos(static_cast<std::size_t>(take));
  for (index_t c = 0; c < width; ++c) {
    first[static_cast<std::size_t>(c)].positions(pos.data());
    done(c, pos.data());
  }
}

/// The positions (in the segment) of its elements in the order of `keys`, ties by position:
/// all of them sorted (take = len), or a partition with the `take` first sorted.
template <class U> void order_positions_host(U *keys, index_t len, index_t take, index_t *positions, bool parallel) {
  if (take >= len) {
    maybe_parallel(parallel, len, algorithm_grain,
                   [&](index_t b, index_t e) { std::iota(positions + b, positions + e, b); });
    radix_sort_host(keys, positions, len, parallel);
    return;
  }
  std::vector<ranked_key<U>> ranked(static_cast<std::size_t>(len));
  for (index_t j = 0; j < len; ++j) ranked[static_cast<std::size_t>(j)] = {keys[static_cast<std::size_t>(j)], j};
  std::nth_element(ranked.begin(), ranked.begin() + take, ranked.end());
  std::sort(ranked.begin(), ranked.begin() + take);
  for (index_t j = 0; j < len; ++j) positions[j] = ranked[static_cast<std::size_t>(j)].pos;
}

/// Sorts the segments of `in` (layout `l`) on the host and writes `out` as sort_device does;
/// `positions`, when not null, receives every segment's order (segment-major, positions in
/// the segment), of which the first `take` of each segment are sorted.
template <class T>
void sort_host(const T *in, const segment_layout &l, key_order order, bool canonical, const sorted_outputs<T> &out,
               index_t take, index_t *positions, bool parallel) {
  using U = typename radix_traits<T>::bits;
  const bool need_positions = positions || out.indices || out.source;
  // Whether positions past the `take` first are wanted (argpartition's whole partition).
  const bool whole =
      positions || (out.values && out.values_layout.len > take) || (out.indices && out.indices_layout.len > take);
  // Selection keeps up to take + max(take, 32) candidates of 16 bytes per segment (64 segments at a time
  // along an inner axis): for a small part of each segment only, else a partition of all.
  const auto few = [](index_t take, index_t len) { return take <= 4096 && take * 8 <= len; };
  const auto write_taken = [&](index_t s, const index_t *pos, bool par = false) {
    if (out.values)
      maybe_parallel(par, out.values_layout.len, algorithm_grain, [&](index_t b, index_t e) {
        for (index_t j = b; j < e; ++j)
          out.values[out.values_layout.at(s, j)] = out.source[out.source_layout.at(s, pos[j])];
      });
    if (out.indices)
      maybe_parallel(par, out.indices_layout.len, algorithm_grain, [&](index_t b, index_t e) {
        for (index_t j = b; j < e; ++j) out.indices[out.indices_layout.at(s, j)] = pos[j];
      });
  };
  const auto one = [&](index_t s, bool par) {
    if (need_positions && !whole && take > 0 && few(take, l.len) && l.inner == 1) {
      // The first few alone: keys made as they are read, no array of all of them.
      std::vector<index_t> pos(static_cast<std::size_t>(take));
      select_first_host(in + s * l.len, l.len, order, canonical, take, pos.data());
      write_taken(s, pos.data());
      return;
    }
    const auto keys = std::make_unique_for_overwrite<U[]>(static_cast<std::size_t>(l.len));
    maybe_parallel(par, l.len, algorithm_grain, [&](index_t b, index_t e) {
      for (index_t j = b; j < e; ++j) keys[static_cast<std::size_t>(j)] = order_key(in[l.at(s, j)], order, canonical);
    });
    if (!need_positions) {
      radix_sort_host<U>(keys.get(), nullptr, l.len, par);
      maybe_parallel(par, l.len, algorithm_grain, [&](index_t b, index_t e) {
        for (index_t j = b; j < e; ++j)
          store_bits(out.values[out.values_layout.at(s, j)],
                     radix_traits<T>::to_bits(keys[static_cast<std::size_t>(j)], order == key_order::descending));
      });
      return;
    }
    std::unique_ptr<index_t[]> own;
    index_t *pos = positions ? positions + s * l.len
                             : (own = std::make_unique_for_overwrite<index_t[]>(static_cast<std::size_t>(l.len))).get();
    order_positions_host(keys.get(), l.len, take, pos, par);
    write_taken(s, pos, par);
  };
  if (l.segments == 1) {
    if (l.len > 0) one(0, parallel);
    return;
  }
  if (need_positions && !whole && take > 0 && few(take, l.len) && l.inner > 1) {
    // Selection along an axis that is not the last: a row at a time for a group of segments
    // next to each other in memory.
    constexpr index_t group = 64;
    const index_t outer = l.segments / l.inner, groups_per_outer = (l.inner + group - 1) / group;
    maybe_parallel(parallel, outer * groups_per_outer, std::max<index_t>(1, algorithm_grain / (l.len * group)),
                   [&](index_t b, index_t e) {
                     for (index_t g = b; g < e; ++g) {
                       const index_t s0 = (g / groups_per_outer) * l.inner + (g % groups_per_outer) * group;
                       const index_t width = std::min(group, (g / groups_per_outer + 1) * l.inner - s0);
                       select_first_host(in + l.at(s0, 0), l.inner, width, l.len, order, canonical, take,
                                         [&](index_t c, const index_t *pos) { write_taken(s0 + c, pos); });
                     }
                   });
    return;
  }
  maybe_parallel(parallel, l.segments, std::max<index_t>(1, algorithm_grain / std::max<index_t>(1, l.len)),
                 [&](index_t b, index_t e) {
                   for (index_t s = b; s < e; ++s) one(s, false);
                 });
}

} // namespace kernel::detail
