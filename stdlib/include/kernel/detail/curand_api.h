// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The runtime's cuRAND generators (runtime/random/) as kernel/random_generators.h sees them:
// an opaque state per generator and the fills it makes, on the host (cuRAND's host
// generator) or on a CUDA device (its device generator, on the call's stream).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "kernel/types.h"

namespace kernel::detail {

class device_state;
class stream_state;

/// cuRAND's generator types that the library offers.
enum class curand_engine : int {
  xorwow,
  mrg32k3a,
  philox4_32_10,
  sobol32,
  scrambled_sobol32,
  sobol64,
  scrambled_sobol64,
};

constexpr bool is_engine(curand_engine e) noexcept {
  return e >= curand_engine::xorwow && e <= curand_engine::scrambled_sobol64;
}
constexpr bool is_quasi(curand_engine e) noexcept { return e >= curand_engine::sobol32; }
constexpr bool has_64_bit_draws(curand_engine e) noexcept {
  return e == curand_engine::sobol64 || e == curand_engine::scrambled_sobol64;
}

/// What a fill makes, one per cuRAND generation function.
enum class curand_output : int {
  bits32,      // curandGenerate (uint32)
  bits64,      // curandGenerateLongLong (uint64, the 64-bit Sobol engines)
  uniform32,   // curandGenerateUniform
  uniform64,   // curandGenerateUniformDouble
  normal32,    // curandGenerateNormal
  normal64,    // curandGenerateNormalDouble
  lognormal32, // curandGenerateLogNormal
  lognormal64, // curandGenerateLogNormalDouble
  poisson,     // curandGeneratePoisson (uint32)
};

/// The generators of one kernel::random::generator: its engine and seed (or dimensions),
/// where its sequence has reached, and the cuRAND generators made for it so far (one on
/// the host, one per CUDA device), each made on its first fill.
class curand_state;

std::shared_ptr<curand_state> curand_create(curand_engine engine, std::uint64_t seed, unsigned dimensions,
                                            std::uint64_t offset);

/// The offset, in cuRAND's units, at which the generator's next fill starts.
std::uint64_t curand_offset(const curand_state &s);

struct curand_fill_request {
  std::string name; // "xorwow::normal", for errors
  curand_output output = curand_output::bits32;
  void *out = nullptr; // n elements, in memory of where the fill runs
  index_t n = 0;
  double a = 0, b = 0; // mean and standard deviation; lambda in `a` for poisson
};

/// Loads the cuRAND that the generator's fills use ($KERNEL_CURAND_LIBRARY or the toolkit's,
/// at its first fill; the same one afterwards); throws target_unavailable_error, prefixed
/// with `name`, when it cannot be.
void curand_require(curand_state &s, const std::string &name);

/// Makes the fill from where the generator's sequence has reached, on the host (`device`
/// null) or on `device` in order on `stream`, and moves the sequence on. Normals from XORWOW
/// and MRG32k3a, which cuRAND makes in pairs, take an even count (one number more when `n`
/// is odd, dropped). Throws cuda_error naming the cuRAND function and its status when cuRAND
/// fails; the sequence then stays where it was.
void curand_fill(curand_state &s, const curand_fill_request &r, device_state *device, stream_state *stream);

} // namespace kernel::detail
