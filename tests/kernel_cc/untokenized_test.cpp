// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// With the no_copts_tokenization feature a copt is one word, blanks and all, as cc_library
// takes it: "-DPAIR=1 + 2" defines PAIR as "1 + 2" (split, it would be -DPAIR=1 and two input
// files named + and 2, which the compile refuses).
#include <gtest/gtest.h>

static_assert(PAIR == 3, "the copt '-DPAIR=1 + 2' reached the compiler as one word");

TEST(Copts, OneWordEachWithoutTokenization) { EXPECT_EQ((PAIR) * 2, 6); }
