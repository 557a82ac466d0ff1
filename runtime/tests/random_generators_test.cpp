// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel/random_generators.h against cuRAND called directly (its host generator, loaded here
// by the test): every engine and distribution on cpu, parallel and the device gives the
// numbers of one cuRAND generator making the same calls, also when a generator moves between
// targets or starts at an offset; Sobol's first points and the Philox engine against
// kernel::random::philox, the library's own; and the error paths (bad engines, dimensions,
// parameters, array types, a missing or wrong libcurand, a cuRAND status), after which the
// user's array holds what it held.
#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include <curand.h>
#include <gtest/gtest.h>

#include <limits>

#include "kernel/random_arrays.h"
#include "kernel/random_generators.h"
#include "scoped_environment.h"
#include "test_device.h"

namespace {

namespace rnd = kernel::random;
using rnd::engine;

/// cuRAND's host API, loaded by the test from the toolkit (as the runtime does, but on its
/// own, so that the two are compared).
struct direct_curand {
  decltype(&::curandCreateGeneratorHost) create = nullptr;
  decltype(&::curandDestroyGenerator) destroy = nullptr;
  decltype(&::curandSetPseudoRandomGeneratorSeed) seed = nullptr;
  decltype(&::curandSetQuasiRandomGeneratorDimensions) dimensions = nullptr;
  decltype(&::curandSetGeneratorOffset) offset = nullptr;
  decltype(&::curandGenerate) bits32 = nullptr;
  decltype(&::curandGenerateLongLong) bits64 = nullptr;
  decltype(&::curandGenerateUniform) uniform32 = nullptr;
  decltype(&::curandGenerateUniformDouble) uniform64 = nullptr;
  decltype(&::curandGenerateNormal) normal32 = nullptr;
  decltype(&::curandGenerateNormalDouble) normal64 = nullptr;
  decltype(&::curandGenerateLogNormal) lognormal32 = nullptr;
  decltype(&::curandGenerateLogNormalDouble) lognormal64 = nullptr;
  decltype(&::curandGeneratePoisson) poisson = nullptr;

  /// Null when this machine has no libcurand. Never dlclose'd: libcurand carries its own C++
  /// runtime, whose exception pool LeakSanitizer would report once the library is gone.
  static const direct_curand *get() {
    static const direct_curand *loaded = []() -> const direct_curand * {
      void *lib = dlopen("libcurand.so.10", RTLD_NOW);
      if (!lib) lib = dlopen("/usr/local/cuda/lib64/libcurand.so.10", RTLD_NOW);
      if (!lib) return nullptr;
      static direct_curand c;
      auto bind = [lib](auto &fn, const char *name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
        return fn != nullptr;
      };
      const bool ok = bind(c.create, "curandCreateGeneratorHost") && bind(c.destroy, "curandDestroyGenerator") &&
                      bind(c.seed, "curandSetPseudoRandomGeneratorSeed") &&
                      bind(c.dimensions, "curandSetQuasiRandomGeneratorDimensions") &&
                      bind(c.offset, "curandSetGeneratorOffset") && bind(c.bits32, "curandGenerate") &&
                      bind(c.bits64, "curandGenerateLongLong") && bind(c.uniform32, "curandGenerateUniform") &&
                      bind(c.uniform64, "curandGenerateUniformDouble") && bind(c.normal32, "curandGenerateNormal") &&
                      bind(c.normal64, "curandGenerateNormalDouble") &&
                      bind(c.lognormal32, "curandGenerateLogNormal") &&
                      bind(c.lognormal64, "curandGenerateLogNormalDouble") && bind(c.poisson, "curandGeneratePoisson");
      return ok ? &c : nullptr;
    }();
    return loaded;
  }
};

#define REQUIRE_CURAND()                                                                                               \
  if (!direct_curand::get()) GTEST_SKIP() << "no libcurand on this machine"

curandRngType_t rng_type(engine e) {
  switch (e) {
  case engine::xorwow: return CURAND_RNG_PSEUDO_XORWOW;
  case engine::mrg32k3a: return CURAND_RNG_PSEUDO_MRG32K3A;
  case engine::philox4_32_10: return CURAND_RNG_PSEUDO_PHILOX4_32_10;
  case engine::sobol32: return CURAND_RNG_QUASI_SOBOL32;
  case engine::scrambled_sobol32: return CURAND_RNG_QUASI_SCRAMBLED_SOBOL32;
  case engine::sobol64: return CURAND_RNG_QUASI_SOBOL64;
  case engine::scrambled_sobol64: return CURAND_RNG_QUASI_SCRAMBLED_SOBOL64;
  }
  return CURAND_RNG_PSEUDO_DEFAULT;
}

bool quasi(engine e) { return e >= engine::sobol32; }
bool pairs(engine e) { return e == engine::xorwow || e == engine::mrg32k3a; }
bool wide(engine e) { return e == engine::sobol64 || e == engine::scrambled_sobol64; }

/// One cuRAND host generator, made and called by the test.
class reference {
public:
  reference(engine e, std::uint64_t seed_or_dimensions, std::uint64_t offset = 0) : c_(*direct_curand::get()) {
    EXPECT_EQ(c_.create(&g_, rng_type(e)), CURAND_STATUS_SUCCESS);
    if (quasi(e))
      EXPECT_EQ(c_.dimensions(g_, static_cast<unsigned>(seed_or_dimensions)), CURAND_STATUS_SUCCESS);
    else
      EXPECT_EQ(c_.seed(g_, seed_or_dimensions), CURAND_STATUS_SUCCESS);
    if (offset) EXPECT_EQ(c_.offset(g_, offset), CURAND_STATUS_SUCCESS);
  }
  reference(const reference &) = delete;
  reference &operator=(const reference &) = delete;
  ~reference() { c_.destroy(g_); }

  const direct_curand &c() const { return c_; }
  curandGenerator_t get() const { return g_; }

private:
  const direct_curand &c_;
  curandGenerator_t g_ = nullptr;
};

/// Runs `fill` on a host array (target cpu or parallel) or on a device array, and returns
/// the values on the host.
template <class T, class Fill> std::vector<T> filled(kernel::target t, std::size_t n, Fill &&fill) {
  if (t == kernel::target::cpu || t == kernel::target::parallel) {
    std::vector<T> v(n);
    fill(v);
    return v;
  }
  kernel::device_array<T, 1> d(static_cast<kernel::index_t>(n), kernel_test::device());
  fill(d);
  return d.copy_to_host().to_vector();
}

/// Normals and lognormals as the reference generator (cuRAND's on the host) makes them: bit for
/// bit where the host made them too; from cuRAND's device generator on a GPU within the
/// rounding of its math, whose log, sqrt and sincos differ from the host's in the last bits.
template <class T> void expect_same_normals(const std::vector<T> &got, const std::vector<T> &want, bool gpu) {
  if (!gpu) {
    EXPECT_EQ(got, want);
    return;
  }
  ASSERT_EQ(got.size(), want.size());
  // Relative to the deviation's scale too: a normal near 0 comes from terms near 1.
  const double relative = std::is_same_v<T, float> ? 1e-5 : 1e-12;
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], relative * (1 + std::abs(static_cast<double>(want[i])))) << i;
}

class Engines : public testing::TestWithParam<std::tuple<engine, kernel::target>> {};

// A sequence of every distribution, as one cuRAND generator makes it.
TEST_P(Engines, SameNumbersAsOneCurandGenerator) {
  REQUIRE_CURAND();
  const auto [e, t] = GetParam();
  const std::uint64_t seed = quasi(e) ? 1 : 1234;
  const rnd::generator made = quasi(e) ? rnd::generator(e, rnd::dimensions{1}) : rnd::generator(e, seed);
  const rnd::generator g = made.on(t);
  const reference ref(e, seed);
  const auto &c = ref.c();

  auto u = filled<float>(t, 1000, [&](auto &a) { g.uniform(a); });
  std::vector<float> want_u(1000);
  ASSERT_EQ(c.uniform32(ref.get(), want_u.data(), 1000), CURAND_STATUS_SUCCESS);
  EXPECT_EQ(u, want_u);

  // Odd: XORWOW and MRG32k3a make one more, in a pair, and drop it.
  const std::size_t odd = 1001, made_n = pairs(e) ? 1002 : 1001;
  auto z = filled<float>(t, odd, [&](auto &a) { g.normal(a, 1.5, 0.5); });
  std::vector<float> want_z(made_n);
  ASSERT_EQ(c.normal32(ref.get(), want_z.data(), made_n, 1.5f, 0.5f), CURAND_STATUS_SUCCESS);
  want_z.resize(odd);
  expect_same_normals(z, want_z, t == kernel::target::cuda);

  auto ud = filled<double>(t, 37, [&](auto &a) { g.uniform(a); });
  std::vector<double> want_ud(37);
  ASSERT_EQ(c.uniform64(ref.get(), want_ud.data(), 37), CURAND_STATUS_SUCCESS);
  EXPECT_EQ(ud, want_ud);

  auto ln = filled<double>(t, 38, [&](auto &a) { g.lognormal(a, 0.5, 0.25); });
  std::vector<double> want_ln(38);
  ASSERT_EQ(c.lognormal64(ref.get(), want_ln.data(), 38, 0.5, 0.25), CURAND_STATUS_SUCCESS);
  expect_same_normals(ln, want_ln, t == kernel::target::cuda);

  auto p = filled<std::uint32_t>(t, 50, [&](auto &a) { g.poisson(a, 3.5); });
  std::vector<unsigned> want_p(50);
  ASSERT_EQ(c.poisson(ref.get(), want_p.data(), 50, 3.5), CURAND_STATUS_SUCCESS);
  EXPECT_EQ(p, std::vector<std::uint32_t>(want_p.begin(), want_p.end()));

  if (wide(e)) {
    auto b = filled<std::uint64_t>(t, 100, [&](auto &a) { g.bits(a); });
    std::vector<unsigned long long> want_b(100);
    ASSERT_EQ(c.bits64(ref.get(), want_b.data(), 100), CURAND_STATUS_SUCCESS);
    EXPECT_EQ(b, std::vector<std::uint64_t>(want_b.begin(), want_b.end()));
  } else {
    auto b = filled<std::uint32_t>(t, 100, [&](auto &a) { g.bits(a); });
    std::vector<unsigned> want_b(100);
    ASSERT_EQ(c.bits32(ref.get(), want_b.data(), 100), CURAND_STATUS_SUCCESS);
    EXPECT_EQ(b, std::vector<std::uint32_t>(want_b.begin(), want_b.end()));
  }
  // The copy made by on(...) shares the sequence.
  EXPECT_EQ(made.offset(), g.offset());
  EXPECT_EQ(g.offset(), quasi(e) ? 1000u + 1001 + 37 + 38 + 50 + 100
                                 : 1000u + made_n / (pairs(e) ? 2 : 1) + 37 + (pairs(e) ? 19 : 38) + 50 + 100);
}

std::string engine_label(engine e) { return std::string(rnd::generator::engine_name(e)); }

INSTANTIATE_TEST_SUITE_P(
    RandomGenerators, Engines,
    testing::Combine(testing::Values(engine::xorwow, engine::mrg32k3a, engine::philox4_32_10, engine::sobol32,
                                     engine::scrambled_sobol32, engine::sobol64, engine::scrambled_sobol64),
                     testing::Values(kernel::target::cpu, kernel::target::parallel, kernel_test::target())),
    [](const auto &info) {
      return engine_label(std::get<0>(info.param)) + "_" + std::string(kernel::target_name(std::get<1>(info.param)));
    });

// A generator used on the host, then the device, then the host again, from an offset: the
// numbers one generator makes.
TEST(RandomGenerators, MovesBetweenTargetsAlongOneSequence) {
  REQUIRE_CURAND();
  const rnd::generator g(engine::xorwow, 9, /*offset=*/1000);
  const reference ref(engine::xorwow, 9, 1000);
  std::vector<float> a(64), want_a(64);
  g.uniform(a);
  kernel::device_array<float, 1> db(128, kernel_test::device());
  g.normal(db);
  std::vector<float> c(32), want_b(128), want_c(32);
  g.on(kernel::target::parallel).uniform(c);
  ASSERT_EQ(ref.c().uniform32(ref.get(), want_a.data(), 64), CURAND_STATUS_SUCCESS);
  ASSERT_EQ(ref.c().normal32(ref.get(), want_b.data(), 128, 0.0f, 1.0f), CURAND_STATUS_SUCCESS);
  ASSERT_EQ(ref.c().uniform32(ref.get(), want_c.data(), 32), CURAND_STATUS_SUCCESS);
  EXPECT_EQ(a, want_a);
  expect_same_normals(db.copy_to_host().to_vector(), want_b, kernel_test::on_gpu());
  EXPECT_EQ(c, want_c);
  EXPECT_EQ(g.offset(), 1000u + 64 + 64 + 32);

  // A second generator with the first one's seed starts again; at its offset it goes on.
  std::vector<float> again(32);
  rnd::generator(engine::xorwow, 9, g.offset() - 32).uniform(again);
  EXPECT_EQ(again, want_c);
}

// cuRAND's offsets are 64-bit: a fill that would take the generator to 2^64 is refused, where
// it would wrap to a small offset and repeat numbers; up to the last offset is fine.
TEST(RandomGenerators, OffsetsEndAt2To64) {
  REQUIRE_CURAND();
  const std::uint64_t near_end = std::numeric_limits<std::uint64_t>::max() - 3;
  const rnd::generator g(engine::philox4_32_10, 9, near_end);
  std::vector<float> eight(8, -1.0f), three(3);
  try {
    g.uniform(eight);
    ADD_FAILURE() << "filled past 2^64";
  } catch (const kernel::argument_error &e) {
    EXPECT_NE(std::string(e.what()).find("8 more would reach 2^64"), std::string::npos) << e.what();
  }
  EXPECT_EQ(eight, std::vector<float>(8, -1.0f)) << "nothing is written";
  EXPECT_EQ(g.offset(), near_end);
  g.uniform(three); // up to the last offset there is
  EXPECT_EQ(g.offset(), near_end + 3);
  std::vector<float> one(1, -1.0f);
  EXPECT_THROW(g.uniform(one), kernel::argument_error); // to 2^64 itself
  EXPECT_EQ(one, std::vector<float>(1, -1.0f));
}

// From an offset that is not a pair's start, odd fills of pairs in double and float on the
// host and the device: the generator is re-offset in cuRAND's units and goes on as cuRAND's.
TEST(RandomGenerators, OddPairsAndDoublesFromAnOffset) {
  REQUIRE_CURAND();
  const rnd::generator g(engine::mrg32k3a, 4, /*offset=*/1001);
  const reference ref(engine::mrg32k3a, 4, 1001);
  std::vector<double> z(7);
  g.normal(z, -1.0, 2.0);
  auto ln =
      filled<float>(kernel_test::target(), 5, [&](auto &a) { g.on(kernel_test::target()).lognormal(a, 0.0, 0.5); });
  std::vector<double> u(3);
  g.on(kernel::target::parallel).uniform(u);
  std::vector<double> want_z(8), want_u(3);
  std::vector<float> want_ln(6);
  ASSERT_EQ(ref.c().normal64(ref.get(), want_z.data(), 8, -1.0, 2.0), CURAND_STATUS_SUCCESS);
  ASSERT_EQ(ref.c().lognormal32(ref.get(), want_ln.data(), 6, 0.0f, 0.5f), CURAND_STATUS_SUCCESS);
  ASSERT_EQ(ref.c().uniform64(ref.get(), want_u.data(), 3), CURAND_STATUS_SUCCESS);
  want_z.resize(7);
  want_ln.resize(5);
  EXPECT_EQ(z, want_z);
  expect_same_normals(ln, want_ln, kernel_test::on_gpu());
  EXPECT_EQ(u, want_u);
  EXPECT_EQ(g.offset(), 1001u + 4 + 3 + 3);
  // A moved-from generator is a copy: still usable, on the same sequence.
  rnd::generator moved = g;
  rnd::generator taken = std::move(moved);
  EXPECT_EQ(moved.offset(), taken.offset());
}

// Host arrays filled on the device (copied back), strided views, and empty arrays.
TEST(RandomGenerators, AnyArrayLayoutAndPlace) {
  REQUIRE_CURAND();
  const reference ref(engine::philox4_32_10, 3);
  const rnd::generator g(engine::philox4_32_10, 3);
  std::vector<float> memory(300, -1.0f);
  kernel::array_view<float, 1> every_third(memory.data() + 1, {100}, {3});
  g.on(kernel_test::target()).uniform(every_third);
  std::vector<float> want(100);
  ASSERT_EQ(ref.c().uniform32(ref.get(), want.data(), 100), CURAND_STATUS_SUCCESS);
  for (std::size_t i = 0; i < 100; ++i) {
    EXPECT_EQ(memory[3 * i + 1], want[i]) << i;
    EXPECT_EQ(memory[3 * i], -1.0f) << i;
    EXPECT_EQ(memory[3 * i + 2], -1.0f) << i;
  }
  kernel::ndarray<double, 2> m({5, 4});
  g.lognormal(m, 0.5, 0.25);
  std::vector<double> want_m(20);
  ASSERT_EQ(ref.c().lognormal64(ref.get(), want_m.data(), 20, 0.5, 0.25), CURAND_STATUS_SUCCESS);
  EXPECT_EQ(m.to_vector(), want_m);
  std::vector<float> none;
  g.uniform(none);
  EXPECT_EQ(g.offset(), 120u);
}

// Sobol's first dimension is the van der Corput sequence in Gray-code order; points of
// several dimensions come dimension by dimension; the offset counts points.
TEST(RandomGenerators, SobolPointsAndDimensions) {
  REQUIRE_CURAND();
  const rnd::generator one(engine::sobol32, rnd::dimensions{1});
  std::vector<std::uint32_t> first(4);
  one.bits(first);
  EXPECT_EQ(first, (std::vector<std::uint32_t>{0u, 1u << 31, 3u << 30, 1u << 30}));

  const rnd::generator three(engine::sobol32, rnd::dimensions{3});
  const reference ref(engine::sobol32, 3);
  for (kernel::target t : {kernel::target::cpu, kernel_test::target()}) {
    auto got = filled<float>(t, 9, [&](auto &a) { three.on(t).uniform(a); });
    std::vector<float> want(9);
    ASSERT_EQ(ref.c().uniform32(ref.get(), want.data(), 9), CURAND_STATUS_SUCCESS);
    EXPECT_EQ(got, want);
  }
  EXPECT_EQ(three.offset(), 6u);
  std::vector<float> five(5, 7.0f);
  try {
    three.uniform(five);
    ADD_FAILURE() << "5 numbers of 3-dimensional points";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.callee(), "sobol32::uniform");
    EXPECT_NE(std::string(e.what()).find("multiple of its 3 dimensions"), std::string::npos) << e.what();
  }
  EXPECT_EQ(five, std::vector<float>(5, 7.0f));
  EXPECT_EQ(three.offset(), 6u);
}

// The cuRAND Philox engine and the library's own Philox are the same generator.
TEST(RandomGenerators, PhiloxEngineIsTheLibrarysPhilox) {
  REQUIRE_CURAND();
  std::vector<std::uint32_t> a(4096), b(4096);
  rnd::generator(engine::philox4_32_10, 77).bits(a);
  rnd::philox(77).bits(b);
  EXPECT_EQ(a, b);
  std::vector<double> ua(4096), ub(4096);
  rnd::generator(engine::philox4_32_10, 77).uniform(ua);
  rnd::philox(77).uniform(ub);
  EXPECT_EQ(ua, ub);
  std::vector<float> za(4096), zb(4096);
  rnd::generator(engine::philox4_32_10, 77).normal(za);
  rnd::philox(77).normal(zb);
  for (std::size_t i = 0; i < za.size(); ++i) ASSERT_NEAR(za[i], zb[i], 1e-5f * (1 + std::fabs(za[i]))) << i;
}

// The distributions' moments, on the device.
TEST(RandomGenerators, Moments) {
  REQUIRE_CURAND();
  const rnd::generator g = rnd::generator(engine::xorwow, 5).on(kernel_test::target());
  constexpr std::size_t n = 200000;
  auto mean_and_sd = [](const auto &v) {
    double s = 0, s2 = 0;
    for (double x : v) s += x;
    const double mean = s / static_cast<double>(v.size());
    for (double x : v) s2 += (x - mean) * (x - mean);
    return std::pair{mean, std::sqrt(s2 / static_cast<double>(v.size()))};
  };
  std::vector<float> z(n);
  g.normal(z, 2.0, 3.0);
  auto [zm, zs] = mean_and_sd(z);
  EXPECT_NEAR(zm, 2.0, 0.05);
  EXPECT_NEAR(zs, 3.0, 0.05);
  std::vector<std::uint32_t> p(n);
  g.poisson(p, 6.5);
  auto [pm, ps] = mean_and_sd(p);
  EXPECT_NEAR(pm, 6.5, 0.05);
  EXPECT_NEAR(ps, std::sqrt(6.5), 0.05);
  std::vector<double> u(n);
  g.uniform(u);
  auto [um, us] = mean_and_sd(u);
  EXPECT_NEAR(um, 0.5, 0.01);
  EXPECT_NEAR(us, std::sqrt(1.0 / 12), 0.01);
  for (double x : u) ASSERT_TRUE(x > 0 && x <= 1) << x;
}

template <class F> void expect_argument_error(F &&f, const std::string &callee, int argument, const std::string &text) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one about " << text;
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.callee(), callee) << e.what();
    EXPECT_EQ(e.argument(), argument) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(RandomGenerators, BadEnginesAndParameters) {
  expect_argument_error([] { rnd::generator(engine::sobol32, 5); }, "sobol32", 2, "takes kernel::random::dimensions");
  expect_argument_error([] { rnd::generator(engine::xorwow, rnd::dimensions{2}); }, "xorwow", 2, "takes a seed");
  expect_argument_error([] { rnd::generator(engine::sobol64, rnd::dimensions{0}); }, "sobol64", 2, "1 to 20000");
  expect_argument_error([] { rnd::generator(engine::sobol64, rnd::dimensions{20001}); }, "sobol64", 2, "1 to 20000");
  expect_argument_error([] { rnd::generator(static_cast<engine>(42), 1); }, "random::generator", 1, "none of cuRAND's");
  // Seeds and offsets are 0 to 2^64 - 1: a negative one is refused, not wrapped to a huge one.
  expect_argument_error([] { rnd::generator(engine::xorwow, -1); }, "xorwow", 2, "seed -1 is negative");
  expect_argument_error([] { rnd::generator(engine::philox4_32_10, 1, -4LL); }, "philox4_32_10", 3,
                        "offset -4 is negative");
  expect_argument_error([] { rnd::generator(engine::sobol32, rnd::dimensions{2}, short{-1}); }, "sobol32", 3,
                        "offset -1 is negative");
  expect_argument_error([] { rnd::philox(-7); }, "philox", 1, "seed -7 is negative");
  expect_argument_error([] { rnd::philox(1, -1); }, "philox", 2, "offset -1 is negative");
  // Any integer type otherwise, the same sequence as the uint64_t of that value.
  std::vector<float> a(16), b(16);
  rnd::generator(engine::xorwow, short{5}, 8u).uniform(a);
  rnd::generator(engine::xorwow, std::uint64_t{5}, std::uint64_t{8}).uniform(b);
  EXPECT_EQ(a, b);
  rnd::philox(std::int8_t{3}, 4L).uniform(a);
  rnd::philox(std::uint64_t{3}, std::uint64_t{4}).uniform(b);
  EXPECT_EQ(a, b);

  const rnd::generator g(engine::xorwow, 1);
  std::vector<std::uint32_t> counts(8, 42);
  std::vector<float> x(8, 42.0f);
  for (double lambda : {0.0, -1.0, std::nan(""), HUGE_VAL})
    expect_argument_error([&] { g.poisson(counts, lambda); }, "xorwow::poisson", 2, "greater than 0");
  expect_argument_error([&] { g.normal(x, 0.0, -1.0); }, "xorwow::normal", 3, "not negative");
  expect_argument_error([&] { g.lognormal(x, std::nan(""), 1.0); }, "xorwow::lognormal", 2, "finite");
  expect_argument_error([&] { g.normal(x, 1e39, 1.0); }, "xorwow::normal", 2, "within float's range");
  expect_argument_error([&] { g.lognormal(x, 0.0, 1e39); }, "xorwow::lognormal", 3, "within float's range");
  std::vector<double> xd(8, 42.0);
  expect_argument_error([&] { g.normal(xd, HUGE_VAL, 1.0); }, "xorwow::normal", 2, "must be finite");
  EXPECT_EQ(xd, std::vector<double>(8, 42.0));
  std::vector<std::uint64_t> wide_bits(8, 42);
  expect_argument_error([&] { g.bits(wide_bits); }, "xorwow::bits", 1, "makes 32-bit numbers");
  const rnd::generator s(engine::scrambled_sobol64, rnd::dimensions{2});
  expect_argument_error([&] { s.bits(counts); }, "scrambled_sobol64::bits", 1, "makes 64-bit numbers");
  EXPECT_EQ(counts, std::vector<std::uint32_t>(8, 42));
  EXPECT_EQ(x, std::vector<float>(8, 42.0f));
  EXPECT_EQ(wide_bits, std::vector<std::uint64_t>(8, 42));
  EXPECT_EQ(g.offset(), 0u);
}

// A status from cuRAND itself (a Poisson mean past what it takes) names the function and the
// status; nothing is written and the sequence does not move.
TEST(RandomGenerators, CurandStatusIsAnError) {
  REQUIRE_CURAND();
  const rnd::generator g = rnd::generator(engine::philox4_32_10, 1).on(kernel::target::cpu);
  std::vector<std::uint32_t> counts(8, 42);
  try {
    g.poisson(counts, 1e12);
    ADD_FAILURE() << "cuRAND took a Poisson mean of 1e12";
  } catch (const kernel::cuda_error &e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("'philox4_32_10::poisson': curandGeneratePoisson failed: CURAND_STATUS_OUT_OF_RANGE (104): "
                     "lambda (argument 2) is 1e+12, a mean beyond what cuRAND's Poisson generator takes"),
              std::string::npos)
        << m;
    EXPECT_EQ(e.code(), CURAND_STATUS_OUT_OF_RANGE);
  }
  EXPECT_EQ(counts, std::vector<std::uint32_t>(8, 42));
  EXPECT_EQ(g.offset(), 0u);
  g.poisson(counts, 2.0);
  EXPECT_EQ(g.offset(), 8u);
}

// libcurand is looked for where KERNEL_CURAND_LIBRARY says: a missing file and a library
// without cuRAND's functions are target_unavailable_error naming the path; nothing is
// written, and the generator works once the setting is right again.
TEST(RandomGenerators, MissingOrWrongLibrary) {
  const rnd::generator g(engine::xorwow, 1);
  std::vector<float> x(8, 42.0f);
  kernel_test::scoped_environment library("KERNEL_CURAND_LIBRARY", nullptr);
  for (const char *where : {"/nonexistent/libcurand.so.10", "libm.so.6"}) {
    library.set(where);
    try {
      g.uniform(x);
      ADD_FAILURE() << "cuRAND loaded from " << where;
    } catch (const kernel::target_unavailable_error &e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("'xorwow::uniform' needs cuRAND, which could not be loaded from " + std::string(where)),
                std::string::npos)
          << m;
      EXPECT_NE(m.find("KERNEL_CURAND_LIBRARY"), std::string::npos) << m;
    }
    EXPECT_EQ(x, std::vector<float>(8, 42.0f));
  }
  library.set(nullptr);
  EXPECT_EQ(g.offset(), 0u);
  if (!direct_curand::get()) return;
  g.uniform(x);
  EXPECT_NE(x, std::vector<float>(8, 42.0f));
}

} // namespace
