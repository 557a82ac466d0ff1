// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Arrays of random numbers from cuRAND's generators: XORWOW, MRG32k3a, Philox-4x32-10 and
// the Sobol sequences (plain and scrambled, 32- and 64-bit), with cuRAND's distributions.
//
//   kernel::random::generator rng(kernel::random::engine::xorwow, /*seed=*/42);
//   rng.uniform(x);                     // (0, 1], host arrays on the CPU
//   rng.normal(dx, 0.0, 2.0);           // a device array: on its device
//   rng.on(kernel::target::simulator).poisson(counts, 3.5);
//   kernel::random::generator q(kernel::random::engine::sobol32, kernel::random::dimensions{3});
//   q.uniform(points);                  // 3 x m numbers: dimension 0's m, then dimension 1's, ...
//
// libcurand is loaded on the first fill (the CUDA toolkit's, or $KERNEL_CURAND_LIBRARY):
// host memory is filled by cuRAND's host generator, CUDA memory by its device generator on
// the call's stream. cuRAND makes the same numbers with either, and each fill starts where
// the last one ended whatever ran it, so a seed gives the same numbers on every target, and
// a generator gives the numbers that one cuRAND generator making the same calls would.
// Without libcurand a fill throws target_unavailable_error; kernel::random::philox
// (random_arrays.h) needs no library and is cuRAND's Philox-4x32-10.
//
// One difference from cuRAND's API: normals from XORWOW and MRG32k3a, which cuRAND makes in
// pairs, may be filled into arrays of odd length (one more is made and dropped). The host
// generator runs on one core (also for target::parallel); kernel::random::philox runs on all
// cores.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "kernel/detail/algorithm_run.h"
#include "kernel/detail/curand_api.h"
#include "kernel/detail/number_text.h"
#include "kernel/detail/random_parameters.h"

namespace kernel::random {

using engine = kernel::detail::curand_engine;

/// The dimensions of a quasi-random (Sobol) sequence: 1 to 20000.
struct dimensions {
  unsigned count = 1;
};

/// One of cuRAND's generators filling arrays; see the header comment.
class generator : public kernel::detail::placed<generator> {
public:
  /// A pseudo-random engine (xorwow, mrg32k3a, philox4_32_10) seeded with `seed`, from
  /// `offset` (cuRAND's curandSetGeneratorOffset): integers of any type, 0 to 2^64 - 1 (a
  /// negative one is an argument_error, a floating one a compile error).
  template <kernel::detail::integer_argument S, kernel::detail::integer_argument O = std::uint64_t>
  generator(engine e, S seed, O offset = 0) : engine_(e) {
    require_engine(e);
    if (kernel::detail::is_quasi(e))
      throw argument_error(std::string(engine_name(e)), 2,
                           "is a quasi-random engine: it takes kernel::random::dimensions, not a seed");
    state_ =
        kernel::detail::curand_create(e, kernel::detail::unsigned_integer_value(engine_name(e), 2, seed, "seed"), 1,
                                      kernel::detail::unsigned_integer_value(engine_name(e), 3, offset, "offset"));
  }
  /// A quasi-random engine (the Sobol ones) of `d` dimensions, from point `offset`.
  template <kernel::detail::integer_argument O = std::uint64_t>
  generator(engine e, dimensions d, O offset = 0) : engine_(e) {
    require_engine(e);
    if (!kernel::detail::is_quasi(e))
      throw argument_error(std::string(engine_name(e)), 2,
                           "is a pseudo-random engine: it takes a seed, not dimensions");
    if (d.count < 1 || d.count > 20000)
      throw argument_error(std::string(engine_name(e)), 2,
                           "has " + std::to_string(d.count) + " dimensions; cuRAND's Sobol engines take 1 to 20000");
    dimensions_ = d.count;
    state_ = kernel::detail::curand_create(e, 0, d.count,
                                           kernel::detail::unsigned_integer_value(engine_name(e), 3, offset, "offset"));
  }

  // Copies share the sequence; a move copies too, so that no generator is ever left empty.
  generator(const generator &) = default;
  generator &operator=(const generator &) = default;

  static constexpr std::string_view name() noexcept { return "random::generator"; }
  engine kind() const noexcept { return engine_; }
  /// Where the next fill starts, in cuRAND's units (numbers; points for Sobol; pairs for
  /// normals of XORWOW and MRG32k3a): the offset at which a cuRAND generator would go on.
  std::uint64_t offset() const { return kernel::detail::curand_offset(*state_); }

  /// Random bits: uint32 arrays (curandGenerate), uint64 arrays from the 64-bit Sobol
  /// engines (curandGenerateLongLong).
  template <class A> void bits(A &&out) const {
    if constexpr (fills<A, fill_kind::bits>()) bits_fitting<A>(out);
  }
  /// Uniform in (0, 1] (float or double arrays): curandGenerateUniform(Double).
  template <class A> void uniform(A &&out) const {
    if constexpr (fills<A, fill_kind::floats>())
      fill<A>("uniform", out,
              pick<A>(kernel::detail::curand_output::uniform32, kernel::detail::curand_output::uniform64), 0, 0);
  }
  /// Normal with `mean` and `stddev`: curandGenerateNormal(Double).
  template <class A> void normal(A &&out, double mean = 0, double stddev = 1) const {
    if constexpr (fills<A, fill_kind::floats>()) {
      check_normal<A>("normal", mean, stddev);
      fill<A>("normal", out, pick<A>(kernel::detail::curand_output::normal32, kernel::detail::curand_output::normal64),
              mean, stddev);
    }
  }
  /// exp of a normal with `mean` and `stddev`: curandGenerateLogNormal(Double).
  template <class A> void lognormal(A &&out, double mean = 0, double stddev = 1) const {
    if constexpr (fills<A, fill_kind::floats>()) {
      check_normal<A>("lognormal", mean, stddev);
      fill<A>("lognormal", out,
              pick<A>(kernel::detail::curand_output::lognormal32, kernel::detail::curand_output::lognormal64), mean,
              stddev);
    }
  }
  /// Poisson counts of mean `lambda` > 0 (uint32 arrays): curandGeneratePoisson.
  template <class A> void poisson(A &&out, double lambda) const {
    if constexpr (fills<A, fill_kind::counts>()) {
      if (!(lambda > 0) || !std::isfinite(lambda))
        throw argument_error(call_name("poisson"), 2,
                             "lambda is " + kernel::detail::number_text(lambda) +
                                 "; it must be finite and greater than 0");
      fill<A>("poisson", out, kernel::detail::curand_output::poisson, lambda, 0);
    }
  }

  static constexpr std::string_view engine_name(engine e) noexcept {
    switch (e) {
    case engine::xorwow: return "xorwow";
    case engine::mrg32k3a: return "mrg32k3a";
    case engine::philox4_32_10: return "philox4_32_10";
    case engine::sobol32: return "sobol32";
    case engine::scrambled_sobol32: return "scrambled_sobol32";
    case engine::sobol64: return "sobol64";
    case engine::scrambled_sobol64: return "scrambled_sobol64";
    }
    return "unknown engine";
  }

private:
  enum class fill_kind { bits, floats, counts };
  /// Whether `A` is an array a fill of `Kind` writes, with an error where it is not; the fill
  /// compiles nothing more then.
  template <class A, fill_kind Kind> static constexpr bool fills() {
    if constexpr (!kernel::detail::require_output_array<A>()) {
      return false;
    } else {
      using T = kernel::detail::element_of<std::remove_cvref_t<A>>;
      if constexpr (Kind == fill_kind::bits) {
        constexpr bool words = std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t>;
        static_assert(words, "generator::bits fills uint32 or uint64 arrays");
        return words;
      } else if constexpr (Kind == fill_kind::floats) {
        constexpr bool floats = std::is_same_v<T, float> || std::is_same_v<T, double>;
        static_assert(floats, "this distribution fills float or double arrays");
        return floats;
      } else {
        constexpr bool counts = std::is_same_v<T, std::uint32_t>;
        static_assert(counts, "generator::poisson fills uint32 arrays");
        return counts;
      }
    }
  }

  // `A` as the caller gave it (fill<A>): a temporary container on a stream is refused.
  template <class A> auto bits_fitting(A &out) const {
    using T = kernel::detail::element_of<std::remove_cvref_t<A>>;
    constexpr bool wide = std::is_same_v<T, std::uint64_t>;
    if (wide != kernel::detail::has_64_bit_draws(engine_))
      throw argument_error(call_name("bits"), 1,
                           std::string("is an array of ") + (wide ? "uint64" : "uint32") + " but " +
                               std::string(engine_name(engine_)) + " makes " + (wide ? "32" : "64") + "-bit numbers");
    fill<A>("bits", out, wide ? kernel::detail::curand_output::bits64 : kernel::detail::curand_output::bits32, 0, 0);
  }

  static void require_engine(engine e) {
    if (!kernel::detail::is_engine(e))
      throw argument_error("random::generator", 1,
                           "is engine " + std::to_string(static_cast<int>(e)) + ", which is none of cuRAND's");
  }

  std::string call_name(std::string_view what) const {
    return std::string(engine_name(engine_)) + "::" + std::string(what);
  }

  template <class A>
  static constexpr kernel::detail::curand_output pick(kernel::detail::curand_output single,
                                                      kernel::detail::curand_output twice) {
    using T = kernel::detail::element_of<std::remove_cvref_t<A>>;
    return std::is_same_v<T, float> ? single : twice;
  }

  /// Finite, and for float arrays within float's range (cuRAND takes them as floats).
  template <class A> void check_normal(std::string_view what, double mean, double stddev) const {
    kernel::detail::require_normal_parameters<kernel::detail::element_of<std::remove_cvref_t<A>>>(call_name(what), mean,
                                                                                                  stddev);
  }

  template <class A>
  void fill(std::string_view what, A &out, kernel::detail::curand_output output, double a, double b) const {
    using AA = std::remove_cvref_t<A>;
    using T = kernel::detail::element_of<AA>;
    const std::string callee = call_name(what);
    // `A` as the caller gave it (fill<A>): a temporary container on a stream is refused.
    kernel::detail::require_lasting_output<A>(callee, 1, this->placed_on());
    const kernel::detail::algorithm_site site = kernel::detail::site_of(callee, this->placed_on(), out);
    const index_t n = kernel::detail::arg_of<AA>::view(out).size();
    if (kernel::detail::is_quasi(engine_) && n % dimensions_ != 0)
      throw argument_error(callee, 1,
                           "has " + std::to_string(n) + " elements; a fill of " + std::string(engine_name(engine_)) +
                               " is whole points, a multiple of its " + std::to_string(dimensions_) + " dimensions");
    if (n == 0) return;
    kernel::detail::curand_require(*state_, callee);
    kernel::detail::output_elements<T> dst = kernel::detail::output_elements<T>::make(site, callee, 1, out);
    kernel::detail::curand_fill_request r;
    r.name = callee;
    r.output = output;
    r.out = dst.data;
    r.n = n;
    r.a = a;
    r.b = b;
    if (!site.on_device()) {
      kernel::detail::curand_fill(*state_, r, nullptr, nullptr);
    } else if (kernel::detail::device_is_simulator(*site.call->device)) {
      // The simulator's memory is the host's: the host generator fills it in stream order.
      kernel::detail::host_work(*site.call->stream,
                                [state = state_, r] { kernel::detail::curand_fill(*state, r, nullptr, nullptr); });
    } else {
      kernel::detail::curand_fill(*state_, r, site.call->device, site.call->stream.get());
    }
    dst.deliver();
  }

  engine engine_;
  unsigned dimensions_ = 1;
  std::shared_ptr<kernel::detail::curand_state> state_;
};

} // namespace kernel::random
