// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The array algorithms on a device (a GPU or the simulator), from the host: the launches of
// the algorithm entries (algorithm_kernel.h) in order on the call's stream, with their
// temporaries allocated and freed in order on it. Nothing here waits for the device except
// where a size must be known on the host (compaction) or an error must be reported.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "kernel/detail/algorithm_kernel.h"
#include "kernel/detail/algorithm_run.h"
#include "kernel/detail/cub_api.h"

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

/// The longest segments, and the most steps (keys times segment length), that a sort counts
/// each key's place in (rank_sort_entry) instead of sorting by digits.
inline constexpr index_t rank_sort_longest = 1024;
inline constexpr index_t rank_sort_work = index_t{1} << 21;

/// The LSD passes of this library's radix sort over `keys` (and `idx`, moved along): by the
/// keys' digits when `by_segment` is 0, else by the digits of each position's segment
/// (idx / by_segment) below bit `bits`.
template <class U>
void radix_passes(const device_call &c, U *&keys, index_t *&idx, index_t n, index_t by_segment, int bits,
                  std::vector<std::shared_ptr<void>> &keep) {
  using E = radix_entry<U>;
  const index_t tiles = (n + radix_tile - 1) / radix_tile;
  auto counts = device_temp<index_t>(c, index_t{radix_digits} * tiles);
  auto key_alt = device_temp<U>(c, n);
  auto idx_alt = idx ? device_temp<index_t>(c, n) : nullptr;
  keep.insert(keep.end(), {counts, key_alt, idx_alt});
  U *other_keys = data_of<U>(key_alt);
  index_t *other_idx = data_of<index_t>(idx_alt);
  const segment_layout all{1, index_t{radix_digits} * tiles, 1};
  for (int shift = 0; shift < bits; shift += static_cast<int>(radix_bits)) {
    typename E::params p{keys,  other_keys,           idx, other_idx, n, tiles, data_of<index_t>(counts), by_segment,
                         shift, radix_mode::histogram};
    launch_tiles<E>(c, tiles, p);
    scan_device<plus_op, index_t, index_t>(c, p.counts, p.counts, all, all, index_t{0}, true);
    p.mode = radix_mode::scatter;
    launch_tiles<E>(c, tiles, p);
    std::swap(keys, other_keys);
    std::swap(idx, other_idx);
  }
}

/// CUB's radix sort (kernel/detail/cub_api.h) of `n` `Key`s at `*data`, moving `Value`s at
/// `*values` (none when null) with them, by bits [0, end_bit); on return the pointers name
/// the buffers that hold the results (these or scratch that `keep` then holds). False when
/// CUB declines, having changed nothing. Callers ask cub_may_run first, before they prepare
/// anything for it. `name`, the primitive's (a literal), begins CUB's errors.
template <class Key, class Value>
bool radix_sort_cub_device(std::string_view name, const device_call &c, Key *&data, Value *&values, index_t n,
                           int end_bit, std::vector<std::shared_ptr<void>> &keep) {
  auto key_alt = device_temp<Key>(c, n);
  auto value_alt = values ? device_temp<Value>(c, n) : nullptr;
  cub_sort_buffers b;
  b.keys[0] = data;
  b.keys[1] = key_alt.get();
  b.values[0] = values;
  b.values[1] = value_alt.get();
  const int r =
      radix_sort_cub(name.data(), sizeof(Key), values ? sizeof(Value) : 0, b, n, end_bit, *c.device, *c.stream);
  if (r < 0) return false;
  keep.insert(keep.end(), {key_alt, value_alt});
  data = static_cast<Key *>(b.keys[r]);
  values = static_cast<Value *>(b.values[r]);
  return true;
}

/// Radix-sorts `n` keys (and positions, when `idx` is set) stably; with `segments` > 1 the
/// positions' segments (idx / segment_len) are sorted last, so that each segment ends up in
/// order in its own range. The results are in `idx` on return, and in `keys` unless this
/// returns false: CUB sorts the segments by their positions alone (the buffers may have been
/// swapped with temporaries that `keep` then holds).
template <class U>
bool radix_sort_device(std::string_view name, const device_call &c, U *&keys, index_t *&idx, index_t n,
                       index_t segment_len, index_t segments, std::vector<std::shared_ptr<void>> &keep) {
  if (n < 2) return true;
  if (segments < 2) segment_len = n;
  // Short segments, few keys: one pass that counts each key's place (n * segment_len steps in
  // all) instead of launches per digit, whose fixed cost dominates there (on the simulator,
  // 24 ms for 100 keys). One short run on a GPU stays with CUB, whose sort of one tile is one
  // launch too, without the count's n^2 steps.
  if (segment_len <= rank_sort_longest && n * segment_len <= rank_sort_work &&
      (segments > 1 || !cub_may_run(*c.device))) {
    auto key_alt = device_temp<U>(c, n);
    auto idx_alt = idx ? device_temp<index_t>(c, n) : nullptr;
    keep.insert(keep.end(), {key_alt, idx_alt});
    U *const keys_out = data_of<U>(key_alt);
    index_t *const idx_out = data_of<index_t>(idx_alt);
    launch_over<rank_sort_entry<U>>(c, n, {keys, keys_out, idx, idx_out, n, segment_len});
    keys = keys_out;
    if (idx) idx = idx_out;
    return true;
  }
  const int segment_bits = segments > 1 ? std::bit_width(static_cast<std::uint64_t>(segments - 1)) : 0;
  if (cub_may_run(*c.device) && radix_sort_cub_device(name, c, keys, idx, n, int{sizeof(U) * 8}, keep)) {
    if (segments < 2) return true;
    // The segments last, by keys that are the positions' segments.
    auto segment_keys = device_temp<std::uint32_t>(c, n);
    keep.push_back(segment_keys);
    std::uint32_t *by = data_of<std::uint32_t>(segment_keys);
    launch_over<segment_key_entry<std::uint32_t>>(c, n, {idx, by, n, segment_len});
    if (segments - 1 <= 0xffffffff && radix_sort_cub_device(name, c, by, idx, n, segment_bits, keep)) return false;
    radix_passes(c, keys, idx, n, segment_len, segment_bits, keep);
    return true;
  }
  radix_passes(c, keys, idx, n, 0, int{sizeof(U) * 8}, keep);
  if (segments > 1) radix_passes(c, keys, idx, n, segment_len, segment_bits, keep);
  return true;
}

/// Sorts `n` contiguous keys from `in` into `out` (which may be `in`) through CUB, moving the
/// values `values_in` into `values_out` (which may be `values_in`; none when null) with them,
/// stably; the keys' encoding must be one to one (integers, or floats without `canonical`).
/// False when CUB declines: the inputs are then as they were, the outputs may not be.
template <class T, class V>
bool sort_contiguous_cub(std::string_view name, const device_call &c, const T *in, T *out, const V *values_in,
                         V *values_out, index_t n, key_order order, std::vector<std::shared_ptr<void>> &keep) {
  using U = typename radix_traits<T>::bits;
  static_assert(sizeof(V) == 4 || sizeof(V) == 8, "CUB moves values of 4 or 8 bytes");
  if (n < 2 || order == key_order::reversed) return false;
  if (values_in) {
    // CUB moves the values as integers of their size, and the keys' buffers must not be theirs.
    const auto size = static_cast<std::size_t>(n);
    if (reinterpret_cast<std::uintptr_t>(values_in) % sizeof(V) != 0 ||
        reinterpret_cast<std::uintptr_t>(values_out) % sizeof(V) != 0 ||
        memory_overlaps(values_out, size * sizeof(V), out, size * sizeof(T)) ||
        memory_overlaps(values_out, size * sizeof(V), in, size * sizeof(T)) ||
        memory_overlaps(values_in, size * sizeof(V), out, size * sizeof(T)))
      return false;
  }
  if (!cub_may_run(*c.device)) return false;
  const segment_layout all{1, n, 1};
  // Unsigned keys ascending are their own radix keys: CUB sorts them where they are.
  const bool identity = std::is_unsigned_v<T> && order == key_order::ascending;
  std::shared_ptr<void> encoded = identity ? nullptr : device_temp<U>(c, n);
  U *keys = identity ? reinterpret_cast<U *>(out) : data_of<U>(encoded);
  if (identity && in != out) copy_on_device(c, out, in, n);
  if (!identity)
    launch_over<radix_io_entry<T>>(c, n, {in, nullptr, keys, nullptr, all, order, 0, radix_io_mode::to_keys});
  if (values_in && values_in != values_out) copy_on_device(c, values_out, values_in, n);
  U *sorted = keys;
  V *moved = values_in ? values_out : nullptr;
  // Declined after the copies (CUB's runtime could not start): the inputs are as they were.
  if (!radix_sort_cub_device(name, c, sorted, moved, n, int{sizeof(U) * 8}, keep)) return false;
  keep.push_back(encoded);
  if (!identity)
    launch_over<radix_io_entry<T>>(c, n, {nullptr, out, sorted, nullptr, all, order, 0, radix_io_mode::to_values});
  else if (sorted != reinterpret_cast<U *>(out))
    copy_on_device(c, reinterpret_cast<U *>(out), sorted, n);
  if (moved && moved != values_out) copy_on_device(c, values_out, moved, n);
  return true;
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
/// needed. `name` is the calling primitive's (a literal), for errors.
template <class T>
const index_t *sort_device(std::string_view name, const device_call &c, const T *in, const segment_layout &l,
                           key_order order, bool canonical, bool with_positions, const sorted_outputs<T> &out,
                           std::vector<std::shared_ptr<void>> &keep) {
  using U = typename radix_traits<T>::bits;
  const index_t n = l.size();
  if (n == 0) return nullptr;
  // The values alone, of one run, with keys that give back every bit: CUB's sort where it runs.
  const bool values_alone = !with_positions && !out.indices && out.values && !out.source;
  if (values_alone && l.segments == 1 && out.values_layout.segments == 1 && out.values_layout.len == n &&
      out.values_layout.inner == 1 && order != key_order::reversed && (!canonical || !std::is_floating_point_v<T>) &&
      sort_contiguous_cub<T, std::uint32_t>(name, c, in, out.values, nullptr, nullptr, n, order, keep))
    return nullptr;
  with_positions = with_positions || l.segments > 1 || out.indices || out.source;
  auto key_memory = device_temp<U>(c, n);
  auto idx_memory = with_positions ? device_temp<index_t>(c, n) : nullptr;
  keep.insert(keep.end(), {key_memory, idx_memory});
  U *keys = data_of<U>(key_memory);
  index_t *idx = data_of<index_t>(idx_memory);
  launch_over<radix_io_entry<T>>(c, n, {in, nullptr, keys, idx, l, order, canonical, radix_io_mode::to_keys});
  const bool keys_sorted = radix_sort_device<U>(name, c, keys, idx, n, l.len, l.segments, keep);
  if (out.values && !out.source && keys_sorted)
    launch_over<radix_io_entry<T>>(
        c, n, {nullptr, out.values, keys, nullptr, out.values_layout, order, 0, radix_io_mode::to_values});
  if (out.values && !out.source && !keys_sorted) {
    // The values gathered from the input by position; from a copy where the results go over it.
    const T *from = in;
    if (memory_overlaps(in, static_cast<std::size_t>(n) * sizeof(T), out.values,
                        static_cast<std::size_t>(n) * sizeof(T))) {
      auto copy = device_temp<T>(c, n);
      keep.push_back(copy);
      copy_on_device(c, data_of<T>(copy), in, n);
      from = data_of<T>(copy);
    }
    launch_over<permute_entry<T>>(c, out.values_layout.size(), {from, l, idx, l.len, out.values, out.values_layout});
  }
  if (out.values && out.source)
    launch_over<permute_entry<T>>(c, out.values_layout.size(),
                                  {out.source, out.source_layout, idx, l.len, out.values, out.values_layout});
  if (out.indices)
    launch_over<permute_entry<index_t>>(c, out.indices_layout.size(),
                                        {nullptr, l, idx, l.len, out.indices, out.indices_layout});
  return idx;
}

} // namespace kernel::detail
