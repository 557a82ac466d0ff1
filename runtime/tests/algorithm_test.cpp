// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The array algorithms (kernel/algorithm.h, kernel/random_arrays.h) on cpu, parallel and a
// device (the simulator; the GPU under KERNEL_TEST_DEVICE=cuda), against plain C++
// references: empty and one-element inputs, sizes around the tile sizes, NaNs and signed
// zeros, duplicate keys (stability), batched shapes, user-defined operators, device arrays,
// and the error paths (nothing written on a rejected call).
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "kernel/algorithm.h"
#include "kernel/detail/cub_api.h"
#include "kernel/fuse.h"
#include "kernel/launch.h"
#include "kernel/random_arrays.h"
#include "kernel/ufunc.h"
#include "scoped_environment.h"
#include "test_device.h"

namespace {

[[kernel::reduce]] float running_max(float a, float b) { return a > b ? a : b; }
[[kernel::vectorize("bool_(float32)")]] bool positive(float x) { return x > 0; }
[[kernel::vectorize("bool_(float32)")]] bool finite(float x) { return x - x == 0; }
[[kernel::vectorize("float32(float32, float32)")]] float times(float x, float a) { return x * a; }

// A struct-valued, associative, non-commutative operator: the first and last of a range.
struct span {
  float first, last;
  int count;
};
span join(span a, span b) { return {a.first, b.last, a.count + b.count}; }

// A predicate of two loops: a call selects the first that takes its array's elements safely.
template <class T> [[kernel::vectorize("bool_(int32)", "bool_(float64)")]] bool odd(T x) {
  return static_cast<long long>(x) % 2 != 0;
}

constexpr kernel::scan<running_max> prefix_max;
constexpr kernel::ufunc<odd<int>, odd<double>> is_odd;
constexpr kernel::scan<join> spans;
constexpr kernel::ufunc<positive> is_positive;
constexpr kernel::ufunc<finite> is_finite;
constexpr kernel::ufunc<times> vtimes;

std::vector<float> random_floats(std::size_t n, unsigned seed, int distinct = 0) {
  std::mt19937 g(seed);
  std::vector<float> v(n);
  for (float &x : v)
    x = distinct ? static_cast<float>(static_cast<int>(g() % static_cast<unsigned>(distinct)))
                 : std::uniform_real_distribution<float>(-100, 100)(g);
  return v;
}

// NumPy's order: NaNs last, -0.0 == +0.0.
bool numpy_less(float a, float b) { return std::isnan(b) ? !std::isnan(a) : a < b; }

std::vector<kernel::index_t> reference_argsort(const std::vector<float> &v, bool descending) {
  std::vector<kernel::index_t> p(v.size());
  std::iota(p.begin(), p.end(), 0);
  std::stable_sort(p.begin(), p.end(), [&](auto a, auto b) {
    const float x = v[a], y = v[b];
    if (std::isnan(x) || std::isnan(y)) return !std::isnan(x) && std::isnan(y);
    return descending ? y < x : x < y;
  });
  return p;
}

template <class A> std::vector<typename A::value_type> to_vector(const A &a) {
  return std::vector<typename A::value_type>(a.data(), a.data() + a.size());
}

// Float bits, so that NaNs compare.
std::vector<std::uint32_t> bits_of(const std::vector<float> &v) {
  std::vector<std::uint32_t> b(v.size());
  std::transform(v.begin(), v.end(), b.begin(), [](float x) { return std::bit_cast<std::uint32_t>(x); });
  return b;
}

struct Targets : testing::TestWithParam<kernel::target> {};

const std::vector<std::size_t> sizes = {0, 1, 2, 31, 255, 256, 257, 2047, 2048, 2049, 5000, 70001};

TEST_P(Targets, InclusiveAndExclusiveScans) {
  const kernel::target t = GetParam();
  for (std::size_t n : sizes) {
    const std::vector<int> x = [&] {
      std::vector<int> v(n);
      std::mt19937 g(static_cast<unsigned>(n));
      for (int &e : v) e = static_cast<int>(g() % 100) - 50;
      return v;
    }();
    // New arrays of sums are int64, as NumPy's; into an int array, int.
    std::vector<std::int64_t> inclusive(n), exclusive(n);
    std::inclusive_scan(x.begin(), x.end(), inclusive.begin(), std::plus<std::int64_t>());
    std::exclusive_scan(x.begin(), x.end(), exclusive.begin(), std::int64_t{7});
    EXPECT_EQ(to_vector(kernel::cumsum.on(t)(x)), inclusive) << n;
    EXPECT_EQ(to_vector(kernel::cumsum.on(t).exclusive(x, 7)), exclusive) << n;
    std::vector<int> in_place = x;
    kernel::cumsum.on(t)(in_place, in_place);
    EXPECT_EQ(in_place, std::vector<int>(inclusive.begin(), inclusive.end())) << n;

    const std::vector<float> f = random_floats(n, static_cast<unsigned>(n));
    std::vector<float> m(n);
    std::inclusive_scan(f.begin(), f.end(), m.begin(), [](float a, float b) { return a > b ? a : b; });
    EXPECT_EQ(to_vector(prefix_max.on(t)(f)), m) << n;
  }
  // kernel::maximum and minimum carry a NaN on, as NumPy's maximum.accumulate does, across
  // tiles and the cores' pieces alike.
  constexpr kernel::scan<kernel::maximum> cummax;
  constexpr kernel::scan<kernel::minimum> cummin;
  std::vector<float> v(300000, 0.0f);
  v[8] = std::numeric_limits<float>::quiet_NaN();
  v[9] = 1000;
  v[131073] = 2000;
  const auto hi = cummax.on(t)(v), lo = cummin.on(t)(v);
  for (std::size_t i = 0; i < v.size(); ++i) {
    ASSERT_EQ(std::isnan(hi(static_cast<kernel::index_t>(i))), i >= 8) << i;
    ASSERT_EQ(std::isnan(lo(static_cast<kernel::index_t>(i))), i >= 8) << i;
  }
}

// NumPy's cumsum types: bool and narrow integers widen to 64 bits (a uint8 sum of 300 does
// not wrap), on host arrays and on device arrays read as they are; floats stay as they are.
TEST_P(Targets, CumsumWidensNarrowIntegers) {
  const kernel::target t = GetParam();
  const std::vector<std::uint8_t> bytes(300, 200);
  const auto flags = kernel::ndarray<bool, 1>::of({true, false, true, true});
  const std::vector<std::int16_t> shorts = {-30000, -30000, -30000};
  const auto byte_sums = to_vector(kernel::cumsum.on(t)(bytes));
  static_assert(std::is_same_v<decltype(byte_sums)::value_type, std::uint64_t>);
  EXPECT_EQ(byte_sums.back(), 60000u);
  EXPECT_EQ(to_vector(kernel::cumsum.on(t)(flags)), (std::vector<std::int64_t>{1, 1, 2, 3}));
  EXPECT_EQ(to_vector(kernel::cumsum.on(t).exclusive(shorts, -5)), (std::vector<std::int64_t>{-5, -30005, -60005}));
  // Sums past int64 wrap, as NumPy's do (not signed overflow, which is undefined).
  const std::int64_t most = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(to_vector(kernel::cumsum.on(t)(std::vector<std::int64_t>{most, 1, 1})),
            (std::vector<std::int64_t>{most, std::numeric_limits<std::int64_t>::min(),
                                       std::numeric_limits<std::int64_t>::min() + 1}));
  std::vector<std::int32_t> wrapped(3);
  kernel::cumsum.on(t)(std::vector<std::int32_t>(3, std::numeric_limits<std::int32_t>::max()), wrapped);
  EXPECT_EQ(wrapped, (std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::max(), -2, 2147483645}));
  static_assert(std::is_same_v<decltype(kernel::cumsum(std::vector<float>{}))::value_type, float>);
  std::vector<std::int64_t> short_out(2);
  try { // errors name the function called
    kernel::cumsum.on(t)(shorts, short_out);
    ADD_FAILURE() << "an output of another shape was taken";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(std::string(e.what()).rfind("'cumsum': argument 2:", 0), 0u) << e.what();
  }
  if (t == kernel::target::cpu || t == kernel::target::parallel) return;
  const auto dbytes = kernel::to_device(bytes, kernel_test::device());
  const kernel::device_array<std::uint64_t, 1> dsums = kernel::cumsum(dbytes);
  EXPECT_EQ(to_vector(dsums.copy_to_host()), byte_sums);
  // Into a wider array, device or host, as CuPy's cumsum(x, out=...): read as they are.
  kernel::device_array<std::uint64_t, 1> dinto(300, kernel_test::device());
  kernel::cumsum(dbytes, dinto);
  EXPECT_EQ(to_vector(dinto.copy_to_host()), byte_sums);
  std::vector<std::int64_t> hinto(300);
  kernel::cumsum.exclusive(dbytes, std::int64_t{7}, hinto);
  EXPECT_EQ(hinto[0], 7);
  EXPECT_EQ(hinto[299], 7 + 299 * 200);
  const auto dfloats = kernel::to_device(std::vector<float>{0.5f, 0.25f, 1e8f}, kernel_test::device());
  std::vector<double> dbl(3);
  kernel::cumsum(dfloats, dbl);
  EXPECT_EQ(dbl, (std::vector<double>{0.5, 0.75, 100000000.75}));
}

TEST_P(Targets, StructValuedNonCommutativeScan) {
  const kernel::target t = GetParam();
  std::vector<span> x(3000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = {float(i), float(i), 1};
  const auto r = spans.on(t)(x);
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(r[i].first, 0.0f);
    ASSERT_EQ(r[i].last, float(i));
    ASSERT_EQ(r[i].count, int(i) + 1);
  }
  const auto e = spans.on(t).exclusive(x, span{-1, -1, 0});
  EXPECT_EQ(e[0].first, -1.0f);
  EXPECT_EQ(e[2999].last, 2998.0f);
  EXPECT_EQ(e[2999].count, 2999);
}

TEST_P(Targets, ScanAlongEitherAxis) {
  const kernel::target t = GetParam();
  kernel::ndarray<double, 2> a({37, 301});
  for (kernel::index_t i = 0; i < a.size(); ++i) a.data()[i] = double(i % 17) - 8;
  const auto rows = kernel::cumsum.on(t)(a);
  const auto cols = kernel::cumsum.on(t)(a, 0);
  for (kernel::index_t i = 0; i < 37; ++i)
    for (kernel::index_t j = 0; j < 301; ++j) {
      double r = 0, c = 0;
      for (kernel::index_t k = 0; k <= j; ++k) r += a(i, k);
      for (kernel::index_t k = 0; k <= i; ++k) c += a(k, j);
      ASSERT_EQ(rows(i, j), r);
      ASSERT_EQ(cols(i, j), c);
    }
  EXPECT_THROW(kernel::cumsum.on(t)(a, 2), kernel::argument_error);
}

TEST_P(Targets, SortsAsNumPyDoes) {
  const kernel::target t = GetParam();
  for (std::size_t n : sizes) {
    std::vector<float> x = random_floats(n, 3 + static_cast<unsigned>(n), n > 100 ? 50 : 0);
    if (n > 10) {
      x[1] = std::numeric_limits<float>::quiet_NaN();
      x[5] = -0.0f;
      x[7] = 0.0f;
      x[9] = -std::numeric_limits<float>::infinity();
    }
    for (bool descending : {false, true}) {
      const auto order = kernel::argsort.on(t)(x, descending ? kernel::descending : kernel::ascending);
      EXPECT_EQ(to_vector(order), reference_argsort(x, descending)) << n << " " << descending;
      std::vector<float> sorted = x;
      kernel::sort.on(t)(sorted, descending ? kernel::descending : kernel::ascending);
      const auto ref = reference_argsort(x, descending);
      for (std::size_t i = 0; i < n; ++i) {
        const float want = x[static_cast<std::size_t>(ref[i])];
        if (std::isnan(want))
          ASSERT_TRUE(std::isnan(sorted[i]));
        else
          ASSERT_EQ(sorted[i], want) << n << " " << i;
      }
    }
  }
}

// bool sorts as NumPy sorts it: false before true, ties in their order; and it has a unique
// and a top_k, on host and device arrays.
TEST_P(Targets, BoolsSortAsNumPy) {
  const kernel::target t = GetParam();
  kernel::ndarray<bool, 1> flags({1000});
  for (kernel::index_t i = 0; i < 1000; ++i) flags[i] = (i * 7919) % 3 == 0;
  std::vector<kernel::index_t> falses, trues;
  for (kernel::index_t i = 0; i < 1000; ++i) (flags[i] ? trues : falses).push_back(i);
  std::vector<kernel::index_t> up = falses, down = trues;
  up.insert(up.end(), trues.begin(), trues.end());
  down.insert(down.end(), falses.begin(), falses.end());
  EXPECT_EQ(to_vector(kernel::argsort.on(t)(flags)), up);
  EXPECT_EQ(to_vector(kernel::argsort.on(t)(flags, kernel::descending)), down);
  kernel::ndarray<bool, 1> sorted = flags;
  kernel::sort.on(t)(sorted);
  EXPECT_EQ(std::find(sorted.begin(), sorted.end(), true) - sorted.begin(), static_cast<std::ptrdiff_t>(falses.size()));
  EXPECT_TRUE(
      std::all_of(sorted.begin() + static_cast<std::ptrdiff_t>(falses.size()), sorted.end(), [](bool b) { return b; }));
  EXPECT_EQ(to_vector(kernel::unique.on(t)(flags)), (std::vector<bool>{false, true}));
  const auto [values, indices] = kernel::top_k.on(t)(flags, 3);
  EXPECT_EQ(to_vector(values), (std::vector<bool>{true, true, true}));
  EXPECT_EQ(to_vector(indices), (std::vector<kernel::index_t>{trues[0], trues[1], trues[2]}));
  if (t == kernel::target::cpu || t == kernel::target::parallel) return;
  auto d = kernel::to_device(flags, kernel_test::device());
  kernel::sort(d, kernel::descending);
  const auto back = d.copy_to_host();
  EXPECT_EQ(std::count(back.begin(), back.end(), true), static_cast<std::ptrdiff_t>(trues.size()));
  EXPECT_TRUE(back[0]);
  EXPECT_FALSE(back[999]);
}

// put into bool arrays: values repeated (from a host or device array) and one scalar.
TEST_P(Targets, PutsBools) {
  const kernel::target t = GetParam();
  kernel::ndarray<bool, 1> a({6});
  const auto idx = kernel::ndarray<int, 1>::of({0, 2, 5});
  const auto vals = kernel::ndarray<bool, 1>::of({true, false});
  kernel::put.on(t)(a, idx, vals);
  EXPECT_EQ(to_vector(a), (std::vector<bool>{true, false, false, false, false, true}));
  kernel::put.on(t)(a, idx, true);
  EXPECT_EQ(to_vector(a), (std::vector<bool>{true, false, true, false, false, true}));
  if (t == kernel::target::cpu || t == kernel::target::parallel) return;
  auto d = kernel::to_device(kernel::ndarray<bool, 1>({6}), kernel_test::device());
  kernel::put(d, kernel::ndarray<int, 1>::of({1, 3, 4}), kernel::to_device(vals, kernel_test::device()));
  EXPECT_EQ(to_vector(d.copy_to_host()), (std::vector<bool>{false, true, false, false, true, false}));
}

/// Sorts `bits` as T values (ascending or descending) on `t`, on a device array where the
/// target is a device's, and gives back the bits.
template <class T, class B> std::vector<B> sorted_bits(kernel::target t, const std::vector<B> &bits, bool descending) {
  std::vector<T> v(bits.size());
  std::memcpy(v.data(), bits.data(), bits.size() * sizeof(B));
  const auto order = descending ? kernel::descending : kernel::ascending;
  if (t == kernel::target::cpu || t == kernel::target::parallel) {
    kernel::sort.on(t)(v, order);
  } else {
    auto d = kernel::to_device(v, kernel_test::device());
    kernel::sort(d, order);
    v = d.copy_to_host().to_vector();
  }
  std::vector<B> out(v.size());
  std::memcpy(out.data(), v.data(), v.size() * sizeof(B));
  return out;
}

// sort moves the values themselves: every bit of every NaN (payload and sign) comes back,
// the NaNs last in either order (positive ones first, by payload; then the negative ones).
TEST_P(Targets, SortKeepsEveryBitOfNaNs) {
  const kernel::target t = GetParam();
  const std::vector<std::uint32_t> f = {0x7fc00002, 0x3f800000, 0xffc00000, 0x7fc00001, 0xc0000000, 0x80000000,
                                        0x00000000, 0xff800001, 0x7f800000, 0xff800000, 0x7fffffff, 0xffffffff};
  EXPECT_EQ(sorted_bits<float>(t, f, false),
            (std::vector<std::uint32_t>{0xff800000, 0xc0000000, 0x80000000, 0x00000000, 0x3f800000, 0x7f800000,
                                        0x7fc00001, 0x7fc00002, 0x7fffffff, 0xffffffff, 0xffc00000, 0xff800001}));
  EXPECT_EQ(sorted_bits<float>(t, f, true),
            (std::vector<std::uint32_t>{0x7f800000, 0x3f800000, 0x00000000, 0x80000000, 0xc0000000, 0xff800000,
                                        0x7fc00001, 0x7fc00002, 0x7fffffff, 0xffffffff, 0xffc00000, 0xff800001}));
  const std::vector<std::uint64_t> d = {0xfff8000000000000, 0x3ff0000000000000, 0x7ff0000000000001, 0xc000000000000000,
                                        0x7ff8000000000000};
  EXPECT_EQ(sorted_bits<double>(t, d, false),
            (std::vector<std::uint64_t>{0xc000000000000000, 0x3ff0000000000000, 0x7ff0000000000001, 0x7ff8000000000000,
                                        0xfff8000000000000}));
}

TEST_P(Targets, SortsEveryIntegerTypeAndBatches) {
  const kernel::target t = GetParam();
  std::mt19937 g(5);
  std::vector<std::int8_t> small(3001);
  for (auto &v : small) v = static_cast<std::int8_t>(g());
  std::vector<std::int8_t> want = small;
  std::stable_sort(want.begin(), want.end());
  kernel::sort.on(t)(small);
  EXPECT_EQ(small, want);

  std::vector<std::uint64_t> big(4000);
  for (auto &v : big) v = (std::uint64_t{g()} << 32) | g();
  std::vector<std::uint64_t> want_big = big;
  std::sort(want_big.begin(), want_big.end(), std::greater<>());
  kernel::sort.on(t)(big, kernel::descending);
  EXPECT_EQ(big, want_big);

  // Each row of a matrix, and each column.
  kernel::ndarray<std::int32_t, 2> m({300, 77});
  for (kernel::index_t i = 0; i < m.size(); ++i) m.data()[i] = static_cast<std::int32_t>(g() % 1000) - 500;
  kernel::ndarray<std::int32_t, 2> rows = m, cols = m;
  kernel::sort.on(t)(rows);
  kernel::sort.on(t)(cols, kernel::ascending, 0);
  for (kernel::index_t i = 0; i < 300; ++i) {
    std::vector<std::int32_t> r(&m(i, 0), &m(i, 0) + 77);
    std::sort(r.begin(), r.end());
    for (kernel::index_t j = 0; j < 77; ++j) ASSERT_EQ(rows(i, j), r[static_cast<std::size_t>(j)]);
  }
  for (kernel::index_t j = 0; j < 77; ++j) {
    std::vector<std::int32_t> c;
    for (kernel::index_t i = 0; i < 300; ++i) c.push_back(m(i, j));
    std::sort(c.begin(), c.end());
    for (kernel::index_t i = 0; i < 300; ++i) ASSERT_EQ(cols(i, j), c[static_cast<std::size_t>(i)]);
  }
}

// Long arrays are split by their highest byte that differs, bucket by bucket until a bucket fits
// in the caches: keys whose high bytes are all equal, buckets of very different sizes (one holding
// most keys, split again), and stability across the levels. Host targets: the device sort is one
// algorithm at every size, checked above.
// A device sorts short segments by counting each key's place (segments of up to 1024, up to
// 2^21 steps in all), others by digits: both stable, as the host's, on either side of the limits.
TEST_P(Targets, ShortAndLongSegmentsSortAlike) {
  const kernel::target t = GetParam();
  for (const auto [rows, cols] :
       {std::pair<kernel::index_t, kernel::index_t>{300, 7}, {5, 1}, {1, 1024}, {2, 1024}, {3, 1024}, {1, 1025}}) {
    kernel::ndarray<float, 2> m({rows, cols});
    const std::vector<float> v = random_floats(static_cast<std::size_t>(m.size()), 40 + static_cast<unsigned>(cols), 9);
    std::copy(v.begin(), v.end(), m.data());
    for (bool descending : {false, true}) {
      const auto order = kernel::argsort.on(t)(m, descending ? kernel::descending : kernel::ascending);
      for (kernel::index_t r = 0; r < rows; ++r) {
        const std::vector<float> row(m.data() + r * cols, m.data() + (r + 1) * cols);
        const auto want = reference_argsort(row, descending);
        for (kernel::index_t k = 0; k < cols; ++k)
          ASSERT_EQ(order(r, k), want[static_cast<std::size_t>(k)]) << rows << " x " << cols << " " << descending;
      }
    }
  }
}

TEST_P(Targets, LongSortsSplitByTheirHighBytes) {
  const kernel::target t = GetParam();
  if (t != kernel::target::cpu && t != kernel::target::parallel) GTEST_SKIP() << "host sort levels";
  std::mt19937 g(8);
  const std::size_t n = 600001;
  std::vector<std::uint64_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t low = g() % 5000; // many duplicates
    keys[i] = (i % 10 ? 0x0123'0000'0000'0000ull : 0x7700'0000'0000'0000ull + (std::uint64_t{g()} << 20)) | low;
  }
  const auto order = kernel::argsort.on(t)(keys);
  std::vector<kernel::index_t> want(n);
  std::iota(want.begin(), want.end(), 0);
  std::stable_sort(want.begin(), want.end(), [&](auto a, auto b) { return keys[a] < keys[b]; });
  ASSERT_EQ(to_vector(order), want);
  std::vector<std::uint64_t> sorted = keys, want_sorted = keys;
  kernel::sort.on(t)(sorted, kernel::descending);
  std::sort(want_sorted.begin(), want_sorted.end(), std::greater<>());
  ASSERT_EQ(sorted, want_sorted);

  std::vector<float> x = random_floats(n, 9, 0);
  for (std::size_t i = 0; i < n; i += 1000) x[i] = std::numeric_limits<float>::quiet_NaN();
  ASSERT_EQ(to_vector(kernel::argsort.on(t)(x, kernel::descending)), reference_argsort(x, true));
}

// Values of any trivially copyable type, also ones no integer converts to.
TEST_P(Targets, SortByKeyOfArrayValues) {
  const kernel::target t = GetParam();
  std::vector<int> keys{2, 1, 0, 1};
  std::vector<std::array<float, 2>> values{{{1, 1}}, {{2, 2}}, {{3, 3}}, {{4, 4}}};
  kernel::sort_by_key.on(t)(keys, values);
  EXPECT_EQ(keys, (std::vector<int>{0, 1, 1, 2}));
  EXPECT_EQ(values, (std::vector<std::array<float, 2>>{{{3, 3}}, {{2, 2}}, {{4, 4}}, {{1, 1}}}));
}

TEST_P(Targets, SortByKeyIsStable) {
  const kernel::target t = GetParam();
  std::vector<float> keys = random_floats(5000, 9, 13);
  std::vector<std::int64_t> values(keys.size());
  std::iota(values.begin(), values.end(), 0);
  const auto ref = reference_argsort(keys, false);
  const std::vector<float> original = keys;
  kernel::sort_by_key.on(t)(keys, values);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(values[i], ref[i]);
    ASSERT_EQ(keys[i], original[static_cast<std::size_t>(ref[i])]);
  }
  // Keys and values are both written: values in the keys' memory are refused, nothing written.
  std::vector<int> both{5, 4, 3, 2, 1, 0, 9};
  const std::vector<int> before = both;
  for (const auto &[k, v] : {std::pair{kernel::view(both.data(), 5), kernel::view(both.data() + 2, 5)},
                             std::pair{kernel::view(both.data(), 5), kernel::view(both.data(), 5)}}) {
    try {
      kernel::sort_by_key.on(t)(k, v);
      ADD_FAILURE() << "values overlapping the keys were taken";
    } catch (const kernel::argument_error &e) {
      EXPECT_EQ(e.argument(), 2);
      EXPECT_NE(std::string(e.what()).find("'sort_by_key': argument 2: overlaps argument 1"), std::string::npos)
          << e.what();
    }
    EXPECT_EQ(both, before);
  }
}

TEST_P(Targets, TopKOverColumnsAndRows) {
  const kernel::target t = GetParam();
  kernel::ndarray<float, 2> m({1000, 40});
  const std::vector<float> v = random_floats(static_cast<std::size_t>(m.size()), 11, 200);
  std::copy(v.begin(), v.end(), m.data());
  m(3, 2) = std::numeric_limits<float>::quiet_NaN();
  for (bool largest : {true, false}) {
    const auto [values, indices] = kernel::top_k.on(t)(m, 10, 0, largest);
    ASSERT_EQ(values.shape(0), 10);
    for (kernel::index_t j = 0; j < 40; ++j) {
      std::vector<kernel::index_t> p(1000);
      std::iota(p.begin(), p.end(), 0);
      // Largest first (NaN above all), or smallest first; ties by position.
      std::stable_sort(p.begin(), p.end(), [&](auto a, auto b) {
        const float x = m(a, j), y = m(b, j);
        return largest ? numpy_less(y, x) : numpy_less(x, y);
      });
      for (kernel::index_t k = 0; k < 10; ++k) {
        ASSERT_EQ(indices(k, j), p[static_cast<std::size_t>(k)]) << j << " " << k << " " << largest;
        const float want = m(p[static_cast<std::size_t>(k)], j);
        ASSERT_TRUE(values(k, j) == want || (std::isnan(want) && std::isnan(values(k, j))));
      }
    }
  }
  const auto rows = kernel::top_k.on(t)(m, 3);
  EXPECT_EQ(rows.values.shape(1), 3);
  EXPECT_THROW(kernel::top_k.on(t)(m, 41), kernel::argument_error);
}

// Many short segments on a device: a thread per segment keeps its k best (k up to 32; more,
// or fewer segments, sort). The same values, bit for bit, and positions as the host's, with ties, NaNs of both
// signs and zeros of both signs, along either axis (rows: segments apart in memory).
TEST_P(Targets, TopKOfManyShortSegmentsAsTheHost) {
  const kernel::target t = GetParam();
  for (const auto &[rows, cols] : {std::pair<kernel::index_t, kernel::index_t>{60, 400}, {400, 60}, {37, 300}}) {
    kernel::ndarray<float, 2> m({rows, cols});
    const std::vector<float> v = random_floats(static_cast<std::size_t>(m.size()), 21, 9);
    std::copy(v.begin(), v.end(), m.data());
    for (kernel::index_t i = 0; i < m.size(); i += 17) m.data()[i] = i % 2 ? -0.0f : 0.0f;
    for (kernel::index_t i = 5; i < m.size(); i += 23)
      m.data()[i] = std::bit_cast<float>(i % 2 ? 0xffc00000u + static_cast<std::uint32_t>(i % 7) : 0x7fc00000u);
    for (int axis : {0, 1})
      for (kernel::index_t k : {kernel::index_t{1}, kernel::index_t{7}, kernel::index_t{32}})
        for (bool largest : {true, false}) {
          if (k > m.shape(static_cast<std::size_t>(axis))) continue;
          const auto got = kernel::top_k.on(t)(m, k, axis, largest);
          const auto want = kernel::top_k.on(kernel::target::cpu)(m, k, axis, largest);
          ASSERT_EQ(bits_of(to_vector(got.values)), bits_of(to_vector(want.values)))
              << rows << "x" << cols << " axis " << axis << " k " << k << " " << largest;
          ASSERT_EQ(to_vector(got.indices), to_vector(want.indices))
              << rows << "x" << cols << " axis " << axis << " k " << k << " " << largest;
        }
  }
}

// Selection keeps a few candidates and drops the rest: inputs that make every element a new
// candidate (sorted the other way), none (sorted), all tied, and NaNs, along the last axis and
// along a middle axis of a 3-D array (segments side by side in memory, in groups).
TEST_P(Targets, TopKFromAnyInputOrder) {
  const kernel::target t = GetParam();
  // The device sorts whole segments (no selection path): smaller there, to keep the simulator quick.
  const bool host = t == kernel::target::cpu || t == kernel::target::parallel;
  const kernel::index_t outer = 2, len = host ? 700 : 200, inner = host ? 130 : 66;
  const std::vector<kernel::index_t> ks =
      host ? std::vector<kernel::index_t>{1, 10, 33, len - 1, len} : std::vector<kernel::index_t>{10};
  // On the device every pattern once, largest first (the device sorts either way alike).
  const std::vector<bool> directions = host ? std::vector<bool>{true, false} : std::vector<bool>{true};
  const auto fill = [&](int pattern, kernel::index_t j, kernel::index_t c) -> float {
    switch (pattern) {
    case 0: return static_cast<float>(j);                                // ascending
    case 1: return static_cast<float>(len - j);                          // descending
    case 2: return 5.0f;                                                 // all tied
    case 3: return (j + c) % 3 ? std::nanf("") : (j % 2 ? -0.0f : 0.0f); // NaNs and zeros
    default: return static_cast<float>((j * 7919 + c * 31) % 97);
    }
  };
  for (int pattern = 0; pattern < 5; ++pattern) {
    kernel::ndarray<float, 3> x({outer, len, inner});
    for (kernel::index_t o = 0; o < outer; ++o)
      for (kernel::index_t j = 0; j < len; ++j)
        for (kernel::index_t c = 0; c < inner; ++c) x(o, j, c) = fill(pattern, j, c + o);
    kernel::ndarray<float, 1> row(len);
    for (kernel::index_t j = 0; j < len; ++j) row(j) = x(1, j, 7);
    for (bool largest : directions)
      for (kernel::index_t k : ks) {
        const auto reference = [&](auto &&at) {
          std::vector<kernel::index_t> p(static_cast<std::size_t>(len));
          std::iota(p.begin(), p.end(), 0);
          std::stable_sort(p.begin(), p.end(), [&](auto a, auto b) {
            return largest ? numpy_less(at(b), at(a)) : numpy_less(at(a), at(b));
          });
          p.resize(static_cast<std::size_t>(k));
          return p;
        };
        const auto picked = kernel::top_k.on(t)(x, k, 1, largest);
        for (kernel::index_t o = 0; o < outer; ++o)
          for (kernel::index_t c = 0; c < inner; ++c) {
            const auto want = reference([&](kernel::index_t j) { return x(o, j, c); });
            for (kernel::index_t i = 0; i < k; ++i)
              ASSERT_EQ(picked.indices(o, i, c), want[static_cast<std::size_t>(i)])
                  << "pattern " << pattern << " k " << k << " largest " << largest << " at " << o << "," << i << ","
                  << c;
          }
        const auto one = kernel::top_k.on(t)(row, k, 0, largest);
        const auto want = reference([&](kernel::index_t j) { return row(j); });
        for (kernel::index_t i = 0; i < k; ++i) {
          ASSERT_EQ(one.indices(i), want[static_cast<std::size_t>(i)]) << "pattern " << pattern << " k " << k;
          const float v = row(want[static_cast<std::size_t>(i)]);
          ASSERT_TRUE(std::bit_cast<std::uint32_t>(one.values(i)) == std::bit_cast<std::uint32_t>(v) ||
                      (std::isnan(v) && std::isnan(one.values(i))));
        }
      }
  }
  // Longer than a selection block, not a multiple of it.
  const std::vector<float> v = random_floats(70001, 21, 5000);
  const auto picked = kernel::top_k.on(t)(v, 17);
  const std::vector<kernel::index_t> order = reference_argsort(v, true);
  for (kernel::index_t i = 0; i < 17; ++i) ASSERT_EQ(picked.indices[i], order[static_cast<std::size_t>(i)]);
}

TEST_P(Targets, ArgpartitionPartitions) {
  const kernel::target t = GetParam();
  const std::vector<float> x = random_floats(3000, 12, 40);
  for (kernel::index_t kth : {0, 1, 1500, 2999, -1}) {
    const auto p = kernel::argpartition.on(t)(x, kth);
    const kernel::index_t k = kth < 0 ? kth + 3000 : kth;
    std::vector<float> sorted = x;
    std::sort(sorted.begin(), sorted.end());
    const float pivot = x[static_cast<std::size_t>(p[k])];
    ASSERT_EQ(pivot, sorted[static_cast<std::size_t>(k)]);
    for (kernel::index_t i = 0; i < 3000; ++i)
      ASSERT_TRUE(i < k ? x[static_cast<std::size_t>(p[i])] <= pivot : x[static_cast<std::size_t>(p[i])] >= pivot);
  }
  EXPECT_THROW(kernel::argpartition.on(t)(x, 3000), kernel::argument_error);
}

TEST_P(Targets, TakeAndPutCheckEveryIndex) {
  const kernel::target t = GetParam();
  std::vector<double> a(1000);
  std::iota(a.begin(), a.end(), 0.0);
  const std::vector<std::int32_t> idx = {5, -1, 999, 0, 5};
  EXPECT_EQ(to_vector(kernel::take.on(t)(a, idx)), (std::vector<double>{5, 999, 999, 0, 5}));
  std::vector<double> b = a;
  kernel::put.on(t)(b, std::vector<std::int64_t>{2, -2}, std::vector<double>{-1, -2});
  EXPECT_EQ(b[2], -1);
  EXPECT_EQ(b[998], -2);

  // Out of range: an error naming the position, and nothing written.
  const std::vector<std::int64_t> bad = {1, 2, 1000, 3, -1001};
  try {
    kernel::take.on(t)(a, bad);
    ADD_FAILURE() << "no error";
  } catch (const kernel::argument_error &e) {
    EXPECT_NE(std::string(e.what()).find("index 1000 at position 2"), std::string::npos) << e.what();
    EXPECT_EQ(e.argument(), 2);
  }
  std::vector<double> untouched = a;
  EXPECT_THROW(kernel::put.on(t)(untouched, bad, 7.0), kernel::argument_error);
  EXPECT_EQ(untouched, a);

  // An unsigned index is never negative, however large.
  const std::vector<std::uint64_t> huge = {0, std::numeric_limits<std::uint64_t>::max(), std::uint64_t{1} << 63};
  try {
    kernel::take.on(t)(a, huge);
    ADD_FAILURE() << "no error";
  } catch (const kernel::argument_error &e) {
    EXPECT_NE(std::string(e.what()).find("index 18446744073709551615 at position 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(kernel::put.on(t)(untouched, huge, 7.0), kernel::argument_error);
  EXPECT_EQ(untouched, a);

  // As NumPy: values fewer than the indices are repeated, more are cut short.
  std::vector<double> cycled(6, 0.0);
  kernel::put.on(t)(cycled, std::vector<int>{0, 1, 2, 3, 4}, std::vector<float>{7, 8});
  EXPECT_EQ(cycled, (std::vector<double>{7, 8, 7, 8, 7, 0}));
  kernel::put.on(t)(cycled, std::vector<int>{5}, std::vector<double>{9, 10, 11});
  EXPECT_EQ(cycled[5], 9);
  // A scalar the elements cannot hold, and no values at all, are refused with nothing written.
  std::vector<int> ints(3, 4);
  for (double v : {double(NAN), 1e30, -3e9, double(INFINITY)}) try {
      kernel::put.on(t)(ints, std::vector<int>{0}, v);
      ADD_FAILURE() << v << " was put into an int32 array";
    } catch (const kernel::argument_error &e) {
      EXPECT_EQ(e.argument(), 3);
      EXPECT_NE(std::string(e.what()).find("int32 elements cannot hold"), std::string::npos) << e.what();
    }
  EXPECT_THROW(kernel::put.on(t)(ints, std::vector<int>{0}, std::int64_t{1} << 40), kernel::argument_error);
  EXPECT_THROW(kernel::put.on(t)(ints, std::vector<int>{0}, std::vector<int>{}), kernel::argument_error);
  EXPECT_EQ(ints, (std::vector<int>{4, 4, 4}));
  kernel::put.on(t)(ints, std::vector<int>{1}, -2.9); // truncated toward zero, as NumPy casts
  EXPECT_EQ(ints[1], -2);
  kernel::put.on(t)(ints, std::vector<int>{2}, 'A'); // a character is a small integer
  EXPECT_EQ(ints[2], 65);

  // take into an array of another shape than the indices', though of their size: refused.
  kernel::ndarray<double, 2> column({5, 1});
  try {
    kernel::take.on(t)(a, idx, column);
    ADD_FAILURE() << "an output of another shape was taken";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 3);
    EXPECT_NE(std::string(e.what()).find("has shape (5, 1) but the indices' shape is (5,)"), std::string::npos)
        << e.what();
  }
  if (t == kernel::target::cpu || t == kernel::target::parallel) return;
  // Values fewer than the indices, from a device array.
  auto dcycled = kernel::to_device(std::vector<double>(4, 0.0), kernel_test::device());
  kernel::put(dcycled, kernel::to_device(std::vector<int>{3, 2, 1}, kernel_test::device()),
              kernel::to_device(std::vector<double>{5, 6}, kernel_test::device()));
  EXPECT_EQ(dcycled.copy_to_host().to_vector(), (std::vector<double>{0, 5, 6, 5}));
  // A gather into the caller's device array writes nothing when an index is out of range.
  auto da = kernel::to_device(a, kernel_test::device());
  auto out = kernel::to_device(std::vector<double>(5, -9.0), kernel_test::device());
  EXPECT_THROW(kernel::take(da, kernel::to_device(bad, kernel_test::device()), out), kernel::argument_error);
  EXPECT_EQ(out.copy_to_host().to_vector(), std::vector<double>(5, -9.0));
}

// A predicate's loop is chosen as a ufunc call chooses it, on every target: uint8 and int16
// elements go to the int32 loop, float32 ones to the float64 loop.
TEST_P(Targets, PredicatesOfSeveralLoops) {
  const kernel::target t = GetParam();
  const std::vector<std::uint8_t> bytes{1, 2, 3, 255};
  EXPECT_EQ(kernel::count_if.on(t)(bytes, is_odd), 3);
  EXPECT_EQ(to_vector(kernel::select_if.on(t)(bytes, is_odd)), (std::vector<std::uint8_t>{1, 3, 255}));
  const std::vector<std::int16_t> shorts{-3, 4, 7};
  EXPECT_EQ(to_vector(kernel::select_if.on(t)(shorts, is_odd)), (std::vector<std::int16_t>{-3, 7}));
  const std::vector<float> floats{1.5f, 3.0f, 4.0f};
  EXPECT_EQ(kernel::count_if.on(t)(floats, is_odd), 2);
  const auto part = kernel::stable_partition.on(t)(bytes, is_odd);
  EXPECT_EQ(part.count, 3);
}

TEST_P(Targets, CompactionUniqueAndRuns) {
  const kernel::target t = GetParam();
  for (std::size_t n : sizes) {
    const std::vector<float> x = random_floats(n, 21 + static_cast<unsigned>(n));
    std::vector<float> kept, rest;
    for (float v : x) (v > 0 ? kept : rest).push_back(v);
    EXPECT_EQ(to_vector(kernel::select_if.on(t)(x, is_positive)), kept) << n;
    EXPECT_EQ(kernel::count_if.on(t)(x, is_positive), static_cast<kernel::index_t>(kept.size()));
    const auto part = kernel::stable_partition.on(t)(x, is_positive);
    std::vector<float> both = kept;
    both.insert(both.end(), rest.begin(), rest.end());
    EXPECT_EQ(to_vector(part.values), both);
    EXPECT_EQ(part.count, static_cast<kernel::index_t>(kept.size()));
    // A mask instead of a predicate.
    kernel::ndarray<bool, 1> mask(kernel::ndarray<bool, 1>::extents_type{static_cast<kernel::index_t>(n)});
    for (std::size_t i = 0; i < n; ++i) mask[static_cast<kernel::index_t>(i)] = x[i] > 0;
    EXPECT_EQ(to_vector(kernel::select_if.on(t)(x, mask)), kept);
  }
  // A mask of the array's size but another shape is refused, as NumPy refuses it.
  kernel::ndarray<float, 2> grid({2, 3});
  kernel::ndarray<bool, 2> wrong_mask({3, 2});
  try {
    (void)kernel::select_if.on(t)(grid, wrong_mask);
    ADD_FAILURE() << "a mask of another shape was taken";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 2);
    EXPECT_NE(std::string(e.what()).find("has shape (3, 2) but the array's shape is (2, 3)"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)kernel::count_if.on(t)(grid, kernel::ndarray<bool, 1>({6})), kernel::argument_error);
  // Around the device's tiles (4096 elements where flags decide), and past 1024 of them (the
  // scan of the tiles' counts then takes two levels): a mask keeping every third, and the rest
  // after.
  constexpr std::size_t tile = kernel::detail::compact_entry<int>::tile_size;
  static_assert(tile == 4096);
  for (std::size_t n : {tile - 1, tile, tile + 1, tile * 1025 + 3}) {
    std::vector<int> x(n);
    std::iota(x.begin(), x.end(), 0);
    kernel::ndarray<bool, 1> mask(kernel::ndarray<bool, 1>::extents_type{static_cast<kernel::index_t>(n)});
    std::vector<int> both;
    for (std::size_t i = 0; i < n; i += 3) both.push_back(x[i]);
    const std::size_t kept = both.size();
    for (std::size_t i = 0; i < n; ++i) {
      mask[static_cast<kernel::index_t>(i)] = i % 3 == 0;
      if (i % 3) both.push_back(x[i]);
    }
    const auto part = kernel::stable_partition.on(t)(x, mask);
    EXPECT_EQ(part.count, static_cast<kernel::index_t>(kept)) << n;
    EXPECT_EQ(to_vector(part.values), both) << n;
    // A device selects in one pass, each tile looking back over up to 32 tiles at a time.
    EXPECT_EQ(to_vector(kernel::select_if.on(t)(x, mask)), std::vector<int>(both.begin(), both.begin() + kept)) << n;
  }
  // Runs of kept and dropped tiles (of 16384 where a predicate of 4-byte values decides), so
  // that tiles find their offset past tiles keeping nothing.
  {
    constexpr std::size_t tile = kernel::detail::compact_entry<float, positive>::tile_size;
    static_assert(tile == 16384);
    const std::size_t n = tile * 100 + 17;
    std::vector<float> x(n), kept;
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = (i / tile) % 7 < 3 ? static_cast<float>(i % 5) : -1.0f;
      if (x[i] > 0) kept.push_back(x[i]);
    }
    EXPECT_EQ(to_vector(kernel::select_if.on(t)(x, is_positive)), kept);
    EXPECT_TRUE(to_vector(kernel::select_if.on(t)(std::vector<float>(n, -1.0f), is_positive)).empty());
  }
  const std::vector<float> r = {2, 2, -0.0f, 0.0f, NAN, NAN, 1, 2, 2, 2};
  const auto u = kernel::unique.on(t)(r);
  ASSERT_EQ(u.size(), 4);
  EXPECT_EQ(u[0], 0.0f);
  EXPECT_TRUE(std::signbit(u[0])) << "the first zero sort gives, -0.0, on every target";
  EXPECT_EQ(u[1], 1.0f);
  EXPECT_EQ(u[2], 2.0f);
  EXPECT_TRUE(std::isnan(u[3]));
  const auto runs = kernel::run_length_encode.on(t)(r);
  ASSERT_EQ(runs.values.size(), 5);
  EXPECT_EQ(to_vector(runs.counts), (std::vector<kernel::index_t>{2, 2, 2, 1, 3}));
  EXPECT_EQ(runs.values[3], 1.0f);
}

// select_if into the caller's array (CUB's DeviceSelect): the kept elements first, the places
// after them as they were, the count returned; room for the kept ones alone is enough (a
// count first), too little is refused before anything is written. Host arrays on every
// target; device arrays (one pass straight into room for every element, or a strided view,
// or too little room) where the target has a device.
TEST_P(Targets, SelectIntoTheCallersArray) {
  const kernel::target t = GetParam();
  const float untouched = 12345.0f;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{257}, std::size_t{16384 * 3 + 7}}) {
    const std::vector<float> x = random_floats(n, 77 + static_cast<unsigned>(n));
    std::vector<float> kept;
    for (float v : x)
      if (v > 0) kept.push_back(v);
    const auto k = static_cast<kernel::index_t>(kept.size());
    std::vector<float> roomy(n + 3, untouched);
    EXPECT_EQ(kernel::select_if.on(t)(x, is_positive, roomy), k) << n;
    std::vector<float> expected = kept;
    expected.resize(n + 3, untouched);
    EXPECT_EQ(roomy, expected) << n;
    std::vector<float> exact(kept.size(), untouched);
    EXPECT_EQ(kernel::select_if.on(t)(x, is_positive, exact), k);
    EXPECT_EQ(exact, kept);
    // Every other place of a longer array.
    std::vector<float> spaced(2 * kept.size() + 1, untouched);
    kernel::array_view<float, 1> every_other(spaced.data(), {k}, {2});
    EXPECT_EQ(kernel::select_if.on(t)(x, is_positive, every_other), k);
    for (std::size_t i = 0; i < kept.size(); ++i) {
      EXPECT_EQ(spaced[2 * i], kept[i]);
      EXPECT_EQ(spaced[2 * i + 1], untouched);
    }
    if (k > 0) {
      std::vector<float> small(kept.size() - 1, untouched);
      EXPECT_THROW(
          {
            try {
              kernel::select_if.on(t)(x, is_positive, small);
            } catch (const kernel::argument_error &e) {
              EXPECT_EQ(e.argument(), 3);
              EXPECT_NE(std::string(e.what()).find("room for"), std::string::npos) << e.what();
              throw;
            }
          },
          kernel::argument_error);
      EXPECT_EQ(small, std::vector<float>(kept.size() - 1, untouched)) << "nothing written";
    }
    if (t == kernel::target::cpu || t == kernel::target::parallel) continue;
    const auto dx = kernel::to_device(x, kernel_test::device());
    auto dout = kernel::to_device(std::vector<float>(n + 1, untouched), kernel_test::device());
    EXPECT_EQ(kernel::select_if(dx, is_positive, dout), k);
    expected.resize(n + 1);
    EXPECT_EQ(to_vector(dout.copy_to_host()), expected) << n;
    auto dspaced = kernel::to_device(std::vector<float>(2 * kept.size() + 1, untouched), kernel_test::device());
    kernel::device_view<float, 1> dev_every_other(kernel_test::device(), dspaced.data(), {k}, {2});
    EXPECT_EQ(kernel::select_if(dx, is_positive, dev_every_other), k);
    const auto back = to_vector(dspaced.copy_to_host());
    for (std::size_t i = 0; i < kept.size(); ++i) {
      EXPECT_EQ(back[2 * i], kept[i]);
      EXPECT_EQ(back[2 * i + 1], untouched);
    }
    // Room for the kept ones but not for every element: counted first, then written in place.
    auto dexact = kernel::to_device(std::vector<float>(kept.size() + 1, untouched), kernel_test::device());
    if (kept.size() + 1 < n) {
      EXPECT_EQ(kernel::select_if(dx, is_positive, dexact), k);
      std::vector<float> with_room = kept;
      with_room.push_back(untouched);
      EXPECT_EQ(to_vector(dexact.copy_to_host()), with_room);
    }
    // A mask, on the device, into room for every element.
    kernel::ndarray<bool, 1> mask(kernel::ndarray<bool, 1>::extents_type{static_cast<kernel::index_t>(n)});
    for (std::size_t i = 0; i < n; ++i) mask[static_cast<kernel::index_t>(i)] = x[i] > 0;
    auto dmasked = kernel::to_device(std::vector<float>(n + 1, untouched), kernel_test::device());
    EXPECT_EQ(kernel::select_if(dx, kernel::to_device(mask, kernel_test::device()), dmasked), k);
    EXPECT_EQ(to_vector(dmasked.copy_to_host()), expected);
    if (k > 0) {
      auto dsmall = kernel::to_device(std::vector<float>(kept.size() - 1, untouched), kernel_test::device());
      EXPECT_THROW(kernel::select_if(dx, is_positive, dsmall), kernel::argument_error);
      EXPECT_EQ(to_vector(dsmall.copy_to_host()), std::vector<float>(kept.size() - 1, untouched));
      // A host array receives a device call's selection.
      std::vector<float> host(kept.size(), untouched);
      EXPECT_EQ(kernel::select_if(dx, is_positive, host), k);
      EXPECT_EQ(host, kept);
    }
  }
}

TEST_P(Targets, HistogramsAsNumPy) {
  const kernel::target t = GetParam();
  // Values on the edges, outside the range and NaN; the last bin includes the top. The counts
  // are numpy.histogram's (NumPy 1.24), whose edges are numpy.linspace's: 0.7 lies below
  // its eighth edge, 0.7000000000000001, so in the seventh bin.
  const std::vector<double> x = {0, 0.1, 0.2, 0.30000000000000004, 1, -0.5, 2, NAN, 0.7, 0.99999999};
  EXPECT_EQ(to_vector(kernel::histogram.on(t)(x, 10, 0.0, 1.0)),
            (std::vector<kernel::index_t>{1, 1, 1, 1, 0, 0, 1, 0, 0, 2}));
  const std::vector<double> tenths = {0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, -0.0};
  EXPECT_EQ(to_vector(kernel::histogram.on(t)(tenths, 10, 0.0, 1.0)),
            (std::vector<kernel::index_t>{2, 1, 2, 0, 1, 2, 1, 0, 1, 2}));
  const std::vector<float> tenths32(tenths.begin(), tenths.end()); // float32 edges, as NumPy's
  EXPECT_EQ(to_vector(kernel::histogram.on(t)(tenths32, 10, 0.0, 1.0)),
            (std::vector<kernel::index_t>{2, 1, 1, 1, 1, 1, 1, 1, 1, 2}));
  EXPECT_EQ(to_vector(kernel::histogram.on(t)(x, std::vector<float>{-1, 0, 0.5, 2})),
            (std::vector<kernel::index_t>{1, 4, 4}));
  // Each edge of 1000 bins over (-0.5, 1.5) as numpy.linspace makes it (the product rounded,
  // then the sum) lies in its own bin: a fused multiply-add made the bins' edges put 0.0, the
  // 250th, in bin 249, and 57272 of 302601 edges of 300 random ranges one bin low.
  std::vector<double> edges(1000);
  for (int k = 0; k < 1000; ++k) {
    volatile double product = k * (2.0 / 1000);
    edges[static_cast<std::size_t>(k)] = product + -0.5;
  }
  EXPECT_EQ(to_vector(kernel::histogram.on(t)(edges, 1000, -0.5, 1.5)), std::vector<kernel::index_t>(1000, 1));
  // An end past float's range is compared in double: infinities stay outside (NumPy).
  const std::vector<float> extremes = {INFINITY, 0.5f, -INFINITY, 3.4e38f};
  EXPECT_EQ(to_vector(kernel::histogram.on(t)(extremes, 2, 0.0, 1e39)), (std::vector<kernel::index_t>{2, 0}));
  EXPECT_EQ(to_vector(kernel::histogram.on(t)(extremes, 4, -1e39, 1e39)), (std::vector<kernel::index_t>{0, 0, 2, 0}));
  // A float32 range a few steps wide, whose float32 edges fall together: the bin between equal
  // edges is the one NumPy's first estimate gives, made in float32 (numpy.histogram of these
  // values over this range; an estimate made in double put one of them in bin 3).
  // A range wider than float's: an estimate in float overflows (1e38 + 3e38), and the
  // correction, one bin at most, left 1e38 in bin 8; it is made in double there (NumPy's
  // overflows too, and numpy.histogram fails with an IndexError).
  const std::vector<float> wide = {1e38f, -2.9e38f, 0.0f};
  EXPECT_EQ(to_vector(kernel::histogram.on(t)(wide, 10, -3e38, 3e38)),
            (std::vector<kernel::index_t>{1, 0, 0, 0, 0, 1, 1, 0, 0, 0}));
  const std::vector<float> narrow = {-327.2084f, -327.20844f};
  EXPECT_EQ(to_vector(kernel::histogram.on(t)(narrow, 7, -327.2084500341817, -327.2083349899146)),
            (std::vector<kernel::index_t>{0, 1, 1, 0, 0, 0, 0}));
  const std::vector<float> many = random_floats(100000, 4);
  std::vector<kernel::index_t> want(5000, 0);
  for (float v : many) ++want[static_cast<std::size_t>(kernel::detail::even_bin(v, -100.0, 100.0, 5000))];
  EXPECT_EQ(to_vector(kernel::histogram.on(t)(many, 5000, -100.0, 100.0)), want);
  // Repeated edges, as NumPy takes them: a bin between equal edges counts nothing, and a value
  // on repeated last edges is in the last bin.
  EXPECT_EQ(to_vector(kernel::histogram.on(t)(std::vector<double>{0.5, 1, 1.5, 2}, std::vector<float>{0, 1, 1, 2})),
            (std::vector<kernel::index_t>{1, 0, 3}));
  EXPECT_EQ(to_vector(kernel::histogram.on(t)(std::vector<double>{0.5, 1, 1.5, 2, 1}, std::vector<int>{0, 1, 2, 2})),
            (std::vector<kernel::index_t>{1, 3, 1}));
  // A range of one value is widened to [lo - 0.5, hi + 0.5], as NumPy widens it.
  EXPECT_EQ(to_vector(kernel::histogram.on(t)(x, 3, 1.0, 1.0)), (std::vector<kernel::index_t>{1, 2, 0}));
  // A range narrower than double's normal numbers: bins per unit past double's range, so the
  // bins are found by the fraction of the range.
  EXPECT_EQ(to_vector(kernel::histogram.on(t)(std::vector<double>{0.0, 0.5e-310, 0.9e-310, 1e-310}, 10, 0.0, 1e-310)),
            (std::vector<kernel::index_t>{1, 0, 0, 0, 0, 1, 0, 0, 0, 2}));
  // More bins than elements in a share of the work: counted in place.
  const std::vector<float> few = random_floats(3000, 5);
  std::vector<kernel::index_t> sparse_want(1 << 20, 0);
  for (float v : few) ++sparse_want[static_cast<std::size_t>(kernel::detail::even_bin(v, -100.0, 100.0, 1 << 20))];
  EXPECT_EQ(to_vector(kernel::histogram.on(t)(few, 1 << 20, -100.0, 100.0)), sparse_want);
  // Errors name the argument at fault.
  const auto refused = [&](int argument, const std::string &part, auto &&call) {
    try {
      call();
      ADD_FAILURE() << "no error; expected one containing '" << part << "'";
    } catch (const kernel::argument_error &e) {
      EXPECT_EQ(e.argument(), argument) << e.what();
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  refused(2, "must be positive", [&] { (void)kernel::histogram.on(t)(x, 0, 0.0, 1.0); });
  refused(3, "lo must be finite", [&] { (void)kernel::histogram.on(t)(x, 3, -INFINITY, 1.0); });
  refused(4, "hi must be finite", [&] { (void)kernel::histogram.on(t)(x, 3, 0.0, INFINITY); });
  refused(4, "hi must not be below lo", [&] { (void)kernel::histogram.on(t)(x, 3, 1.0, 0.5); });
  // The ends as given, not rounded to six decimals (0.000000) or written out in 309 digits.
  refused(4, "the range [1e-07, -1e-07]: hi must not be below lo",
          [&] { (void)kernel::histogram.on(t)(x, 3, 1e-7, -1e-7); });
  refused(3, "the range [-inf, 1e+308]", [&] { (void)kernel::histogram.on(t)(x, 3, -INFINITY, 1e308); });
  refused(4, "cannot be widened", [&] { (void)kernel::histogram.on(t)(x, 3, 1e17, 1e17); });
  refused(2, "edge 1 is NaN", [&] { (void)kernel::histogram.on(t)(x, std::vector<float>{0, NAN, 1}); });
  refused(2, "edge 2 is below", [&] { (void)kernel::histogram.on(t)(x, std::vector<float>{0, 1, 0.5f}); });
  // As NumPy's: one edge or none makes no bin (numpy.histogram(x, bins=[1.0]) counts nothing).
  EXPECT_TRUE(to_vector(kernel::histogram.on(t)(x, std::vector<float>{0.5f})).empty());
  EXPECT_TRUE(to_vector(kernel::histogram.on(t)(x, std::vector<float>{})).empty());
  refused(2, "edge 0 is NaN", [&] { (void)kernel::histogram.on(t)(x, std::vector<float>{NAN}); });
  try { // finite ends, but a width past double's range: every bin's edge would be NaN
    (void)kernel::histogram.on(t)(x, 4, -1.7e308, 1.7e308);
    ADD_FAILURE() << "a range wider than a double was taken";
  } catch (const kernel::argument_error &e) {
    EXPECT_NE(std::string(e.what()).find("wider than a double can hold"), std::string::npos) << e.what();
  }
  // 64-bit integers are binned as integers: 2^53 lies below the edge 2^53 + 1, which a double
  // would round to 2^53 (NumPy gives {1, 0}); unsigned against signed edges too.
  const std::int64_t big = std::int64_t{1} << 53;
  EXPECT_EQ(to_vector(kernel::histogram.on(t)(std::vector<std::int64_t>{big},
                                              std::vector<std::int64_t>{0, big + 1, big + 3})),
            (std::vector<kernel::index_t>{1, 0}));
  EXPECT_EQ(to_vector(kernel::histogram.on(t)(std::vector<std::uint64_t>{0, 5, ~std::uint64_t{0}},
                                              std::vector<std::int64_t>{-4, 1, std::int64_t{1} << 62})),
            (std::vector<kernel::index_t>{1, 1}));
  // Edges may be an expression, as any input.
  const std::vector<float> halves = {-1, 0, 0.5, 2};
  EXPECT_EQ(to_vector(kernel::histogram.on(t)(x, vtimes(kernel::lazy(halves), 1.0f))),
            (std::vector<kernel::index_t>{1, 4, 4}));
}

// Arrays with an empty dimension after a non-empty one ((4, 0): C-contiguous strides (0, 1)) have
// no elements written twice: their empty results come back, with the shapes NumPy gives.
TEST_P(Targets, EmptyAfterANonEmptyDimension) {
  const kernel::target t = GetParam();
  kernel::ndarray<float, 2> a({4, 0}), m({3, 5});
  std::fill(m.data(), m.data() + m.size(), 1.0f);
  const auto order = kernel::argsort.on(t)(a);
  EXPECT_EQ(order.shape(0), 4);
  EXPECT_EQ(order.shape(1), 0);
  const auto sums = kernel::cumsum.on(t)(a, 0);
  EXPECT_EQ(sums.shape(0), 4);
  EXPECT_EQ(sums.size(), 0);
  kernel::sort.on(t)(a);
  const auto [top, where] = kernel::top_k.on(t)(m, 0);
  EXPECT_EQ(top.shape(0), 3); // along the last axis
  EXPECT_EQ(top.shape(1), 0);
  EXPECT_EQ(where.size(), 0);
  const auto doubled = vtimes.on(t)(a, 2.0f);
  EXPECT_EQ(doubled.shape(0), 4);
  EXPECT_EQ(doubled.size(), 0);
}

TEST_P(Targets, DeviceArraysStayOnTheDevice) {
  const kernel::target t = GetParam();
  if (t == kernel::target::cpu || t == kernel::target::parallel) GTEST_SKIP() << "device arrays";
  const std::vector<float> x = random_floats(4000, 8, 300);
  auto dx = kernel::to_device(x, kernel_test::device());
  const auto before = kernel_test::device().counters();
  kernel::device_array<kernel::index_t, 1> order = kernel::argsort(dx);
  kernel::sort(dx);
  auto sums = kernel::cumsum(dx);
  auto [values, indices] = kernel::top_k(dx, 5);
  EXPECT_GT(kernel_test::device().counters().launches, before.launches);
  EXPECT_EQ(to_vector(order.copy_to_host()), reference_argsort(x, false));
  std::vector<float> sorted = x;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(to_vector(dx.copy_to_host()), sorted);
  EXPECT_EQ(to_vector(values.copy_to_host())[0], sorted.back());
  EXPECT_EQ(sums.copy_to_host()[0], sorted[0]);
  // Into a device array of another element type (as CuPy's out=): read as it is, summed in
  // the output's type.
  kernel::device_array<double, 1> wide(4000, kernel_test::device());
  kernel::cumsum(dx, wide);
  const auto wide_sums = wide.copy_to_host();
  double running = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    running += sorted[i];
    EXPECT_EQ(wide_sums[static_cast<kernel::index_t>(i)], running) << i;
  }
  // On a stream a temporary host output would be written after it is gone: refused, naming
  // it; a named one, or a view of one, is written once the stream has run.
  kernel::stream s(kernel_test::device());
  try {
    kernel::cumsum.on(s)(dx, std::vector<float>(4000));
    ADD_FAILURE() << "a temporary output on a stream";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 2);
    EXPECT_NE(std::string(e.what()).find("temporary host array"), std::string::npos) << e.what();
  }
  std::vector<float> named(4000);
  kernel::cumsum.on(s)(dx, kernel::view(named.data(), 4000));
  s.synchronize();
  EXPECT_EQ(named[0], sorted[0]);
  const float total = sums.copy_to_host()[3999];
  EXPECT_NEAR(named[3999], total, 1e-5f * std::abs(total));
}

// Strided device views (a transpose, every other element) are read and written in place on the
// device: gathered into contiguous memory and scattered back by the device.
TEST_P(Targets, SelectionsOfDeviceArraysStayOnTheDevice) {
  const kernel::target t = GetParam();
  if (t == kernel::target::cpu || t == kernel::target::parallel) GTEST_SKIP() << "device arrays";
  const std::size_t n = 4096 * 40 + 5;
  // Most kept (the result keeps the pass's memory) and few kept (it gets memory of its size).
  for (float threshold : {-90.0f, 90.0f}) {
    const std::vector<float> x = random_floats(n, 5);
    std::vector<float> kept;
    kernel::ndarray<bool, 1> mask(kernel::ndarray<bool, 1>::extents_type{static_cast<kernel::index_t>(n)});
    for (std::size_t i = 0; i < n; ++i) {
      mask[static_cast<kernel::index_t>(i)] = x[i] > threshold;
      if (x[i] > threshold) kept.push_back(x[i]);
    }
    const auto dx = kernel::to_device(x, kernel_test::device());
    kernel::device_array<float, 1> r = kernel::select_if(dx, kernel::to_device(mask, kernel_test::device()));
    ASSERT_EQ(r.size(), static_cast<kernel::index_t>(kept.size())) << threshold;
    EXPECT_EQ(to_vector(r.copy_to_host()), kept) << threshold;
    // The result is an array like any other: copied, written, used again.
    kernel::device_array<float, 1> again = kernel::select_if(r, is_finite);
    EXPECT_EQ(to_vector(again.copy_to_host()), kept);
  }
  const auto none =
      kernel::select_if(kernel::to_device(std::vector<float>(n, -1.0f), kernel_test::device()), is_positive);
  EXPECT_EQ(none.size(), 0);
}

TEST_P(Targets, StridedDeviceViews) {
  const kernel::target t = GetParam();
  if (t == kernel::target::cpu || t == kernel::target::parallel) GTEST_SKIP() << "device arrays";
  const kernel::index_t rows = 300, cols = 77;
  kernel::ndarray<float, 2> m({rows, cols});
  const std::vector<float> v = random_floats(static_cast<std::size_t>(rows * cols), 30, 500);
  std::copy(v.begin(), v.end(), m.data());
  auto dm = kernel::to_device(m, kernel_test::device());
  // The transpose: each row of it is a column of m.
  kernel::device_view<float, 2> transposed(kernel_test::device(), dm.data(), {cols, rows}, {1, cols});
  const auto order = kernel::argsort(transposed).copy_to_host();
  const auto sums = kernel::cumsum(transposed).copy_to_host();
  const auto best = kernel::top_k(transposed, 4).values.copy_to_host();
  kernel::sort(transposed, kernel::descending); // in place: sorts the columns of dm
  const auto sorted = dm.copy_to_host();
  for (kernel::index_t j = 0; j < cols; ++j) {
    std::vector<float> column;
    for (kernel::index_t i = 0; i < rows; ++i) column.push_back(m(i, j));
    const std::vector<kernel::index_t> want = reference_argsort(column, false);
    float running = 0;
    for (kernel::index_t i = 0; i < rows; ++i) {
      ASSERT_EQ(order(j, i), want[static_cast<std::size_t>(i)]) << j << " " << i;
      running += column[static_cast<std::size_t>(i)];
      ASSERT_FLOAT_EQ(sums(j, i), running);
      ASSERT_EQ(sorted(i, j), column[static_cast<std::size_t>(want[static_cast<std::size_t>(rows - 1 - i)])]);
    }
    for (kernel::index_t i = 0; i < 4; ++i) ASSERT_EQ(best(j, i), sorted(i, j));
  }
  // Every other element of a vector, sorted in place; the others are left as they were.
  auto dx = kernel::to_device(v, kernel_test::device());
  kernel::device_view<float, 1> evens(kernel_test::device(), dx.data(), {rows}, {2});
  kernel::sort(evens);
  const auto after = dx.copy_to_host();
  std::vector<float> want;
  for (kernel::index_t i = 0; i < rows; ++i) want.push_back(v[static_cast<std::size_t>(2 * i)]);
  std::sort(want.begin(), want.end());
  for (kernel::index_t i = 0; i < rows; ++i) {
    ASSERT_EQ(after[2 * i], want[static_cast<std::size_t>(i)]);
    ASSERT_EQ(after[2 * i + 1], v[static_cast<std::size_t>(2 * i + 1)]);
  }
}

// A lazy expression is accepted wherever an input array is: evaluated where the call runs
// (on the expression's device for device arrays), then the algorithm runs on its values.
TEST_P(Targets, ExpressionsAreAcceptedWhereArraysAre) {
  const kernel::target t = GetParam();
  const std::vector<float> x = random_floats(3000, 41, 200);
  std::vector<float> y(x.size());
  std::transform(x.begin(), x.end(), y.begin(), [](float v) { return v * -2.0f; });
  const auto e = vtimes(kernel::lazy(x), -2.0f);
  EXPECT_EQ(to_vector(kernel::cumsum.on(t)(e)), to_vector(kernel::cumsum.on(t)(y)));
  EXPECT_EQ(to_vector(kernel::cumsum.on(t).exclusive(e, 1.0f)), to_vector(kernel::cumsum.on(t).exclusive(y, 1.0f)));
  std::vector<float> into(x.size());
  kernel::cumsum.on(t)(e, into);
  EXPECT_EQ(into, to_vector(kernel::cumsum.on(t)(y)));
  EXPECT_EQ(to_vector(kernel::argsort.on(t)(e, kernel::descending)), reference_argsort(y, true));
  EXPECT_EQ(to_vector(kernel::top_k.on(t)(e, 7).indices), to_vector(kernel::top_k.on(t)(y, 7).indices));
  EXPECT_EQ(to_vector(kernel::argpartition.on(t)(e, 100)), to_vector(kernel::argpartition.on(t)(y, 100)));
  const auto kept = to_vector(kernel::select_if.on(t)(y, is_positive));
  EXPECT_EQ(to_vector(kernel::select_if.on(t)(e, is_positive)), kept);
  EXPECT_EQ(to_vector(kernel::select_if.on(t)(y, is_positive(kernel::lazy(y)))), kept); // a mask expression
  EXPECT_EQ(kernel::count_if.on(t)(e, is_positive), static_cast<kernel::index_t>(kept.size()));
  EXPECT_EQ(to_vector(kernel::stable_partition.on(t)(e, is_positive).values),
            to_vector(kernel::stable_partition.on(t)(y, is_positive).values));
  EXPECT_EQ(to_vector(kernel::unique.on(t)(e)), to_vector(kernel::unique.on(t)(y)));
  EXPECT_EQ(to_vector(kernel::run_length_encode.on(t)(e).counts), to_vector(kernel::run_length_encode.on(t)(y).counts));
  EXPECT_EQ(to_vector(kernel::histogram.on(t)(e, 9, -400.0, 400.0)),
            to_vector(kernel::histogram.on(t)(y, 9, -400.0, 400.0)));
  const std::vector<std::int64_t> at = {5, -1, 0, 2999};
  EXPECT_EQ(to_vector(kernel::take.on(t)(e, at)), (std::vector<float>{y[5], y[2999], y[0], y[2999]}));
  std::vector<float> z(10, 0.0f);
  kernel::put.on(t)(z, std::vector<std::int64_t>{1, 3}, vtimes(kernel::lazy(std::vector<float>{1, 2}), 3.0f));
  EXPECT_EQ(z[1], 3.0f);
  EXPECT_EQ(z[3], 6.0f);

  // An expression that cannot be evaluated (operands of different sizes) is the argument
  // error it is anywhere, and nothing is written.
  const std::vector<float> shorter(7, 1.0f);
  std::vector<float> untouched(x.size(), 5.0f);
  EXPECT_THROW(kernel::cumsum.on(t)(vtimes(kernel::lazy(x), kernel::lazy(shorter)), untouched), kernel::argument_error);
  EXPECT_EQ(untouched, std::vector<float>(x.size(), 5.0f));

  if (t == kernel::target::cpu || t == kernel::target::parallel) return;
  // An expression of device arrays is evaluated on their device, and results stay there.
  auto dx = kernel::to_device(x, kernel_test::device());
  const auto de = vtimes(kernel::lazy(dx), -2.0f);
  kernel::device_array<float, 1> sums = kernel::cumsum(de);
  EXPECT_EQ(to_vector(sums.copy_to_host()), to_vector(kernel::cumsum.on(t)(y)));
  kernel::stream s(kernel_test::device());
  auto best = kernel::top_k.on(s)(de, 3);
  static_assert(std::is_same_v<decltype(best.values), kernel::device_array<float, 1>>);
  s.synchronize();
  EXPECT_EQ(to_vector(best.indices.copy_to_host()), to_vector(kernel::top_k.on(t)(y, 3).indices));
  // A host expression on a stream: its values are there before the call reads them.
  const auto host_sums = kernel::cumsum.on(s)(e);
  s.synchronize();
  EXPECT_EQ(to_vector(host_sums), to_vector(kernel::cumsum.on(t)(y)));
  const auto host_order = kernel::argsort.on(s)(vtimes.on(s)(kernel::lazy(x), -2.0f));
  s.synchronize();
  EXPECT_EQ(to_vector(host_order), reference_argsort(y, false));
}

// A moved-from generator still has the sequence (it shares it, as a copy does); integer draws
// over the whole int64 range are made without a signed overflow.
TEST(RandomArrays, MovedGeneratorsKeepTheirSequence) {
  kernel::random::philox a(5), reference(5);
  kernel::random::philox b = std::move(a);
  std::vector<std::uint32_t> x(8), y(8), want(16);
  a.bits(x); // NOLINT(bugprone-use-after-move): what is checked
  b.bits(y);
  reference.bits(want);
  EXPECT_EQ(x, std::vector<std::uint32_t>(want.begin(), want.begin() + 8));
  EXPECT_EQ(y, std::vector<std::uint32_t>(want.begin() + 8, want.end()));
  EXPECT_EQ(a.offset(), 16u);
  kernel::random::philox c(6);
  c = std::move(b);
  EXPECT_EQ(b.offset(), 16u); // NOLINT(bugprone-use-after-move)
  std::vector<std::int64_t> wide(1000);
  c.integers(wide, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max());
  EXPECT_NE(std::count_if(wide.begin(), wide.end(), [](std::int64_t v) { return v < 0; }), 0);
  EXPECT_NE(std::count_if(wide.begin(), wide.end(), [](std::int64_t v) { return v > 0; }), 0);
}

// Fills of 64-bit elements draw their blocks in cuRAND's layout for them, a permutation of
// whole rounds of 2^17 blocks: they take rounds of their own, so no word is drawn twice (4 of
// 8 doubles after 16 words were made of those words), and one after another they still go on
// as one fill would. Uniforms stay in (low, high] where the sum rounds to low.
TEST_P(Targets, RandomFillsNeverDrawAWordTwice) {
  const kernel::target t = GetParam();
  kernel::random::philox rng(99);
  std::vector<std::uint32_t> words(16);
  rng.on(t).bits(words);
  std::vector<double> doubles(8);
  rng.on(t).uniform(doubles);
  for (double d : doubles)
    for (std::size_t i = 0; i + 1 < words.size(); i += 2)
      EXPECT_NE(d, kernel::random::uniform_float64(words[i], words[i + 1])) << "words " << i;
  std::vector<std::uint32_t> after(16);
  rng.on(t).bits(after);
  EXPECT_GE(rng.offset(), std::uint64_t{4} << 17); // past the round the doubles took
  for (std::uint32_t w : after) EXPECT_EQ(std::count(words.begin(), words.end(), w), 0);
  kernel::random::philox split(5), whole(5);
  std::vector<double> first(10), second(6), all(16);
  split.on(t).uniform(first);
  split.on(t).uniform(second);
  whole.on(t).uniform(all);
  first.insert(first.end(), second.begin(), second.end());
  EXPECT_EQ(first, all);
  std::vector<float> narrow(100000);
  rng.on(t).uniform(narrow, 1000.0, 1001.0);
  EXPECT_EQ(std::count_if(narrow.begin(), narrow.end(), [](float v) { return !(v > 1000.0f && v <= 1001.0f); }), 0);
  // Ends the other way round, as NumPy takes them: values spread over [high, low).
  std::vector<double> reversed(10000);
  rng.on(t).uniform(reversed, 5.0, 2.0);
  EXPECT_EQ(std::count_if(reversed.begin(), reversed.end(), [](double v) { return !(v >= 2.0 && v < 5.0); }), 0);
  EXPECT_GT(*std::max_element(reversed.begin(), reversed.end()) - *std::min_element(reversed.begin(), reversed.end()),
            2.9);
}

// Integers of a range past 2^32 are uniform: a 64-bit draw scaled by a multiply alone makes
// every third value of [-2^63, 2^62) twice as likely; the rare draws rejected for that are
// made again from blocks of their own, the same on every target.
TEST_P(Targets, WideIntegerRangesAreUnbiased) {
  const kernel::target t = GetParam();
  const std::int64_t low = std::numeric_limits<std::int64_t>::min(), high = std::int64_t{1} << 62;
  std::vector<std::int64_t> here(200000), there(200000);
  kernel::random::philox(1).integers(here, low, high);
  kernel::random::philox(1).on(t).integers(there, low, high);
  EXPECT_EQ(here, there);
  std::size_t residues[3] = {0, 0, 0};
  for (std::int64_t v : here) ++residues[(static_cast<std::uint64_t>(v) - static_cast<std::uint64_t>(low)) % 3];
  for (std::size_t r : residues) EXPECT_NEAR(static_cast<double>(r) / here.size(), 1.0 / 3, 0.01) << r;
  for (std::int64_t v : here) ASSERT_LT(v, high);
}

// Past 2^64 draws a generator has no 64-bit offset: offset() says so rather than wrapping to
// a small one (from which a new generator would draw the first numbers again). Its fills go on
// (tested below, in RandomArraysAreTheSameOnEveryTarget).
TEST(RandomArrays, NoOffsetPast2To64Draws) {
  const std::uint64_t most = ~std::uint64_t{0};
  kernel::random::philox last(9, most - 7); // 2^64 - 8: the last block but one
  EXPECT_EQ(last.offset(), most - 7);
  std::vector<std::uint32_t> four(4);
  last.bits(four);
  EXPECT_EQ(last.offset(), most - 3);
  last.bits(four);
  EXPECT_THROW((void)last.offset(), kernel::argument_error);
  EXPECT_THROW((void)kernel::random::philox(9, most - 2).offset(), kernel::argument_error);
}

TEST_P(Targets, RandomArraysAreTheSameOnEveryTarget) {
  const kernel::target t = GetParam();
  kernel::random::philox here(2024, 12), there(2024, 12);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{1000}, std::size_t{300001}}) {
    std::vector<std::uint32_t> b1(n), b2(n);
    here.bits(b1);
    there.on(t).bits(b2);
    EXPECT_EQ(b1, b2);
    std::vector<float> u1(n), u2(n), n1(n), n2(n);
    here.uniform(u1);
    there.on(t).uniform(u2);
    EXPECT_EQ(u1, u2);
    here.normal(n1, 1, 3);
    there.on(t).normal(n2, 1, 3);
    if (t == kernel::target::parallel)
      EXPECT_EQ(n1, n2); // the same code on the host's cores
    else
      for (std::size_t i = 0; i < n; ++i) ASSERT_NEAR(n1[i], n2[i], 1e-5f * (1 + std::abs(n1[i])));
    std::vector<double> d1(n), d2(n);
    here.uniform(d1, -2, 2);
    there.on(t).uniform(d2, -2, 2);
    EXPECT_EQ(d1, d2);
    std::vector<std::int16_t> i1(n), i2(n);
    here.integers(i1, -5, 7);
    there.on(t).integers(i2, -5, 7);
    EXPECT_EQ(i1, i2);
    for (auto v : i1) ASSERT_TRUE(v >= -5 && v < 7);
  }
  EXPECT_EQ(here.offset(), there.offset());
  std::vector<std::uint8_t> small(10);
  // The end that does not fit is named.
  const auto integers_message = [&](auto &array, std::int64_t low, std::int64_t high) {
    try {
      here.integers(array, low, high);
    } catch (const kernel::argument_error &e) {
      return std::string(e.what());
    }
    return std::string("(filled)");
  };
  EXPECT_EQ(integers_message(small, 0, 300), "'philox::integers': argument 3: high is 300: the range [0, 300) holds "
                                             "values the array's uint8 elements cannot hold");
  EXPECT_EQ(integers_message(small, 256, 300),
            "'philox::integers': argument 2: low is 256, which the array's uint8 elements cannot hold");
  EXPECT_EQ(small, std::vector<std::uint8_t>(10, 0)) << "nothing is written";
  // Any integer array: uint64 too (its maximum is no int64), never a negative low.
  std::vector<std::uint64_t> wide(100);
  there.on(t).integers(wide, 0, 10);
  for (auto v : wide) ASSERT_LT(v, 10u);
  EXPECT_THROW(here.integers(wide, -1, 10), kernel::argument_error);
  // Ends of any integer type, as values: the upper half of uint64, and all of it with
  // endpoint (NumPy's Generator.integers(0, 2**64 - 1, endpoint=True, dtype=uint64)).
  constexpr std::uint64_t half = std::uint64_t{1} << 63, top = ~std::uint64_t{0};
  std::vector<std::uint64_t> upper(2000), upper_here(2000), all(2000), all_here(2000);
  kernel::random::philox(5).on(t).integers(upper, half, top);
  kernel::random::philox(3).on(t).integers(all, std::uint64_t{0}, top, /*endpoint=*/true);
  kernel::random::philox(5).integers(upper_here, half, top);
  kernel::random::philox(3).integers(all_here, std::uint64_t{0}, top, true);
  EXPECT_EQ(upper, upper_here);
  EXPECT_EQ(all, all_here);
  for (auto v : upper) ASSERT_TRUE(v >= half && v < top) << v;
  EXPECT_NE(std::count_if(all.begin(), all.end(), [&](std::uint64_t v) { return v >= half; }), 0);
  EXPECT_NE(std::count_if(all.begin(), all.end(), [&](std::uint64_t v) { return v < half; }), 0);
  // All 2^64 values: each draw as it is, so the fill is the 64-bit words the generator makes.
  kernel::random::philox words(3);
  std::vector<std::int64_t> raw(2000);
  words.on(t).integers(raw, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(), true);
  for (std::size_t i = 0; i < raw.size(); ++i)
    ASSERT_EQ(static_cast<std::uint64_t>(raw[i]), all[i] ^ half) << "int64's range is uint64's moved by 2^63";
  // endpoint includes high: [0, 1] of bytes makes both.
  std::vector<std::uint8_t> bits(200);
  there.on(t).integers(bits, 0, 1, true);
  EXPECT_NE(std::count(bits.begin(), bits.end(), 1), 0);
  EXPECT_NE(std::count(bits.begin(), bits.end(), 0), 0);
  there.on(t).integers(bits, 255, 255, true);
  EXPECT_EQ(bits, std::vector<std::uint8_t>(200, 255));
  // An unsigned high of 0 above a negative low: [-5, 0), as NumPy's integers(-5, np.uint32(0)).
  std::vector<std::int64_t> below(500);
  std::vector<std::int16_t> shorts(500);
  std::vector<std::int32_t> ints(500);
  there.on(t).integers(below, -5, 0u);
  there.on(t).integers(shorts, -5, std::uint64_t{0});
  there.on(t).integers(ints, std::int8_t{-5}, std::uint8_t{0});
  for (std::size_t i = 0; i < 500; ++i)
    ASSERT_TRUE(below[i] >= -5 && below[i] < 0 && shorts[i] >= -5 && shorts[i] < 0 && ints[i] >= -5 && ints[i] < 0)
        << below[i] << " " << shorts[i] << " " << ints[i];
  EXPECT_EQ(std::count(below.begin(), below.end(), -5) > 0 && std::count(below.begin(), below.end(), -1) > 0, true);
  // Characters and enumerators are ends as their values (as NumPy takes any integer), and
  // char is an element type as any other.
  enum { ten = 10 };
  std::vector<char> letters(300);
  there.on(t).integers(letters, 'a', 'z', true);
  for (char c : letters) ASSERT_TRUE(c >= 'a' && c <= 'z') << int(c);
  std::vector<std::int32_t> tens(300);
  there.on(t).integers(tens, u'\0', ten);
  for (auto v : tens) ASSERT_TRUE(v >= 0 && v < 10) << v;
  EXPECT_EQ(integers_message(small, 5, 5), "'philox::integers': argument 2: the range [5, 5) is empty");
  try {
    here.integers(small, 6, 5, true);
    ADD_FAILURE() << "an empty inclusive range was taken";
  } catch (const kernel::argument_error &e) {
    EXPECT_STREQ(e.what(), "'philox::integers': argument 2: the range [6, 5] is empty");
  }

  // Parameters that would fill the array with infinities or NaNs, or a negative spread, are
  // argument errors naming the parameter, and nothing is written.
  std::vector<float> f(9, 5.0f);
  std::vector<double> d(9, 5.0);
  const auto refused = [&](auto fill, int argument, const char *what) {
    try {
      fill();
      ADD_FAILURE() << what << ": no error";
    } catch (const kernel::argument_error &e) {
      EXPECT_EQ(e.argument(), argument) << what << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find("philox::"), std::string::npos) << e.what();
    }
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  refused([&] { there.on(t).uniform(f, 0, 1e39); }, 3, "a float high end past float's range");
  refused([&] { there.on(t).uniform(f, -3e38, 3e38); }, 3, "a float range wider than float holds");
  refused([&] { there.on(t).uniform(d, -1.7e308, 1.7e308); }, 3, "a double range wider than double holds");
  refused([&] { there.on(t).uniform(d, nan, 1); }, 2, "a NaN low end");
  refused([&] { there.on(t).normal(f, 0, -1); }, 3, "a negative standard deviation");
  refused([&] { there.on(t).normal(f, 1e39, 1); }, 2, "a float mean past float's range");
  refused([&] { there.on(t).normal(d, 0, nan); }, 3, "a NaN standard deviation");
  refused([&] { there.on(t).lognormal(d, 0, -2); }, 3, "a negative lognormal sigma");
  EXPECT_EQ(f, std::vector<float>(9, 5.0f));
  EXPECT_EQ(d, std::vector<double>(9, 5.0));
  there.on(t).uniform(f, 3, -3); // a reversed range is a range: NumPy's low + (high - low) u
  for (float v : f) ASSERT_TRUE(v >= -3 && v <= 3) << v;
  there.on(t).normal(f, 2, 0); // no spread: the mean
  EXPECT_EQ(f, std::vector<float>(9, 2.0f));

  // An offset is rounded up to whole blocks of four draws without wrapping past 2^64: from
  // 2^64 - 3 the sequence goes on where it is after 2^64 - 4 and one block, not from 0.
  const std::uint64_t last_block = ~std::uint64_t{0} - 3;
  kernel::random::philox before_end(9, last_block), rounded(9, last_block + 1), start(9);
  std::vector<std::uint32_t> skipped(4), after(8), from_rounded(8), from_start(8);
  before_end.on(t).bits(skipped);
  before_end.on(t).bits(after);
  rounded.on(t).bits(from_rounded);
  start.on(t).bits(from_start);
  EXPECT_EQ(from_rounded, after);
  EXPECT_NE(from_rounded, from_start);
}

// An output that shares memory with an input is refused (as for ufuncs and BLAS), unless it
// is exactly the input of a scan: every target would otherwise read values already replaced.
TEST_P(Targets, OutputsOverlappingInputsAreRefused) {
  const kernel::target t = GetParam();
  std::vector<float> buf = {1, 1, 1, 1, 1};
  const std::vector<float> before = buf;
  const kernel::array_view<const float, 1> head(buf.data(), {4}, {1});
  kernel::array_view<float, 1> tail(buf.data() + 1, {4}, {1});
  EXPECT_THROW(kernel::cumsum.on(t)(head, tail), kernel::argument_error);
  EXPECT_EQ(buf, before);
  kernel::cumsum.on(t)(buf, buf); // exactly itself: in place
  EXPECT_EQ(buf, (std::vector<float>{1, 2, 3, 4, 5}));
  // Interleaved views share no element: apart.
  std::vector<float> pairs = {1, 0, 2, 0, 3, 0};
  kernel::cumsum.on(t)(kernel::array_view<const float, 1>(pairs.data(), {3}, {2}),
                       kernel::array_view<float, 1>(pairs.data() + 1, {3}, {2}));
  EXPECT_EQ(pairs, (std::vector<float>{1, 1, 2, 3, 3, 6}));
  std::vector<double> a = {1, 2, 3};
  try {
    kernel::take.on(t)(a, std::vector<int>{2, 1, 0}, a);
    ADD_FAILURE() << "no error";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 3);
  }
  EXPECT_EQ(a, (std::vector<double>{1, 2, 3}));
  const kernel::array_view<const double, 1> first_two(a.data(), {2}, {1});
  EXPECT_THROW(kernel::put.on(t)(a, std::vector<int>{1, 2}, first_two), kernel::argument_error);
  EXPECT_EQ(a, (std::vector<double>{1, 2, 3}));
  // An output repeating one element (a zero stride) would keep only the last result.
  std::vector<float> one = {7};
  kernel::array_view<float, 1> repeated(one.data(), {5}, {0});
  EXPECT_THROW(kernel::cumsum.on(t)(std::vector<float>(5, 1.0f), repeated), kernel::argument_error);
  EXPECT_THROW(kernel::random::philox(3).on(t).uniform(repeated), kernel::argument_error);
  EXPECT_THROW(kernel::take.on(t)(a, std::vector<int>{0, 1, 2, 0, 1}, repeated), kernel::argument_error);
  EXPECT_EQ(one, std::vector<float>{7});
  // A predicate of another element type that the elements cast to safely (int16 to float32)
  // is accepted on every target, as by the ufunc on the host.
  const std::vector<std::int16_t> shorts = {-1, 2, 3, 0, -7, 9};
  EXPECT_EQ(to_vector(kernel::select_if.on(t)(shorts, is_positive)), (std::vector<std::int16_t>{2, 3, 9}));
  EXPECT_EQ(kernel::count_if.on(t)(shorts, is_positive), 3);
  EXPECT_EQ(to_vector(kernel::stable_partition.on(t)(shorts, is_positive).values),
            (std::vector<std::int16_t>{2, 3, 9, -1, 0, -7}));
  // An empty output overlaps nothing, wherever it points.
  const auto none = kernel::take.on(t)(a, std::vector<int>{});
  EXPECT_EQ(none.size(), 0);
  kernel::array_view<double, 1> empty_inside(a.data() + 1, {0}, {1});
  kernel::take.on(t)(a, std::vector<int>{}, empty_inside);
  kernel::cumsum.on(t)(kernel::array_view<const double, 1>(a.data(), {0}, {1}), empty_inside);
  EXPECT_EQ(a, (std::vector<double>{1, 2, 3}));
}

// Errors name the argument at fault by its position in the call.
TEST_P(Targets, ErrorsNumberTheirArguments) {
  const kernel::target t = GetParam();
  const auto argument_of = [](auto call) {
    try {
      call();
    } catch (const kernel::argument_error &e) {
      return e.argument();
    }
    return -1;
  };
  std::vector<float> v(4, 1.0f), out(4), short_out(3);
  kernel::ndarray<float, 2> m({2, 3}, 1.0f);
  EXPECT_EQ(argument_of([&] { kernel::sort.on(t)(v, kernel::ascending, 1); }), 3);
  EXPECT_EQ(argument_of([&] { (void)kernel::argsort.on(t)(m, kernel::descending, -3); }), 3);
  EXPECT_EQ(argument_of([&] { (void)kernel::cumsum.on(t)(m, 2); }), 2);
  EXPECT_EQ(argument_of([&] { kernel::cumsum.on(t)(v, out, 1); }), 3);
  EXPECT_EQ(argument_of([&] { kernel::cumsum.on(t)(v, short_out); }), 2);
  EXPECT_EQ(argument_of([&] { (void)kernel::cumsum.on(t).exclusive(v, 0.0f, 5); }), 3);
  EXPECT_EQ(argument_of([&] { kernel::cumsum.on(t).exclusive(v, 0.0f, short_out); }), 3);
  EXPECT_EQ(argument_of([&] { kernel::cumsum.on(t).exclusive(v, 0.0f, out, 1); }), 4);
  EXPECT_EQ(argument_of([&] { (void)kernel::top_k.on(t)(m, 2, 2); }), 3);
  // Integers past int's range are out of range, not cut to an axis that exists (2^32 to 0),
  // and unsigned ones past long long's (a -1 that went through size_t) too.
  const long long beyond_int = 1LL << 32;
  const std::size_t minus_one = static_cast<std::size_t>(-1);
  EXPECT_EQ(argument_of([&] { (void)kernel::cumsum.on(t)(m, beyond_int); }), 2);
  EXPECT_EQ(argument_of([&] { (void)kernel::cumsum.on(t)(m, minus_one); }), 2);
  EXPECT_EQ(argument_of([&] { kernel::cumsum.on(t).exclusive(v, 0.0f, out, beyond_int); }), 4);
  EXPECT_EQ(argument_of([&] { kernel::sort.on(t)(m, kernel::ascending, beyond_int); }), 3);
  EXPECT_EQ(argument_of([&] { (void)kernel::argsort.on(t)(m, kernel::ascending, minus_one); }), 3);
  EXPECT_EQ(argument_of([&] { (void)kernel::top_k.on(t)(m, minus_one); }), 2);
  EXPECT_EQ(argument_of([&] { (void)kernel::top_k.on(t)(m, 1, beyond_int); }), 3);
  EXPECT_EQ(argument_of([&] { (void)kernel::argpartition.on(t)(v, minus_one); }), 2);
  EXPECT_EQ(argument_of([&] { (void)kernel::argpartition.on(t)(v, beyond_int); }), 2);
  EXPECT_EQ(argument_of([&] { (void)kernel::histogram.on(t)(v, minus_one, 0.0, 1.0); }), 2);
  try {
    kernel::sort.on(t)(m, kernel::ascending, minus_one);
    ADD_FAILURE() << "sort along axis 2^64 - 1";
  } catch (const kernel::argument_error &e) {
    EXPECT_NE(std::string(e.what()).find("axis 18446744073709551615 is out of range"), std::string::npos) << e.what();
  }
  try {
    (void)kernel::cumsum.on(t)(m, beyond_int);
    ADD_FAILURE() << "cumsum along axis 2^32";
  } catch (const kernel::argument_error &e) {
    EXPECT_NE(std::string(e.what()).find("axis 4294967296 is out of range"), std::string::npos) << e.what();
  }
  EXPECT_EQ(out, std::vector<float>(4, 0.0f));
  EXPECT_EQ(m(1, 2), 1.0f);
}

// Axes, counts and positions may be integers of any type, or unscoped enumerators: the same
// results as with int.
enum matrix_axis { along_columns = 0, along_rows = 1 };
TEST_P(Targets, AxesAndCountsOfAnyIntegerType) {
  const kernel::target t = GetParam();
  kernel::ndarray<float, 2> m({5, 7});
  for (kernel::index_t i = 0; i < m.size(); ++i) m.data()[i] = float((i * 37) % 23) - 11;
  const std::vector<float> v(m.data(), m.data() + m.size());
  const auto same = [](const auto &a, const auto &b) {
    return a.shape() == b.shape() && std::equal(a.data(), a.data() + a.size(), b.data());
  };
  EXPECT_TRUE(same(kernel::cumsum.on(t)(m, std::size_t{0}), kernel::cumsum.on(t)(m, 0)));
  EXPECT_TRUE(same(kernel::cumsum.on(t)(m, along_rows), kernel::cumsum.on(t)(m, 1)));
  EXPECT_TRUE(same(kernel::cumsum.on(t).exclusive(m, 0.0, short{-2}), kernel::cumsum.on(t).exclusive(m, 0.0, 0)));
  EXPECT_TRUE(
      same(kernel::argsort.on(t)(m, kernel::descending, 0ull), kernel::argsort.on(t)(m, kernel::descending, 0)));
  EXPECT_TRUE(same(kernel::argsort.on(t)(m, kernel::ascending, -1LL), kernel::argsort.on(t)(m)));
  kernel::ndarray<float, 2> sorted = m, want_sorted = m;
  kernel::sort.on(t)(sorted, kernel::ascending, along_columns);
  kernel::sort.on(t)(want_sorted, kernel::ascending, 0);
  EXPECT_TRUE(same(sorted, want_sorted));
  const auto top = kernel::top_k.on(t)(m, std::uint8_t{3}, along_columns);
  const auto want_top = kernel::top_k.on(t)(m, 3, 0);
  EXPECT_TRUE(same(top.values, want_top.values));
  EXPECT_TRUE(same(top.indices, want_top.indices));
  EXPECT_TRUE(same(kernel::argpartition.on(t)(v, std::size_t{4}), kernel::argpartition.on(t)(v, 4)));
  EXPECT_TRUE(same(kernel::argpartition.on(t)(v, -2L), kernel::argpartition.on(t)(v, 33)));
  EXPECT_TRUE(same(kernel::histogram.on(t)(v, 6u, -11.0, 11.0), kernel::histogram.on(t)(v, 6, -11.0, 11.0)));
}

INSTANTIATE_TEST_SUITE_P(Algorithms, Targets,
                         testing::Values(kernel::target::cpu, kernel::target::parallel, kernel_test::target()),
                         [](const auto &info) { return std::string(kernel::target_name(info.param)); });

// On a CUDA device the sorts and sums of built-in types go to CUB (runtime/cub/), the rest to
// the library's own kernels; KERNEL_CUB=0 sends everything to those. Both give the same
// results, bit for bit (float sums within rounding): keys with NaNs of either sign and
// signed zeros, one-byte keys (one pass: results in CUB's scratch), every value width CUB
// moves, descending orders, batches (CUB's second sort by segment), in place and not.
struct cub_results {
  std::vector<std::uint32_t> sorted_floats, sorted_rows, short_values; // float bits: NaNs compare
  std::vector<std::uint8_t> sorted_bytes;
  std::vector<std::int64_t> descending_longs;
  std::vector<std::uint32_t> pair_keys;
  std::vector<double> pair_values;
  std::vector<std::int16_t> short_keys;
  std::vector<kernel::index_t> order, column_top;
  std::vector<std::int32_t> in_place_sums;
  std::vector<std::int64_t> widened_sums;
  std::vector<std::uint64_t> exclusive_sums;
  std::vector<float> float_sums;

  auto fields() const {
    return std::tie(sorted_floats, sorted_rows, short_values, sorted_bytes, descending_longs, pair_keys, pair_values,
                    short_keys, order, column_top, in_place_sums, widened_sums, exclusive_sums, float_sums);
  }
};

// Floats from 50 values, with NaNs of both signs and payloads, and zeros of both signs.
std::vector<float> awkward_floats(std::size_t n) {
  std::vector<float> f = random_floats(n, static_cast<unsigned>(n) + 1, 50);
  for (std::size_t i = 0; i < n; i += 7) f[i] = std::bit_cast<float>(0xffc00001u - static_cast<std::uint32_t>(i % 3));
  for (std::size_t i = 3; i < n; i += 11) f[i] = std::bit_cast<float>(0x7fc00000u + static_cast<std::uint32_t>(i % 5));
  for (std::size_t i = 5; i < n; i += 13) f[i] = i % 2 ? -0.0f : 0.0f;
  return f;
}

// The position in cub_results::fields of the first field that differs, or -1.
template <class Tuple> int first_different_field(const Tuple &a, const Tuple &b) {
  int found = -1;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((found < 0 && std::get<I>(a) != std::get<I>(b) ? found = static_cast<int>(I) : 0), ...);
  }(std::make_index_sequence<std::tuple_size_v<Tuple>>{});
  return found;
}

cub_results sort_and_sum_on_the_device(std::size_t n) {
  const kernel::device d = kernel_test::device();
  std::mt19937 g(static_cast<unsigned>(n));
  const std::vector<float> f = awkward_floats(n);
  std::vector<std::uint8_t> bytes(n);
  std::vector<std::int64_t> longs(n);
  std::vector<std::uint32_t> keys(n);
  std::vector<double> values(n);
  std::vector<std::int16_t> shorts(n);
  std::vector<std::int32_t> ints(n);
  std::vector<std::uint64_t> counts(n);
  for (std::size_t i = 0; i < n; ++i) {
    bytes[i] = static_cast<std::uint8_t>(g());
    longs[i] = static_cast<std::int64_t>(g() % 1000) - 500;
    keys[i] = g() % 64;
    values[i] = static_cast<double>(i);
    shorts[i] = static_cast<std::int16_t>(g() % 200) - 100;
    ints[i] = static_cast<std::int32_t>(g() % 100) - 50;
    counts[i] = g() % 1000;
  }
  cub_results r;
  auto df = kernel::to_device(f, d);
  r.order = to_vector(kernel::argsort(df).copy_to_host());
  kernel::sort(df);
  r.sorted_floats = bits_of(to_vector(df.copy_to_host()));
  auto db = kernel::to_device(bytes, d);
  kernel::sort(db);
  r.sorted_bytes = to_vector(db.copy_to_host());
  auto dl = kernel::to_device(longs, d);
  kernel::sort(dl, kernel::descending);
  r.descending_longs = to_vector(dl.copy_to_host());
  auto dk = kernel::to_device(keys, d);
  auto dv = kernel::to_device(values, d);
  kernel::sort_by_key(dk, dv);
  r.pair_keys = to_vector(dk.copy_to_host());
  r.pair_values = to_vector(dv.copy_to_host());
  std::vector<float> short_values(f);
  kernel::sort_by_key.on(d)(shorts, short_values, kernel::descending);
  r.short_keys = shorts;
  r.short_values = bits_of(short_values);
  const kernel::index_t rows = 37, cols = static_cast<kernel::index_t>(n) / 37;
  if (cols > 0) {
    kernel::ndarray<float, 2> m({rows, cols});
    std::copy_n(f.begin(), rows * cols, m.data());
    auto dm = kernel::to_device(m, d);
    kernel::sort(dm);
    r.sorted_rows = bits_of(to_vector(dm.copy_to_host()));
    auto [top, where] = kernel::top_k(dm, 3, 0);
    r.column_top = to_vector(where.copy_to_host());
  }
  auto di = kernel::to_device(ints, d);
  r.widened_sums = to_vector(kernel::cumsum(di).copy_to_host()); // int64, as NumPy's
  kernel::cumsum(di, di);
  r.in_place_sums = to_vector(di.copy_to_host());
  auto dc = kernel::to_device(counts, d);
  r.exclusive_sums = to_vector(kernel::cumsum.exclusive(dc, std::uint64_t{5}).copy_to_host());
  std::vector<float> small(n);
  for (std::size_t i = 0; i < n; ++i) small[i] = static_cast<float>(i % 8) * 0.25f; // exact sums
  r.float_sums = to_vector(kernel::cumsum(kernel::to_device(small, d)).copy_to_host());
  return r;
}

// The look-back of a single-pass compaction, on words already published (a GPU or the
// simulator's cores rarely leave a whole window of 32 tiles without an inclusive word): every
// lane of warp 0 gets the kept elements before `tile`, and the tile's word becomes inclusive.
[[kernel::jit]] void look_back(kernel::array_view<std::uint64_t> states, std::int64_t tile, std::uint32_t kept,
                               kernel::array_view<std::int64_t> before) {
  before[kernel::threadIdx.x] = kernel::detail::kept_before_tile(states.data(), tile, kept);
}

TEST(SinglePassCompaction, LooksBackToTheNearestInclusiveTile) {
  namespace ts = kernel::detail::tile_state;
  const auto run = [](std::vector<std::uint64_t> &states, std::int64_t tile, std::uint32_t kept) {
    std::vector<std::int64_t> before(32, -1);
    kernel::launch<look_back>(1, 32).on(kernel_test::device())(states, tile, kept, before);
    for (std::int64_t b : before) EXPECT_EQ(b, before[0]) << "every lane gets the same";
    EXPECT_EQ(states[static_cast<std::size_t>(tile)], ts::inclusive | static_cast<std::uint64_t>(before[0] + kept));
    return before[0];
  };
  // Only tile 0 holds everything before it: three windows back (69..38, 37..6, 5..0).
  std::vector<std::uint64_t> states(71, 0);
  states[0] = ts::inclusive | 5;
  for (std::uint64_t t = 1; t < 70; ++t) states[t] = ts::aggregate | t;
  EXPECT_EQ(run(states, 70, 3), 5 + 69 * 70 / 2);
  // An inclusive tile inside the first window: nothing before it is read.
  for (std::uint64_t t = 0; t < 50; ++t) states[t] = ts::aggregate | 999999;
  states[50] = ts::inclusive | 1000;
  for (std::uint64_t t = 51; t < 70; ++t) states[t] = ts::aggregate | 1;
  states[70] = 0;
  EXPECT_EQ(run(states, 70, 0), 1000 + 19);
  // The nearest tile inclusive; a window reaching exactly to tile 0; tile 0 itself.
  states.assign(71, ts::aggregate | 2);
  states[0] = ts::inclusive | 7;
  states[40] = ts::inclusive | 123;
  states[41] = ts::inclusive | 456;
  EXPECT_EQ(run(states, 42, 1), 456);
  EXPECT_EQ(run(states, 32, 1), 7 + 31 * 2);
  EXPECT_EQ(run(states, 0, 9), 0);
}

// With no room on the device for a copy of the input, select_if takes the two passes, which
// need room for what it keeps only (KERNEL_SIMULATOR_MEMORY_MB gives the simulated device
// 5 MiB: the 3 MiB input fits, a second 3 MiB does not). unique falls back alike.
TEST(SinglePassCompaction, TwoPassesWhenTheDeviceIsFull) {
  if (kernel_test::on_gpu()) GTEST_SKIP() << "the simulator's memory limit";
  const std::size_t n = 3 << 18; // 3 MiB of float32
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = i % 10 == 0 ? static_cast<float>(i % 1000) : -1.0f;
  std::vector<float> kept;
  for (float v : x)
    if (v > 0) kept.push_back(v);
  const auto dx = kernel::to_device(x, kernel::device::simulator());
  kernel_test::scoped_environment memory("KERNEL_SIMULATOR_MEMORY_MB", "5");
  const std::vector<float> got = to_vector(kernel::select_if(dx, is_positive).copy_to_host());
  try {
    kernel::device_array<float, 1> second(static_cast<kernel::index_t>(n), kernel::device::simulator());
    ADD_FAILURE() << "a second copy of the input fitted";
  } catch (const kernel::cuda_error &e) {
    EXPECT_TRUE(e.out_of_memory()) << e.what();
    EXPECT_NE(std::string(e.what()).find("out of memory"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("KERNEL_SIMULATOR_MEMORY_MB=5"), std::string::npos) << e.what();
  }
  memory.set(nullptr);
  EXPECT_EQ(got, kept);
  memory.set("not a size");
  EXPECT_THROW((kernel::device_array<float, 1>(4, kernel::device::simulator())), kernel::simulator_error);
}

// With room for the one-pass buffer but not for a smaller copy of what it kept, select_if
// returns the buffer itself (26 MB: the 12 MB input, the 12 MB buffer, and not 4 MB more).
TEST(SinglePassCompaction, KeepsItsBufferWhenACopyDoesNotFit) {
  if (kernel_test::on_gpu()) GTEST_SKIP() << "the simulator's memory limit";
  const std::size_t n = 3'000'000;
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = i % 3 == 0 ? static_cast<float>(i % 1000 + 1) : -1.0f;
  std::vector<float> kept;
  for (float v : x)
    if (v > 0) kept.push_back(v);
  const auto dx = kernel::to_device(x, kernel::device::simulator());
  kernel_test::scoped_environment memory("KERNEL_SIMULATOR_MEMORY_MB", "26");
  const auto selected = kernel::select_if(dx, is_positive);
  EXPECT_EQ(selected.size(), static_cast<kernel::index_t>(kept.size()));
  const std::vector<float> got = to_vector(selected.copy_to_host());
  memory.set(nullptr);
  EXPECT_EQ(got, kept);
}

TEST(Cub, SameResultsAsTheLibrarysKernels) {
  // Where CUB runs: on the GPU of the GPU suite, with the library as this build packs it.
  if (kernel_test::on_gpu()) EXPECT_EQ(kernel::detail::cub_unavailable(kernel_test::device().state()), "");
  for (std::size_t n : {std::size_t{2}, std::size_t{3}, std::size_t{300}, std::size_t{70001}}) {
    const cub_results through_cub = sort_and_sum_on_the_device(n);
    // Still so once the calls have been made: CUB's runtime started on this GPU.
    if (kernel_test::on_gpu()) EXPECT_EQ(kernel::detail::cub_unavailable(kernel_test::device().state()), "");
    kernel_test::scoped_environment no_cub("KERNEL_CUB", "0");
    EXPECT_NE(kernel::detail::cub_unavailable(kernel_test::device().state()), "");
    const cub_results own = sort_and_sum_on_the_device(n);
    no_cub.set(nullptr);
    EXPECT_EQ(first_different_field(through_cub.fields(), own.fields()), -1) << n;
    // And as the host sorts: every bit of each value kept, NaNs last.
    std::vector<float> host = awkward_floats(n);
    kernel::sort.on(kernel::target::cpu)(host);
    EXPECT_EQ(through_cub.sorted_floats, bits_of(host)) << n;
    EXPECT_EQ(through_cub.order, reference_argsort(awkward_floats(n), false)) << n;
  }
}

// What a call may let go of while its work is queued (keep_until_done): device memory of the
// call's own stream on a CUDA device, freed in that stream's order; never memory of another
// stream, host memory or the simulator's, which it must hold until the work is done.
TEST(Memory, HeldUnlessFreedInTheCallsStreamOrder) {
  const kernel::device d = kernel_test::device();
  const kernel::stream a(d), b(d);
  const std::shared_ptr<void> m = kernel::detail::device_allocate(d.state(), 64, a.state());
  EXPECT_EQ(kernel::detail::freed_in_order_on(m, *a.state()), kernel_test::on_gpu());
  EXPECT_FALSE(kernel::detail::freed_in_order_on(m, *b.state()));
  EXPECT_FALSE(kernel::detail::freed_in_order_on(std::make_shared<int>(1), *a.state()));
  EXPECT_FALSE(kernel::detail::freed_in_order_on(nullptr, *a.state()));
}

// cuRAND's host Philox generator, where the CUDA toolkit has it: the same numbers.
TEST(Random, SameNumbersAsCurand) {
  void *lib = dlopen("libcurand.so.10", RTLD_NOW);
  if (!lib) lib = dlopen("/usr/local/cuda/lib64/libcurand.so.10", RTLD_NOW);
  if (!lib) GTEST_SKIP() << "no libcurand on this machine";
  using create_t = int (*)(void **, int);
  using seed_t = int (*)(void *, unsigned long long);
  using offset_t = int (*)(void *, unsigned long long);
  using gen_t = int (*)(void *, unsigned *, std::size_t);
  using uniform_t = int (*)(void *, float *, std::size_t);
  using udouble_t = int (*)(void *, double *, std::size_t);
  using destroy_t = int (*)(void *);
  auto create = reinterpret_cast<create_t>(dlsym(lib, "curandCreateGeneratorHost"));
  auto seed = reinterpret_cast<seed_t>(dlsym(lib, "curandSetPseudoRandomGeneratorSeed"));
  auto offset = reinterpret_cast<offset_t>(dlsym(lib, "curandSetGeneratorOffset"));
  auto generate = reinterpret_cast<gen_t>(dlsym(lib, "curandGenerate"));
  auto uniform = reinterpret_cast<uniform_t>(dlsym(lib, "curandGenerateUniform"));
  auto uniform_double = reinterpret_cast<udouble_t>(dlsym(lib, "curandGenerateUniformDouble"));
  auto destroy = reinterpret_cast<destroy_t>(dlsym(lib, "curandDestroyGenerator"));
  ASSERT_TRUE(create && seed && offset && generate && uniform && uniform_double && destroy);
  void *g = nullptr;
  constexpr int philox4_32_10 = 161; // CURAND_RNG_PSEUDO_PHILOX4_32_10
  ASSERT_EQ(create(&g, philox4_32_10), 0);
  ASSERT_EQ(seed(g, 77), 0);
  const std::size_t n = 600000; // past the 65536 subsequences of a round
  for (unsigned long long start : {0ull, 8ull}) {
    ASSERT_EQ(offset(g, start), 0);
    std::vector<unsigned> want(n);
    ASSERT_EQ(generate(g, want.data(), n), 0);
    std::vector<std::uint32_t> got(n);
    kernel::random::philox(77, start).on(kernel_test::target()).bits(got);
    EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin())) << start;
  }
  ASSERT_EQ(offset(g, 0), 0);
  std::vector<float> want_u(n), got_u(n);
  ASSERT_EQ(uniform(g, want_u.data(), n), 0);
  kernel::random::philox(77).uniform(got_u);
  EXPECT_EQ(want_u, got_u);
  ASSERT_EQ(offset(g, 0), 0);
  std::vector<double> want_d(n), got_d(n);
  ASSERT_EQ(uniform_double(g, want_d.data(), n), 0);
  kernel::random::philox(77).on(kernel::target::parallel).uniform(got_d);
  EXPECT_EQ(want_d, got_d);
  // Normals, scaled and shifted: the product rounded before each sum, as cuRAND's host
  // generator computes them, though these tests are built for a target with FMA
  // (-march=x86-64-v3), where a compiler contracts a * b + c into one. Bit for bit, but for
  // the CPU targets' float normals, whose log, sine and cosine are libmvec's vectorized ones
  // (within a few units in the last place of glibc's).
  using normal_t = int (*)(void *, float *, std::size_t, float, float);
  using ndouble_t = int (*)(void *, double *, std::size_t, double, double);
  auto normal = reinterpret_cast<normal_t>(dlsym(lib, "curandGenerateNormal"));
  auto normal_double = reinterpret_cast<ndouble_t>(dlsym(lib, "curandGenerateNormalDouble"));
  ASSERT_TRUE(normal && normal_double);
  for (const kernel::target t : {kernel::target::cpu, kernel::target::parallel, kernel_test::target()}) {
    ASSERT_EQ(offset(g, 0), 0);
    std::vector<float> want_n(n), got_n(n);
    ASSERT_EQ(normal(g, want_n.data(), n, 2.0f, 3.0f), 0);
    kernel::random::philox(77).on(t).normal(got_n, 2.0f, 3.0f);
    if (t == kernel_test::target()) {
      EXPECT_EQ(
          static_cast<std::size_t>(std::mismatch(want_n.begin(), want_n.end(), got_n.begin()).first - want_n.begin()),
          n)
          << kernel::target_name(t);
    } else {
      std::size_t far = 0;
      for (std::size_t i = 0; i < n; ++i)
        far += !(std::abs(got_n[i] - want_n[i]) <= 2e-6f * (3.0f + std::abs(want_n[i])));
      EXPECT_EQ(far, 0u) << kernel::target_name(t);
    }
    ASSERT_EQ(offset(g, 0), 0);
    std::vector<double> want_nd(n), got_nd(n);
    ASSERT_EQ(normal_double(g, want_nd.data(), n, -1.0, 0.5), 0);
    kernel::random::philox(77).on(t).normal(got_nd, -1.0, 0.5);
    EXPECT_EQ(
        static_cast<std::size_t>(std::mismatch(want_nd.begin(), want_nd.end(), got_nd.begin()).first - want_nd.begin()),
        n)
        << kernel::target_name(t);
  }
  destroy(g);
  // Not dlclose'd: libcurand carries its own C++ runtime, whose exception-handling pool would
  // then be reported by LeakSanitizer as leaked (nothing points at it once the library is gone).
}

// 2^31 + 5 one-byte elements: positions past int32 in the scans' and histograms' arithmetic.
TEST(LargeArrays, IndicesPastInt32) {
  const kernel::index_t n = (kernel::index_t{1} << 31) + 5;
  std::vector<std::uint8_t> ones(static_cast<std::size_t>(n), 1);
  const auto counts = kernel::histogram.on(kernel::target::parallel)(ones, 2, 0.0, 2.0);
  EXPECT_EQ(counts[1], n);
  kernel::cumsum.on(kernel::target::parallel)(ones, ones);
  for (kernel::index_t i : {kernel::index_t{0}, kernel::index_t{255}, (kernel::index_t{1} << 31) + 4})
    EXPECT_EQ(ones[static_cast<std::size_t>(i)], static_cast<std::uint8_t>((i + 1) % 256)) << i;
}

} // namespace
