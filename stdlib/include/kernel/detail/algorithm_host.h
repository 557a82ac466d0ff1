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

/// Sorts `n` keys (and their positions, when `idx` is not null) stably, by LSD radix on
/// bytes; the digits all keys share are skipped. `parallel`: histograms and scatters of
/// chunks on all cores.
template <class U> void radix_sort_host(U *keys, index_t *idx, index_t n, bool parallel) {
  constexpr int passes = sizeof(U);
  if (n < 2) return;
  if (n <= 64) { // insertion sort: stable, and cheaper than 256 buckets
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
    return;
  }
  std::vector<U> key_buffer(static_cast<std::size_t>(n));
  std::vector<index_t> idx_buffer(idx ? static_cast<std::size_t>(n) : 0);
  U *src = keys, *dst = key_buffer.data();
  index_t *isrc = idx, *idst = idx ? idx_buffer.data() : nullptr;

  const index_t chunk = parallel && n > 4 * algorithm_grain ? std::max<index_t>(algorithm_grain * 4, n / 64) : n;
  const index_t chunks = (n + chunk - 1) / chunk;
  // Every pass's histogram in one read of the keys, per chunk.
  std::vector<std::array<index_t, radix_digits * passes>> counts(static_cast<std::size_t>(chunks));
  maybe_parallel(parallel, chunks, 1, [&](index_t b, index_t e) {
    for (index_t c = b; c < e; ++c) {
      auto &h = counts[static_cast<std::size_t>(c)];
      h.fill(0);
      for (index_t i = c * chunk, end = std::min(n, (c + 1) * chunk); i < end; ++i) {
        const U k = src[i];
        for (int p = 0; p < passes; ++p) ++h[static_cast<std::size_t>(p * radix_digits + ((k >> (8 * p)) & 0xff))];
      }
    }
  });
  for (int p = 0; p < passes; ++p) {
    // Skip a pass whose digit is the same for every key.
    bool trivial = false;
    for (unsigned d = 0; d < radix_digits && !trivial; ++d) {
      index_t total = 0;
      for (const auto &h : counts) total += h[p * radix_digits + d];
      trivial = total == n;
      if (total != 0) break;
    }
    if (trivial) continue;
    // Offsets: by digit, then by chunk, so that equal digits keep their order.
    std::vector<index_t> offset(static_cast<std::size_t>(chunks * radix_digits));
    index_t run = 0;
    for (unsigned d = 0; d < radix_digits; ++d)
      for (index_t c = 0; c < chunks; ++c) {
        offset[static_cast<std::size_t>(c * radix_digits + d)] = run;
        run += counts[static_cast<std::size_t>(c)][p * radix_digits + d];
      }
    const int shift = 8 * p;
    maybe_parallel(parallel, chunks, 1, [&](index_t b, index_t e) {
      for (index_t c = b; c < e; ++c) {
        index_t *o = &offset[static_cast<std::size_t>(c * radix_digits)];
        for (index_t i = c * chunk, end = std::min(n, (c + 1) * chunk); i < end; ++i) {
          const U k = src[i];
          const index_t to = o[(k >> shift) & 0xff]++;
          dst[to] = k;
          if (isrc) idst[to] = isrc[i];
        }
      }
    });
    std::swap(src, dst);
    std::swap(isrc, idst);
  }
  if (src != keys) {
    std::copy(src, src + n, keys);
    if (idx) std::copy(isrc, isrc + n, idx);
  }
}

/// The positions (in the segment) of its elements in the order of `keys`, ties by position:
/// all of them sorted, or, when `take` < len, a partition with the `take` first sorted.
template <class U> void order_positions_host(std::vector<U> &keys, index_t take, index_t *positions, bool parallel) {
  const index_t len = static_cast<index_t>(keys.size());
  std::iota(positions, positions + len, index_t{0});
  if (take >= len) {
    radix_sort_host(keys.data(), positions, len, parallel);
    return;
  }
  const U *k = keys.data();
  const auto before = [k](index_t a, index_t b) { return k[a] < k[b] || (k[a] == k[b] && a < b); };
  std::nth_element(positions, positions + take, positions + len, before);
  std::sort(positions, positions + take, before);
}

/// Sorts the segments of `in` (layout `l`) on the host and writes `out` as sort_device does;
/// `positions`, when not null, receives every segment's order (segment-major, positions in
/// the segment), of which the first `take` of each segment are sorted.
template <class T>
void sort_host(const T *in, const segment_layout &l, key_order order, bool canonical, const sorted_outputs<T> &out,
               index_t take, index_t *positions, bool parallel) {
  using U = typename radix_traits<T>::bits;
  const bool need_positions = positions || out.indices || out.source;
  const auto one = [&](index_t s, bool par) {
    std::vector<U> keys(static_cast<std::size_t>(l.len));
    for (index_t j = 0; j < l.len; ++j) keys[static_cast<std::size_t>(j)] = order_key(in[l.at(s, j)], order, canonical);
    if (!need_positions) {
      radix_sort_host<U>(keys.data(), nullptr, l.len, par);
      for (index_t j = 0; j < l.len; ++j)
        out.values[out.values_layout.at(s, j)] =
            radix_traits<T>::to_value(keys[static_cast<std::size_t>(j)], order == key_order::descending);
      return;
    }
    std::vector<index_t> own;
    index_t *pos = positions ? positions + s * l.len : (own.resize(static_cast<std::size_t>(l.len)), own.data());
    order_positions_host(keys, take, pos, par);
    if (out.values)
      for (index_t j = 0; j < out.values_layout.len; ++j)
        out.values[out.values_layout.at(s, j)] = out.source[out.source_layout.at(s, pos[j])];
    if (out.indices)
      for (index_t j = 0; j < out.indices_layout.len; ++j) out.indices[out.indices_layout.at(s, j)] = pos[j];
  };
  if (l.segments == 1) {
    if (l.len > 0) one(0, parallel);
    return;
  }
  maybe_parallel(parallel, l.segments, std::max<index_t>(1, algorithm_grain / std::max<index_t>(1, l.len)),
                 [&](index_t b, index_t e) {
                   for (index_t s = b; s < e; ++s) one(s, false);
                 });
}

} // namespace kernel::detail
