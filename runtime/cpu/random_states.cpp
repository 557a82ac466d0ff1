// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The host side of kernel/random.h: seeding the per-thread xoroshiro128+ generators.
#include "kernel/random.h"

#include <string>

#include "kernel/errors.h"

namespace kernel::random {

ndarray<xoroshiro128p_state, 1> detail::seeded_xoroshiro128p_states(index_t n, std::uint64_t seed,
                                                                    std::uint64_t subsequence_start) {
  if (n < 0)
    throw argument_error("create_xoroshiro128p_states", 1,
                         "asks for " + std::to_string(n) + " states; the number of threads must not be negative");
  ndarray<xoroshiro128p_state, 1> states(ndarray<xoroshiro128p_state, 1>::uninitialized, {n});
  // One splitmix64 step for both words, as Numba's init_xoroshiro128p_state.
  std::uint64_t sm = seed;
  const std::uint64_t z = detail::splitmix64(sm);
  xoroshiro128p_state s{z, z};
  for (std::uint64_t i = 0; i < subsequence_start; ++i) jump(s);
  for (index_t i = 0; i < n; ++i) {
    states[i] = s;
    jump(s);
  }
  return states;
}

} // namespace kernel::random
