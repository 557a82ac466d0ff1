// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The array algorithms on matrices of random shapes (extents of 0 and 1 included) and strides
// (transposed, spread, reversed), against plain loops over the same elements, on every
// target: cpu, parallel, the test device (the simulator in CI) given host arrays, and device
// views. The elements are small integers, so that ties test stability and every target must
// agree exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kernel/algorithm.h"
#include "kernel/kernel.h"
#include "random_layouts.h"
#include "test_device.h"

[[kernel::vectorize("bool_(int32)")]] bool above_four(std::int32_t x) { return x > 4; }

namespace {

using kernel::index_t;
using i32 = std::int32_t;

constexpr kernel::ufunc<above_four> is_above_four;
const kernel::device dev = kernel_test::device();

using layout = kernel_test::layout<2>;

// Line `k` along `axis` (a column for axis 0, a row for axis 1): the buffer positions.
std::vector<index_t> line(const layout &l, int axis, index_t k) {
  std::vector<index_t> r;
  for (index_t e = 0; e < l.shape[axis]; ++e) r.push_back(axis == 0 ? l.at({e, k}) : l.at({k, e}));
  return r;
}

// The positions of line k stably sorted (ascending, or descending with ties by position).
std::vector<index_t> sorted_positions(const std::vector<i32> &buf, const std::vector<index_t> &where, bool descending) {
  std::vector<index_t> p(where.size());
  std::iota(p.begin(), p.end(), 0);
  std::stable_sort(p.begin(), p.end(), [&](index_t a, index_t b) {
    const i32 x = buf[static_cast<std::size_t>(where[static_cast<std::size_t>(a)])];
    const i32 y = buf[static_cast<std::size_t>(where[static_cast<std::size_t>(b)])];
    return descending ? y < x : x < y;
  });
  return p;
}

// Writes `values` of line-major results (line k's elements e) into a row-major result of
// the input's shape with `axis` of extent `along`.
template <class T> std::vector<T> lines_to_flat(const std::vector<std::vector<T>> &lines, int axis, index_t along) {
  const index_t count = static_cast<index_t>(lines.size());
  std::vector<T> r(static_cast<std::size_t>(count * along));
  for (index_t k = 0; k < count; ++k)
    for (index_t e = 0; e < along; ++e)
      r[static_cast<std::size_t>(axis == 0 ? e * count + k : k * along + e)] =
          lines[static_cast<std::size_t>(k)][static_cast<std::size_t>(e)];
  return r;
}

template <class R> auto host_vector(const R &r) {
  if constexpr (requires { r.copy_to_host(); })
    return r.copy_to_host().to_vector();
  else
    return r.to_vector();
}

class AlgorithmLayouts : public ::testing::TestWithParam<int> {};

TEST_P(AlgorithmLayouts, EveryTargetAsThePlainLoop) {
  std::mt19937 rng(static_cast<unsigned>(GetParam()));
  const kernel::target device_target = kernel_test::target();
  for (int round = 0; round < 6; ++round) {
    const layout l = kernel_test::random_layout<2>(rng, 12, true);
    SCOPED_TRACE(l.text());
    std::vector<i32> buf(static_cast<std::size_t>(l.buffer_size()));
    for (auto &x : buf) x = static_cast<i32>(rng() % 10) - 2;
    const kernel::array_view<const i32, 2> hv(buf.data() + l.offset, l.shape, l.strides);
    const auto dbuf = kernel::to_device(buf, dev);
    const kernel::device_view<const i32, 2> dv(dev, dbuf.data() + l.offset, l.shape, l.strides);
    const std::vector<i32> elements = kernel_test::elements(buf, l);
    // `check(name, expected, call)` runs `call(x, t)` on each target: x the host view placed on
    // cpu, parallel or the device, or the device view.
    const auto check = [&](const std::string &what, const auto &expected, const auto &call) {
      for (kernel::target t : {kernel::target::cpu, kernel::target::parallel, device_target})
        EXPECT_EQ(host_vector(call(hv, t)), expected) << what << " on " << kernel::target_name(t);
      EXPECT_EQ(host_vector(call(dv, device_target)), expected) << what << ", a device view";
    };
    for (int axis : {0, 1}) {
      const std::string along = " along axis " + std::to_string(axis);
      const index_t lines = l.shape[1 - axis], n = l.shape[axis];
      // cumsum (int64 sums of int32, as NumPy's), argsort both ways, top_k.
      std::vector<std::vector<std::int64_t>> sums;
      std::vector<std::vector<index_t>> up, down;
      for (index_t k = 0; k < lines; ++k) {
        const auto where = line(l, axis, k);
        std::int64_t s = 0;
        sums.emplace_back();
        for (index_t p : where) sums.back().push_back(s += buf[static_cast<std::size_t>(p)]);
        up.push_back(sorted_positions(buf, where, false));
        down.push_back(sorted_positions(buf, where, true));
      }
      check("cumsum" + along, lines_to_flat(sums, axis, n),
            [&](const auto &x, kernel::target t) { return kernel::cumsum.on(t)(x, axis); });
      check("argsort" + along, lines_to_flat(up, axis, n),
            [&](const auto &x, kernel::target t) { return kernel::argsort.on(t)(x, kernel::ascending, axis); });
      check("argsort descending" + along, lines_to_flat(down, axis, n),
            [&](const auto &x, kernel::target t) { return kernel::argsort.on(t)(x, kernel::descending, axis); });
      if (n > 0) {
        const index_t k = 1 + static_cast<index_t>(rng() % static_cast<unsigned>(n));
        std::vector<std::vector<index_t>> best;
        for (const auto &d : down) best.emplace_back(d.begin(), d.begin() + k);
        check("top_k of " + std::to_string(k) + along, lines_to_flat(best, axis, k),
              [&](const auto &x, kernel::target t) { return kernel::top_k.on(t)(x, k, axis).indices; });
      }
      // sort in place: the view's elements sorted along the axis, the buffer's others as they were.
      for (bool descending : {false, true}) {
        std::vector<i32> expected = buf;
        for (index_t k = 0; k < lines; ++k) {
          const auto where = line(l, axis, k);
          const auto order = descending ? down[static_cast<std::size_t>(k)] : up[static_cast<std::size_t>(k)];
          for (std::size_t e = 0; e < where.size(); ++e)
            expected[static_cast<std::size_t>(where[e])] =
                buf[static_cast<std::size_t>(where[static_cast<std::size_t>(order[e])])];
        }
        const auto order = descending ? kernel::descending : kernel::ascending;
        for (kernel::target t : {kernel::target::cpu, kernel::target::parallel, device_target}) {
          std::vector<i32> changed = buf;
          kernel::sort.on(t)(kernel::array_view<i32, 2>(changed.data() + l.offset, l.shape, l.strides), order, axis);
          EXPECT_EQ(changed, expected) << "sort" << along << " on " << kernel::target_name(t);
        }
        auto dchanged = kernel::to_device(buf, dev);
        kernel::sort(kernel::device_view<i32, 2>(dev, dchanged.data() + l.offset, l.shape, l.strides), order, axis);
        EXPECT_EQ(dchanged.copy_to_host().to_vector(), expected) << "sort" << along << ", a device view";
      }
    }
    // take at random flat positions (negative ones from the end).
    std::vector<index_t> at;
    std::vector<i32> taken;
    for (int k = static_cast<int>(rng() % 20); k > 0 && l.size() > 0; --k) {
      const auto p = static_cast<index_t>(rng() % static_cast<unsigned>(2 * l.size())) - l.size();
      at.push_back(p);
      taken.push_back(elements[static_cast<std::size_t>(p < 0 ? p + l.size() : p)]);
    }
    check("take", taken, [&](const auto &x, kernel::target t) {
      if constexpr (requires { x.device(); })
        return kernel::take.on(t)(x, kernel::to_device(at, dev));
      else
        return kernel::take.on(t)(x, at);
    });
    // unique, histogram, select_if, count_if over the flat elements.
    std::vector<i32> distinct = elements;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    check("unique", distinct, [&](const auto &x, kernel::target t) { return kernel::unique.on(t)(x); });
    std::vector<std::int64_t> counts(5);
    for (i32 x : elements)
      if (x >= 0 && x <= 5) ++counts[static_cast<std::size_t>(std::min(x, 4))];
    check("histogram", counts,
          [&](const auto &x, kernel::target t) { return kernel::histogram.on(t)(x, 5, 0.0, 5.0); });
    std::vector<i32> kept;
    std::copy_if(elements.begin(), elements.end(), std::back_inserter(kept), [](i32 x) { return x > 4; });
    check("select_if", kept,
          [&](const auto &x, kernel::target t) { return kernel::select_if.on(t)(x, is_above_four); });
    for (kernel::target t : {kernel::target::cpu, kernel::target::parallel, device_target})
      EXPECT_EQ(kernel::count_if.on(t)(hv, is_above_four), static_cast<index_t>(kept.size())) << kernel::target_name(t);
    EXPECT_EQ(kernel::count_if(dv, is_above_four), static_cast<index_t>(kept.size()));
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, AlgorithmLayouts, ::testing::Range(1, 25));

} // namespace
