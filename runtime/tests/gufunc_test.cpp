// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Generalized ufuncs on every target (cpu, parallel, and the simulated device or, under
// KERNEL_TEST_DEVICE=cuda, the GPU).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <numeric>
#include <vector>

#include "kernel/kernel.h"
#include "test_device.h"

[[kernel::guvectorize("(n),(n)->()")]]
void dot(kernel::array_view<const double> a, kernel::array_view<const double> b, double &out) {
  double s = 0;
  for (kernel::index_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  out = s;
}

[[kernel::guvectorize("void(float32[:, :], float32[:, :], float32[:, :])", "(m,n),(n,p)->(m,p)")]]
void matmul(kernel::array_view<const float, 2> a, kernel::array_view<const float, 2> b,
            kernel::array_view<float, 2> c) {
  for (kernel::index_t i = 0; i < c.shape(0); ++i)
    for (kernel::index_t j = 0; j < c.shape(1); ++j) {
      float s = 0;
      for (kernel::index_t k = 0; k < a.shape(1); ++k) s += a(i, k) * b(k, j);
      c(i, j) = s;
    }
}

// A scalar input and two outputs.
[[kernel::guvectorize("(n),()->(n),()")]]
void scale_and_sum(kernel::array_view<const float> x, float factor, kernel::array_view<float> y, float &total) {
  total = 0;
  for (kernel::index_t i = 0; i < x.size(); ++i) {
    y[i] = x[i] * factor;
    total += y[i];
  }
}

// Reads its core in the opposite order to the one it writes: wrong in place.
[[kernel::guvectorize("(n)->(n)")]]
void reversed(kernel::array_view<const float> x, kernel::array_view<float> y) {
  const kernel::index_t n = x.size();
  for (kernel::index_t i = 0; i < n; ++i) y[i] = x[n - 1 - i];
}

// A square core: 'n' named twice in one operand.
[[kernel::guvectorize("(n,n)->()")]]
void trace(kernel::array_view<const double, 2> a, double &out) {
  out = 0;
  for (kernel::index_t i = 0; i < a.shape(0); ++i) out += a(i, i);
}

[[kernel::guvectorize("()->()")]]
void twice(float x, float &y) {
  y = 2 * x;
}

// Adds to its output (reads it) and leaves its last element as it was.
[[kernel::guvectorize("(n)->(n)")]]
void accumulate_head(kernel::array_view<const float> x, kernel::array_view<float> y) {
  for (kernel::index_t i = 0; i + 1 < x.size(); ++i) y[i] += x[i];
}

namespace {

constexpr kernel::gufunc<"(n)->(n)", accumulate_head> vaccumulate_head;
constexpr kernel::gufunc<"(n)->(n)", reversed> vreversed;
constexpr kernel::gufunc<"()->()", twice> vtwice;
constexpr kernel::gufunc<"(n),(n)->()", dot> vdot;
constexpr kernel::gufunc<"(m,n),(n,p)->(m,p)", matmul> vmatmul;
constexpr kernel::gufunc<"(n),()->(n),()", scale_and_sum> vscale;
constexpr kernel::gufunc<"(n,n)->()", trace> vtrace;
const kernel::target targets[] = {kernel::target::cpu, kernel::target::parallel, kernel_test::target()};

TEST(Gufunc, DotOverLoopDimensions) {
  kernel::ndarray<double, 2> a({1000, 8}), b({1000, 8});
  for (int i = 0; i < 1000; ++i)
    for (int j = 0; j < 8; ++j) {
      a(i, j) = i + j;
      b(i, j) = 0.5 * j;
    }
  for (kernel::target t : targets) {
    auto r = vdot.on(t)(a, b);
    static_assert(std::is_same_v<decltype(r), kernel::ndarray<double, 1>>);
    ASSERT_EQ(r.size(), 1000) << kernel::target_name(t);
    for (int i = 0; i < 1000; ++i) {
      double expected = 0;
      for (int j = 0; j < 8; ++j) expected += (i + j) * 0.5 * j;
      ASSERT_EQ(r[i], expected) << kernel::target_name(t) << " row " << i;
    }
  }
}

TEST(Gufunc, BroadcastingOfLoopDimensions) {
  kernel::ndarray<double, 2> a({4, 3}, 1.0);
  std::vector<double> b{1, 2, 3}; // one core operand, broadcast over the 4 rows
  for (kernel::target t : targets) {
    std::vector<double> out(4);
    vdot.on(t)(a, b, out);
    EXPECT_EQ(out, std::vector<double>(4, 6.0)) << kernel::target_name(t);
  }
}

TEST(Gufunc, BatchedMatmul) {
  kernel::ndarray<float, 3> a({5, 2, 3}), b({5, 3, 4});
  for (int n = 0; n < 5; ++n) {
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 3; ++k) a(n, i, k) = float(n + i * k);
    for (int k = 0; k < 3; ++k)
      for (int j = 0; j < 4; ++j) b(n, k, j) = float(k - j + n);
  }
  for (kernel::target t : targets) {
    auto c = vmatmul.on(t)(a, b);
    ASSERT_EQ(c.shape(), (std::array<kernel::index_t, 3>{5, 2, 4}));
    for (int n = 0; n < 5; ++n)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j) {
          float s = 0;
          for (int k = 0; k < 3; ++k) s += a(n, i, k) * b(n, k, j);
          ASSERT_EQ(c(n, i, j), s) << kernel::target_name(t);
        }
  }
}

TEST(Gufunc, ScalarInputAndSeveralOutputs) {
  kernel::ndarray<float, 2> x({3, 4});
  std::iota(x.begin(), x.end(), 1.0f);
  for (kernel::target t : targets) {
    auto [y, total] = vscale.on(t)(x, 2.0f);
    EXPECT_EQ(y(2, 3), 24.0f);
    EXPECT_EQ(total.to_vector(), (std::vector<float>{20, 52, 84})) << kernel::target_name(t);
  }
}

// An output's elements hold what the caller's array held when the function runs, on every
// target: a host output goes to the device and back.
TEST(Gufunc, OutputsKeepWhatTheFunctionDoesNotWrite) {
  kernel::ndarray<float, 2> x({4, 8}, 1.0f);
  for (kernel::target t : targets) {
    kernel::ndarray<float, 2> out({4, 8}, 7.0f);
    vaccumulate_head.on(t)(x, out);
    for (kernel::index_t r = 0; r < 4; ++r)
      for (kernel::index_t i = 0; i < 8; ++i)
        ASSERT_EQ(out(r, i), i + 1 < 8 ? 8.0f : 7.0f) << kernel::target_name(t) << " " << r << "," << i;
  }
}

TEST(Gufunc, DeviceArrays) {
  kernel::ndarray<double, 2> a({6, 4}, 2.0);
  auto da = kernel::to_device(a, kernel_test::device());
  auto r = vdot(da, da); // device arrays: a device result
  static_assert(std::is_same_v<decltype(r), kernel::device_array<double, 1>>);
  EXPECT_EQ(r.copy_to_host().to_vector(), std::vector<double>(6, 16.0));
}

TEST(Gufunc, CoreDimensionsMustAgree) {
  kernel::ndarray<double, 2> a({4, 3}), b({4, 5});
  try {
    vdot(a, b);
    FAIL();
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(std::string(e.what()), "'dot': argument 2: core dimension 'n' is 5 but argument 1 gave n = 3");
  }
  kernel::ndarray<float, 2> m({2, 3}), k({4, 5});
  EXPECT_THROW(vmatmul(m, k), kernel::argument_error);
  // A dimension named twice in one operand's core is checked within it, and said so.
  kernel::ndarray<double, 3> squares({2, 3, 3}, 1.0), oblong({2, 2, 3}, 1.0);
  EXPECT_EQ(vtrace(squares).to_vector(), (std::vector<double>{3, 3}));
  try {
    vtrace(oblong);
    FAIL();
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(std::string(e.what()), "'trace': argument 1: its core dimensions named 'n' differ: 2 and 3 (the layout "
                                     "names 'n' more than once, so they must be equal)");
  }
}

// Loop dimensions that no stride merges, more than a loop holds: an error saying what to do.
TEST(Gufunc, LoopDimensionsWithGapsPastEight) {
  std::vector<double> memory(std::size_t{1} << 18, 1.0);
  // 9 loop dimensions of 2, each stride twice the last extent's (a gap between each), and a core of 1.
  std::array<kernel::index_t, 10> shape{}, strides{};
  kernel::index_t stride = 1;
  for (int d = 9; d >= 0; --d) {
    shape[static_cast<std::size_t>(d)] = d == 9 ? 1 : 2;
    strides[static_cast<std::size_t>(d)] = stride;
    stride *= 2 * shape[static_cast<std::size_t>(d)];
  }
  const kernel::array_view<const double, 10> gaps(memory.data(), shape, strides);
  // A device target copies host arrays to contiguous memory first.
  EXPECT_EQ(vdot.on(kernel_test::target())(gaps, gaps).size(), 512);
  for (const kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
    try {
      vdot.on(t)(gaps, gaps);
      ADD_FAILURE() << "no error";
    } catch (const kernel::argument_error &e) {
      EXPECT_NE(std::string(e.what()).find("copy the arrays with gaps to contiguous arrays first"), std::string::npos)
          << e.what();
    }
  }
}

TEST(Gufunc, LoopDimensionsMustBroadcast) {
  kernel::ndarray<double, 2> a({4, 3}), b({5, 3});
  try {
    vdot(a, b);
    FAIL();
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 2);
    EXPECT_NE(std::string(e.what()).find("loop dimensions (5,) cannot be broadcast"), std::string::npos) << e.what();
  }
  // The output's loop dimensions are its shape less the core ones: (3,) for dot's () output.
  std::vector<double> short_out(3);
  try {
    vdot(a, a, short_out);
    FAIL();
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(std::string(e.what()),
              "'dot': argument 3: output has loop dimensions (3,) but the inputs broadcast to (4,)");
  }
}

// Outputs are never broadcast against each other: of scale's two, one of loop dimensions (3,)
// and one of (5, 3) would have the first written five times (NumPy refuses it too), in either
// order; on every target, with nothing written.
TEST(Gufunc, OutputsHaveOneShape) {
  kernel::ndarray<float, 2> x({3, 4}, 1.0f);
  for (kernel::target t : targets) {
    kernel::ndarray<float, 2> y({3, 4}, 9.0f);
    kernel::ndarray<float, 3> wide_y({5, 3, 4}, 9.0f);
    kernel::ndarray<float, 1> total({3}, 9.0f);
    kernel::ndarray<float, 2> wide_total({5, 3}, 9.0f);
    try {
      vscale.on(t)(x, 2.0f, y, wide_total);
      ADD_FAILURE() << kernel::target_name(t) << ": outputs of two shapes were taken";
    } catch (const kernel::argument_error &e) {
      EXPECT_EQ(e.argument(), 3) << e.what();
      EXPECT_NE(std::string(e.what()).find("the outputs have one shape"), std::string::npos) << e.what();
    }
    EXPECT_THROW(vscale.on(t)(x, 2.0f, wide_y, total), kernel::argument_error) << kernel::target_name(t);
    for (float v : y) ASSERT_EQ(v, 9.0f);
    for (float v : wide_total) ASSERT_EQ(v, 9.0f);
    // Both widened alike is fine: the inputs are broadcast to them.
    vscale.on(t)(x, 2.0f, wide_y, wide_total);
    EXPECT_EQ(wide_total(4, 2), 8.0f) << kernel::target_name(t);
  }
}

// Runs `f`, expecting an argument_error about argument `argument` sharing memory.
template <class F> void expect_overlap_error(F &&f, int argument, kernel::target t) {
  try {
    f();
    ADD_FAILURE() << kernel::target_name(t) << ": an overlapping output was accepted";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), argument) << kernel::target_name(t) << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find("shares memory with"), std::string::npos) << e.what();
  }
}

TEST(GufuncOverlap, OutputOverlappingAnInputIsRejectedOnEveryTarget) {
  for (kernel::target t : targets) {
    std::vector<float> x{1, 2, 3, 4, 5, 6};
    const std::vector<float> before = x;
    // The same elements, but the function reads its core whole while it writes it.
    expect_overlap_error([&] { vreversed.on(t)(x, x); }, 1, t);
    // A partial overlap: the output starts one element in.
    kernel::array_view<float> head(x.data(), {4}), tail(x.data() + 1, {4});
    expect_overlap_error([&] { vreversed.on(t)(head, tail); }, 1, t);
    expect_overlap_error([&] { vtwice.on(t)(head, tail); }, 1, t);
    // Two outputs in the same memory.
    kernel::ndarray<float, 2> rows({2, 3}, 1.0f);
    std::vector<float> y(6);
    kernel::array_view<float, 2> y2(y.data(), {2, 3});
    kernel::array_view<float> totals(y.data() + 1, {2});
    expect_overlap_error([&] { vscale.on(t)(rows, 2.0f, y2, totals); }, 4, t);
    // matmul writing into its left operand.
    kernel::ndarray<float, 2> m({2, 2}, 1.0f), id({2, 2}, 0.0f);
    id(0, 0) = id(1, 1) = 1;
    expect_overlap_error([&] { vmatmul.on(t)(m, id, m); }, 1, t);
    EXPECT_EQ(x, before) << kernel::target_name(t) << ": a rejected call wrote";
    EXPECT_EQ(y, std::vector<float>(6)) << kernel::target_name(t);
  }
}

TEST(GufuncOverlap, ElementwiseInPlaceIsAllowed) {
  for (kernel::target t : targets) {
    std::vector<float> x{1, 2, 3};
    vtwice.on(t)(x, x);
    EXPECT_EQ(x, (std::vector<float>{2, 4, 6})) << kernel::target_name(t);
  }
}

TEST(GufuncOverlap, DeviceArraysFollowTheSameRule) {
  auto d = kernel::to_device(std::vector<float>{1, 2, 3, 4, 5}, kernel_test::device());
  kernel::device_view<float> in(d.device(), d.data(), {4});
  kernel::device_view<float> out(d.device(), d.data() + 1, {4});
  expect_overlap_error([&] { vtwice(in, out); }, 1, kernel_test::target());
  expect_overlap_error([&] { vreversed(in, in); }, 1, kernel_test::target());
  EXPECT_EQ(d.copy_to_host().to_vector(), (std::vector<float>{1, 2, 3, 4, 5}));
}

TEST(Gufunc, ConstViewArguments) {
  const std::vector<double> a{1, 2, 3}, b{4, 5, 6};
  kernel::array_view<const double> ca(a), cb(b);
  const kernel::ndarray<double, 2> rows({2, 3}, 1.0);
  for (kernel::target t : targets) {
    auto r = vdot.on(t)(rows, ca);
    EXPECT_EQ(r.to_vector(), (std::vector<double>{6, 6})) << kernel::target_name(t);
    std::vector<double> out(1);
    vdot.on(t)(ca, cb, out);
    EXPECT_EQ(out, std::vector<double>{32}) << kernel::target_name(t);
  }
  auto da = kernel::to_device(rows, kernel_test::device());
  kernel::device_view<const double, 2> cda = da.view();
  EXPECT_EQ(vdot(cda, cda).copy_to_host().to_vector(), (std::vector<double>{3, 3}));
}

// Outputs of no dimensions are returned as scalars, as NumPy does.
TEST(Gufunc, ScalarResults) {
  const std::vector<double> a{1, 2, 3}, b{4, 5, 6};
  const std::vector<float> x{1, 2, 3};
  for (kernel::target t : targets) {
    static_assert(std::is_same_v<decltype(vtwice.on(t)(3.0f)), float>);
    EXPECT_EQ(vtwice.on(t)(3.0f), 6.0f) << kernel::target_name(t);
    EXPECT_EQ(vtwice.on(t)(2), 4.0f) << kernel::target_name(t); // a weak int scalar
    static_assert(std::is_same_v<decltype(vdot.on(t)(a, b)), double>);
    EXPECT_EQ(vdot.on(t)(a, b), 32.0) << kernel::target_name(t);
    auto [y, total] = vscale.on(t)(x, 2.0f);
    static_assert(std::is_same_v<decltype(total), float>);
    EXPECT_EQ(y.to_vector(), (std::vector<float>{2, 4, 6})) << kernel::target_name(t);
    EXPECT_EQ(total, 12.0f) << kernel::target_name(t);
  }
  auto da = kernel::to_device(a, kernel_test::device());
  EXPECT_EQ(vdot(da, da), 14.0);
}

TEST(Gufunc, Inspect) {
  auto k = decltype(vmatmul)::inspect();
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0].kind, "gufunc");
  EXPECT_EQ(k[0].signature, "void(float32[:, :], float32[:, :], float32[:, :]) (m,n),(n,p)->(m,p)");
  EXPECT_EQ(decltype(vmatmul)::signature(), "(m,n),(n,p)->(m,p)");
}

} // namespace
