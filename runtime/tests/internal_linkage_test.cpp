// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Internal-linkage kernels from one header in two translation units (see
// internal_linkage_kernels.h), called from both units, in both orders, on the test device.
#include <gtest/gtest.h>

#include "internal_linkage_kernels.h"
#include "test_device.h"

std::vector<float> triple_then_add_in_first_unit(kernel::device d, const std::vector<float> &x, float offset) {
  return triple_then_add(d, x, offset);
}

namespace {

std::vector<float> expected(const std::vector<float> &x, float offset) {
  std::vector<float> r;
  for (float v : x) r.push_back(3 * v + offset);
  return r;
}

TEST(InternalLinkageKernels, EachUnitFindsItsOwnEntries) {
  std::vector<float> x(200);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  const kernel::device d = kernel_test::device();
  // The second unit first, then the first, then the second again: whichever unit's entries
  // loaded the module, the other's must still be found.
  EXPECT_EQ(triple_then_add_in_second_unit(d, x, 1.0f), expected(x, 1.0f));
  EXPECT_EQ(triple_then_add_in_first_unit(d, x, 2.0f), expected(x, 2.0f));
  EXPECT_EQ(triple_then_add_in_second_unit(d, x, 3.0f), expected(x, 3.0f));
}

} // namespace
