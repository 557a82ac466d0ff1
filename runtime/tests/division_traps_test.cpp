// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Integer divisions that trap stay divisions when the kernel code is optimised (this test is
// built with -O2): C++ leaves them undefined, and the optimiser turned 1 / b into a compare
// and select, a / -1 into a negation and (a * b) / b into a, after which a division by zero
// returned a value on the CPU targets and the simulator instead of the promised error. So too
// in a function another unit defines, whose copy the linker may take.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "division_traps_shared.h"
#include "kernel/kernel.h"

namespace {

[[kernel::vectorize]] int reciprocal(int b) { return 1 / b; }
[[kernel::vectorize]] int negated(int a) { return a / -1; }
[[kernel::vectorize]] int product_over(int a, int b) { return (a * b) / b; }
[[kernel::vectorize]] unsigned is_one(unsigned b) { return 1u / b; }
[[kernel::vectorize]] long long remainder_of_one(long long b) { return 1 % b; }

// Through a function another unit defines too (and whose copy the linker takes).
[[kernel::vectorize]] int shared(int b) { return shared_reciprocal(b); }
[[kernel::vectorize]] int through_extern_template(int b) { return extern_reciprocal(b); }

[[kernel::jit]] void reciprocals(kernel::array_view<const int> b, kernel::array_view<int> out) {
  const kernel::index_t i = kernel::grid<1>();
  if (i < b.size()) out[i] = 1 / b[i];
}

constexpr kernel::ufunc<reciprocal> vreciprocal;
constexpr kernel::ufunc<negated> vnegated;
constexpr kernel::ufunc<product_over> vproduct_over;
constexpr kernel::ufunc<is_one> vis_one;
constexpr kernel::ufunc<remainder_of_one> vremainder_of_one;
constexpr kernel::ufunc<shared> vshared;
constexpr kernel::ufunc<through_extern_template> vthrough_extern_template;

// The error each target gives: arithmetic_error on the CPU targets, simulator_error on the
// simulator, both naming the function.
template <class Call> std::string error_of(kernel::target t, Call &&call) {
  try {
    call();
  } catch (const kernel::arithmetic_error &e) {
    if (t == kernel::target::simulator) return std::string("arithmetic_error on the simulator: ") + e.what();
    return e.what();
  } catch (const kernel::simulator_error &e) {
    if (t != kernel::target::simulator) return std::string("simulator_error off the simulator: ") + e.what();
    return e.what();
  }
  return "no error";
}

TEST(DivisionTraps, OptimisedDivisionsByZeroAreErrorsOnEveryHostTarget) {
  const std::vector<int> b{1, 0, 2}, a{3, 4, 5}, most_negative{std::numeric_limits<int>::min()};
  const std::vector<unsigned> ub{1, 0};
  const std::vector<long long> lb{1, 0};
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel, kernel::target::simulator}) {
    SCOPED_TRACE(static_cast<int>(t));
    std::string e = error_of(t, [&] { (void)vreciprocal.on(t)(b); });
    EXPECT_NE(e.find("reciprocal"), std::string::npos) << e;
    EXPECT_NE(e.find("division by zero"), std::string::npos) << e;
    e = error_of(t, [&] { (void)vnegated.on(t)(most_negative); });
    EXPECT_NE(e.find("negated"), std::string::npos) << e;
    EXPECT_NE(e.find("most negative"), std::string::npos) << e;
    e = error_of(t, [&] { (void)vproduct_over.on(t)(a, b); });
    EXPECT_NE(e.find("division by zero"), std::string::npos) << e;
    e = error_of(t, [&] { (void)vis_one.on(t)(ub); });
    EXPECT_NE(e.find("division by zero"), std::string::npos) << e;
    e = error_of(t, [&] { (void)vremainder_of_one.on(t)(lb); });
    EXPECT_NE(e.find("division by zero"), std::string::npos) << e;
    e = error_of(t, [&] { (void)vshared.on(t)(b); });
    EXPECT_NE(e.find("shared"), std::string::npos) << e;
    EXPECT_NE(e.find("division by zero"), std::string::npos) << e;
    e = error_of(t, [&] { (void)vthrough_extern_template.on(t)(b); });
    EXPECT_NE(e.find("through_extern_template"), std::string::npos) << e;
    EXPECT_NE(e.find("division by zero"), std::string::npos) << e;
    // Divisors that cannot trap give C++'s quotients.
    const std::vector<int> fine{1, -1, 2};
    const auto r = vreciprocal.on(t)(fine);
    EXPECT_EQ(std::vector<int>(r.begin(), r.end()), (std::vector<int>{1, -1, 0}));
    const auto n = vnegated.on(t)(a);
    EXPECT_EQ(std::vector<int>(n.begin(), n.end()), (std::vector<int>{-3, -4, -5}));
  }
  std::vector<int> out(3, -7);
  const std::string e = error_of(kernel::target::simulator,
                                 [&] { kernel::launch<reciprocals>(1, 32).on(kernel::target::simulator)(b, out); });
  EXPECT_NE(e.find("::reciprocals': thread (1,0,0)"), std::string::npos) << e;
  EXPECT_NE(e.find("division by zero"), std::string::npos) << e;
  EXPECT_EQ(out, std::vector<int>(3, -7));
}

} // namespace
