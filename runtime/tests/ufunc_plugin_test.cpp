// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Ufuncs compiled with the plugin: kernels in namespaces, static members and templates are
// registered under the names the user wrote, and every argument kind works.
#include <gtest/gtest.h>

#include <array>
#include <span>
#include <vector>

#include "kernel/kernel.h"

namespace physics {
[[kernel::vectorize("float64(float64, float64)")]] double kinetic(double m, double v) { return 0.5 * m * v * v; }
struct Units {
  [[kernel::vectorize]] static float to_km(float m) { return m / 1000.0f; }
};
template <class T>
[[kernel::vectorize("int32(int32, int32)", "int64(int64, int64)")]]
T gcd(T a, T b) {
  while (b != 0) {
    T t = a % b;
    a = b;
    b = t;
  }
  return a;
}
} // namespace physics

namespace {

TEST(UfuncPlugin, NamesAndSignaturesAreRegistered) {
  auto k = kernel::ufunc<physics::kinetic>::inspect();
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0].name, "physics::kinetic");
  EXPECT_EQ(k[0].signature, "float64(float64, float64)");
  EXPECT_EQ(k[0].kind, "ufunc");
  ASSERT_EQ(k[0].ptx.size(), 2u);
  EXPECT_EQ(k[0].ptx[0].arch, "sm_75");
  EXPECT_NE(k[0].ptx[0].text.find(".entry " + k[0].symbol), std::string_view::npos);

  auto u = kernel::ufunc<physics::Units::to_km>::inspect();
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(u[0].name, "physics::Units::to_km");
  EXPECT_EQ(u[0].signature, "float32(float32)");

  auto g = kernel::ufunc<physics::gcd<int>, physics::gcd<long>>::inspect();
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].name, "physics::gcd<int>");
  EXPECT_EQ(g[1].signature, "int64(int64, int64)");
}

TEST(UfuncPlugin, ArgumentKinds) {
  std::array<double, 3> m{1, 2, 3};
  std::vector<double> v{2, 2, 2};
  std::span<const double> vs(v);
  double raw[3] = {0, 0, 0};
  kernel::ufunc<physics::kinetic>{}(m, vs, kernel::view(raw, 3));
  EXPECT_EQ(raw[0], 2.0);
  EXPECT_EQ(raw[2], 6.0);
  std::vector<int> a{12, 18, 35}, b{8, 12, 14};
  auto r = kernel::ufunc<physics::gcd<int>, physics::gcd<long>>{}.on(kernel::target::parallel)(a, b);
  EXPECT_EQ(r.to_vector(), (std::vector<int>{4, 6, 7}));
}

} // namespace
