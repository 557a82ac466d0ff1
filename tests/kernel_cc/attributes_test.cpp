// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "scale.h" // found through the library's includes

#include <gtest/gtest.h>

#include <string_view>

static_assert(SCALE_FACTOR == 3, "a library's defines reach its users");
#ifdef SCALE_LIBRARY_ONLY
#error "a library's local_defines reached its users"
#endif
// Shell quoting: one word each, the quotes that make them strings kept.
static_assert(std::string_view(TWO_WORDS) == "two words");
static_assert(std::string_view(TEST_SOURCE).ends_with("tests/kernel_cc/attributes_test.cpp"),
              "$(location) in copts");
#define KERNEL_CC_TEST_STRING(x) #x
#define KERNEL_CC_TEST_NAME(x) KERNEL_CC_TEST_STRING(x)
static_assert(std::string_view(KERNEL_CC_TEST_NAME(BUILD_MODE)) == "fastbuild" ||
                  std::string_view(KERNEL_CC_TEST_NAME(BUILD_MODE)) == "opt" ||
                  std::string_view(KERNEL_CC_TEST_NAME(BUILD_MODE)) == "dbg",
              "Make variables in copts");

TEST(KernelCcAttributes, TheLibrarysUfuncRunsOnEveryTarget) {
  const std::vector<float> x = {1, 2, 3, -4};
  for (kernel::target where : {kernel::target::cpu, kernel::target::parallel, kernel::target::simulator})
    EXPECT_EQ(scaled(x, where), (std::vector<float>{3, 6, 9, -12}));
}
