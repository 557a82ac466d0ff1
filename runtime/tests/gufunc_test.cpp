// Generalized ufuncs on every target (cpu, parallel, and the simulated device or, under
// KERNEL_TEST_DEVICE=cuda, the GPU).
#include <gtest/gtest.h>

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

namespace {

constexpr kernel::gufunc<"(n),(n)->()", dot> vdot;
constexpr kernel::gufunc<"(m,n),(n,p)->(m,p)", matmul> vmatmul;
constexpr kernel::gufunc<"(n),()->(n),()", scale_and_sum> vscale;
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
}

TEST(Gufunc, LoopDimensionsMustBroadcast) {
  kernel::ndarray<double, 2> a({4, 3}), b({5, 3});
  try {
    vdot(a, b);
    FAIL();
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 2);
    EXPECT_NE(std::string(e.what()).find("shape (5,) cannot be broadcast"), std::string::npos) << e.what();
  }
  std::vector<double> short_out(3);
  EXPECT_THROW(vdot(a, a, short_out), kernel::argument_error);
}

TEST(Gufunc, Inspect) {
  auto k = decltype(vmatmul)::inspect();
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0].kind, "gufunc");
  EXPECT_EQ(k[0].signature, "void(float32[:, :], float32[:, :], float32[:, :]) (m,n),(n,p)->(m,p)");
  EXPECT_EQ(decltype(vmatmul)::signature(), "(m,n),(n,p)->(m,p)");
}

} // namespace
