// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The ufunc methods (reduce over one axis and two, accumulate, reduceat, at) on arrays of
// random shapes (extents of 0 and 1 included) and strides (reversed, spread, transposed),
// against plain loops over the same elements, on every target: cpu, parallel, device arrays
// on the test device (the simulator in CI) and host arrays given to it. The functions are
// exact (unsigned integers, wrapping), so every target must agree to the bit; `mix` is neither
// associative nor commutative, so an order other than NumPy's shows.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <functional>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kernel/kernel.h"
#include "random_layouts.h"
#include "test_device.h"

[[kernel::vectorize]] std::uint64_t plus(std::uint64_t a, std::uint64_t b) { return a + b; }
[[kernel::vectorize]] std::uint64_t mix(std::uint64_t a, std::uint64_t b) { return a * 3 + b; }
[[kernel::guvectorize("(m,n),(n,p)->(m,p)")]]
void matmul(kernel::array_view<const std::uint64_t, 2> a, kernel::array_view<const std::uint64_t, 2> b,
            kernel::array_view<std::uint64_t, 2> c) {
  for (kernel::index_t i = 0; i < c.shape(0); ++i)
    for (kernel::index_t j = 0; j < c.shape(1); ++j) {
      std::uint64_t s = 0;
      for (kernel::index_t k = 0; k < a.shape(1); ++k) s += a(i, k) * b(k, j);
      c(i, j) = s;
    }
}

namespace {

using kernel::index_t;
using u64 = std::uint64_t;
using fold = std::function<u64(u64, u64)>;

constexpr kernel::ufunc<plus> vplus{kernel::identity::zero};
constexpr kernel::ufunc<mix> vmix;
const kernel::device dev = kernel_test::device();
const auto on_dev = kernel_test::target();

using kernel_test::each_index;
using layout = kernel_test::layout<3>;

// The reference: the fold along `axis` of each line, in order, from the first element (or
// `start`), in C order of the other dimensions.
std::vector<u64> reduce_reference(const std::vector<u64> &buf, const layout &l, int axis, const fold &f,
                                  const u64 *start) {
  std::array<index_t, 3> outer = l.shape;
  outer[axis] = 1;
  std::vector<u64> r;
  each_index(outer, [&](std::array<index_t, 3> i) {
    u64 acc = 0;
    for (index_t k = 0; k < l.shape[axis]; ++k) {
      i[axis] = k;
      const u64 x = buf[l.at(i)];
      acc = k == 0 && !start ? x : f(k == 0 ? *start : acc, x);
    }
    if (l.shape[axis] == 0) acc = *start;
    r.push_back(acc);
  });
  return r;
}

std::vector<u64> accumulate_reference(const std::vector<u64> &buf, const layout &l, int axis, const fold &f) {
  std::vector<u64> r;
  each_index(l.shape, [&](std::array<index_t, 3> i) {
    const index_t upto = i[axis];
    u64 acc = 0;
    for (index_t k = 0; k <= upto; ++k) {
      i[axis] = k;
      acc = k == 0 ? buf[l.at(i)] : f(acc, buf[l.at(i)]);
    }
    r.push_back(acc);
  });
  return r;
}

std::vector<u64> reduceat_reference(const std::vector<u64> &buf, const layout &l, int axis,
                                    const std::vector<long> &indices, const fold &f) {
  std::array<index_t, 3> shape = l.shape;
  shape[axis] = static_cast<index_t>(indices.size());
  std::vector<u64> r;
  each_index(shape, [&](std::array<index_t, 3> i) {
    const std::size_t s = static_cast<std::size_t>(i[axis]);
    const index_t begin = indices[s];
    const index_t end = s + 1 == indices.size() ? l.shape[axis] : std::max<index_t>(indices[s + 1], begin + 1);
    u64 acc = 0;
    for (index_t k = begin; k < end; ++k) {
      i[axis] = k;
      acc = k == begin ? buf[l.at(i)] : f(acc, buf[l.at(i)]);
    }
    r.push_back(acc);
  });
  return r;
}

kernel::array_view<const u64, 3> host_view(const std::vector<u64> &buf, const layout &l) {
  return kernel::array_view<const u64, 3>(buf.data() + l.offset, l.shape, l.strides);
}
template <class T> kernel::device_view<T, 3> device_view_of(T *base, const layout &l) {
  return kernel::device_view<T, 3>(dev, base + l.offset, l.shape, l.strides);
}

template <class R> std::vector<u64> host_values(const R &r) {
  if constexpr (requires { r.copy_to_host(); })
    return r.copy_to_host().to_vector();
  else if constexpr (requires { r.to_vector(); })
    return r.to_vector();
  else
    return {static_cast<u64>(r)};
}

// What each target gives for `call(where)`, where `where` is a host view placed on a host
// target, a host view placed on the device, or a device view: the same values, or the same
// argument_error (its argument number) everywhere.
struct outcome {
  std::vector<u64> values;
  int error_argument = 0;
  bool operator==(const outcome &) const = default;
};
void PrintTo(const outcome &o, std::ostream *os) {
  if (o.error_argument) {
    *os << "argument_error naming argument " << o.error_argument;
    return;
  }
  *os << "{";
  for (std::size_t i = 0; i < o.values.size(); ++i) *os << (i ? ", " : "") << o.values[i];
  *os << "}";
}
template <class Call> outcome outcome_of(const Call &call) {
  try {
    return {host_values(call()), 0};
  } catch (const kernel::argument_error &e) {
    return {{}, e.argument()};
  }
}

class UfuncMethodsLayouts : public ::testing::TestWithParam<int> {};

TEST_P(UfuncMethodsLayouts, EveryTargetAsThePlainLoop) {
  std::mt19937 rng(static_cast<unsigned>(GetParam()));
  const fold add = [](u64 a, u64 b) { return a + b; };
  const fold mixed = [](u64 a, u64 b) { return a * 3 + b; };
  for (int round = 0; round < 12; ++round) {
    const layout l = kernel_test::random_layout<3>(rng, 4, true);
    SCOPED_TRACE(l.text());
    std::vector<u64> buf(static_cast<std::size_t>(l.buffer_size()));
    for (auto &x : buf) x = rng() % 1000;
    const auto hv = host_view(buf, l);
    const auto dbuf = kernel::to_device(buf, dev);
    const kernel::device_view<const u64, 3> dv = device_view_of<const u64>(dbuf.data(), l);
    // Each method's outcome on the four targets, against the expected one.
    const auto expect_everywhere = [&](const std::string &what, const outcome &expected, const auto &on_host,
                                       const auto &on_device) {
      EXPECT_EQ(outcome_of([&] { return on_host(kernel::target::cpu); }), expected) << what << " on cpu";
      EXPECT_EQ(outcome_of([&] { return on_host(kernel::target::parallel); }), expected) << what << " on parallel";
      EXPECT_EQ(outcome_of([&] { return on_host(on_dev); }), expected) << what << ", host arrays on the device";
      EXPECT_EQ(outcome_of([&] { return on_device(); }), expected) << what << ", device arrays";
    };
    for (int axis = 0; axis < 3; ++axis) {
      const std::string along = " along axis " + std::to_string(axis);
      const u64 zero = 0;
      expect_everywhere(
          "plus.reduce" + along, {reduce_reference(buf, l, axis, add, &zero)},
          [&](auto t) { return vplus.on(t).reduce(hv, axis); }, [&] { return vplus.reduce(dv, axis); });
      const u64 seven = 7;
      expect_everywhere(
          "mix.reduce from 7" + along, {reduce_reference(buf, l, axis, mixed, &seven)},
          [&](auto t) { return vmix.on(t).reduce(hv, axis, 7); }, [&] { return vmix.reduce(dv, axis, 7); });
      const outcome mix_expected =
          l.shape[axis] == 0 ? outcome{{}, 1} : outcome{reduce_reference(buf, l, axis, mixed, nullptr)};
      expect_everywhere(
          "mix.reduce" + along, mix_expected, [&](auto t) { return vmix.on(t).reduce(hv, axis); },
          [&] { return vmix.reduce(dv, axis); });
      expect_everywhere(
          "mix.accumulate" + along, {accumulate_reference(buf, l, axis, mixed)},
          [&](auto t) { return vmix.on(t).accumulate(hv, axis); }, [&] { return vmix.accumulate(dv, axis); });
      // reduceat at random indices (now and then one out of range: refused everywhere).
      std::vector<long> at;
      const index_t n = l.shape[axis];
      for (int k = static_cast<int>(rng() % 5); k > 0; --k)
        if (n > 0) at.push_back(static_cast<long>(rng() % static_cast<unsigned>(n)));
      outcome at_expected{reduceat_reference(buf, l, axis, at, mixed)};
      if (rng() % 6 == 0) {
        at.push_back(rng() % 2 ? -1 : static_cast<long>(n));
        at_expected = {{}, 2};
      }
      expect_everywhere(
          "mix.reduceat" + along, at_expected, [&](auto t) { return vmix.on(t).reduceat(hv, at, axis); },
          [&] { return vmix.reduceat(dv, at, axis); });
      at_expected = at_expected.error_argument ? at_expected : outcome{reduceat_reference(buf, l, axis, at, add)};
      expect_everywhere(
          "plus.reduceat" + along, at_expected, [&](auto t) { return vplus.on(t).reduceat(hv, at, axis); },
          [&] { return vplus.reduceat(dv, kernel::to_device(at, dev), axis); });
      // Over the two other axes at once (an identity lets them combine in any order).
      const int a0 = axis == 0 ? 1 : 0, a1 = axis == 2 ? 1 : 2;
      std::vector<u64> sums;
      for (index_t k = 0; k < l.shape[axis]; ++k) {
        u64 s = 0;
        std::array<index_t, 3> i{};
        i[axis] = k;
        for (i[a0] = 0; i[a0] < l.shape[a0]; ++i[a0])
          for (i[a1] = 0; i[a1] < l.shape[a1]; ++i[a1]) s += buf[l.at(i)];
        sums.push_back(s);
      }
      expect_everywhere(
          "plus.reduce over two axes, keeping" + along, {sums},
          [&](auto t) { return vplus.on(t).reduce(hv, {a1, a0}); }, [&] { return vplus.reduce(dv, {a0, a1}); });
    }
    // at along the first axis: random indices (negative ones too, repeated), the operand a
    // scalar, one part per index, or broadcast along the last axis.
    std::vector<long> rows;
    for (int k = static_cast<int>(rng() % 6); k > 0; --k)
      if (l.shape[0] > 0) rows.push_back(static_cast<long>(rng() % static_cast<unsigned>(2 * l.shape[0])) - l.shape[0]);
    const bool bad = rng() % 6 == 0;
    if (bad) rows.push_back(rng() % 2 ? static_cast<long>(l.shape[0]) : -static_cast<long>(l.shape[0]) - 1);
    const index_t inner = l.shape[1] * l.shape[2];
    kernel::ndarray<u64, 3> parts({static_cast<index_t>(rows.size()), l.shape[1], l.shape[2]});
    for (index_t k = 0; k < parts.size(); ++k) parts.data()[k] = rng() % 1000;
    kernel::ndarray<u64, 1> last({l.shape[2]});
    for (index_t k = 0; k < last.size(); ++k) last.data()[k] = rng() % 1000;
    for (int form = 0; form < 3; ++form) {
      SCOPED_TRACE("at, operand form " + std::to_string(form) + ", " + std::to_string(rows.size()) + " rows");
      const auto operand = [&](std::size_t k, index_t j, index_t m) -> u64 {
        return form == 0 ? 5 : form == 1 ? parts.data()[static_cast<index_t>(k) * inner + j * l.shape[2] + m] : last[m];
      };
      std::vector<u64> expected = buf;
      if (!bad)
        for (std::size_t k = 0; k < rows.size(); ++k) {
          const index_t r = rows[k] < 0 ? rows[k] + l.shape[0] : rows[k];
          for (index_t j = 0; j < l.shape[1]; ++j)
            for (index_t m = 0; m < l.shape[2]; ++m) {
              u64 &x = expected[static_cast<std::size_t>(l.at({r, j, m}))];
              x = x * 3 + operand(k, j, m);
            }
        }
      const auto run_at = [&](auto placed, auto a, const auto &read_back) {
        int error = 0;
        try {
          if (form == 0)
            placed.at(a, rows, 5);
          else if (form == 1)
            placed.at(a, rows, parts);
          else
            placed.at(a, rows, last);
        } catch (const kernel::argument_error &e) {
          error = e.argument();
        }
        EXPECT_EQ(error, bad ? 2 : 0);
        EXPECT_EQ(read_back(), expected);
      };
      for (kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
        SCOPED_TRACE(kernel::target_name(t));
        std::vector<u64> changed = buf;
        run_at(vmix.on(t), kernel::array_view<u64, 3>(changed.data() + l.offset, l.shape, l.strides),
               [&] { return changed; });
      }
      auto dchanged = kernel::to_device(buf, dev);
      run_at(vmix, device_view_of<u64>(dchanged.data(), l), [&] { return dchanged.copy_to_host().to_vector(); });
    }
  }
}

// Calls and fused expressions, mix(mix(a, b), c), over broadcast operands of random layouts (a
// of the result's rank with extents of one, b a row, c a matrix or a scalar), eagerly, into an
// output view of random strides, and fused, on every target: the same elements as a plain loop.
TEST_P(UfuncMethodsLayouts, BroadcastCallsAndExpressions) {
  std::mt19937 rng(static_cast<unsigned>(GetParam()) + 1000);
  for (int round = 0; round < 8; ++round) {
    std::array<index_t, 3> shape{};
    for (auto &e : shape) e = rng() % 8 == 0 ? 0 : 1 + rng() % 4;
    const bool b_row = rng() % 2 == 0, c_scalar = rng() % 3 == 0;
    // (With c a scalar, a has the result's shape, which then broadcasting makes.)
    std::array<index_t, 3> a_shape = shape;
    for (auto &e : a_shape)
      if (rng() % 3 == 0 && !c_scalar) e = 1;
    const layout la = kernel_test::layout_of_shape<3>(rng, a_shape, true),
                 lc = kernel_test::layout_of_shape<3>(rng, shape, true),
                 lo = kernel_test::layout_of_shape<3>(rng, shape, true);
    SCOPED_TRACE("result " + std::to_string(shape[0]) + "x" + std::to_string(shape[1]) + "x" +
                 std::to_string(shape[2]) + "; a " + la.text() + "; c " + lc.text() + "; out " + lo.text());
    std::vector<u64> abuf(static_cast<std::size_t>(la.buffer_size())), cbuf(static_cast<std::size_t>(lc.buffer_size()));
    for (auto &x : abuf) x = rng() % 1000;
    for (auto &x : cbuf) x = rng() % 1000;
    std::vector<u64> b(static_cast<std::size_t>(b_row ? shape[2] : 1));
    for (auto &x : b) x = rng() % 1000;
    const u64 scalar = rng() % 1000;
    std::vector<u64> expected;
    each_index(shape, [&](const std::array<index_t, 3> &i) {
      std::array<index_t, 3> ia = i;
      for (int d = 0; d < 3; ++d)
        if (a_shape[d] == 1) ia[d] = 0;
      const u64 ab = abuf[static_cast<std::size_t>(la.at(ia))] * 3 + b[b_row ? static_cast<std::size_t>(i[2]) : 0];
      expected.push_back(ab * 3 + (c_scalar ? scalar : cbuf[static_cast<std::size_t>(lc.at(i))]));
    });
    const auto a = host_view(abuf, la);
    const kernel::array_view<const u64, 1> bv(b.data(), {static_cast<index_t>(b.size())});
    const auto c = host_view(cbuf, lc);
    const auto da_mem = kernel::to_device(abuf, dev), dc_mem = kernel::to_device(cbuf, dev);
    const auto db = kernel::to_device(b, dev);
    const auto da = device_view_of<const u64>(da_mem.data(), la);
    const auto dc = device_view_of<const u64>(dc_mem.data(), lc);
    for (kernel::target t : {kernel::target::cpu, kernel::target::parallel, on_dev}) {
      SCOPED_TRACE(kernel::target_name(t));
      const auto f = vmix.on(t);
      const auto eager = c_scalar ? f(f(a, bv), scalar) : f(f(a, bv), c);
      EXPECT_EQ(eager.to_vector(), expected) << "eager";
      const auto fused =
          c_scalar ? vmix(vmix(kernel::lazy(a), bv), scalar).eval(t) : vmix(vmix(kernel::lazy(a), bv), c).eval(t);
      EXPECT_EQ(fused.to_vector(), expected) << "fused";
      std::vector<u64> obuf(static_cast<std::size_t>(lo.buffer_size()), 7);
      const kernel::array_view<u64, 3> out(obuf.data() + lo.offset, lo.shape, lo.strides);
      if (c_scalar)
        f(f(a, bv), scalar, out);
      else
        f(f(a, bv), c, out);
      EXPECT_EQ(kernel_test::elements(obuf, lo), expected) << "into a strided output";
    }
    const auto on_device = c_scalar ? vmix(vmix(da, db), scalar) : vmix(vmix(da, db), dc);
    EXPECT_EQ(on_device.copy_to_host().to_vector(), expected) << "device views";
    const auto fused_on_device =
        c_scalar ? vmix(vmix(kernel::lazy(da), db), scalar).eval() : vmix(vmix(kernel::lazy(da), db), dc).eval();
    EXPECT_EQ(fused_on_device.copy_to_host().to_vector(), expected) << "fused, device views";
    auto dout_mem = kernel::to_device(std::vector<u64>(static_cast<std::size_t>(lo.buffer_size()), 7), dev);
    const auto dout = device_view_of<u64>(dout_mem.data(), lo);
    if (c_scalar)
      vmix(vmix(da, db), scalar, dout);
    else
      vmix(vmix(da, db), dc, dout);
    EXPECT_EQ(kernel_test::elements(dout_mem.copy_to_host().to_vector(), lo), expected)
        << "device views into a strided output";
  }
}

// A gufunc, "(m,n),(n,p)->(m,p)", over a stack of matrices of random layouts (the loop
// dimension broadcast against one matrix now and then), into a new array and into a strided
// output, on every target: the same elements as a plain loop.
TEST_P(UfuncMethodsLayouts, GufuncOverStridedStacks) {
  constexpr kernel::gufunc<"(m,n),(n,p)->(m,p)", matmul> vmatmul;
  std::mt19937 rng(static_cast<unsigned>(GetParam()) + 2000);
  for (int round = 0; round < 4; ++round) {
    const index_t loops = rng() % 6 == 0 ? 0 : 1 + rng() % 3, m = 1 + rng() % 3, n = rng() % 4, p = 1 + rng() % 3;
    const bool b_shared = rng() % 3 == 0; // one b for every matrix of a
    const layout la = kernel_test::layout_of_shape<3>(rng, {loops, m, n}, true),
                 lb = kernel_test::layout_of_shape<3>(rng, {b_shared ? 1 : loops, n, p}, true),
                 lo = kernel_test::layout_of_shape<3>(rng, {loops, m, p}, true);
    SCOPED_TRACE("a " + la.text() + "; b " + lb.text() + "; out " + lo.text());
    std::vector<u64> abuf(static_cast<std::size_t>(la.buffer_size())), bbuf(static_cast<std::size_t>(lb.buffer_size()));
    for (auto &x : abuf) x = rng() % 100;
    for (auto &x : bbuf) x = rng() % 100;
    std::vector<u64> expected;
    each_index(lo.shape, [&](const std::array<index_t, 3> &i) {
      u64 s = 0;
      for (index_t k = 0; k < n; ++k)
        s += abuf[static_cast<std::size_t>(la.at({i[0], i[1], k}))] *
             bbuf[static_cast<std::size_t>(lb.at({b_shared ? 0 : i[0], k, i[2]}))];
      expected.push_back(s);
    });
    const auto a = host_view(abuf, la), b = host_view(bbuf, lb);
    // Zero strides in an output would repeat its elements: outputs get none.
    layout lout = lo;
    for (int d = 0; d < 3; ++d)
      if (lout.strides[d] == 0) lout = kernel_test::layout_of_shape<3>(rng, lo.shape, false), d = -1;
    for (kernel::target t : {kernel::target::cpu, kernel::target::parallel, on_dev}) {
      SCOPED_TRACE(kernel::target_name(t));
      EXPECT_EQ(vmatmul.on(t)(a, b).to_vector(), expected);
      std::vector<u64> obuf(static_cast<std::size_t>(lout.buffer_size()), 7);
      vmatmul.on(t)(a, b, kernel::array_view<u64, 3>(obuf.data() + lout.offset, lout.shape, lout.strides));
      EXPECT_EQ(kernel_test::elements(obuf, lout), expected) << "into a strided output";
    }
    const auto da_mem = kernel::to_device(abuf, dev), db_mem = kernel::to_device(bbuf, dev);
    const auto da = device_view_of<const u64>(da_mem.data(), la), db = device_view_of<const u64>(db_mem.data(), lb);
    EXPECT_EQ(vmatmul(da, db).copy_to_host().to_vector(), expected) << "device views";
    auto dout_mem = kernel::to_device(std::vector<u64>(static_cast<std::size_t>(lout.buffer_size()), 7), dev);
    vmatmul(da, db, device_view_of<u64>(dout_mem.data(), lout));
    const auto dout = dout_mem.copy_to_host().to_vector();
    EXPECT_EQ(kernel_test::elements(dout, lout), expected) << "device views into a strided output";
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, UfuncMethodsLayouts, ::testing::Range(1, 65));

} // namespace
