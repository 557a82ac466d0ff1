// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Random numbers inside kernels: one xoroshiro128+ generator per thread, Numba's
// numba.cuda.random to the bit (its constants, seeding and conversions), so that a kernel
// ported from Numba draws the same numbers for the same seed.
//
//   auto states = kernel::random::create_xoroshiro128p_states(threads, /*seed=*/1);
//   ... in the kernel:
//   const float u = kernel::random::uniform_float32(states, kernel::grid<1>());
//
// create_xoroshiro128p_states seeds the first generator from `seed` with one splitmix64 step
// (both words alike, as Numba) and places each next one 2^64 draws further along the same
// sequence (the generator's jump), so that the threads' streams never overlap.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string_view>

#include "kernel/array.h"
#include "kernel/config.h"
#include "kernel/detail/axis.h"

namespace kernel::random {

struct xoroshiro128p_state {
  std::uint64_t s0, s1;
};

namespace detail {
KERNEL_ALWAYS_INLINE constexpr std::uint64_t rotl(std::uint64_t x, int k) noexcept {
  return (x << k) | (x >> (64 - k));
}

constexpr std::uint64_t splitmix64(std::uint64_t &state) noexcept {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
} // namespace detail

/// The next 64 random bits of `s` (xoroshiro128+ with a=55, b=14, c=36: Numba's
/// xoroshiro128p_next).
KERNEL_ALWAYS_INLINE constexpr std::uint64_t next(xoroshiro128p_state &s) noexcept {
  const std::uint64_t s0 = s.s0;
  std::uint64_t s1 = s.s1;
  const std::uint64_t result = s0 + s1;
  s1 ^= s0;
  s.s0 = detail::rotl(s0, 55) ^ s1 ^ (s1 << 14);
  s.s1 = detail::rotl(s1, 36);
  return result;
}

/// Advances `s` by 2^64 draws (Numba's xoroshiro128p_jump).
constexpr void jump(xoroshiro128p_state &s) noexcept {
  constexpr std::uint64_t polynomial[2] = {0xbeac0467eba5facbull, 0xd86b048b86aa9922ull};
  std::uint64_t s0 = 0, s1 = 0;
  for (std::uint64_t word : polynomial)
    for (int b = 0; b < 64; ++b) {
      if (word & (std::uint64_t{1} << b)) {
        s0 ^= s.s0;
        s1 ^= s.s1;
      }
      next(s);
    }
  s.s0 = s0;
  s.s1 = s1;
}

namespace detail {
// Defined in the runtime (runtime/cpu/random_states.cpp): an inline definition would make
// every translation unit instantiate ndarray<xoroshiro128p_state, 1>.
ndarray<xoroshiro128p_state, 1> seeded_xoroshiro128p_states(index_t n, std::uint64_t seed,
                                                            std::uint64_t subsequence_start);
} // namespace detail

/// `n` generators for `n` threads, the first at subsequence `subsequence_start` of the
/// sequence of `seed`; see the header comment. Integers of any type: a negative count, seed or
/// start is an argument_error, a floating one a compile error, where a conversion would wrap
/// or cut it.
template <kernel::detail::integer_argument N = index_t, kernel::detail::integer_argument S = std::uint64_t,
          kernel::detail::integer_argument Q = std::uint64_t>
ndarray<xoroshiro128p_state, 1> create_xoroshiro128p_states(N n, S seed, Q subsequence_start = 0) {
  constexpr std::string_view name = "create_xoroshiro128p_states";
  return detail::seeded_xoroshiro128p_states(
      static_cast<index_t>(kernel::detail::integer_value(name, 1, n, "the number of states")),
      kernel::detail::unsigned_integer_value(name, 2, seed, "seed"),
      kernel::detail::unsigned_integer_value(name, 3, subsequence_start, "subsequence_start"));
}

/// A double uniformly distributed in [0, 1), from generator `i` of `states`: the top 53 of 64
/// bits (Numba's xoroshiro128p_uniform_float64).
KERNEL_ALWAYS_INLINE double uniform_float64(array_view<xoroshiro128p_state> states, index_t i) noexcept {
  return static_cast<double>(next(states[i]) >> 11) * 0x1.0p-53;
}

/// A float uniformly distributed in [0, 1]: the double above rounded to a float, as Numba's
/// xoroshiro128p_uniform_float32 makes it (so one draw in about 2^25 rounds up to 1.0).
KERNEL_ALWAYS_INLINE float uniform_float32(array_view<xoroshiro128p_state> states, index_t i) noexcept {
  return static_cast<float>(uniform_float64(states, i));
}

/// A normally distributed float (mean 0, standard deviation 1), by Box-Muller from two draws,
/// the cosine kept (Numba's xoroshiro128p_normal_float32).
KERNEL_ALWAYS_INLINE float normal_float32(array_view<xoroshiro128p_state> states, index_t i) noexcept {
  const float u1 = uniform_float32(states, i), u2 = uniform_float32(states, i);
  return std::sqrt(-2.0f * std::log(u1)) * std::cos(static_cast<float>(2 * std::numbers::pi) * u2);
}

/// A normally distributed double, as Numba's xoroshiro128p_normal_float64 makes it: from two
/// float draws, the logarithm in float, the rest in double.
KERNEL_ALWAYS_INLINE double normal_float64(array_view<xoroshiro128p_state> states, index_t i) noexcept {
  const float u1 = uniform_float32(states, i), u2 = uniform_float32(states, i);
  return std::sqrt(-2.0 * static_cast<double>(std::log(u1))) * std::cos(2 * std::numbers::pi * static_cast<double>(u2));
}

} // namespace kernel::random

// ---------------------------------------------------------------------------------------
// Philox-4x32-10: a counter-based generator (Salmon et al., "Parallel random numbers: as easy
// as 1, 2, 3"), laid out as cuRAND's: the 32-bit draws come in blocks of four, block b being
// the generator applied to the counter {b / 65536 (64 bits), b % 65536, 0} under the key
// `seed`. Draw d of a sequence with offset o is word (d + o) % 4 of block (d + o) / 4, so the
// same seed and offset give cuRAND's host and device generators' numbers, on every target.

namespace kernel::random {

namespace detail {
inline constexpr std::uint32_t philox_w0 = 0x9E3779B9u, philox_w1 = 0xBB67AE85u;

// Device functions the kernels below call by C names that the device module maps to
// libdevice's `__nv_` functions; their host versions (the simulator's, the host fallbacks')
// are in the runtime (runtime/random/device_math_host.cpp).
extern "C" {
/// The high 32 bits of a * b: libdevice's __nv_umulhi (one mul.hi.u32).
std::uint32_t umulhi(std::uint32_t a, std::uint32_t b) noexcept;
/// sin and cos of x at the GPU's fast intrinsics' accuracy: libdevice's __nv_fast_sincosf
/// (CUDA's __sincosf, which cuRAND's device generators use for Box-Muller); std::sin and
/// std::cos on the host.
void fast_sincosf(float x, float *sine, float *cosine) noexcept;
}

/// philox_round as a kernel computes it: the products as 32-bit high and low halves. Written
/// with 64-bit products, the optimizer carried the words in 64-bit registers from round to
/// round, and each product became a 64-bit multiply (several instructions on a GPU).
KERNEL_ALWAYS_INLINE void philox_round_in_kernel(std::uint32_t &c0, std::uint32_t &c1, std::uint32_t &c2,
                                                 std::uint32_t &c3, std::uint32_t k0, std::uint32_t k1) noexcept {
  constexpr std::uint32_t m0 = 0xD2511F53u, m1 = 0xCD9E8D57u;
  const std::uint32_t n0 = umulhi(m1, c2) ^ c1 ^ k0, n2 = umulhi(m0, c0) ^ c3 ^ k1;
  c1 = m1 * c2;
  c3 = m0 * c0;
  c0 = n0;
  c2 = n2;
}

/// One round of Philox-4x32 on the words c0..c3 under the key (k0, k1).
KERNEL_ALWAYS_INLINE constexpr void philox_round(std::uint32_t &c0, std::uint32_t &c1, std::uint32_t &c2,
                                                 std::uint32_t &c3, std::uint32_t k0, std::uint32_t k1) noexcept {
  constexpr std::uint32_t m0 = 0xD2511F53u, m1 = 0xCD9E8D57u;
  const std::uint64_t p0 = std::uint64_t{m0} * c0, p1 = std::uint64_t{m1} * c2;
  const std::uint32_t n0 = static_cast<std::uint32_t>(p1 >> 32) ^ c1 ^ k0;
  const std::uint32_t n2 = static_cast<std::uint32_t>(p0 >> 32) ^ c3 ^ k1;
  c1 = static_cast<std::uint32_t>(p1);
  c3 = static_cast<std::uint32_t>(p0);
  c0 = n0;
  c2 = n2;
}
} // namespace detail

/// Philox-4x32-10 of the counter in `w`, in place, under the key (k0, k1); `InKernel`: as a
/// kernel computes it best (philox_round_in_kernel), the same words. The words go by
/// reference: GPU code is made from the host's IR, whose ABI passes an array of four words by
/// value as two 64-bit integers, and the kernels then kept the words packed in pairs and
/// multiplied in 64 bits (several instructions each) through all ten rounds.
template <bool InKernel = false>
KERNEL_ALWAYS_INLINE constexpr void philox4x32_10_words(std::uint32_t (&w)[4], std::uint32_t k0,
                                                        std::uint32_t k1) noexcept {
  for (int round = 0; round < 10; ++round) {
    if constexpr (InKernel)
      detail::philox_round_in_kernel(w[0], w[1], w[2], w[3], k0, k1);
    else
      detail::philox_round(w[0], w[1], w[2], w[3], k0, k1);
    k0 += detail::philox_w0;
    k1 += detail::philox_w1;
  }
}

/// The four words of Philox-4x32-10 for `counter` under `key`.
template <bool InKernel = false>
KERNEL_ALWAYS_INLINE constexpr std::array<std::uint32_t, 4>
philox4x32_10(const std::array<std::uint32_t, 4> &counter, const std::array<std::uint32_t, 2> &key) noexcept {
  std::uint32_t w[4] = {counter[0], counter[1], counter[2], counter[3]};
  philox4x32_10_words<InKernel>(w, key[0], key[1]);
  return {w[0], w[1], w[2], w[3]};
}

/// Block `block` of the sequence of `seed` (see above), into `w`.
template <bool InKernel = false>
KERNEL_ALWAYS_INLINE constexpr void philox_block_words(std::uint64_t seed, std::uint64_t block,
                                                       std::uint32_t (&w)[4]) noexcept {
  const std::uint64_t c = block >> 16;
  w[0] = static_cast<std::uint32_t>(c);
  w[1] = static_cast<std::uint32_t>(c >> 32);
  w[2] = static_cast<std::uint32_t>(block & 0xffff);
  w[3] = 0;
  philox4x32_10_words<InKernel>(w, static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
}

/// Block `block` of the sequence of `seed` (see above).
template <bool InKernel = false>
KERNEL_ALWAYS_INLINE constexpr std::array<std::uint32_t, 4> philox_block(std::uint64_t seed,
                                                                         std::uint64_t block) noexcept {
  std::uint32_t w[4];
  philox_block_words<InKernel>(seed, block, w);
  return {w[0], w[1], w[2], w[3]};
}

namespace detail {
/// a * b + c with the product rounded before the sum, whatever the compiler's default for
/// contracting them into one fused multiply-add (clang and GCC fuse them where the target has
/// FMA, as -march=x86-64-v3 does): cuRAND's host generator rounds twice, and every target
/// gives the same numbers only if all of them do. (-ffp-contract=fast overrides this.)
template <class T> KERNEL_ALWAYS_INLINE T mul_then_add(T a, T b, T c) noexcept {
  KERNEL_NO_FP_CONTRACT
#if defined(__clang__)
  return a * b + c;
#else
  // The pragma is clang's alone, and GCC fuses across statements too (its
  // -ffp-contract=fast outside ISO modes).
  volatile T product = a * b;
  return product + c;
#endif
}
} // namespace detail

/// A float in (0, 1] from 32 random bits, as curand_uniform.
KERNEL_ALWAYS_INLINE constexpr float uniform_float32(std::uint32_t x) noexcept {
  return static_cast<float>(x) * 2.3283064e-10f + 2.3283064e-10f / 2.0f;
}
/// A double in (0, 1] from 53 of 64 random bits, as curand_uniform_double.
KERNEL_ALWAYS_INLINE constexpr double uniform_float64(std::uint32_t x, std::uint32_t y) noexcept {
  const std::uint64_t z = std::uint64_t{x} ^ (std::uint64_t{y} << 21);
  return static_cast<double>(z) * 0x1.0p-53 + 0x1.0p-54;
}
/// Two normally distributed floats from two draws (Box-Muller, as curand_normal2).
/// `InKernel`: as cuRAND's device generators compute them, with __sincosf (what the array
/// fills use in their kernels: the accurate sine and cosine were most of the time of a fill,
/// which ran at half of cuRAND's speed), within the fast intrinsics' accuracy (a few 1e-7
/// absolute per unit of the radius) of the host's numbers.
template <bool InKernel = false>
KERNEL_ALWAYS_INLINE std::array<float, 2> normal2_float32(std::uint32_t x, std::uint32_t y) noexcept {
  const float u = uniform_float32(x);
  const float v =
      detail::mul_then_add(static_cast<float>(y), 2.3283064e-10f * 6.2831855f, (2.3283064e-10f * 6.2831855f) / 2.0f);
  const float s = std::sqrt(-2.0f * std::log(u));
  if constexpr (InKernel) {
    float sine, cosine;
    detail::fast_sincosf(v, &sine, &cosine);
    return {sine * s, cosine * s};
  } else {
    return {std::sin(v) * s, std::cos(v) * s};
  }
}
/// Two normally distributed doubles from four draws (as curand_normal2_double).
KERNEL_ALWAYS_INLINE std::array<double, 2> normal2_float64(const std::array<std::uint32_t, 4> &w) noexcept {
  const double u = uniform_float64(w[0], w[1]);
  const double v = (static_cast<double>(std::uint64_t{w[2]} ^ (std::uint64_t{w[3]} << 21)) * 0x1.0p-53 + 0x1.0p-54) *
                   6.2831853071795860;
  const double s = std::sqrt(-2.0 * std::log(u));
  return {std::sin(v) * s, std::cos(v) * s};
}

/// A Philox generator for one thread inside a kernel, as cuRAND's curand_init(seed,
/// subsequence, offset, &state): subsequence i starts 2^66 draws after subsequence i - 1.
///
///   auto rng = kernel::random::philox_init(seed, kernel::grid<1>());
///   const float u = kernel::random::uniform_float32(rng);
struct philox_state {
  std::array<std::uint32_t, 2> key;
  std::array<std::uint32_t, 4> counter; // of the block in `words`
  std::array<std::uint32_t, 4> words;
  std::uint32_t word; // the next draw's place in `words`
  bool has_normal;    // normal_float32 made two: the second is `normal`
  float normal;
};

KERNEL_ALWAYS_INLINE constexpr philox_state philox_init(std::uint64_t seed, std::uint64_t subsequence,
                                                        std::uint64_t offset = 0) noexcept {
  const std::uint64_t block = offset / 4;
  philox_state s{{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)},
                 {static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(block >> 32),
                  static_cast<std::uint32_t>(subsequence), static_cast<std::uint32_t>(subsequence >> 32)},
                 {},
                 static_cast<std::uint32_t>(offset % 4),
                 false,
                 0.0f};
  s.words = philox4x32_10(s.counter, s.key);
  return s;
}

/// The next 32 random bits of `s` (curand).
KERNEL_ALWAYS_INLINE constexpr std::uint32_t next_uint32(philox_state &s) noexcept {
  if (s.word == 4) {
    if (++s.counter[0] == 0) ++s.counter[1];
    s.words = philox4x32_10(s.counter, s.key);
    s.word = 0;
  }
  return s.words[s.word++];
}

/// A float in (0, 1] (curand_uniform).
KERNEL_ALWAYS_INLINE constexpr float uniform_float32(philox_state &s) noexcept {
  return uniform_float32(next_uint32(s));
}
/// A double in (0, 1] from one draw, as curand_uniform_double makes it for Philox (32 random
/// bits; the arrays' doubles take 53 of two draws, as cuRAND's host generator).
KERNEL_ALWAYS_INLINE constexpr double uniform_float64(philox_state &s) noexcept {
  return static_cast<double>(next_uint32(s)) * 0x1.0p-32 + 0x1.0p-32;
}
/// A normally distributed float (curand_normal): Box-Muller makes two, the second is kept.
KERNEL_ALWAYS_INLINE float normal_float32(philox_state &s) noexcept {
  if (s.has_normal) {
    s.has_normal = false;
    return s.normal;
  }
  const std::uint32_t x = next_uint32(s);
  const std::array<float, 2> z = normal2_float32(x, next_uint32(s));
  s.has_normal = true;
  s.normal = z[1];
  return z[0];
}

} // namespace kernel::random
