// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Lazy expressions fused into one loop (cpu, parallel) or one kernel (the simulator here, a
// GPU under KERNEL_TEST_DEVICE=cuda): results equal the eager chain's bit for bit on the
// same target, one launch and no temporaries per materialisation, errors before anything runs.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "kernel/algorithm.h"
#include "kernel/kernel.h"
#include "test_device.h"

template <class T>
[[kernel::vectorize("float32(float32, float32)", "float64(float64, float64)")]]
T mul(T a, T b) {
  return a * b;
}
template <class T>
[[kernel::vectorize("float32(float32, float32)", "float64(float64, float64)")]]
T plus(T a, T b) {
  return a + b;
}
[[kernel::vectorize("float32(float32)")]] float fexp(float x) { return std::exp(x); }
[[kernel::vectorize("float32(float32, float32, float32)")]] float gauss(float x, float mu, float sigma) {
  const float d = (x - mu) / sigma;
  return std::exp(-0.5f * d * d);
}
[[kernel::vectorize("int32(float32)")]] std::int32_t to_bucket(float x) { return static_cast<std::int32_t>(x * 4.0f); }
[[kernel::vectorize("complex64(complex64, complex64)")]] std::complex<float> cmul(std::complex<float> a,
                                                                                  std::complex<float> b) {
  return a * b;
}
[[kernel::vectorize("float32(complex64)")]] float cabs2(std::complex<float> z) { return std::norm(z); }
[[kernel::reduce]] float add(float a, float b) { return a + b; }
// A device helper, not a ufunc of its own: usable in expressions, which compile it into
// their kernels.
[[kernel::device]] float cube(float x) { return x * x * x; }
[[kernel::reduce]] double addd(double a, double b) { return a + b; }

namespace {

constexpr kernel::ufunc<mul<float>, mul<double>> vmul;
constexpr kernel::ufunc<plus<float>, plus<double>> vplus;
constexpr kernel::ufunc<fexp> vexp;
constexpr kernel::ufunc<gauss> vgauss;
constexpr kernel::ufunc<to_bucket> vbucket;
constexpr kernel::ufunc<cmul> vcmul;
constexpr kernel::ufunc<cabs2> vcabs2;
constexpr kernel::reduce<add> sum;
constexpr kernel::reduce<addd> sumd;
constexpr kernel::ufunc<cube> vcube;

kernel::ndarray<float> ramp(kernel::index_t n, float scale = 1e-3f) {
  kernel::ndarray<float> a(n);
  for (kernel::index_t i = 0; i < n; ++i) a[i] = static_cast<float>(i % 1000) * scale - 0.3f;
  return a;
}

template <class A, class B> void expect_bitwise(const A &fused, const B &eager) {
  ASSERT_EQ(fused.size(), eager.size());
  for (kernel::index_t i = 0; i < fused.size(); ++i)
    ASSERT_EQ(std::memcmp(&fused.data()[i], &eager.data()[i], sizeof(fused.data()[i])), 0) << "element " << i;
}

// Functions calling the math library (exp here) are vectorized on the CPU with libmvec,
// whose results may differ from scalar libm's in the last bits, and a loop's scalar
// remainder depends on how that loop was vectorized: the fused and the eager loops agree
// to libmvec's accuracy (4 ulp) there. Everywhere else, and on devices, they agree bitwise.
template <class A, class B> void expect_same(kernel::target t, const A &fused, const B &eager) {
  if (t != kernel::target::cpu && t != kernel::target::parallel) return expect_bitwise(fused, eager);
  ASSERT_EQ(fused.size(), eager.size());
  for (kernel::index_t i = 0; i < fused.size(); ++i) {
    const float a = fused.data()[i], b = eager.data()[i];
    std::int32_t ia, ib;
    std::memcpy(&ia, &a, 4);
    std::memcpy(&ib, &b, 4);
    ASSERT_LE(std::abs(static_cast<std::int64_t>(ia) - ib), 4) << "element " << i << ": " << a << " vs " << b;
  }
}

// A chain of D steps alternating ufuncs, the same code for eager arrays and for expressions.
template <int D, class In> auto chain(const In &in) {
  if constexpr (D == 0)
    return in;
  else if constexpr (D % 4 == 1)
    return vmul(chain<D - 1>(in), 1.0001f);
  else if constexpr (D % 4 == 2)
    return vplus(chain<D - 1>(in), 0.25f);
  else if constexpr (D % 4 == 3)
    return vgauss(chain<D - 1>(in), 0.1f, 2.0f);
  else
    return vexp(chain<D - 1>(in));
}

struct Targets : testing::TestWithParam<kernel::target> {};

template <int... D> void check_chains(kernel::target t, std::integer_sequence<int, D...>) {
  const auto x = ramp(3001);
  (
      [&] {
        const kernel::ndarray<float> eager = [&] {
          if constexpr (D == 1)
            return vmul.on(t)(x, 1.0001f);
          else
            return chain<D>(x); // the eager chain runs on the CPU ...
        }();
        // ... and on other targets each step is placed there.
        kernel::ndarray<float> reference = eager;
        if (t != kernel::target::cpu) {
          kernel::ndarray<float> step = x;
          auto on = [&](auto u) { return u.on(t); };
          for (int d = 1; d <= D; ++d) {
            if (d % 4 == 1)
              step = on(vmul)(step, 1.0001f);
            else if (d % 4 == 2)
              step = on(vplus)(step, 0.25f);
            else if (d % 4 == 3)
              step = on(vgauss)(step, 0.1f, 2.0f);
            else
              step = on(vexp)(step);
          }
          reference = step;
        }
        const auto fused = chain<D>(kernel::lazy(x)).eval(t);
        SCOPED_TRACE("depth " + std::to_string(D));
        if (D < 3)
          expect_bitwise(fused, reference);
        else
          expect_same(t, fused, reference);
      }(),
      ...);
}

TEST_P(Targets, ChainsOfDepthOneToEightEqualTheEagerChain) {
  check_chains(GetParam(), std::integer_sequence<int, 1, 2, 3, 4, 5, 6, 7, 8>{});
}

// Arithmetic only: bitwise on every target, at every depth.
template <int D, class In> auto arithmetic_chain(const In &in) {
  if constexpr (D == 0)
    return in;
  else if constexpr (D % 2)
    return vmul(arithmetic_chain<D - 1>(in), 1.0001f + 0.001f * D);
  else
    return vplus(arithmetic_chain<D - 1>(in), arithmetic_chain<D - 2>(in));
}

TEST_P(Targets, ArithmeticChainsAreBitwiseEqual) {
  const kernel::target t = GetParam();
  const auto x = ramp(5003);
  auto check = [&]<int D>(std::integral_constant<int, D>) {
    // Products and sums round the same way everywhere: the eager chain on the CPU is the
    // reference for every target.
    const kernel::ndarray<float> eager = arithmetic_chain<D>(x);
    SCOPED_TRACE("depth " + std::to_string(D));
    expect_bitwise(arithmetic_chain<D>(kernel::lazy(x)).eval(t), eager);
  };
  check(std::integral_constant<int, 1>{});
  check(std::integral_constant<int, 4>{});
  check(std::integral_constant<int, 8>{});
}

TEST_P(Targets, ScalarsArraysAndBroadcastsMix) {
  const kernel::target t = GetParam();
  kernel::ndarray<float, 2> m({37, 129});
  for (kernel::index_t i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(i % 97) * 0.01f;
  const auto row = ramp(129);
  const auto col = kernel::ndarray<float, 2>({37, 1}, 0.5f);
  const auto e = vgauss(vplus(vmul(kernel::lazy(m), row), col), 0.2f, 1.5);
  const auto eager = vgauss.on(t)(vplus.on(t)(vmul.on(t)(m, row), col), 0.2f, 1.5);
  EXPECT_EQ(e.shape(), (std::array<kernel::index_t, 2>{37, 129}));
  expect_same(t, e.eval(t), eager);
}

TEST_P(Targets, SeveralLoopsResolveAsEagerCalls) {
  const kernel::target t = GetParam();
  std::vector<double> xd(1000);
  std::iota(xd.begin(), xd.end(), 0.0);
  const auto x = ramp(1000);
  // float32 array and a double scalar: the float32 loop (a weak scalar); a float64 array
  // anywhere in the chain: the float64 loop from there on.
  const auto e = vplus(vmul(kernel::lazy(x), 0.5), xd);
  static_assert(std::is_same_v<decltype(e)::value_type, double>);
  const auto eager = vplus.on(t)(vmul.on(t)(x, 0.5), xd);
  expect_bitwise(e.eval(t), eager);
  const auto ints = vbucket(vplus(kernel::lazy(x), 1.0f)).eval(t);
  expect_bitwise(ints, vbucket.on(t)(vplus.on(t)(x, 1.0f)));
}

TEST_P(Targets, ComplexValues) {
  const kernel::target t = GetParam();
  std::vector<std::complex<float>> z(777);
  for (std::size_t i = 0; i < z.size(); ++i) z[i] = {0.01f * float(i), -0.02f * float(i)};
  const auto e = vcabs2(vcmul(kernel::lazy(z), std::complex<float>(0.5f, 1.0f)));
  expect_bitwise(e.eval(t), vcabs2.on(t)(vcmul.on(t)(z, std::complex<float>(0.5f, 1.0f))));
}

TEST_P(Targets, StridedAndNdViews) {
  const kernel::target t = GetParam();
  kernel::ndarray<float, 3> a({6, 10, 14});
  for (kernel::index_t i = 0; i < a.size(); ++i) a.data()[i] = static_cast<float>(i) * 0.001f;
  // Every other element of the last two dimensions, transposed.
  const kernel::array_view<const float, 3> v(a.data(), {6, 7, 5}, {140, 2, 28});
  const auto e = vexp(vmul(kernel::lazy(v), v));
  expect_same(t, e.eval(t), vexp.on(t)(vmul.on(t)(v, v)));
  // Into a strided output.
  kernel::ndarray<float, 3> out({6, 7, 10}, -1.0f);
  kernel::array_view<float, 3> every_other(out.data(), {6, 7, 5}, {70, 10, 2});
  kernel::eval(t, kernel::assign(every_other, e));
  const auto reference = vexp.on(t)(vmul.on(t)(v, v));
  for (kernel::index_t i = 0; i < 6; ++i)
    for (kernel::index_t j = 0; j < 7; ++j)
      for (kernel::index_t k = 0; k < 10; ++k) {
        const float got = out.data()[i * 70 + j * 10 + k];
        if (k % 2)
          ASSERT_EQ(got, -1.0f);
        else
          ASSERT_NEAR(got, reference.data()[(i * 7 + j) * 5 + k / 2], 1e-6f * std::abs(got));
      }
}

TEST_P(Targets, InPlaceIntoAnInput) {
  const kernel::target t = GetParam();
  auto x = ramp(5000);
  const auto expected = vgauss.on(t)(vmul.on(t)(x, x), 0.0f, 1.0f);
  vgauss.on(t)(vmul(kernel::lazy(x), x), 0.0f, 1.0f, x); // the ufunc call with an output evaluates
  expect_same(t, x, expected);
}

TEST_P(Targets, SeveralOutputsInOnePass) {
  const kernel::target t = GetParam();
  const auto x = ramp(4096);
  const auto shared = vgauss(kernel::lazy(x), 0.0f, 0.5f);
  kernel::ndarray<float> a(4096), b(4096);
  kernel::eval(t, kernel::assign(a, vmul(shared, 2.0f)), kernel::assign(b, vplus(shared, shared)));
  const auto g = vgauss.on(t)(x, 0.0f, 0.5f);
  expect_same(t, a, vmul.on(t)(g, 2.0f));
  expect_same(t, b, vplus.on(t)(g, g));
}

TEST_P(Targets, MapReduceIsOnePass) {
  const kernel::target t = GetParam();
  const auto x = ramp(100003);
  const auto e = vexp(vmul(kernel::lazy(x), 0.5f));
  const float fused = sum.on(t)(e);
  const float eager = sum.on(t)(vexp.on(t)(vmul.on(t)(x, 0.5f)));
  EXPECT_NEAR(fused, eager, 1e-4f * std::abs(eager));
  // Without library functions, the same bits: the values are combined in the same order, on
  // the simulator too (its fused kernel folded one value at a time where reduce_kernel folds
  // 16-byte vectors first, which differed from 1023 values on). A GPU's grid depends on each
  // kernel's occupancy.
  if (t != kernel::target::cuda)
    for (kernel::index_t n :
         {kernel::index_t{5}, kernel::index_t{1023}, kernel::index_t{4097}, kernel::index_t{100003}}) {
      const auto xs = ramp(n);
      EXPECT_EQ(sum.on(t)(vplus(vmul(kernel::lazy(xs), 0.5f), xs)), sum.on(t)(vplus.on(t)(vmul.on(t)(xs, 0.5f), xs)))
          << n;
    }
  EXPECT_EQ(sum.on(t)(e, 10.0f), 10.0f + fused);
  EXPECT_NEAR(sumd.on(t)(vmul(kernel::lazy(x), 2.0f)), 2.0 * sumd(x), 1e-2);
  const kernel::ndarray<float> empty(0);
  EXPECT_THROW(sum.on(t)(vmul(kernel::lazy(empty), 2.0f)), kernel::argument_error);
}

INSTANTIATE_TEST_SUITE_P(Fusion, Targets,
                         testing::Values(kernel::target::cpu, kernel::target::parallel, kernel_test::target()),
                         [](const auto &info) { return std::string(kernel::target_name(info.param)); });

// On a device: one launch per materialisation and no temporary allocated.
TEST(FusionOnDevice, OneLaunchAndNoTemporaries) {
  const kernel::device dev = kernel_test::device();
  const auto host = ramp(1 << 16);
  const auto x = kernel::to_device(host, dev);
  auto out = kernel::device_array_like(x);
  const auto before = dev.counters();
  kernel::eval(kernel::assign(out, vexp(vgauss(vplus(vmul(kernel::lazy(x), 2.0f), 1.0f), 0.0f, 3.0f))));
  dev.synchronize();
  const auto after = dev.counters();
  EXPECT_EQ(after.launches - before.launches, 1u);
  EXPECT_EQ(after.allocations - before.allocations, 0u);
  // The eager chain: four launches and three temporaries.
  const auto eager = vexp(vgauss(vplus(vmul(x, 2.0f), 1.0f), 0.0f, 3.0f));
  const auto end = dev.counters();
  EXPECT_EQ(end.launches - after.launches, 4u);
  EXPECT_EQ(end.allocations - after.allocations, 4u); // three temporaries and the result
  expect_bitwise(out.copy_to_host(), eager.copy_to_host());
  // Map-reduce: two launches (blocks, then their values), no array of the mapped values.
  const auto r0 = dev.counters();
  const float s = sum(vmul(kernel::lazy(x), x));
  const auto r1 = dev.counters();
  EXPECT_GE(r1.launches - r0.launches, 1u);
  EXPECT_LE(r1.launches - r0.launches, 2u);
  EXPECT_LE(r1.allocations - r0.allocations, 2u); // the blocks' values and the result
  EXPECT_NEAR(s, sum(vmul(host, host)), 1e-2f * std::abs(s));
}

TEST(FusionOnDevice, DeviceHelpersAndMixedOperands) {
  const kernel::device dev = kernel_test::device();
  const auto host = ramp(3000);
  const auto x = kernel::to_device(host, dev);
  // A device array and a host array in one expression: the host one is copied in.
  const auto e = vplus(vcube(kernel::lazy(x)), host);
  const kernel::device_array<float> r = e.eval();
  const auto got = r.copy_to_host();
  for (kernel::index_t i = 0; i < 3000; ++i) ASSERT_EQ(got[i], cube(host[i]) + host[i]);
}

TEST(FusionOnDevice, StreamsAndDeviceResults) {
  const kernel::device dev = kernel_test::device();
  const auto host = ramp(10000);
  const auto x = kernel::to_device(host, dev);
  kernel::stream s(dev);
  const auto e = vplus(vmul(kernel::lazy(x), 3.0f), 1.0f);
  kernel::device_array<float> r = e.eval(s);
  s.synchronize();
  expect_bitwise(r.copy_to_host(), vplus(vmul(x, 3.0f), 1.0f).copy_to_host());
  // Host results from a device expression.
  expect_bitwise(e.copy_to_host(), r.copy_to_host());
}

// A reduction or algorithm not placed itself runs where its expression's outermost ufunc is
// placed; one placed, even explicitly on the CPU, runs where it is placed.
TEST(FusionOnDevice, AnUnplacedConsumerRunsWhereItsExpressionIsPlaced) {
  const kernel::device dev = kernel_test::device();
  const auto host = ramp(5000);
  const auto expected = sum(vmul(host, host));
  kernel::stream s(dev);
  for (const bool on_stream : {false, true}) {
    const auto on_device = on_stream ? vmul.on(s)(kernel::lazy(host), host) : vmul.on(dev)(kernel::lazy(host), host);
    auto before = dev.counters();
    EXPECT_NEAR(sum(on_device), expected, 1e-3f * expected) << on_stream;
    EXPECT_GE(dev.counters().launches - before.launches, 1u) << on_stream;
    EXPECT_NEAR(sum(on_device, 1.0f), expected + 1.0f, 1e-3f * expected) << on_stream;
    before = dev.counters();
    EXPECT_NEAR(sum.on(kernel::target::cpu)(on_device), expected, 1e-3f * expected) << on_stream;
    EXPECT_NEAR(sum.on(kernel::target::parallel)(on_device, 1.0f), expected + 1.0f, 1e-3f * expected) << on_stream;
    EXPECT_EQ(dev.counters().launches, before.launches) << on_stream;
    // The same for the algorithms, which evaluate the expression into an array first (a host
    // one: its leaves are host arrays).
    before = dev.counters();
    const auto sums = kernel::cumsum(on_device);
    EXPECT_GE(dev.counters().launches - before.launches, 1u) << on_stream;
    EXPECT_NEAR(sums[4999], expected, 1e-3f * expected);
    before = dev.counters();
    const auto host_sums = kernel::cumsum.on(kernel::target::cpu)(on_device);
    EXPECT_EQ(dev.counters().launches, before.launches) << on_stream;
    EXPECT_NEAR(host_sums[4999], expected, 1e-3f * expected);
  }
}

TEST(FusionErrors, ShapeErrorsNameTheUfuncAndArgumentBeforeAnythingRuns) {
  const kernel::device dev = kernel_test::device();
  const auto x = kernel::to_device(ramp(10), dev);
  const auto y = kernel::to_device(ramp(11), dev);
  auto out = kernel::device_array_like(x);
  const auto before = dev.counters();
  try {
    kernel::eval(kernel::assign(out, vexp(vplus(vmul(kernel::lazy(x), 2.0f), y))));
    FAIL() << "expected an error";
  } catch (const kernel::argument_error &e) {
    EXPECT_NE(std::string(e.what()).find("plus"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("argument 2"), std::string::npos) << e.what();
  }
  kernel::device_array<float> small(5, dev);
  EXPECT_THROW(kernel::eval(kernel::assign(small, vexp(kernel::lazy(x)))), kernel::argument_error);
  EXPECT_EQ(dev.counters().launches, before.launches);
  // A scalar that does not fit its loop's parameter is named too.
  kernel::ndarray<std::int32_t> buckets(10);
  EXPECT_NO_THROW(kernel::eval(kernel::target::cpu, kernel::assign(buckets, vbucket(kernel::lazy(ramp(10))))));
}

TEST(FusionErrors, OverlapIsCheckedAsForEagerCalls) {
  auto x = ramp(100);
  const kernel::array_view<float> shifted(x.data() + 1, {99});
  kernel::array_view<float> head(x.data(), {99});
  EXPECT_THROW(kernel::eval(kernel::assign(head, vexp(kernel::lazy(shifted)))), kernel::argument_error);
  // A leaf of an inner call against the outer call's output: both calls named (the message
  // gave the inner call's argument and the outer call's output number as one call's).
  try {
    vplus(vexp(kernel::lazy(shifted)), 1.0f, head);
    ADD_FAILURE() << "an overlap was taken";
  } catch (const kernel::argument_error &e) {
    EXPECT_NE(std::string(e.what()).find("argument 1: shares memory with the output of '"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("' (its argument 3)"), std::string::npos) << e.what();
  }
}

TEST(FusionLifetime, RvalueArraysAreOwnedByTheExpression) {
  auto e = vmul(kernel::lazy(ramp(1000)), 2.0f); // the temporary array lives in the expression
  const auto copy = e;                           // and in its copies
  e = vmul(kernel::lazy(ramp(10)), 1.0f);
  const auto r = copy.eval();
  const auto x = ramp(1000);
  expect_bitwise(r, vmul(x, 2.0f));
  // An assignment from a temporary expression holds its own copy.
  kernel::ndarray<float> out(1000);
  const auto a = kernel::assign(out, vmul(kernel::lazy(ramp(1000)), 3.0f));
  kernel::eval(a);
  expect_bitwise(out, vmul(x, 3.0f));
}

TEST(FusionInspect, FusedKernelsAreListedWithTheirComposedSignature) {
  const auto x = ramp(16);
  const auto e = vgauss(vmul(2.0f, kernel::lazy(x)), 0.0f, 1.0f);
  EXPECT_EQ(e.name(), "gauss(mul(float32, float32[:]), float32, float32)");
  EXPECT_EQ(e.signature(), "float32(float32, float32[:], float32, float32)");
  (void)e.eval(kernel::target::simulator);
  const auto kernels = e.inspect();
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].kind, "fused");
  EXPECT_EQ(kernels[0].name, e.name());
  ASSERT_FALSE(kernels[0].ptx.empty());
  EXPECT_NE(kernels[0].ptx[0].text.find(".entry"), std::string::npos);
  // The product of one function and the sum of another stay two roundings in the fused
  // kernel, as in the eager kernels (no FMA contraction across the functions it inlines).
  const auto contractible = vplus(vmul(kernel::lazy(x), 3.0f), x);
  (void)contractible.eval(kernel::target::simulator);
  const kernel::kernel_info info = contractible.inspect().at(0);
  const std::string_view module_ptx = info.ptx.at(0).text;
  const std::size_t entry = module_ptx.find(".entry " + info.symbol);
  ASSERT_NE(entry, std::string_view::npos);
  const std::string_view fused_ptx = module_ptx.substr(entry, module_ptx.find("\n}\n", entry) - entry);
  EXPECT_EQ(fused_ptx.find("fma.rn.f32"), std::string_view::npos);
  EXPECT_NE(fused_ptx.find("mul.rn.f32"), std::string_view::npos);
  bool listed = false;
  for (const kernel::kernel_info &k : kernel::compiled_kernels())
    listed = listed || (k.kind == "fused_reduce" && k.name.starts_with("reduce<add>("));
  EXPECT_TRUE(listed);
}

} // namespace
