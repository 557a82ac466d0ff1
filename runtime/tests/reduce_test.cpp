// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Reductions on cpu, parallel and the simulated device (the GPU's tree of shuffles and shared
// memory, run by the simulator) or, under KERNEL_TEST_DEVICE=cuda, the GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "kernel/kernel.h"
#include "test_device.h"

[[kernel::reduce]] double add(double a, double b) { return a + b; }
[[kernel::reduce]] float add_f32(float a, float b) { return a + b; }
[[kernel::reduce]] float max_of(float a, float b) { return a > b ? a : b; }
[[kernel::reduce]] long long count_sum(long long a, long long b) { return a + b; }
[[kernel::reduce]] float product(float a, float b) { return a * b; }
[[kernel::reduce]] double min_of(double a, double b) { return a < b ? a : b; }
// Values a warp shuffle does not move in one or two registers: narrow integers and complex.
[[kernel::reduce]] std::int8_t add_i8(std::int8_t a, std::int8_t b) { return static_cast<std::int8_t>(a + b); }
[[kernel::reduce]] std::uint16_t max_u16(std::uint16_t a, std::uint16_t b) { return a > b ? a : b; }
[[kernel::reduce]] std::complex<float> add_c64(std::complex<float> a, std::complex<float> b) { return a + b; }
[[kernel::reduce]] std::complex<double> mul_c128(std::complex<double> a, std::complex<double> b) { return a * b; }

namespace {

constexpr kernel::reduce<add> sum;
constexpr kernel::reduce<max_of> maximum;
const kernel::target targets[] = {kernel::target::cpu, kernel::target::parallel, kernel_test::target()};

TEST(Reduce, SumOnEveryTarget) {
  for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{256}, std::size_t{1000}, std::size_t{100003}}) {
    std::vector<double> x(n);
    std::iota(x.begin(), x.end(), 1.0);
    const double expected = double(n) * double(n + 1) / 2;
    for (kernel::target t : targets) EXPECT_EQ(sum.on(t)(x), expected) << kernel::target_name(t) << " n=" << n;
  }
}

// The CPU targets combine leaves of 1024 elements as a balanced tree (NumPy's pairwise
// summation): a million float32 0.1s sum to within a few roundings of the exact value (folded
// in eight lanes one after another they were 9e-4 off), and cpu and parallel, which splits
// the same tree into chunks, agree bitwise at any size, for arrays of any rank.
TEST(Reduce, Float32SumsArePairwiseAndTheSameOnBothCpuTargets) {
  constexpr kernel::reduce<add_f32> fsum;
  const std::vector<float> tenths(1000000, 0.1f);
  const double exact = 1e6 * double(0.1f);
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel})
    EXPECT_NEAR(fsum.on(t)(tenths), exact, exact * 2e-6) << kernel::target_name(t);
  for (kernel::index_t n : {kernel::index_t{65536}, kernel::index_t{65537}, kernel::index_t{3 * 32768 + 5},
                            kernel::index_t{7 * 32768 + 1500}, kernel::index_t{1 << 20}}) {
    kernel::ndarray<float> x(n);
    for (kernel::index_t i = 0; i < n; ++i) x[i] = std::sin(float(i)) * 1000.0f + 0.001f * float(i % 97);
    EXPECT_EQ(fsum.on(kernel::target::cpu)(x), fsum.on(kernel::target::parallel)(x)) << n;
    const kernel::array_view<const float, 2> m(x.data(), {n / 5, 5});
    EXPECT_EQ(fsum.on(kernel::target::cpu)(m), fsum.on(kernel::target::parallel)(m)) << n;
  }
}

TEST(Reduce, MaximumWithAndWithoutInitialValue) {
  std::vector<float> x(5000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(float(i)) * 100;
  const float expected = *std::max_element(x.begin(), x.end());
  for (kernel::target t : targets) {
    EXPECT_EQ(maximum.on(t)(x), expected) << kernel::target_name(t);
    EXPECT_EQ(maximum.on(t)(x, 1000.0f), 1000.0f) << kernel::target_name(t);
  }
}

// Operators whose identity is not zero, at sizes around the block and the vector widths: no
// block or thread left without elements may contribute a value of its own. (The simulator
// runs one block; the GPU suite runs this with many, where a block may have no element.)
TEST(Reduce, OnlyElementsContribute) {
  constexpr kernel::reduce<product> multiply;
  constexpr kernel::reduce<min_of> minimum;
  for (std::size_t n : {1, 3, 4, 255, 256, 257, 1000, 1024, 1025, 4097, 65536, 100003, 1 << 20}) {
    std::vector<float> negative(n), ones(n, 1.0f);
    std::vector<double> positive(n);
    for (std::size_t i = 0; i < n; ++i) {
      negative[i] = -1.0f - static_cast<float>(i % 13);
      positive[i] = 2.0 + static_cast<double>(i % 7);
    }
    ones[n / 2] = 2.0f;
    for (kernel::target t : targets) {
      EXPECT_EQ(maximum.on(t)(negative), -1.0f) << kernel::target_name(t) << " n=" << n;
      EXPECT_EQ(multiply.on(t)(ones), 2.0f) << kernel::target_name(t) << " n=" << n;
      EXPECT_EQ(minimum.on(t)(positive), 2.0) << kernel::target_name(t) << " n=" << n;
    }
  }
}

TEST(Reduce, NarrowIntegersAndComplexValues) {
  constexpr kernel::reduce<add_i8> sum_i8;
  constexpr kernel::reduce<max_u16> max_u16s;
  constexpr kernel::reduce<add_c64> sum_c64;
  constexpr kernel::reduce<mul_c128> product_c128;
  for (std::size_t n : {std::size_t{1}, std::size_t{33}, std::size_t{1000}, std::size_t{70001}}) {
    std::vector<std::int8_t> small(n);
    std::vector<std::uint16_t> wide(n);
    std::vector<std::complex<float>> c(n);
    std::vector<std::complex<double>> turns(n);
    for (std::size_t i = 0; i < n; ++i) {
      small[i] = static_cast<std::int8_t>(static_cast<int>(i % 11) - 5);
      wide[i] = static_cast<std::uint16_t>((i * 7919) % 65521);
      c[i] = {static_cast<float>(i % 5), -static_cast<float>(i % 3)};
      turns[i] = i % 2 ? std::complex<double>(0, 1) : std::complex<double>(1, 0); // products of i
    }
    std::int8_t want_small = 0;
    for (std::int8_t v : small) want_small = static_cast<std::int8_t>(want_small + v); // wraps as the loop does
    std::complex<float> want_c = 0;
    for (auto v : c) want_c += v;
    const std::complex<double> i_to[] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
    for (kernel::target t : targets) {
      EXPECT_EQ(sum_i8.on(t)(small), want_small) << kernel::target_name(t) << " n=" << n;
      EXPECT_EQ(max_u16s.on(t)(wide), *std::max_element(wide.begin(), wide.end())) << kernel::target_name(t);
      EXPECT_EQ(sum_c64.on(t)(c), want_c) << kernel::target_name(t) << " n=" << n; // small integers: exact
      EXPECT_EQ(product_c128.on(t)(turns), i_to[(n / 2) % 4]) << kernel::target_name(t) << " n=" << n;
    }
  }
}

TEST(Reduce, IntegerAndCastInputs) {
  std::vector<int> x(70000, 3);
  constexpr kernel::reduce<count_sum> total;
  for (kernel::target t : targets) EXPECT_EQ(total.on(t)(x), 210000) << kernel::target_name(t);
}

TEST(Reduce, StridedAndMultiDimensional) {
  kernel::ndarray<double, 2> m({30, 40}, 0.5);
  kernel::array_view<const double, 2> t(m.data(), {40, 30}, {1, 40});
  for (kernel::target tg : targets) {
    EXPECT_EQ(sum.on(tg)(m), 600.0);
    EXPECT_EQ(sum.on(tg)(t), 600.0);
  }
  // More dimensions than a device kernel walks (8): their strides merge them when they can
  // (contiguous: one); when they cannot, a device says so and the host still reduces.
  std::array<kernel::index_t, 9> shape{}, strides{};
  shape.fill(2);
  kernel::ndarray<double, 9> cube(shape, 1.0);
  std::vector<double> spread(std::size_t{1} << 18, 1.0);
  for (std::size_t d = 0; d < 9; ++d) strides[d] = kernel::index_t{2} << (2 * (8 - d)); // every other element
  const kernel::array_view<const double, 9> sparse(spread.data(), shape, strides);
  for (kernel::target tg : targets) {
    EXPECT_EQ(sum.on(tg)(cube), 512.0) << kernel::target_name(tg);
    EXPECT_EQ(sum.on(tg)(sparse), 512.0) << kernel::target_name(tg); // copied to a device contiguous
  }
  const kernel::device dev = kernel_test::device();
  const auto dspread = kernel::to_device(spread, dev);
  EXPECT_EQ(sum(kernel::to_device(cube, dev)), 512.0);
  try {
    (void)sum(kernel::device_view<const double, 9>(dev, dspread.data(), shape, strides));
    ADD_FAILURE() << "nine dimensions on a device";
  } catch (const kernel::argument_error &e) {
    EXPECT_NE(std::string(e.what()).find("has 9 dimensions that its strides do not merge"), std::string::npos)
        << e.what();
  }
}

// Long vectors of any stride (reversed, every other element, one element repeated): the
// parallel target's chunks read each element of the view once, not the memory after its
// first element.
TEST(Reduce, LongStridedVectors) {
  std::vector<double> x(200000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i % 1000);
  const double all = std::accumulate(x.begin(), x.end(), 0.0);
  double evens = 0;
  for (std::size_t i = 0; i < x.size(); i += 2) evens += x[i];
  const kernel::array_view<const double, 1> reversed(x.data() + x.size() - 1, {200000}, {-1});
  const kernel::array_view<const double, 1> every_other(x.data(), {100000}, {2});
  const kernel::array_view<const double, 1> repeated(x.data() + 7, {100000}, {0});
  for (kernel::target t : targets) {
    EXPECT_EQ(sum.on(t)(reversed), all) << kernel::target_name(t);
    EXPECT_EQ(sum.on(t)(every_other), evens) << kernel::target_name(t);
    EXPECT_EQ(sum.on(t)(repeated), 700000.0) << kernel::target_name(t);
  }
}

TEST(Reduce, DeviceArrays) {
  std::vector<double> x(4096, 0.25);
  auto dx = kernel::to_device(x, kernel_test::device());
  EXPECT_EQ(sum(dx), 1024.0);
  EXPECT_EQ(sum(dx, 1.0), 1025.0);
}

// A default-constructed device array or view has no device: the reduction names itself and
// the argument (the view crashed; the array's error named 'device_array', argument 0), placed
// or not, with an initial value or without.
TEST(Reduce, DefaultConstructedDeviceArrays) {
  const auto refused = [](auto &&call, const std::string &what) {
    try {
      call();
      ADD_FAILURE() << "no error: " << what;
    } catch (const kernel::argument_error &e) {
      EXPECT_EQ(e.callee(), "add");
      EXPECT_EQ(e.argument(), 1);
      EXPECT_NE(std::string(e.what()).find("is a default-constructed " + what), std::string::npos) << e.what();
    }
  };
  const kernel::device_array<double, 1> none;
  const kernel::device_view<double> nowhere;
  refused([&] { (void)sum(none); }, "device_array");
  refused([&] { (void)sum(none, 1.0); }, "device_array");
  refused([&] { (void)sum(nowhere); }, "device_view");
  refused([&] { (void)sum.on(kernel_test::device())(nowhere, 1.0); }, "device_view");
}

TEST(Reduce, EmptyNeedsAnInitialValue) {
  std::vector<double> empty;
  EXPECT_EQ(sum(empty, 5.0), 5.0);
  for (kernel::target t : targets) {
    try {
      sum.on(t)(empty);
      FAIL();
    } catch (const kernel::argument_error &e) {
      EXPECT_EQ(std::string(e.what()),
                "'add': argument 1: is empty, and a reduction of no elements needs an initial value: pass one");
    }
  }
}

TEST(Reduce, Inspect) {
  auto k = decltype(sum)::inspect();
  ASSERT_TRUE(k.has_value());
  EXPECT_EQ(k->kind, "reduce");
  EXPECT_NE(k->ptx[1].text.find("shfl.sync.down"), std::string_view::npos);
}

} // namespace
