// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The array algorithms on a device (a GPU or the simulator), from the host: the launches of
// the algorithm entries (algorithm_kernel.h) in order on the call's stream, with their
// temporaries allocated and freed in order on it. Nothing here waits for the device except
// where a size must be known on the host (compaction) or an error must be reported.
#pragma once

#include <bit>
#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "kernel/detail/algorithm_kernel.h"
#include "kernel/detail/algorithm_run.h"

namespace kernel::detail {

inline constexpr plus_t plus_op{};

/// Scans the segments of `lin` into those of `lout` (the same memory is allowed): one launch
/// per level of tiles, each level scanning the tile totals of the level below.
template <auto Op, class S, class T>
void scan_device(const device_call &c, const S *in, T *out, const segment_layout &lin, const segment_layout &lout,
                 std::optional<T> init, bool exclusive) {
  using E = scan_entry<Op, S, T>;
  if (lin.size() == 0) return;
  const index_t tiles = (lin.len + scan_tile<T> - 1) / scan_tile<T>;
  typename E::params p{
      in, out, lin, lout, tiles, nullptr, init ? *init : T{}, init.has_value(), exclusive, scan_mode::scan_tiles};
  if (tiles == 1) {
    launch_tiles<E>(c, lin.segments, p);
    return;
  }
  auto partials = device_temp<T>(c, lin.segments * tiles);
  p.partials = data_of<T>(partials);
  p.mode = scan_mode::reduce_tiles;
  launch_tiles<E>(c, lin.segments * tiles, p);
  const segment_layout carries{lin.segments, tiles, 1};
  scan_device<Op, T, T>(c, p.partials, p.partials, carries, carries, init, true);
  p.mode = scan_mode::scan_tiles;
  launch_tiles<E>(c, lin.segments * tiles, p);
  keep_until_done(c, {partials});
}

/// Radix-sorts `n` keys (and positions, when `idx` is set) stably; with `segments` > 1 the
/// positions' segments (idx / segment_len) are sorted last, so that each segment ends up in
/// order in its own range. The results are in `keys`/`idx` on return (the buffers may have
/// been swapped with temporaries that `keep` then holds).
template <class U>
void radix_sort_device(const device_call &c, U *&keys, index_t *&idx, index_t n, index_t segment_len, index_t segments,
                       std::vector<std::shared_ptr<void>> &keep) {
  using E = radix_entry<U>;
  if (n < 2) return;
  const index_t tiles = (n + radix_tile - 1) / radix_tile;
  auto counts = device_temp<index_t>(c, index_t{radix_digits} * tiles);
  auto key_alt = device_temp<U>(c, n);
  auto idx_alt = idx ? device_temp<index_t>(c, n) : nullptr;
  keep.insert(keep.end(), {counts, key_alt, idx_alt});
  U *other_keys = data_of<U>(key_alt);
  index_t *other_idx = data_of<index_t>(idx_alt);
  const segment_layout all{1, index_t{radix_digits} * tiles, 1};
  const auto pass = [&](int shift, index_t by_segment) {
    typename E::params p{keys,  other_keys,           idx, other_idx, n, tiles, data_of<index_t>(counts), by_segment,
                         shift, radix_mode::histogram};
    launch_tiles<E>(c, tiles, p);
    scan_device<plus_op, index_t, index_t>(c, p.counts, p.counts, all, all, index_t{0}, true);
    p.mode = radix_mode::scatter;
    launch_tiles<E>(c, tiles, p);
    std::swap(keys, other_keys);
    std::swap(idx, other_idx);
  };
  for (unsigned shift = 0; shift < sizeof(U) * 8; shift += radix_bits) pass(static_cast<int>(shift), 0);
  if (segments > 1) {
    const int bits = std::bit_width(static_cast<std::uint64_t>(segments - 1));
    for (int shift = 0; shift < bits; shift += static_cast<int>(radix_bits)) pass(shift, segment_len);
  }
}

/// What a sort on a device writes: the values in order (the keys turned back into values,
/// or, with canonical keys, the values gathered from `source` by position), and each
/// element's position in its segment; each layout's len is how many are taken from the front
/// of each sorted segment.
template <class T> struct sorted_outputs {
  T *values = nullptr;
  segment_layout values_layout;
  const T *source = nullptr;
  segment_layout source_layout;
  index_t *indices = nullptr;
  segment_layout indices_layout;
};

/// Sorts the segments of `in` (layout `l`) in `order` on the device and writes `out`; returns
/// the sorted positions (segment-major, as permute_entry reads them), or null when none were
/// needed.
template <class T>
const index_t *sort_device(const device_call &c, const T *in, const segment_layout &l, key_order order, bool canonical,
                           bool with_positions, const sorted_outputs<T> &out,
                           std::vector<std::shared_ptr<void>> &keep) {
  using U = typename radix_traits<T>::bits;
  const index_t n = l.size();
  if (n == 0) return nullptr;
  with_positions = with_positions || l.segments > 1 || out.indices || out.source;
  auto key_memory = device_temp<U>(c, n);
  auto idx_memory = with_positions ? device_temp<index_t>(c, n) : nullptr;
  keep.insert(keep.end(), {key_memory, idx_memory});
  U *keys = data_of<U>(key_memory);
  index_t *idx = data_of<index_t>(idx_memory);
  launch_over<radix_io_entry<T>>(c, n, {in, nullptr, keys, idx, l, order, canonical, radix_io_mode::to_keys});
  radix_sort_device<U>(c, keys, idx, n, l.len, l.segments, keep);
  if (out.values && !out.source)
    launch_over<radix_io_entry<T>>(
        c, n, {nullptr, out.values, keys, nullptr, out.values_layout, order, 0, radix_io_mode::to_values});
  if (out.values && out.source)
    launch_over<permute_entry<T>>(c, out.values_layout.size(),
                                  {out.source, out.source_layout, idx, l.len, out.values, out.values_layout});
  if (out.indices)
    launch_over<permute_entry<index_t>>(c, out.indices_layout.size(),
                                        {nullptr, l, idx, l.len, out.indices, out.indices_layout});
  return idx;
}

} // namespace kernel::detail
