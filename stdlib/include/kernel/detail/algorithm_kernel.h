// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The GPU side of the array algorithms (kernel/algorithm.h): block-wide scans, the passes of
// an LSD radix sort, permutations, bounds-checked gathers and scatters, compaction,
// histograms and random fills. Every kernel is an instantiation of algorithm_kernel<E>,
// where E names the work (E::kernel_name), holds its parameter block type (E::params) and
// its body (E::run); the plugin marks each instantiation as an entry (plugin/LibraryEntries),
// so user-defined operators are inlined into the kernel and checked as GPU code.
//
// Every kernel is launched with algorithm_block threads per block (the radix passes use one
// thread per digit value, and the scans' shared arrays are sized for it), except where E
// says otherwise (a nonzero E::block_threads: the compaction's wide tiles).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernel/atomic.h"
#include "kernel/config.h"
#include "kernel/detail/function_traits.h"
#include "kernel/detail/static_text.h"
#include "kernel/intrinsics.h"
#include "kernel/memory.h"
#include "kernel/types.h"

namespace kernel::detail {

/// The GPU entry of algorithm step `E`.
template <class E> void algorithm_kernel(const typename E::params &p) { E::run(p); }

inline constexpr unsigned algorithm_block = 256;
inline constexpr unsigned algorithm_warps = algorithm_block / warpsize;

/// The threads per block of step E's kernel.
template <class E> constexpr unsigned block_threads_of() {
  if constexpr (requires { E::block_threads; })
    return E::block_threads ? E::block_threads : algorithm_block;
  else
    return algorithm_block;
}

/// Where element `j` of segment `s` of an array lies, for segments along one axis of a
/// C-contiguous array of shape [outer, len, inner] (a segment is one (outer, inner) pair).
struct segment_layout {
  index_t segments = 0, len = 0, inner = 1;
  KERNEL_ALWAYS_INLINE constexpr index_t at(index_t s, index_t j) const noexcept {
    return inner == 1 ? s * len + j : (s / inner) * len * inner + s % inner + j * inner;
  }
  constexpr index_t size() const noexcept { return segments * len; }
};

// ---------------------------------------------------------------------------------------
// Names of operators and entries

/// The name of a scan's operator: a [[kernel::reduce]] function's, or a library functor's.
template <auto Op> constexpr std::string_view operator_name() noexcept {
  if constexpr (std::is_pointer_v<decltype(Op)>)
    return function_name<Op>();
  else
    return decltype(Op)::name;
}

template <class T> constexpr ctext type_text() {
  ctext s;
  if constexpr (scalar<T>)
    s += dtype_name(dtype_of<T>);
  else
    s += "struct";
  return s;
}

/// "what<op>(type)" and "what(type)": the names algorithm entries are listed under.
template <class T, auto Op = nullptr> constexpr ctext entry_name(std::string_view what) {
  ctext s;
  s += what;
  if constexpr (!std::is_same_v<decltype(Op), std::nullptr_t>) {
    s += "<";
    s += operator_name<Op>();
    s += ">";
  }
  s += "(";
  s += type_text<T>();
  s += ")";
  return s;
}

/// The operator of a sum: `+` on any arithmetic type, the result in that type.
struct plus_t {
  static constexpr std::string_view name = "plus";
  template <class T> KERNEL_ALWAYS_INLINE constexpr T operator()(T a, T b) const noexcept {
    // Signed sums wrap, as NumPy's do, rather than overflow (undefined behaviour).
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
      return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
    else
      return static_cast<T>(a + b);
  }
};
/// The larger and the smaller of two values, a NaN where either is one (NumPy's maximum and
/// minimum): so the operators stay associative, and a scan gives the same values however it
/// groups them (one core, all cores, tiles on a device).
struct maximum_t {
  static constexpr std::string_view name = "maximum";
  template <class T> KERNEL_ALWAYS_INLINE constexpr T operator()(T a, T b) const noexcept {
    if (a != a) return a;
    if (b != b) return b;
    return a < b ? b : a;
  }
};
struct minimum_t {
  static constexpr std::string_view name = "minimum";
  template <class T> KERNEL_ALWAYS_INLINE constexpr T operator()(T a, T b) const noexcept {
    if (a != a) return a;
    if (b != b) return b;
    return b < a ? b : a;
  }
};

// ---------------------------------------------------------------------------------------
// Scans: values that may be absent (operators need no identity), combined in order

template <class T> struct maybe {
  T value;
  bool have;
};

template <auto Op, class T> KERNEL_ALWAYS_INLINE maybe<T> combine(const maybe<T> &a, const maybe<T> &b) noexcept {
  if (!a.have) return b;
  if (!b.have) return a;
  return {static_cast<T>(Op(a.value, b.value)), true};
}

template <class T> KERNEL_ALWAYS_INLINE maybe<T> shuffle_up(const maybe<T> &x, unsigned delta) noexcept {
  return {shfl_up_sync(full_mask, x.value, delta),
          shfl_up_sync(full_mask, static_cast<std::uint32_t>(x.have), delta) != 0};
}

/// The inclusive scan of a warp's values, in lane order.
template <auto Op, class T> KERNEL_ALWAYS_INLINE maybe<T> warp_inclusive_scan(maybe<T> x) noexcept {
  const unsigned lane = threadIdx.x % warpsize;
  for (unsigned d = 1; d < warpsize; d *= 2) {
    const maybe<T> other = shuffle_up(x, d);
    if (lane >= d) x = combine<Op>(other, x);
  }
  return x;
}

/// The combination of the values of the threads before this one in the block (absent for
/// thread 0), in thread order; `total` becomes the block's combination.
template <auto Op, class T> KERNEL_ALWAYS_INLINE maybe<T> block_exclusive_scan(maybe<T> x, maybe<T> &total) noexcept {
  auto warp_value = shared_array<T, warpsize + 1>();
  auto warp_have = shared_array<std::uint32_t, warpsize + 1>();
  const unsigned lane = threadIdx.x % warpsize, warp = threadIdx.x / warpsize;
  const maybe<T> inclusive = warp_inclusive_scan<Op>(x);
  maybe<T> exclusive = shuffle_up(inclusive, 1);
  if (lane == 0) exclusive.have = false;
  if (lane == warpsize - 1) {
    warp_value[warp] = inclusive.value;
    warp_have[warp] = inclusive.have;
  }
  syncthreads();
  if (warp == 0) {
    maybe<T> w{T{}, false};
    if (lane < algorithm_warps) w = {warp_value[lane], warp_have[lane] != 0};
    const maybe<T> wi = warp_inclusive_scan<Op>(w);
    maybe<T> we = shuffle_up(wi, 1);
    if (lane == 0) we.have = false;
    if (lane < algorithm_warps) {
      warp_value[lane] = we.value;
      warp_have[lane] = we.have;
    }
    if (lane == algorithm_warps - 1) {
      warp_value[warpsize] = wi.value;
      warp_have[warpsize] = wi.have;
    }
  }
  syncthreads();
  const maybe<T> before = combine<Op>(maybe<T>{warp_value[warp], warp_have[warp] != 0}, exclusive);
  total = {warp_value[warpsize], warp_have[warpsize] != 0};
  syncthreads(); // the shared values are read before a next call rewrites them
  return before;
}

/// Items per thread of a scan tile: a tile of a few KB.
template <class T>
inline constexpr unsigned scan_items = sizeof(T) <= 4    ? 8
                                       : sizeof(T) <= 8  ? 4
                                       : sizeof(T) <= 16 ? 2
                                                         : 1;
template <class T> inline constexpr index_t scan_tile = index_t{algorithm_block} * scan_items<T>;

/// Where element j of a tile lies in shared memory: one slot left empty after every 32, so
/// that a warp's threads, each reading its own run of scan_items consecutive elements, read
/// from 32 different banks (unpadded, 4-byte elements eight apart met in every eighth bank).
KERNEL_ALWAYS_INLINE constexpr index_t padded(index_t j) noexcept { return j + j / warpsize; }

enum class scan_mode : std::int32_t { reduce_tiles, scan_tiles };

template <class S, class T> struct scan_params {
  const S *in;
  T *out;
  segment_layout in_layout, out_layout;
  index_t tiles; // per segment
  T *partials;   // reduce_tiles: written, one per tile; scan_tiles: each tile's carry in, or null
  T init;        // the value before each segment's first element, when has_init
  std::int32_t has_init;
  std::int32_t exclusive;
  scan_mode mode;
};

/// One pass of a scan with `Op` over tiles of segments: each block reduces its tile to one
/// partial value, or scans its tile starting from the carry of the tiles before it. A tile is
/// loaded through shared memory (`padded`) so that each thread scans consecutive elements.
template <auto Op, class S, class T> struct scan_entry {
  using params = scan_params<S, T>;
  static constexpr ctext make_name() { return entry_name<T, Op>("scan"); }
  static constexpr auto kernel_name = to_text<&scan_entry::make_name>();
  static constexpr auto kernel_signature = to_text<&scan_entry::make_name>();

  static void run(const params &p) noexcept {
    static_assert(sizeof(T) <= 128, "scan values are at most 128 bytes");
    constexpr unsigned items = scan_items<T>;
    constexpr index_t tile_size = scan_tile<T>;
    auto tile = shared_array<T, padded(tile_size)>();
    const index_t block = blockIdx.x;
    const index_t seg = block / p.tiles, t = block % p.tiles;
    const index_t start = t * tile_size;
    const index_t count = p.in_layout.len - start < tile_size ? p.in_layout.len - start : tile_size;
    const unsigned tid = threadIdx.x;
    for (unsigned k = 0; k < items; ++k) {
      const index_t j = index_t{k} * algorithm_block + tid;
      if (j < count) tile[padded(j)] = static_cast<T>(p.in[p.in_layout.at(seg, start + j)]);
    }
    syncthreads();
    const index_t first = index_t{tid} * items;
    maybe<T> mine{T{}, false};
    for (unsigned k = 0; k < items; ++k)
      if (first + k < count) mine = combine<Op>(mine, maybe<T>{tile[padded(first + k)], true});
    maybe<T> total;
    maybe<T> running = block_exclusive_scan<Op>(mine, total);
    if (p.mode == scan_mode::reduce_tiles) {
      if (tid == 0) p.partials[seg * p.tiles + t] = total.value;
      return;
    }
    maybe<T> carry{p.init, p.has_init != 0};
    if (t > 0 && p.partials) carry = {p.partials[seg * p.tiles + t], true};
    running = combine<Op>(carry, running);
    for (unsigned k = 0; k < items; ++k)
      if (first + k < count) {
        const T v = tile[padded(first + k)];
        if (p.exclusive) {
          tile[padded(first + k)] = running.value;
          running = combine<Op>(running, maybe<T>{v, true});
        } else {
          running = combine<Op>(running, maybe<T>{v, true});
          tile[padded(first + k)] = running.value;
        }
      }
    syncthreads();
    for (unsigned k = 0; k < items; ++k) {
      const index_t j = index_t{k} * algorithm_block + tid;
      if (j < count) p.out[p.out_layout.at(seg, start + j)] = tile[padded(j)];
    }
  }
};

// ---------------------------------------------------------------------------------------
// Radix sort keys: the unsigned integer whose order is the order wanted

template <class T> struct radix_traits {
  // (bool's bits are 0 and 1: its keys, as an unsigned byte's, order false before true.)
  static_assert(std::is_arithmetic_v<T>, "sorted values are bool, integers or floats");
  using bits = std::conditional_t<sizeof(T) == 1, std::uint8_t,
                                  std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                                     std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
  static constexpr bits sign = bits{1} << (sizeof(T) * 8 - 1);
  static constexpr bits all = static_cast<bits>(~bits{0});
  static constexpr bits infinity =
      std::is_floating_point_v<T> ? std::bit_cast<bits>(std::numeric_limits<T>::infinity()) : bits{0};

  /// Floats' keys, ascending: the bits' order made the numbers' (negative values complemented,
  /// positive ones with the sign set), then moved down by `lowest`, the key -inf had, so that
  /// the numbers' keys are 0 (-inf) to `span` (+inf) and every NaN's lies above them (positive
  /// NaNs, then the negative ones, which wrap around from below). One key per bit pattern, so
  /// to_bits gives back every bit of a NaN too.
  static constexpr bits lowest = static_cast<bits>(sign - 1 - infinity);
  static constexpr bits span = static_cast<bits>(2 * infinity + 1);

  /// The key of a value of bits `b`: ascending, or descending, with NaNs last either way (as
  /// NumPy sorts). With `canonical` -0.0 and +0.0 get one key, and so do all NaNs, so that a
  /// stable sort keeps their order; without it they stay distinguishable. Callers read the
  /// bits from memory as an integer (bits_of): a float read as a float and masked may become
  /// a fabs, which on a GPU (abs.f32) turns every NaN into one.
  static KERNEL_ALWAYS_INLINE bits to_key(bits b, bool descending, bool canonical) noexcept {
    if constexpr (std::is_floating_point_v<T>) {
      const bool nan = static_cast<bits>(b & ~sign) > infinity;
      if (nan && canonical) return all;
      if (canonical && static_cast<bits>(b & ~sign) == 0) b = 0;
      const bits k = static_cast<bits>(((b & sign) ? static_cast<bits>(~b) : static_cast<bits>(b | sign)) - lowest);
      return descending && !nan ? static_cast<bits>(span - k) : k;
    } else {
      if constexpr (std::is_signed_v<T>) b = static_cast<bits>(b ^ sign);
      return descending ? static_cast<bits>(~b) : b;
    }
  }
  /// The bits of the value whose key (not canonical) is `key`.
  static KERNEL_ALWAYS_INLINE bits to_bits(bits key, bool descending) noexcept {
    if constexpr (std::is_floating_point_v<T>) {
      if (descending && key <= span) key = static_cast<bits>(span - key);
      const bits u = static_cast<bits>(key + lowest);
      return (u & sign) ? static_cast<bits>(u & ~sign) : static_cast<bits>(~u);
    } else {
      bits b = descending ? static_cast<bits>(~key) : key;
      if constexpr (std::is_signed_v<T>) b = static_cast<bits>(b ^ sign);
      return b;
    }
  }
};

/// The bits of *p, read from memory as an integer (see radix_traits::to_key).
template <class T> KERNEL_ALWAYS_INLINE typename radix_traits<T>::bits bits_of(const T &v) noexcept {
  typename radix_traits<T>::bits b;
  __builtin_memcpy(&b, &v, sizeof b);
  return b;
}
/// Writes the bits `b` to *p as an integer.
template <class T> KERNEL_ALWAYS_INLINE void store_bits(T &to, typename radix_traits<T>::bits b) noexcept {
  __builtin_memcpy(&to, &b, sizeof b);
}

enum class key_order : std::int32_t {
  ascending,  // NaNs last
  descending, // NaNs last
  reversed    // the reverse of ascending: NaNs first (the k largest, as NumPy's order sees them)
};

/// The key of the value `v` in memory.
template <class T>
KERNEL_ALWAYS_INLINE typename radix_traits<T>::bits order_key(const T &v, key_order order, bool canonical) noexcept {
  if (order == key_order::reversed)
    return static_cast<typename radix_traits<T>::bits>(~radix_traits<T>::to_key(bits_of(v), false, canonical));
  return radix_traits<T>::to_key(bits_of(v), order == key_order::descending, canonical);
}

inline constexpr unsigned radix_bits = 8;
inline constexpr unsigned radix_digits = 1u << radix_bits;
static_assert(radix_digits == algorithm_block, "a radix pass uses one thread per digit");
inline constexpr index_t radix_tile = index_t{algorithm_block} * 16;

enum class radix_mode : std::int32_t { histogram, scatter };

template <class U> struct radix_params {
  const U *keys_in;
  U *keys_out;
  const index_t *idx_in; // the elements' positions, carried along; null for keys alone
  index_t *idx_out;
  index_t n, tiles;
  index_t *counts;     // [digit][tile]: the histogram pass writes counts, the scatter pass reads offsets
  index_t segment_len; // > 0: the digits are of the segment (idx / segment_len), not of the key
  std::int32_t shift;
  radix_mode mode;
};

/// One pass of a stable LSD radix sort on `radix_bits` bits: per tile, a histogram of the
/// digits, or (once the histograms are scanned into offsets) the scatter of the tile's
/// elements to their places, ranked within each warp with match_any and across the warps
/// through shared counts.
template <class U> struct radix_entry {
  using params = radix_params<U>;
  static constexpr ctext make_name() {
    ctext s;
    s += "radix_sort_pass(uint";
    s += sizeof(U) == 1 ? "8" : sizeof(U) == 2 ? "16" : sizeof(U) == 4 ? "32" : "64";
    s += ")";
    return s;
  }
  static constexpr auto kernel_name = to_text<&radix_entry::make_name>();
  static constexpr auto kernel_signature = to_text<&radix_entry::make_name>();

  static KERNEL_ALWAYS_INLINE unsigned digit(const params &p, index_t i) noexcept {
    if (p.segment_len > 0) return static_cast<unsigned>((p.idx_in[i] / p.segment_len) >> p.shift) & (radix_digits - 1);
    return static_cast<unsigned>(p.keys_in[i] >> p.shift) & (radix_digits - 1);
  }

  static void run(const params &p) noexcept {
    const index_t tile = blockIdx.x;
    const index_t start = tile * radix_tile;
    const index_t count = p.n - start < radix_tile ? p.n - start : radix_tile;
    const unsigned tid = threadIdx.x;
    if (p.mode == radix_mode::histogram) {
      auto hist = shared_array<std::uint32_t, radix_digits>();
      hist[tid] = 0;
      syncthreads();
      for (index_t j = tid; j < count; j += algorithm_block) atomic_add(hist[digit(p, start + j)], 1u);
      syncthreads();
      p.counts[index_t{tid} * p.tiles + tile] = hist[tid];
      return;
    }
    auto base = shared_array<index_t, radix_digits>();
    auto warp_counts = shared_array<std::uint32_t, algorithm_warps, radix_digits>();
    base[tid] = p.counts[index_t{tid} * p.tiles + tile];
    const unsigned warp = tid / warpsize;
    for (index_t chunk = 0; chunk < count; chunk += algorithm_block) {
      for (unsigned w = 0; w < algorithm_warps; ++w) warp_counts(w, tid) = 0;
      syncthreads();
      const index_t j = chunk + tid;
      const bool in = j < count;
      const unsigned d = in ? digit(p, start + j) : radix_digits; // a digit no element has
      const std::uint32_t peers = match_any_sync(full_mask, d);
      const std::uint32_t rank = static_cast<std::uint32_t>(__builtin_popcount(peers & lanemask_lt()));
      if (in && rank == 0) warp_counts(warp, d) = static_cast<std::uint32_t>(__builtin_popcount(peers));
      syncthreads();
      std::uint32_t run = 0;
      for (unsigned w = 0; w < algorithm_warps; ++w) {
        const std::uint32_t c = warp_counts(w, tid);
        warp_counts(w, tid) = run;
        run += c;
      }
      syncthreads();
      if (in) {
        const index_t to = base[d] + warp_counts(warp, d) + rank;
        p.keys_out[to] = p.keys_in[start + j];
        if (p.idx_out) p.idx_out[to] = p.idx_in[start + j];
      }
      syncthreads();
      base[tid] += run;
    }
  }
};

enum class radix_io_mode : std::int32_t { to_keys, to_values };

template <class T> struct radix_io_params {
  const T *in;
  T *out;
  typename radix_traits<T>::bits *keys;
  index_t *idx;          // to_keys: filled with 0, 1, ... when not null
  segment_layout layout; // of `in` (to_keys) or `out` (to_values)
  key_order order;
  std::int32_t canonical;
  radix_io_mode mode;
};

/// Values to radix keys (gathering the segments into consecutive runs), and keys back to
/// values.
template <class T> struct radix_io_entry {
  using params = radix_io_params<T>;
  static constexpr ctext make_name() { return entry_name<T>("radix_keys"); }
  static constexpr auto kernel_name = to_text<&radix_io_entry::make_name>();
  static constexpr auto kernel_signature = to_text<&radix_io_entry::make_name>();
  static void run(const params &p) noexcept {
    const index_t n = p.layout.size(), len = p.layout.len;
    for (index_t i = grid<1>(); i < n; i += gridsize<1>()) {
      const index_t at = p.layout.at(i / len, i % len);
      if (p.mode == radix_io_mode::to_keys) {
        p.keys[i] = order_key(p.in[at], p.order, p.canonical != 0);
        if (p.idx) p.idx[i] = i;
      } else {
        store_bits(p.out[at], radix_traits<T>::to_bits(p.keys[i], p.order == key_order::descending));
      }
    }
  }
};

template <class K> struct segment_key_params {
  const index_t *idx;
  K *keys;
  index_t n, segment_len;
};

/// keys[i] = the segment of position idx[i]: what CUB sorts by to put the segments last.
template <class K> struct segment_key_entry {
  using params = segment_key_params<K>;
  static constexpr ctext make_name() { return entry_name<K>("segment_keys"); }
  static constexpr auto kernel_name = to_text<&segment_key_entry::make_name>();
  static constexpr auto kernel_signature = to_text<&segment_key_entry::make_name>();
  static void run(const params &p) noexcept {
    for (index_t i = grid<1>(); i < p.n; i += gridsize<1>()) p.keys[i] = static_cast<K>(p.idx[i] / p.segment_len);
  }
};

/// A short sort in one pass: each key's place in its segment (the `segment_len` positions
/// from a multiple of it) counted directly, the keys below it and the equal ones before it,
/// so that equal keys keep their order; positions, where given, move with the keys. For short
/// segments, one launch instead of a radix sort's three per digit (radix_sort_device chooses).
template <class U> struct rank_sort_params {
  const U *keys;
  U *keys_out;
  const index_t *idx; // null: keys alone
  index_t *idx_out;
  index_t n, segment_len;
};

template <class U> struct rank_sort_entry {
  using params = rank_sort_params<U>;
  static constexpr ctext make_name() { return entry_name<U>("rank_sort"); }
  static constexpr auto kernel_name = to_text<&rank_sort_entry::make_name>();
  static constexpr auto kernel_signature = to_text<&rank_sort_entry::make_name>();
  static void run(const params &p) noexcept {
    for (index_t i = grid<1>(); i < p.n; i += gridsize<1>()) {
      const index_t start = i / p.segment_len * p.segment_len;
      const index_t end = start + p.segment_len < p.n ? start + p.segment_len : p.n;
      const U key = p.keys[i];
      index_t rank = 0;
      for (index_t j = start; j < end; ++j) rank += p.keys[j] < key || (p.keys[j] == key && j < i);
      p.keys_out[start + rank] = key;
      if (p.idx) p.idx_out[start + rank] = p.idx[i];
    }
  }
};

/// The largest k that top_k_entry keeps per thread.
inline constexpr index_t top_k_most = 32;

template <class T> struct top_k_params {
  const T *in;
  segment_layout from; // of in
  index_t k;           // 1 to top_k_most
  key_order order;
  T *values;
  index_t *indices;
  segment_layout to; // of values and indices: len k
};

/// The first k of each segment in `order` (canonical keys, ties in the order of their
/// positions: where a stable sort puts them), one thread per segment keeping its k best in
/// order, eight elements loaded a trip: one pass over the data as it lies (the threads of a
/// column-wise top-k read rows side by side), where a sort moves every element several times.
template <class T> struct top_k_entry {
  using params = top_k_params<T>;
  using U = typename radix_traits<T>::bits;
  static constexpr ctext make_name() { return entry_name<T>("top_k"); }
  static constexpr auto kernel_name = to_text<&top_k_entry::make_name>();
  static constexpr auto kernel_signature = to_text<&top_k_entry::make_name>();
  static constexpr index_t unroll = 8;

  static void run(const params &p) noexcept {
    for (index_t s = grid<1>(); s < p.from.segments; s += gridsize<1>()) {
      U keys[top_k_most];
      index_t at[top_k_most];
      index_t kept = 0;
      const auto offer = [&](U key, index_t j) {
        // Not better than the worst kept: an equal key comes after it, as its position does.
        if (kept == p.k && !(key < keys[kept - 1])) return;
        index_t r = kept < p.k ? kept++ : kept - 1;
        for (; r > 0 && key < keys[r - 1]; --r) {
          keys[r] = keys[r - 1];
          at[r] = at[r - 1];
        }
        keys[r] = key;
        at[r] = j;
      };
      index_t j = 0;
      for (; j + unroll <= p.from.len; j += unroll) {
        U chunk[unroll];
        for (index_t u = 0; u < unroll; ++u) chunk[u] = order_key(p.in[p.from.at(s, j + u)], p.order, true);
        for (index_t u = 0; u < unroll; ++u) offer(chunk[u], j + u);
      }
      for (; j < p.from.len; ++j) offer(order_key(p.in[p.from.at(s, j)], p.order, true), j);
      for (index_t r = 0; r < p.k; ++r) {
        store_bits(p.values[p.to.at(s, r)], bits_of(p.in[p.from.at(s, at[r])]));
        p.indices[p.to.at(s, r)] = at[r];
      }
    }
  }
};

template <class V> struct permute_params {
  const V *src;         // null: write each element's position in its segment instead
  segment_layout from;  // of src
  const index_t *order; // per segment, the sorted positions (global, segment-major)
  index_t order_len;    // positions per segment in `order`
  V *dst;
  segment_layout to; // of dst: its len is the number taken from the front of each segment
};

/// dst[s, j] = src[s, order[s, j]] for the first `to.len` positions of each segment.
template <class V> struct permute_entry {
  using params = permute_params<V>;
  static constexpr ctext make_name() { return entry_name<V>("permute"); }
  static constexpr auto kernel_name = to_text<&permute_entry::make_name>();
  static constexpr auto kernel_signature = to_text<&permute_entry::make_name>();
  static void run(const params &p) noexcept {
    const index_t n = p.to.size(), take = p.to.len;
    for (index_t i = grid<1>(); i < n; i += gridsize<1>()) {
      const index_t s = i / take, j = i % take;
      const index_t local = p.order[s * p.order_len + j] - s * p.order_len;
      // Positions are written only by the integer instantiations (argsort's): a value type
      // need not convert from an integer (std::array, a struct of arrays).
      if constexpr (std::is_constructible_v<V, index_t>) {
        if (!p.src) {
          p.dst[p.to.at(s, j)] = static_cast<V>(local);
          continue;
        }
      }
      p.dst[p.to.at(s, j)] = p.src[p.from.at(s, local)];
    }
  }
};

template <class V, std::size_t R> struct strided_copy_params {
  const V *src;
  V *dst;
  index_t n;
  index_t shape[R];
  index_t src_strides[R]; // elements
  index_t dst_strides[R];
};

/// dst = src element by element, in row-major order of `shape`, either side strided: strided
/// device views in and out of the algorithms' contiguous memory.
template <class V, std::size_t R> struct strided_copy_entry {
  using params = strided_copy_params<V, R>;
  static constexpr ctext make_name() { return entry_name<V>("strided_copy"); }
  static constexpr auto kernel_name = to_text<&strided_copy_entry::make_name>();
  static constexpr auto kernel_signature = to_text<&strided_copy_entry::make_name>();
  static void run(const params &p) noexcept {
    for (index_t i = grid<1>(); i < p.n; i += gridsize<1>()) {
      index_t rest = i, from = 0, to = 0;
      for (std::size_t d = R; d-- > 0;) {
        const index_t at = rest % p.shape[d];
        rest /= p.shape[d];
        from += at * p.src_strides[d];
        to += at * p.dst_strides[d];
      }
      p.dst[to] = p.src[from];
    }
  }
};

// ---------------------------------------------------------------------------------------
// Gathers and scatters with index arrays, checked on the device

/// Index `i` of an array of `extent` elements, a negative one counting from the end (as
/// NumPy's), or -1 where it is out of range. An unsigned index is never negative, however
/// large.
template <class I> KERNEL_ALWAYS_INLINE index_t resolved_index(I i, index_t extent) noexcept {
  if constexpr (std::is_unsigned_v<I>) {
    return static_cast<std::uint64_t>(i) < static_cast<std::uint64_t>(extent) ? static_cast<index_t>(i) : -1;
  } else {
    index_t at = static_cast<index_t>(i);
    if (at < 0) at += extent;
    return at >= 0 && at < extent ? at : -1;
  }
}

template <class V, class I> struct index_params {
  const V *src;
  V *dst;
  const I *index;
  index_t count;        // indices
  index_t extent;       // elements of the indexed array: indices are in [-extent, extent)
  index_t *bad;         // the lowest position of an index out of range; count when all are in
  std::int32_t scatter; // dst[index[i]] = src[i]; else dst[i] = src[index[i]]
  std::int32_t check_only;
  std::int32_t checked; // a check_only launch ran first: write nothing if it found a bad index
};

/// take/put: a thread per index. An index out of range is recorded (the lowest such
/// position, with atomic_min) and nothing is written for it; a scatter, and a gather into the
/// caller's array, run in two launches, a check and then the writes, which do nothing once
/// any index was found out of range, so that a rejected call leaves its destination as it was.
template <class V, class I> struct index_entry {
  using params = index_params<V, I>;
  static constexpr ctext make_name() { return entry_name<V>("take_put"); }
  static constexpr auto kernel_name = to_text<&index_entry::make_name>();
  static constexpr auto kernel_signature = to_text<&index_entry::make_name>();
  static void run(const params &p) noexcept {
    if (!p.check_only && p.checked && *p.bad != p.count) return;
    for (index_t i = grid<1>(); i < p.count; i += gridsize<1>()) {
      const index_t at = resolved_index(p.index[i], p.extent);
      if (at < 0) {
        atomic_min(*p.bad, i);
        continue;
      }
      if (p.check_only) continue;
      if (p.scatter)
        p.dst[at] = p.src[i];
      else
        p.dst[i] = p.src[at];
    }
  }
};

// ---------------------------------------------------------------------------------------
// Compaction: keep the flagged elements, in order

// A tile's look-back waits several round trips to memory (for the tiles before it to publish)
// while its block idles: at 4096 elements a tile (256 threads, 16 each) blocks waited at the
// barrier after it for a third of a single pass on an H200 (Nsight Compute's stall sampling).
// Larger tiles wait less often per element: select_if of 2^28 float32 by a predicate took
// 0.90 ms in tiles of 4096, 0.84 in tiles of 8192 (512 threads, 16 each) and 0.79 in tiles of
// 16384 (512 threads, 32 each, 64 registers: two blocks a multiprocessor). Those wide tiles
// are where a predicate decides over values of at most 4 bytes. Flags (a mask, or a predicate
// evaluated apart) take registers of their own and wider values twice as many: in blocks of
// 512 those spilled on sm_75 (128 registers at most), so they keep tiles of 4096 (256 threads,
// 16 each, unbounded). All flag-driven compactions share that tile size: their positions are
// counted by the entry over the flags' bytes (positions_of).
template <class V, bool ByPredicate> inline constexpr bool compact_wide = ByPredicate && sizeof(V) <= 4;

enum class compact_mode : std::int32_t { count, scatter, select };

template <class V> struct compact_params {
  const V *src;              // null: write the kept elements' positions instead
  const std::uint8_t *flags; // 1 to keep; null: the entry's predicate of src decides
  index_t n, tiles;
  index_t *offsets;        // [tiles + 1]: count writes each tile's count (and 0 last); scatter
                           // reads their exclusive scan, the total last
  V *dst;                  // scatter, select (room for n)
  std::int32_t rest_after; // also write the elements not kept, after the kept ones (a stable partition)
  compact_mode mode;
  std::uint64_t *tile_states; // select: a word per tile (tile_state), then the total kept; all zero
                              // before the launch
};

/// A tile's word in a single-pass compaction: its kept count alone (aggregate), or with all
/// the tiles' before it (inclusive), in the low 62 bits; zero until the tile publishes. One
/// word, written and read atomically, so that a reader never sees a status without its count
/// (no fence between them, which the simulator's race checks could not follow either).
namespace tile_state {
inline constexpr unsigned status_shift = 62;
inline constexpr std::uint64_t aggregate = std::uint64_t{1} << status_shift;
inline constexpr std::uint64_t inclusive = std::uint64_t{2} << status_shift;
inline constexpr std::uint64_t count_mask = aggregate - 1;
} // namespace tile_state

/// The kept elements of the tiles before `tile`, by decoupled look-back (Merrill and Garland,
/// 2016): the tile publishes its own count at once, then warp 0 reads the words of the 32
/// tiles before it, waits while any is unpublished, and adds counts back to the nearest
/// inclusive word (32 more tiles at a time when there is none); the tile then publishes its
/// inclusive count. A tile waits only for tiles of lower blockIdx, whose blocks started first
/// and wait for nothing later: a GPU starts a grid's blocks in that order (CUB's single-pass
/// scans rely on it too), and the simulator's cores take them from one counter in that order,
/// each running its block to the end. (A ticket per block, taken with an atomic before the
/// tile's loads, ordered the tiles without that assumption; it cost under 1% on an H200.)
/// Called by every lane of warp 0, which all get it.
KERNEL_ALWAYS_INLINE index_t kept_before_tile(std::uint64_t *states, index_t tile, std::uint64_t kept) noexcept {
  using namespace tile_state;
  const unsigned lane = threadIdx.x % warpsize;
  if (tile == 0) {
    if (lane == 0) __atomic_store_n(&states[0], inclusive | kept, __ATOMIC_RELAXED);
    return 0;
  }
  if (lane == 0) __atomic_store_n(&states[tile], aggregate | kept, __ATOMIC_RELAXED);
  std::uint64_t before = 0;
  for (index_t last = tile - 1;; last -= warpsize) {
    const index_t at = last - static_cast<index_t>(lane);
    std::uint64_t word;
    // No back-off (kernel::nanosleep) while a tile is unpublished: pauses of 32 ns to 4 us,
    // fixed or doubling, changed nothing on an H200.
    do word = at >= 0 ? __atomic_load_n(&states[at], __ATOMIC_RELAXED) : inclusive; // none before tile 0
    while (any_sync(full_mask, (word >> status_shift) == 0));
    const std::uint32_t complete = ballot_sync(full_mask, (word & inclusive) != 0);
    // The lanes up to the nearest inclusive word (lane 0 reads the nearest tile).
    std::uint64_t share =
        complete == 0 || lane <= static_cast<unsigned>(__builtin_ctz(complete)) ? word & count_mask : 0;
    for (unsigned d = warpsize / 2; d > 0; d /= 2) share += shfl_xor_sync(full_mask, share, static_cast<int>(d));
    before += share;
    if (complete != 0) break;
  }
  if (lane == 0) __atomic_store_n(&states[tile], inclusive | (before + kept), __ATOMIC_RELAXED);
  return static_cast<index_t>(before);
}

/// Compaction by tiles of tile_size elements, thread t of a tile taking elements t,
/// t + threads, ... of it (loads of a warp side by side): `count` counts each tile's
/// kept elements; once those are scanned into offsets, `scatter` writes each kept element
/// to its tile's offset plus the number kept before it in the tile (ballots per warp and
/// round, scanned in the block). Reads the data twice and writes only what is kept; no
/// position per element is stored. `select` does both in one pass, where the result's size
/// need not be known first: each tile finds its offset from the tiles before it
/// (kept_before_tile) and writes into room for every element. (Gathering a tile's kept values
/// in shared memory first, so that each warp stores whole lines as CUB's two-phase scatter
/// does, changed nothing on an H200: the stores are not what holds the pass back.) `Pred`, a
/// [[kernel::vectorize]] function of a V (or of a type a V converts to), decides in place of
/// the flags when given: the predicate evaluated where the values are read.
template <class V, auto Pred = nullptr> struct compact_entry {
  using params = compact_params<V>;
  static constexpr ctext make_name() { return entry_name<V, Pred>("compact"); }
  static constexpr auto kernel_name = to_text<&compact_entry::make_name>();
  static constexpr auto kernel_signature = to_text<&compact_entry::make_name>();

  static constexpr bool by_predicate = !std::is_same_v<decltype(Pred), std::nullptr_t>;
  static constexpr bool wide = compact_wide<V, by_predicate>;
  static constexpr unsigned threads = wide ? 512 : algorithm_block, warps = threads / warpsize;
  static constexpr unsigned items = wide ? 32 : 16; // per thread and tile
  static constexpr index_t tile_size = index_t{threads} * items;
  static_assert(items <= 32, "a thread's kept elements are the bits of a 32-bit word");
  // Wide tiles: two blocks of 512 a multiprocessor, so that ptxas keeps a thread's registers
  // to 64 (the plugin gives the kernel PTX's .maxntid and .minnctapersm); 0: the default block.
  static constexpr unsigned block_threads = wide ? threads : 0;
  static constexpr unsigned blocks_per_sm = wide ? 2 : 0;
  // Values of at most 8 bytes stay in registers from the first read to the write.
  static constexpr bool values_held = sizeof(V) <= 8;

  static void run(const params &p) noexcept {
    const unsigned tid = threadIdx.x, lane = tid % warpsize, warp = tid / warpsize;
    const bool single_pass = p.mode == compact_mode::select;
    // Read once, here, and used throughout: a load of p.n left next to the choice of `total`
    // below became a load from a choice between the addresses of p.n and of an offset, which
    // takes the whole parameter block out of the parameter space (tests/example_ptx_test.sh).
    const index_t n = p.n;
    auto kept_before = shared_array<index_t, 1>(); // select: the kept elements of the tiles before
    const index_t tile = index_t{blockIdx.x}, start = tile * tile_size;
    const bool scatter = p.mode != compact_mode::count;
    std::uint32_t mine = 0; // bit j: this thread's element of round j is kept
    V held[items];
    if (start + tile_size <= n) {
      // A whole tile: every load issued before any is used (one at a time, each behind its
      // bounds check and predicate, the passes read at a third of memory speed).
      // Unrolled by request: a predicate of some size (a conversion to double and a remainder)
      // takes the loops past the unroller's own limit, and `held` to local memory.
      if constexpr (by_predicate) {
        KERNEL_UNROLL
        for (unsigned j = 0; j < items; ++j) held[j] = p.src[start + index_t{j} * threads + tid];
        KERNEL_UNROLL
        for (unsigned j = 0; j < items; ++j)
          if (static_cast<bool>(Pred(held[j]))) mine |= 1u << j;
      } else {
        std::uint8_t f[items];
        KERNEL_UNROLL
        for (unsigned j = 0; j < items; ++j) f[j] = p.flags[start + index_t{j} * threads + tid];
        if (values_held && scatter && p.src) {
          KERNEL_UNROLL
          for (unsigned j = 0; j < items; ++j) held[j] = p.src[start + index_t{j} * threads + tid];
        }
        KERNEL_UNROLL
        for (unsigned j = 0; j < items; ++j)
          if (f[j] != 0) mine |= 1u << j;
      }
    } else {
      // Unrolled, as every loop over held and ballots: indexed by a variable, they would live
      // in local memory instead of registers.
      KERNEL_UNROLL
      for (unsigned j = 0; j < items; ++j) {
        const index_t i = start + index_t{j} * threads + tid;
        if (i < n) {
          if (p.src && (by_predicate || (values_held && scatter))) held[j] = p.src[i];
          bool keep;
          if constexpr (by_predicate)
            keep = static_cast<bool>(Pred(held[j]));
          else
            keep = p.flags[i] != 0;
          if (keep) mine |= 1u << j;
        }
      }
    }
    if (p.mode == compact_mode::count) {
      auto warp_sums = shared_array<std::uint32_t, warps>();
      std::uint32_t c = static_cast<std::uint32_t>(__builtin_popcount(mine));
      for (unsigned offset = warpsize / 2; offset > 0; offset /= 2) c += shfl_down_sync(full_mask, c, offset);
      if (lane == 0) warp_sums[warp] = c;
      syncthreads();
      if (tid == 0) {
        std::uint32_t total = 0;
        for (unsigned w = 0; w < warps; ++w) total += warp_sums[w];
        p.offsets[tile] = total;
        if (tile == 0) p.offsets[p.tiles] = 0;
      }
      return;
    }
    // The kept elements before each (round, warp) of the tile, in the elements' order.
    // A round's ballot is taken again where it is used, not held: sixteen registers fewer a
    // thread let more tiles be in flight on each multiprocessor.
    constexpr unsigned per_lane = items * warps / warpsize;
    static_assert(per_lane * warpsize == items * warps, "one warp scans the tile's counts");
    auto before = shared_array<std::uint32_t, items * warps>();
    KERNEL_UNROLL
    for (unsigned j = 0; j < items; ++j) {
      const std::uint32_t ballot = ballot_sync(full_mask, ((mine >> j) & 1u) != 0);
      if (lane == 0) before[j * warps + warp] = static_cast<std::uint32_t>(__builtin_popcount(ballot));
    }
    syncthreads();
    if (warp == 0) {
      std::uint32_t c[per_lane], own = 0;
      KERNEL_UNROLL
      for (unsigned k = 0; k < per_lane; ++k) own += c[k] = before[per_lane * lane + k];
      std::uint32_t run = own;
      for (unsigned offset = 1; offset < warpsize; offset *= 2) {
        const std::uint32_t other = shfl_up_sync(full_mask, run, offset);
        if (lane >= offset) run += other;
      }
      run -= own;
      KERNEL_UNROLL
      for (unsigned k = 0; k < per_lane; ++k) {
        before[per_lane * lane + k] = run;
        run += c[k];
      }
      if (single_pass) {
        const std::uint32_t kept = shfl_sync(full_mask, run, warpsize - 1); // the tile's
        const index_t before_tile = kept_before_tile(p.tile_states, tile, kept);
        if (lane == 0) {
          kept_before[0] = before_tile;
          if (tile == p.tiles - 1) p.tile_states[p.tiles] = static_cast<std::uint64_t>(before_tile) + kept;
        }
      }
    }
    syncthreads();
    // A single pass writes only below n (dst's room): an element's place is at most its index.
    index_t base = 0, total = n;
    if (single_pass) {
      base = kept_before[0];
    } else {
      base = p.offsets[tile];
      total = p.offsets[p.tiles];
    }
    const std::uint32_t lower = lanemask_lt();
    KERNEL_UNROLL
    for (unsigned j = 0; j < items; ++j) {
      const index_t i = start + index_t{j} * threads + tid;
      // Before the bounds check: every lane of the warp takes part.
      const std::uint32_t ballot = ballot_sync(full_mask, ((mine >> j) & 1u) != 0);
      if (i >= n) continue;
      const index_t at =
          base + before[j * warps + warp] + static_cast<std::uint32_t>(__builtin_popcount(ballot & lower));
      const V v = !p.src ? static_cast<V>(i) : by_predicate || values_held ? held[j] : p.src[i];
      // Bounded by the counts, should a predicate not flag as it did when they were made.
      if ((mine >> j) & 1u) {
        if (at < total) p.dst[at] = v;
      } else if (p.rest_after && i - at < n - total) {
        p.dst[total + i - at] = v;
      }
    }
  }
};

/// Whether `a` and `b` are one value for unique and run-length encoding: -0.0 equals +0.0,
/// and every NaN equals every other.
template <class V> KERNEL_ALWAYS_INLINE bool same_value(const V &a, const V &b) noexcept {
  return radix_traits<V>::to_key(bits_of(a), false, true) == radix_traits<V>::to_key(bits_of(b), false, true);
}

/// Flags of the elements that are not the same value as the one before them (the heads of runs).
template <class V> struct run_heads_params {
  const V *values;
  std::uint8_t *flags;
  index_t n;
};
template <class V> struct run_heads_entry {
  using params = run_heads_params<V>;
  static constexpr ctext make_name() { return entry_name<V>("run_heads"); }
  static constexpr auto kernel_name = to_text<&run_heads_entry::make_name>();
  static constexpr auto kernel_signature = to_text<&run_heads_entry::make_name>();
  static void run(const params &p) noexcept {
    for (index_t i = grid<1>(); i < p.n; i += gridsize<1>())
      p.flags[i] = static_cast<std::uint8_t>(i == 0 || !same_value(p.values[i], p.values[i - 1]));
  }
};

/// lengths[r] = starts[r + 1] - starts[r] (the last run ends at n).
struct run_lengths_params {
  const index_t *starts;
  index_t *lengths;
  index_t runs, n;
};
struct run_lengths_entry {
  using params = run_lengths_params;
  static constexpr auto kernel_name = to_text<[] {
    ctext s;
    s += "run_lengths";
    return s;
  }>();
  static constexpr auto kernel_signature = kernel_name;
  static void run(const params &p) noexcept {
    // `n` read before the loop: a choice between it and starts[r + 1] inside would become a
    // load from a pointer to either, which takes the whole parameter block out of the
    // parameter space (tests/example_ptx_test.sh).
    const index_t runs = p.runs, n = p.n;
    for (index_t r = grid<1>(); r < runs; r += gridsize<1>())
      p.lengths[r] = (r + 1 < runs ? p.starts[r + 1] : n) - p.starts[r];
  }
};

// ---------------------------------------------------------------------------------------
// Histograms

/// a * b, rounded before anything is added to it. Clang keeps it so under the fp-contract
/// pragma of its caller; GCC has no such pragma, and in its GNU modes (-std=gnu++20, its
/// default) contracts a product and a later sum into one fused multiply-add even across
/// statements: an empty asm that holds the product hides the multiply from it.
KERNEL_ALWAYS_INLINE double rounded_product(double a, double b) noexcept {
  double p = a * b;
#if defined(__GNUC__) && !defined(__clang__)
#if defined(__x86_64__) || defined(__i386__)
  __asm__("" : "+xm"(p));
#else
  __asm__("" : "+m"(p));
#endif
#endif
  return p;
}

/// The bin of `x` among `bins` equal bins of [lo, hi] (the last closed), or -1; computed as
/// NumPy computes it, so that values on an edge fall in the same bin: its edges are
/// numpy.linspace's (k times the step, plus lo; the last hi itself), in float32 for float32
/// values, and the first estimate of the bin is corrected by comparing with them.
template <class T> KERNEL_ALWAYS_INLINE index_t even_bin(T x, double lo, double hi, index_t bins) noexcept {
  // NumPy's edges are linspace's, k * step + lo rounded twice: one fused multiply-add (which
  // -march=x86-64-v3 and NVPTX make of it) moves a value on an edge into the bin below.
  KERNEL_NO_FP_CONTRACT
  using E = std::conditional_t<std::is_same_v<T, float>, float, double>;
  const E v = static_cast<E>(x);
  // Compared in the data's type, as NumPy compares with an end that fits it; an end beyond
  // float's range (1e39) compared in double, so that an infinite value stays outside.
  const E elo = static_cast<E>(lo), ehi = static_cast<E>(hi);
  const bool above_lo = __builtin_isfinite(elo) ? v >= elo : static_cast<double>(v) >= lo;
  const bool below_hi = __builtin_isfinite(ehi) ? v <= ehi : static_cast<double>(v) <= hi;
  if (!(above_lo && below_hi)) return -1; // NaNs too
  // The first estimate: by the bins per unit of the range, or where a range narrower than
  // double's normal numbers makes that infinite, by the fraction of the range (as NumPy).
  // NumPy makes it in the data's type: (x - lo) * norm in float32 for float32 values. It
  // matters where float32 edges fall together (a range a few float32 steps wide): the bin
  // the correction below settles on between equal edges is the one the estimate gives.
  const double width = hi - lo, norm = static_cast<double>(bins) / width;
  double at = __builtin_isfinite(norm) ? (static_cast<double>(v) - lo) * norm
                                       : (static_cast<double>(v) - lo) / width * static_cast<double>(bins);
  // A range wider than float's (-3e38 to 3e38) overflows it: the estimate in double then.
  if constexpr (std::is_same_v<E, float>) {
    const float fnorm = static_cast<float>(norm), estimate = (v - elo) * fnorm;
    if (__builtin_isfinite(elo) && __builtin_isfinite(estimate)) at = static_cast<double>(estimate);
  }
  if (!(at >= 0)) at = 0; // NaN too: never converted
  if (at > static_cast<double>(bins - 1)) at = static_cast<double>(bins - 1);
  index_t b = static_cast<index_t>(at);
  const double step = (hi - lo) / static_cast<double>(bins);
  const auto edge = [&](index_t k) {
    return static_cast<E>(k == bins ? hi : rounded_product(static_cast<double>(k), step) + lo);
  };
  if (v < edge(b))
    --b;
  else if (b != bins - 1 && v >= edge(b + 1))
    ++b;
  return b;
}

/// a <= b: two integers compared as integers (64-bit values past 2^53 do not survive a
/// double), anything else in double, as NumPy compares its promoted values; NaN is at most
/// nothing.
template <class A, class B> KERNEL_ALWAYS_INLINE bool value_at_most(A a, B b) noexcept {
  if constexpr (std::is_integral_v<A> && std::is_integral_v<B>) {
    if constexpr (std::is_signed_v<A> && !std::is_signed_v<B>)
      return a < 0 || static_cast<std::uint64_t>(a) <= static_cast<std::uint64_t>(b);
    else if constexpr (!std::is_signed_v<A> && std::is_signed_v<B>)
      return b >= 0 && static_cast<std::uint64_t>(a) <= static_cast<std::uint64_t>(b);
    else
      return a <= b;
  } else {
    return static_cast<double>(a) <= static_cast<double>(b);
  }
}

/// The bin of `x` among the bins between `edges` (never decreasing; the last bin closed), or
/// -1: the last bin whose left edge is at most x, as NumPy's searchsorted finds it, so that a
/// bin between equal edges counts nothing.
template <class T, class E> KERNEL_ALWAYS_INLINE index_t edge_bin(T x, const E *edges, index_t nedges) noexcept {
  if (!(value_at_most(edges[0], x) && value_at_most(x, edges[nedges - 1]))) return -1;
  index_t lo = 0, hi = nedges; // the first edge above x
  while (lo < hi) {
    const index_t mid = lo + (hi - lo) / 2;
    if (value_at_most(edges[mid], x))
      lo = mid + 1;
    else
      hi = mid;
  }
  const index_t b = lo - 1;
  return b == nedges - 1 ? b - 1 : b;
}

template <class T, class E> struct histogram_params {
  const T *in;
  index_t n;
  const E *edges; // null: equal bins of [lo, hi]
  index_t nedges;
  double lo, hi;
  index_t bins;
  index_t *counts;
};

/// A block's counts gather in shared memory when the bins fit, then go to the global counts
/// with one atomic per bin.
template <class T, class E> struct histogram_entry {
  using params = histogram_params<T, E>;
  static constexpr index_t shared_bins = 2048;
  static constexpr ctext make_name() { return entry_name<T>("histogram"); }
  static constexpr auto kernel_name = to_text<&histogram_entry::make_name>();
  static constexpr auto kernel_signature = to_text<&histogram_entry::make_name>();
  static void run(const params &p) noexcept {
    const index_t n = p.n;
    const bool local = p.bins <= shared_bins;
    auto hist = shared_array<std::uint32_t, shared_bins>();
    if (local) {
      for (index_t b = threadIdx.x; b < p.bins; b += blockDim.x) hist[b] = 0;
      syncthreads();
    }
    for (index_t i = grid<1>(); i < n; i += gridsize<1>()) {
      const T x = p.in[i];
      const index_t b = p.edges ? edge_bin(x, p.edges, p.nedges) : even_bin(x, p.lo, p.hi, p.bins);
      if (b < 0) continue;
      if (local)
        atomic_add(hist[b], 1u);
      else
        atomic_add(p.counts[b], index_t{1});
    }
    if (local) {
      syncthreads();
      for (index_t b = threadIdx.x; b < p.bins; b += blockDim.x)
        if (hist[b]) atomic_add(p.counts[b], static_cast<index_t>(hist[b]));
    }
  }
};

} // namespace kernel::detail
