// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel/detail/curand_api.h: cuRAND's generators, loaded on first use. The host generator
// fills host memory (cpu, parallel, and the simulator's memory, whose work runs on the
// host); the device generator fills CUDA memory on the call's stream. NVIDIA documents that
// the two make the same numbers for the same settings, and each fill sets the generator to
// the offset this file tracks, so the numbers do not depend on where each fill ran.
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include <curand.h>

#include "cuda/math_library.h"
#include "device/device_state.h"
#include "kernel/detail/curand_api.h"
#include "kernel/detail/number_text.h"
#include "kernel/errors.h"

namespace kernel::detail {

namespace {

struct curand_functions {
  decltype(&::curandCreateGenerator) create = nullptr;
  decltype(&::curandCreateGeneratorHost) create_host = nullptr;
  decltype(&::curandDestroyGenerator) destroy = nullptr;
  decltype(&::curandSetPseudoRandomGeneratorSeed) set_seed = nullptr;
  decltype(&::curandSetQuasiRandomGeneratorDimensions) set_dimensions = nullptr;
  decltype(&::curandSetGeneratorOffset) set_offset = nullptr;
  decltype(&::curandSetStream) set_stream = nullptr;
  decltype(&::curandGenerate) bits32 = nullptr;
  decltype(&::curandGenerateLongLong) bits64 = nullptr;
  decltype(&::curandGenerateUniform) uniform32 = nullptr;
  decltype(&::curandGenerateUniformDouble) uniform64 = nullptr;
  decltype(&::curandGenerateNormal) normal32 = nullptr;
  decltype(&::curandGenerateNormalDouble) normal64 = nullptr;
  decltype(&::curandGenerateLogNormal) lognormal32 = nullptr;
  decltype(&::curandGenerateLogNormalDouble) lognormal64 = nullptr;
  decltype(&::curandGeneratePoisson) poisson = nullptr;

  bool bind(const runtime::shared_library &l) {
    return l.bind(create, "curandCreateGenerator") && l.bind(create_host, "curandCreateGeneratorHost") &&
           l.bind(destroy, "curandDestroyGenerator") && l.bind(set_seed, "curandSetPseudoRandomGeneratorSeed") &&
           l.bind(set_dimensions, "curandSetQuasiRandomGeneratorDimensions") &&
           l.bind(set_offset, "curandSetGeneratorOffset") && l.bind(set_stream, "curandSetStream") &&
           l.bind(bits32, "curandGenerate") && l.bind(bits64, "curandGenerateLongLong") &&
           l.bind(uniform32, "curandGenerateUniform") && l.bind(uniform64, "curandGenerateUniformDouble") &&
           l.bind(normal32, "curandGenerateNormal") && l.bind(normal64, "curandGenerateNormalDouble") &&
           l.bind(lognormal32, "curandGenerateLogNormal") && l.bind(lognormal64, "curandGenerateLogNormalDouble") &&
           l.bind(poisson, "curandGeneratePoisson");
  }
};
using curand_library = runtime::cuda::math_library<curand_functions>;

constexpr runtime::cuda::math_library_spec curand_spec{"cuRAND", "libcurand.so.10", "KERNEL_CURAND_LIBRARY"};

/// Generators keep the library they were made by loaded (runtime/cuda/math_library.h).
std::shared_ptr<const curand_library> curand(const std::string &name) {
  return runtime::cuda::load_math_library<curand_functions>(curand_spec, [&name] { return "'" + name + "' needs"; });
}

const char *status_name(curandStatus_t s) noexcept {
  switch (s) {
  case CURAND_STATUS_SUCCESS: return "CURAND_STATUS_SUCCESS";
  case CURAND_STATUS_VERSION_MISMATCH: return "CURAND_STATUS_VERSION_MISMATCH";
  case CURAND_STATUS_NOT_INITIALIZED: return "CURAND_STATUS_NOT_INITIALIZED";
  case CURAND_STATUS_ALLOCATION_FAILED: return "CURAND_STATUS_ALLOCATION_FAILED";
  case CURAND_STATUS_TYPE_ERROR: return "CURAND_STATUS_TYPE_ERROR";
  case CURAND_STATUS_OUT_OF_RANGE: return "CURAND_STATUS_OUT_OF_RANGE";
  case CURAND_STATUS_LENGTH_NOT_MULTIPLE: return "CURAND_STATUS_LENGTH_NOT_MULTIPLE";
  case CURAND_STATUS_DOUBLE_PRECISION_REQUIRED: return "CURAND_STATUS_DOUBLE_PRECISION_REQUIRED";
  case CURAND_STATUS_LAUNCH_FAILURE: return "CURAND_STATUS_LAUNCH_FAILURE";
  case CURAND_STATUS_PREEXISTING_FAILURE: return "CURAND_STATUS_PREEXISTING_FAILURE";
  case CURAND_STATUS_INITIALIZATION_FAILED: return "CURAND_STATUS_INITIALIZATION_FAILED";
  case CURAND_STATUS_ARCH_MISMATCH: return "CURAND_STATUS_ARCH_MISMATCH";
  case CURAND_STATUS_INTERNAL_ERROR: return "CURAND_STATUS_INTERNAL_ERROR";
  }
  return "an unknown cuRAND status";
}

// `why` explains a status where the call's arguments are known to cause it.
void check(curandStatus_t s, const std::string &name, const char *call, const std::string &why = {}) {
  if (s != CURAND_STATUS_SUCCESS)
    throw cuda_error("'" + name + "': " + call + " failed: " + status_name(s) + " (" +
                         std::to_string(static_cast<int>(s)) + ")" + (why.empty() ? "" : ": " + why),
                     static_cast<int>(s));
}

// What a generation's status says of its request: cuRAND's Poisson generator tabulates its
// distribution, and a mean past its tables is CURAND_STATUS_OUT_OF_RANGE (NumPy takes any).
std::string generation_failure(curandStatus_t s, const curand_fill_request &r) {
  if (s == CURAND_STATUS_OUT_OF_RANGE && r.output == curand_output::poisson)
    return "lambda (argument 2) is " + number_text(r.a) + ", a mean beyond what cuRAND's Poisson generator takes";
  return {};
}

curandRngType_t rng_type(curand_engine e) noexcept {
  switch (e) {
  case curand_engine::xorwow: return CURAND_RNG_PSEUDO_XORWOW;
  case curand_engine::mrg32k3a: return CURAND_RNG_PSEUDO_MRG32K3A;
  case curand_engine::philox4_32_10: return CURAND_RNG_PSEUDO_PHILOX4_32_10;
  case curand_engine::sobol32: return CURAND_RNG_QUASI_SOBOL32;
  case curand_engine::scrambled_sobol32: return CURAND_RNG_QUASI_SCRAMBLED_SOBOL32;
  case curand_engine::sobol64: return CURAND_RNG_QUASI_SOBOL64;
  case curand_engine::scrambled_sobol64: return CURAND_RNG_QUASI_SCRAMBLED_SOBOL64;
  }
  return CURAND_RNG_PSEUDO_DEFAULT;
}

bool in_pairs(curand_engine e, curand_output o) noexcept {
  const bool normal = o == curand_output::normal32 || o == curand_output::normal64 || o == curand_output::lognormal32 ||
                      o == curand_output::lognormal64;
  return normal && (e == curand_engine::xorwow || e == curand_engine::mrg32k3a);
}

std::size_t element_bytes(curand_output o) noexcept {
  switch (o) {
  case curand_output::bits64:
  case curand_output::uniform64:
  case curand_output::normal64:
  case curand_output::lognormal64: return 8;
  default: return 4;
  }
}

/// One cuRAND generator, destroyed with its owner; `position` is the offset its next
/// generation starts at, when known.
class placed_generator {
public:
  placed_generator(std::shared_ptr<const curand_library> lib, curandGenerator_t g, const device_state *device)
      : lib_(std::move(lib)), generator_(g), device_(device) {}
  placed_generator(const placed_generator &) = delete;
  placed_generator &operator=(const placed_generator &) = delete;
  ~placed_generator() {
    try {
      if (device_) device_->make_current();
    } catch (...) {
      // The device is gone (the driver shut down first at exit): so is the generator's memory.
      return;
    }
    lib_->destroy(generator_);
  }
  curandGenerator_t get() const noexcept { return generator_; }

  std::optional<std::uint64_t> position = 0;
  // Device generators: an event after the last fill, which the next fill's stream waits for
  // (the generator's state is device memory that each fill rewrites).
  std::shared_ptr<event_state> last_fill;

private:
  std::shared_ptr<const curand_library> lib_;
  curandGenerator_t generator_;
  const device_state *device_;
};

} // namespace

class curand_state {
public:
  curand_state(curand_engine e, std::uint64_t seed, unsigned dimensions, std::uint64_t offset)
      : engine(e), seed(seed), dimensions(dimensions), next(offset) {}

  const curand_engine engine;
  const std::uint64_t seed;
  const unsigned dimensions;

  mutable std::mutex lock;
  std::uint64_t next; // guarded by `lock`
  // The cuRAND of the first fill: later fills use it whatever $KERNEL_CURAND_LIBRARY becomes,
  // as its generators belong to it.
  std::shared_ptr<const curand_library> library;
  std::unique_ptr<placed_generator> host;
  std::map<const device_state *, std::unique_ptr<placed_generator>> devices;
};

std::shared_ptr<curand_state> curand_create(curand_engine engine, std::uint64_t seed, unsigned dimensions,
                                            std::uint64_t offset) {
  return std::make_shared<curand_state>(engine, seed, dimensions, offset);
}

std::uint64_t curand_offset(const curand_state &s) {
  std::lock_guard guard(s.lock);
  return s.next;
}

namespace {
/// The state's cuRAND, loaded by its first fill.
const curand_library &library_of(curand_state &s, const std::string &name) {
  std::lock_guard guard(s.lock);
  if (!s.library) s.library = curand(name);
  return *s.library;
}
} // namespace

void curand_require(curand_state &s, const std::string &name) { library_of(s, name); }

namespace {

/// How far a fill of `n` moves cuRAND's offset: by points for quasi-random engines, by
/// pairs for normals made in pairs, else by numbers.
std::uint64_t advance_of(const curand_state &s, curand_output output, index_t n) noexcept {
  const auto count = static_cast<std::uint64_t>(n);
  if (is_quasi(s.engine)) return count / s.dimensions;
  if (in_pairs(s.engine, output)) return (count + 1) / 2;
  return count;
}

} // namespace

namespace {

placed_generator &generator_for(curand_state &s, const std::string &name, device_state *device) {
  const curand_library &lib = *s.library;
  std::unique_ptr<placed_generator> &slot = device ? s.devices[device] : s.host;
  if (slot) return *slot;
  curandGenerator_t g = nullptr;
  if (device) {
    device->make_current();
    check(lib.create(&g, rng_type(s.engine)), name, "curandCreateGenerator");
  } else {
    check(lib.create_host(&g, rng_type(s.engine)), name, "curandCreateGeneratorHost");
  }
  auto made = std::make_unique<placed_generator>(s.library, g, device);
  if (is_quasi(s.engine))
    check(lib.set_dimensions(g, s.dimensions), name, "curandSetQuasiRandomGeneratorDimensions");
  else
    check(lib.set_seed(g, s.seed), name, "curandSetPseudoRandomGeneratorSeed");
  slot = std::move(made);
  return *slot;
}

curandStatus_t generate(const curand_library &lib, curandGenerator_t g, const curand_fill_request &r, void *out,
                        std::size_t n) {
  switch (r.output) {
  case curand_output::bits32: return lib.bits32(g, static_cast<unsigned *>(out), n);
  case curand_output::bits64: return lib.bits64(g, static_cast<unsigned long long *>(out), n);
  case curand_output::uniform32: return lib.uniform32(g, static_cast<float *>(out), n);
  case curand_output::uniform64: return lib.uniform64(g, static_cast<double *>(out), n);
  case curand_output::normal32:
    return lib.normal32(g, static_cast<float *>(out), n, static_cast<float>(r.a), static_cast<float>(r.b));
  case curand_output::normal64: return lib.normal64(g, static_cast<double *>(out), n, r.a, r.b);
  case curand_output::lognormal32:
    return lib.lognormal32(g, static_cast<float *>(out), n, static_cast<float>(r.a), static_cast<float>(r.b));
  case curand_output::lognormal64: return lib.lognormal64(g, static_cast<double *>(out), n, r.a, r.b);
  case curand_output::poisson: return lib.poisson(g, static_cast<unsigned *>(out), n, r.a);
  }
  return CURAND_STATUS_TYPE_ERROR;
}

const char *function_name(curand_output o) noexcept {
  switch (o) {
  case curand_output::bits32: return "curandGenerate";
  case curand_output::bits64: return "curandGenerateLongLong";
  case curand_output::uniform32: return "curandGenerateUniform";
  case curand_output::uniform64: return "curandGenerateUniformDouble";
  case curand_output::normal32: return "curandGenerateNormal";
  case curand_output::normal64: return "curandGenerateNormalDouble";
  case curand_output::lognormal32: return "curandGenerateLogNormal";
  case curand_output::lognormal64: return "curandGenerateLogNormalDouble";
  case curand_output::poisson: return "curandGeneratePoisson";
  }
  return "cuRAND";
}

/// Orders a device generator's use on `stream` after its last fill, on whichever stream.
void order_on(placed_generator &g, const curand_library &lib, const std::string &name, device_state &device,
              stream_state &stream) {
  if (g.last_fill) stream.wait(*g.last_fill);
  check(lib.set_stream(g.get(), static_cast<cudaStream_t>(stream.native())), name, "curandSetStream");
  if (!g.last_fill) g.last_fill = device.create_event();
}

} // namespace

void curand_fill(curand_state &s, const curand_fill_request &r, device_state *device, stream_state *stream) {
  if (r.n <= 0) return;
  const curand_library &lib = library_of(s, r.name);
  std::lock_guard guard(s.lock);
  // cuRAND's offset is 64 bits: past it, the numbers would start again from a small offset.
  if (const std::uint64_t advance = advance_of(s, r.output, r.n); s.next + advance < s.next)
    throw kernel::argument_error(r.name, 0,
                                 "the generator is at offset " + std::to_string(s.next) + ", and " +
                                     std::to_string(advance) +
                                     " more would reach 2^64, where cuRAND's offsets end and its numbers would "
                                     "repeat");
  placed_generator &g = generator_for(s, r.name, device);
  const auto n = static_cast<std::size_t>(r.n);
  const bool odd_pair = in_pairs(s.engine, r.output) && n % 2 == 1;
  const std::size_t size = element_bytes(r.output);
  // Where the last number of an odd fill of pairs is made: memory taken before anything is
  // generated, so that a failure to get it leaves the user's array as it was.
  alignas(8) char host_pair[16];
  std::shared_ptr<void> device_pair;
  if (device) {
    device->make_current();
    order_on(g, lib, r.name, *device, *stream);
    if (odd_pair)
      device_pair = std::shared_ptr<void>(device->allocate(2 * size, *stream),
                                          [device, stream](void *p) { device->release(p, *stream); });
  }
  // Unknown until the fill succeeds: a generation that fails part way has moved cuRAND on.
  const std::optional<std::uint64_t> at = std::exchange(g.position, std::nullopt);
  // The generator may be behind or ahead of the sequence when other places made fills.
  if (at != s.next) check(lib.set_offset(g.get(), s.next), r.name, "curandSetGeneratorOffset");
  const auto generate_into = [&](void *out, std::size_t count) {
    const curandStatus_t status = generate(lib, g.get(), r, out, count);
    check(status, r.name, function_name(r.output), generation_failure(status, r));
  };
  try {
    if (odd_pair) {
      // cuRAND makes these in pairs: the even part in place, then one pair of which the
      // first number is kept.
      if (n > 1) generate_into(r.out, n - 1);
      void *pair = device ? device_pair.get() : host_pair;
      generate_into(pair, 2);
      char *last = static_cast<char *>(r.out) + (n - 1) * size;
      if (device)
        device->copy(last, pair, size, copy_direction::device_to_device, *stream);
      else
        std::memcpy(last, pair, size);
    } else {
      generate_into(r.out, n);
    }
  } catch (...) {
    // Whatever was queued still rewrites the generator's state: the next fill waits for it.
    if (device) g.last_fill->record(*stream);
    throw;
  }
  s.next += advance_of(s, r.output, r.n);
  g.position = s.next;
  if (device) g.last_fill->record(*stream);
}

} // namespace kernel::detail
