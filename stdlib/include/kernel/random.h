// Random numbers inside kernels: one xoroshiro128+ generator per thread, as Numba's
// numba.cuda.random.
//
//   auto states = kernel::random::create_xoroshiro128p_states(threads, /*seed=*/1);
//   ... in the kernel:
//   const float u = kernel::random::uniform_float32(states, kernel::grid<1>());
//
// create_xoroshiro128p_states seeds the first generator from `seed` with splitmix64 and
// places each next one 2^64 draws further along the same sequence (the generator's jump),
// so that the threads' streams never overlap.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>

#include "kernel/array.h"
#include "kernel/config.h"

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

/// The next 64 random bits of `s` (xoroshiro128+ 1.0: a=24, b=16, c=37).
KERNEL_ALWAYS_INLINE constexpr std::uint64_t next(xoroshiro128p_state &s) noexcept {
  const std::uint64_t s0 = s.s0;
  std::uint64_t s1 = s.s1;
  const std::uint64_t result = s0 + s1;
  s1 ^= s0;
  s.s0 = detail::rotl(s0, 24) ^ s1 ^ (s1 << 16);
  s.s1 = detail::rotl(s1, 37);
  return result;
}

/// Advances `s` by 2^64 draws.
constexpr void jump(xoroshiro128p_state &s) noexcept {
  constexpr std::uint64_t polynomial[2] = {0xdf900294d8f554a5ull, 0x170865df4b3201fcull};
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

/// `n` generators for `n` threads; see the header comment.
inline ndarray<xoroshiro128p_state, 1> create_xoroshiro128p_states(index_t n, std::uint64_t seed,
                                                                   std::uint64_t subsequence_start = 0) {
  ndarray<xoroshiro128p_state, 1> states(ndarray<xoroshiro128p_state, 1>::uninitialized, {n});
  std::uint64_t sm = seed;
  xoroshiro128p_state s{detail::splitmix64(sm), detail::splitmix64(sm)};
  for (std::uint64_t i = 0; i < subsequence_start; ++i) jump(s);
  for (index_t i = 0; i < n; ++i) {
    states[i] = s;
    jump(s);
  }
  return states;
}

/// A float uniformly distributed in [0, 1), from generator `i` of `states`.
KERNEL_ALWAYS_INLINE float uniform_float32(array_view<xoroshiro128p_state> states, index_t i) noexcept {
  return static_cast<float>(next(states[i]) >> 40) * 0x1.0p-24f;
}

/// A double uniformly distributed in [0, 1).
KERNEL_ALWAYS_INLINE double uniform_float64(array_view<xoroshiro128p_state> states, index_t i) noexcept {
  return static_cast<double>(next(states[i]) >> 11) * 0x1.0p-53;
}

/// A normally distributed float (mean 0, standard deviation 1), by Box-Muller.
KERNEL_ALWAYS_INLINE float normal_float32(array_view<xoroshiro128p_state> states, index_t i) noexcept {
  const float u1 = 1.0f - uniform_float32(states, i), u2 = uniform_float32(states, i);
  return std::sqrt(-2.0f * std::log(u1)) * std::cos(2.0f * std::numbers::pi_v<float> * u2);
}

KERNEL_ALWAYS_INLINE double normal_float64(array_view<xoroshiro128p_state> states, index_t i) noexcept {
  const double u1 = 1.0 - uniform_float64(states, i), u2 = uniform_float64(states, i);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

} // namespace kernel::random
