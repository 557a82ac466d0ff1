// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Arrays of random numbers from a Philox-4x32-10 generator (kernel/random.h), on every
// target, with the same numbers on each: integers and uniforms bit for bit, normals within
// the rounding of the device's math. The numbers are cuRAND's Philox generator's for the same
// seed and offset (curandGenerate, curandGenerateUniform, curandGenerateNormal, ... of a
// CURAND_RNG_PSEUDO_PHILOX4_32_10 generator).
//
//   kernel::random::philox rng(/*seed=*/42);
//   rng.uniform(x);                    // (0, 1], on the CPU
//   rng.normal(dx, 0.0f, 2.0f);        // a device array: on its device
//   rng.on(kernel::target::parallel).integers(counts, 0, 10);
//
// Each fill takes the next draws of the generator's sequence, rounded up to whole blocks of
// four, so that successive fills never repeat numbers; copies made by `on(...)` share the
// position. Fills reserve their draws atomically: a generator may be used from several
// threads (which fill gets which numbers then depends on their order).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "kernel/detail/algorithm_run.h"
#include "kernel/detail/random_parameters.h"
#include "kernel/detail/sixteen_bytes.h"
#include "kernel/detail/static_text.h"
#include "kernel/random.h"

namespace kernel::detail {

enum class distribution : std::int32_t { bits, uniform, normal, lognormal, integers };

/// An end of philox::integers: an integer of any type but bool (characters too), or an
/// unscoped enumerator, of at most 64 bits once promoted.
template <class E>
inline constexpr bool integer_end = ((std::is_integral_v<E> && !std::is_same_v<E, bool>) ||
                                     (std::is_enum_v<E> && std::is_convertible_v<E, long long>)) &&
                                    sizeof(decltype(+std::declval<E>())) <= 8;

template <class T> struct random_fill_params {
  T *out;
  index_t n;
  std::uint64_t seed, first_block;
  double a, b;         // low and high, or mean and standard deviation
  std::int64_t low;    // integers: low + a draw below `range`
  std::uint64_t range; // 0: all 2^64 values
  distribution dist;
};

/// Draws per element: 64 bits for doubles and integers, else 32.
template <class T> constexpr index_t draws_per_element(distribution d) noexcept {
  return d == distribution::integers || (std::is_same_v<T, double> && d != distribution::bits) ? 2 : 1;
}

KERNEL_ALWAYS_INLINE constexpr std::uint64_t mulhi64(std::uint64_t a, std::uint64_t b) noexcept {
  const std::uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
  const std::uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const std::uint64_t middle = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
  return p11 + (p01 >> 32) + (p10 >> 32) + (middle >> 32);
}

/// `r` (64 random bits) taken to [0, range) without bias (range 0: all 2^64 values), by
/// Lemire's multiply and reject: where r falls in the uneven part of r * range (a chance below
/// range / 2^64, so only wide ranges ever see it) it is drawn again, from blocks that no fill
/// draws (their counter's last word all ones; a fill's is 0) named by the element's block and
/// place, so that every target makes the same number and the fill's layout stays cuRAND's.
template <bool InKernel>
KERNEL_ALWAYS_INLINE std::uint64_t bounded_draw(std::uint64_t seed, std::uint64_t r, std::uint64_t range,
                                                std::uint64_t block, int place) noexcept {
  if (range == 0) return r; // all 2^64 values
  std::uint64_t low = r * range;
  if (low < range) { // the only case that may reject: the threshold's division only here
    const std::uint64_t threshold = (0 - range) % range;
    for (std::uint32_t attempt = 0; low < threshold; ++attempt) {
      std::uint32_t w[4] = {static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(block >> 32),
                            (static_cast<std::uint32_t>(place) << 24) | (attempt & 0xffffffu), 0xffffffffu};
      random::philox4x32_10_words<InKernel>(w, static_cast<std::uint32_t>(seed),
                                            static_cast<std::uint32_t>(seed >> 32));
      r = std::uint64_t{w[0]} | (std::uint64_t{w[1]} << 32);
      low = r * range;
    }
  }
  return mulhi64(r, range);
}

/// The block of draws that block `b` of a fill of 64-bit elements uses: cuRAND's generator
/// gives each of its 65536 threads two consecutive counters per round for those.
KERNEL_ALWAYS_INLINE constexpr std::uint64_t wide_block(std::uint64_t b) noexcept {
  const std::uint64_t pair = b / 2, thread = pair % 65536, round = pair / 65536;
  return ((2 * round + b % 2) << 16) | thread;
}
/// The blocks of one round of wide_block, which it permutes among themselves.
inline constexpr std::uint64_t wide_round_blocks = 2 * 65536;

/// `x`, made as low + (high - low) u for u in (0, 1], moved into the interval from low
/// (excluded) to high (included) where rounding took it to low or past high; for either order
/// of the ends.
template <class T> KERNEL_ALWAYS_INLINE T clamp_uniform(T x, T low, T high) noexcept {
  const bool up = low <= high;
  if (up ? x > low : x < low) return up ? (x <= high ? x : high) : (x >= high ? x : high);
  if constexpr (std::is_same_v<T, float>)
    return __builtin_nextafterf(low, high);
  else
    return __builtin_nextafter(low, high);
}

/// The Philox block that group `g` of the fill uses, into `w` (by reference: see
/// random::philox4x32_10_words).
template <bool InKernel, class T>
KERNEL_ALWAYS_INLINE void group_block(const random_fill_params<T> &p, index_t g,
                                      std::array<std::uint32_t, 4> &w) noexcept {
  const std::uint64_t b = p.first_block + static_cast<std::uint64_t>(g);
  std::uint32_t words[4];
  random::philox_block_words<InKernel>(p.seed, draws_per_element<T>(p.dist) == 2 ? wide_block(b) : b, words);
  for (int q = 0; q < 4; ++q) w[q] = words[q];
}

/// Writes the `count` elements of a group at `first` (those below n). In the fill's kernel a
/// whole group that fills 16 aligned bytes goes out in one store: four 4-byte stores a
/// thread, 16 bytes apart across the warp, filled normals at half of cuRAND's speed.
template <bool InKernel, class T>
KERNEL_ALWAYS_INLINE void store_group(const random_fill_params<T> &p, index_t first, index_t count,
                                      const T (&v)[4]) noexcept {
  if constexpr (InKernel && sixteen_bytes_of<T> <= 4 && sixteen_bytes_of<T> * sizeof(T) == 16) {
    if (count == sixteen_bytes_of<T> && first + count <= p.n && reinterpret_cast<std::uintptr_t>(p.out) % 16 == 0) {
      sixteen_bytes<T> out;
      for (int q = 0; q < sixteen_bytes_of<T>; ++q) out.v[q] = v[q];
      *reinterpret_cast<sixteen_bytes<T> *>(p.out + first) = out;
      return;
    }
  }
  // Loops of a constant bound, unrolled: `v` stays in registers (a bound of `count` put it in
  // local memory).
  for (int q = 0; q < 4; ++q)
    if (q < count && first + q < p.n) p.out[first + q] = v[q];
}

/// The elements made from block `g` of the fill, whose four draws are `w`. `InKernel`: the
/// fill's kernel, whose float normals take cuRAND's device Box-Muller (normal2_float32<true>);
/// on the host they are normal2_float32's, as cuRAND's host generator computes them.
template <bool InKernel = false, class T>
KERNEL_ALWAYS_INLINE void fill_group(const random_fill_params<T> &p, index_t g,
                                     const std::array<std::uint32_t, 4> &w) noexcept {
  const index_t per = draws_per_element<T>(p.dist), count = 4 / per, first = g * count;
  T v[4]{};
  if constexpr (std::is_floating_point_v<T>) {
    // Normals of a whole group: each Box-Muller pair once, not once per element of the pair
    // (its log, square root, sine and cosine are most of a normal's cost), by the same
    // operations as below, so that every target still gives the same numbers.
    if (p.dist != distribution::uniform && first + count <= p.n) {
      if constexpr (std::is_same_v<T, float>) {
        const std::array<float, 2> z0 = random::normal2_float32<InKernel>(w[0], w[1]),
                                   z1 = random::normal2_float32<InKernel>(w[2], w[3]);
        const float z[4] = {z0[0], z0[1], z1[0], z1[1]};
        for (int q = 0; q < 4; ++q)
          v[q] = random::detail::mul_then_add(z[q], static_cast<float>(p.b), static_cast<float>(p.a));
      } else {
        const std::array<double, 2> z = random::normal2_float64(w);
        for (int q = 0; q < 2; ++q) v[q] = random::detail::mul_then_add(z[q], p.b, p.a);
      }
      if (p.dist == distribution::lognormal)
        for (int q = 0; q < 4; ++q) v[q] = std::exp(v[q]);
      store_group<InKernel>(p, first, count, v);
      return;
    }
  }
  // Unrolled, so that w, v and z stay in registers on a GPU (indexed by a variable, they
  // would live in local memory).
  KERNEL_UNROLL
  for (int q = 0; q < 4; ++q) {
    if (q >= count || first + q >= p.n) continue;
    T &x = v[q];
    if constexpr (std::is_floating_point_v<T>) {
      if constexpr (std::is_same_v<T, float>) {
        if (p.dist == distribution::uniform) {
          const float low = static_cast<float>(p.a), high = static_cast<float>(p.b);
          x = random::detail::mul_then_add(high - low, random::uniform_float32(w[q]), low);
          // (low, high], as documented: the sum rounds to low for a draw below half an ulp of
          // low (1000 + 1e-5), and past high where high - low rounded up. (high < low, which
          // NumPy takes too: [high, low).)
          x = clamp_uniform(x, low, high);
        } else {
          const std::array<float, 2> z = random::normal2_float32<InKernel>(w[q & 2], w[(q & 2) + 1]);
          x = random::detail::mul_then_add(z[q & 1], static_cast<float>(p.b), static_cast<float>(p.a));
          if (p.dist == distribution::lognormal) x = std::exp(x);
        }
      } else {
        if (p.dist == distribution::uniform) {
          x = random::detail::mul_then_add(p.b - p.a, random::uniform_float64(w[2 * q], w[2 * q + 1]), p.a);
          x = clamp_uniform(x, p.a, p.b);
        } else {
          const std::array<double, 2> z = random::normal2_float64(w);
          x = random::detail::mul_then_add(z[q], p.b, p.a);
          if (p.dist == distribution::lognormal) x = std::exp(x);
        }
      }
    } else if (p.dist == distribution::bits) {
      x = static_cast<T>(w[q]);
    } else {
      const std::uint64_t r = std::uint64_t{w[2 * q]} | (std::uint64_t{w[2 * q + 1]} << 32);
      // In unsigned arithmetic: over the whole int64 range low + draw passes through values
      // a signed sum would overflow at, though the result fits.
      x = static_cast<T>(static_cast<std::uint64_t>(p.low) +
                         bounded_draw<InKernel>(p.seed, r, p.range, wide_block(p.first_block + g), q));
    }
  }
  store_group<InKernel>(p, first, count, v);
}

template <bool InKernel = false, class T>
KERNEL_ALWAYS_INLINE void fill_group(const random_fill_params<T> &p, index_t g) noexcept {
  std::array<std::uint32_t, 4> w;
  group_block<InKernel>(p, g, w);
  fill_group<InKernel>(p, g, w);
}

/// Groups [begin, end) on the host: the Philox blocks of eight groups at a time first, in a
/// loop without branches that the compiler vectorises across the groups (the rounds are
/// most of the work for bits and uniforms), then their elements.
template <class T> void fill_groups_host(const random_fill_params<T> &p, index_t begin, index_t end) noexcept {
  constexpr std::size_t lanes = 8;
  const bool wide = draws_per_element<T>(p.dist) == 2;
  index_t g = begin;
  for (; g + static_cast<index_t>(lanes) <= end; g += static_cast<index_t>(lanes)) {
    // Word q of lane j's counter in c[q][j], as philox_block lays the counter out.
    alignas(32) std::uint32_t c[4][lanes];
    for (std::size_t j = 0; j < lanes; ++j) {
      const std::uint64_t b = p.first_block + static_cast<std::uint64_t>(g) + j;
      const std::uint64_t block = wide ? wide_block(b) : b, high = block >> 16;
      c[0][j] = static_cast<std::uint32_t>(high);
      c[1][j] = static_cast<std::uint32_t>(high >> 32);
      c[2][j] = static_cast<std::uint32_t>(block & 0xffff);
      c[3][j] = 0;
    }
    std::uint32_t k0 = static_cast<std::uint32_t>(p.seed), k1 = static_cast<std::uint32_t>(p.seed >> 32);
    for (int round = 0; round < 10; ++round) {
      for (std::size_t j = 0; j < lanes; ++j) random::detail::philox_round(c[0][j], c[1][j], c[2][j], c[3][j], k0, k1);
      k0 += random::detail::philox_w0;
      k1 += random::detail::philox_w1;
    }
    if constexpr (std::is_same_v<T, float>) {
      const bool normals = p.dist == distribution::normal || p.dist == distribution::lognormal;
      if (normals && (g + static_cast<index_t>(lanes)) * 4 <= p.n) {
        // Box-Muller on the lanes side by side too (libmvec's log, sin and cos), then the
        // elements: word pair h of lane j gives elements 4 (g + j) + 2 h and + 1.
        alignas(32) float z[4][lanes];
        for (std::size_t h = 0; h < 2; ++h)
          for (std::size_t j = 0; j < lanes; ++j) {
            const std::array<float, 2> r = random::normal2_float32(c[2 * h][j], c[2 * h + 1][j]);
            z[2 * h][j] = random::detail::mul_then_add(r[0], static_cast<float>(p.b), static_cast<float>(p.a));
            z[2 * h + 1][j] = random::detail::mul_then_add(r[1], static_cast<float>(p.b), static_cast<float>(p.a));
          }
        float *out = p.out + 4 * g;
        for (std::size_t j = 0; j < lanes; ++j)
          for (std::size_t q = 0; q < 4; ++q)
            out[4 * j + q] = p.dist == distribution::lognormal ? std::exp(z[q][j]) : z[q][j];
        continue;
      }
    }
    for (std::size_t j = 0; j < lanes; ++j)
      fill_group(p, g + static_cast<index_t>(j), {c[0][j], c[1][j], c[2][j], c[3][j]});
  }
  for (; g < end; ++g) fill_group(p, g);
}

template <class T> struct random_fill_entry {
  using params = random_fill_params<T>;
  static constexpr ctext make_name() { return entry_name<T>("philox_fill"); }
  static constexpr auto kernel_name = to_text<&random_fill_entry::make_name>();
  static constexpr auto kernel_signature = to_text<&random_fill_entry::make_name>();
  static void run(const params &p) noexcept {
    const index_t groups = (p.n + 4 / draws_per_element<T>(p.dist) - 1) / (4 / draws_per_element<T>(p.dist));
    for (index_t g = grid<1>(); g < groups; g += gridsize<1>()) fill_group<true>(p, g);
  }
};

} // namespace kernel::detail

namespace kernel::random {

/// A Philox-4x32-10 generator filling arrays; see the header comment.
class philox : public kernel::detail::placed<philox> {
public:
  /// The sequence of `seed`, from draw `offset` (rounded up to a multiple of four): integers
  /// of any type, 0 to 2^64 - 1 (a negative one is an argument_error, a floating one a
  /// compile error, where a conversion would wrap or cut it).
  template <kernel::detail::integer_argument S, kernel::detail::integer_argument O = std::uint64_t>
  explicit philox(S seed, O offset = 0)
      : seed_(kernel::detail::unsigned_integer_value(name(), 1, seed, "seed")),
        position_(std::make_shared<position>()) {
    const std::uint64_t from = kernel::detail::unsigned_integer_value(name(), 2, offset, "offset");
    position_->next_block = from / 4 + (from % 4 != 0);
  }

  // Copies share the sequence: each fill through any of them takes the next draws. A move
  // copies too, so that no generator is ever left without its sequence.
  philox(const philox &) = default;
  philox(philox &&other) noexcept : philox(other) {}
  philox &operator=(const philox &) = default;
  philox &operator=(philox &&other) noexcept { return *this = other; }

  static constexpr std::string_view name() noexcept { return "philox"; }
  std::uint64_t seed() const noexcept { return seed_; }
  /// The draws taken so far, with the offset, in 32-bit draws, each fill's rounded up to a
  /// whole block of four (fills of doubles or of integers to whole rounds of 2^19). After fills of 32-bit numbers whose
  /// lengths are multiples of four, the offset at which cuRAND's Philox goes on after the same fills (cuRAND counts a
  /// double as one draw, this generator as two; and it goes on within a block, this one at the next).
  /// Past 2^64 draws (the blocks' counters go on, distinct, but cuRAND's offsets are 64-bit)
  /// there is no such offset: an argument_error, where 4 * blocks would wrap to a small one.
  std::uint64_t offset() const {
    std::lock_guard guard(position_->lock);
    if (position_->next_block >= std::uint64_t{1} << 62)
      throw argument_error("philox::offset", 0,
                           "the generator has gone past 2^64 draws, which a 64-bit offset cannot count");
    return 4 * position_->next_block;
  }

  /// 32 random bits per element (uint32 arrays): curandGenerate.
  template <class A> void bits(A &&out) const {
    if constexpr (fills_bits<A>()) fill<A>("philox::bits", out, kernel::detail::distribution::bits, 0, 0);
  }
  /// Uniform in (low, high] (float or double arrays): curandGenerateUniform(Double) for (0, 1].
  template <class A> void uniform(A &&out, double low = 0, double high = 1) const {
    if constexpr (fills_floats<A>()) {
      kernel::detail::require_uniform_parameters<filled_element<A>>("philox::uniform", low, high);
      fill<A>("philox::uniform", out, kernel::detail::distribution::uniform, low, high);
    }
  }
  /// Normal with `mean` and `stddev`: curandGenerateNormal(Double).
  template <class A> void normal(A &&out, double mean = 0, double stddev = 1) const {
    if constexpr (fills_floats<A>()) {
      kernel::detail::require_normal_parameters<filled_element<A>>("philox::normal", mean, stddev);
      fill<A>("philox::normal", out, kernel::detail::distribution::normal, mean, stddev);
    }
  }
  /// exp of a normal with `mean` and `stddev`: curandGenerateLogNormal(Double).
  template <class A> void lognormal(A &&out, double mean = 0, double stddev = 1) const {
    if constexpr (fills_floats<A>()) {
      kernel::detail::require_normal_parameters<filled_element<A>>("philox::lognormal", mean, stddev);
      fill<A>("philox::lognormal", out, kernel::detail::distribution::lognormal, mean, stddev);
    }
  }
  /// Integers uniform in [low, high), or [low, high] with `endpoint` (as NumPy's
  /// Generator.integers), into any integer array, from 64 bits each. The ends are of any
  /// integer types and compared as values: [0, 2^64 - 1] with endpoint fills uint64 with all
  /// of its values, [INT64_MIN, INT64_MAX] int64.
  template <class A, class L, class H>
    requires(kernel::detail::integer_end<L> && kernel::detail::integer_end<H>)
  void integers(A &&out, L low_end, H high_end, bool endpoint = false) const {
    if constexpr (fills_integers<A>()) integers_fitting<A>(out, low_end, high_end, endpoint);
  }

private:
  // Each says whether `A` is an array the fill writes, of elements it makes, with an error
  // where it is not; the fill compiles nothing more then.
  template <class A> static constexpr bool fills_bits() {
    if constexpr (!kernel::detail::require_output_array<A>()) {
      return false;
    } else {
      constexpr bool words = std::is_same_v<filled_element<A>, std::uint32_t>;
      static_assert(words, "philox::bits fills uint32 arrays");
      return words;
    }
  }
  template <class A> static constexpr bool fills_floats() {
    if constexpr (!kernel::detail::require_output_array<A>()) {
      return false;
    } else {
      constexpr bool floats = std::is_same_v<filled_element<A>, float> || std::is_same_v<filled_element<A>, double>;
      static_assert(floats, "this distribution fills float or double arrays");
      return floats;
    }
  }
  template <class A> static constexpr bool fills_integers() {
    if constexpr (!kernel::detail::require_output_array<A>()) {
      return false;
    } else {
      using T = filled_element<A>;
      constexpr bool integers = std::is_integral_v<T> && !std::is_same_v<T, bool>;
      static_assert(integers, "philox::integers fills integer arrays");
      return integers;
    }
  }

  // `A` as the caller gave it (fill<A>): a temporary container on a stream is refused.
  template <class A, class L, class H> auto integers_fitting(A &out, L low_end, H high_end, bool endpoint) const {
    using T = kernel::detail::element_of<std::remove_cvref_t<A>>;
    // Promoted, as arithmetic would (characters, enumerators): the comparisons below take
    // standard integer types only.
    const auto low = +low_end;
    const auto high = +high_end;
    const auto range_text = [&] {
      return std::string("the range [") + std::to_string(low) + ", " + std::to_string(high) + (endpoint ? "]" : ")");
    };
    if (endpoint ? std::cmp_greater(low, high) : !std::cmp_less(low, high))
      throw argument_error("philox::integers", 2, range_text() + " is empty");
    // Compared as values, not cast: uint64's maximum is no int64.
    const auto element = [] { return std::string(dtype_name(dtype_of<T>)); };
    const auto least = +std::numeric_limits<T>::min(), most = +std::numeric_limits<T>::max();
    if (std::cmp_less(low, least) || std::cmp_greater(low, most))
      throw argument_error("philox::integers", 2,
                           "low is " + std::to_string(low) + ", which the array's " + element() +
                               " elements cannot hold");
    // The largest value drawn is high, or the one below it: above T's maximum only if high is,
    // and then high - 1 cannot wrap (as it does for an unsigned 0 above a negative low).
    if (std::cmp_greater(high, most) && (endpoint || std::cmp_greater(high - 1, most)))
      throw argument_error("philox::integers", 3,
                           "high is " + std::to_string(high) + ": " + range_text() + " holds values the array's " +
                               element() + " elements cannot hold");
    // Modulo 2^64, where every value of every integer type has a place: the count of values is
    // below 2^64 but for all 2^64 of a 64-bit type, where it wraps to 0 (every draw taken).
    const auto low_bits = static_cast<std::uint64_t>(low);
    fill<A>("philox::integers", out, kernel::detail::distribution::integers, 0, 0, static_cast<std::int64_t>(low_bits),
            static_cast<std::uint64_t>(high) - low_bits + (endpoint ? 1 : 0));
  }

  /// The element type of a fill.
  template <class A> using filled_element = kernel::detail::element_of<std::remove_cvref_t<A>>;

  // `call` names the fill in errors ("philox::uniform"), as its other checks do.
  template <class A>
  void fill(std::string_view call, A &out, kernel::detail::distribution d, double a, double b, std::int64_t low = 0,
            std::uint64_t range = 0) const {
    using AA = std::remove_cvref_t<A>;
    using T = kernel::detail::element_of<AA>;
    // `A` as the caller gave it (fill<A>): a temporary container on a stream is refused.
    kernel::detail::require_lasting_output<A>(call, 1, this->placed_on());
    const kernel::detail::algorithm_site site = kernel::detail::site_of(call, this->placed_on(), out);
    kernel::detail::output_elements<T> dst = kernel::detail::output_elements<T>::make(site, call, 1, out);
    const index_t n = dst.size;
    const index_t per_block = 4 / kernel::detail::draws_per_element<T>(d);
    const index_t groups = (n + per_block - 1) / per_block;
    const std::uint64_t first = take_blocks(static_cast<std::uint64_t>(groups), per_block == 2);
    const kernel::detail::random_fill_params<T> p{dst.data, n, seed_, first, a, b, low, range, d};
    if (site.on_device()) {
      kernel::detail::launch_over<kernel::detail::random_fill_entry<T>>(*site.call, groups, p);
    } else {
      // Pieces of whole batches of eight groups, so that cpu and parallel batch the same groups
      // (vector and scalar math differ in the last bits of normals).
      const index_t batches = (groups + 7) / 8;
      kernel::detail::maybe_parallel(site.parallel(), batches, index_t{1} << 10, [&](index_t begin, index_t end) {
        kernel::detail::fill_groups_host(p, 8 * begin, std::min(8 * end, groups));
      });
    }
    dst.deliver();
  }

  /// Where the sequence stands: the first block no fill has drawn and, while the last fill
  /// made 64-bit elements, the block index in their layout at which the next such fill goes on.
  struct position {
    std::mutex lock;
    std::uint64_t next_block;
    std::optional<std::uint64_t> wide_next;
  };

  /// The first of `groups` blocks for the next fill. A fill of 64-bit elements draws its
  /// blocks in cuRAND's layout for them (wide_block), a permutation of each round of 2^17
  /// blocks; such fills take whole rounds, from the next one, so that no block they draw is
  /// drawn by a fill of 32-bit elements (4 of 8 doubles after 16 words were those words), and
  /// one after another they go on where the last stopped, as one fill would.
  std::uint64_t take_blocks(std::uint64_t groups, bool wide) const {
    constexpr std::uint64_t round = kernel::detail::wide_round_blocks;
    const auto round_up = [](std::uint64_t b) { return (b + round - 1) / round * round; };
    std::lock_guard guard(position_->lock);
    position &at = *position_;
    if (groups == 0) return at.next_block;
    if (!wide) {
      at.wide_next.reset();
      const std::uint64_t first = at.next_block;
      at.next_block += groups;
      return first;
    }
    const std::uint64_t first = at.wide_next ? *at.wide_next : round_up(at.next_block);
    at.wide_next = first + groups;
    at.next_block = round_up(first + groups);
    return first;
  }

  std::uint64_t seed_;
  std::shared_ptr<position> position_;
};

} // namespace kernel::random
