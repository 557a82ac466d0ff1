// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// KERNEL_* settings: each kind read by one rule, a mistyped value an error naming it rather
// than silently on (KERNEL_ENABLE_SIMULATOR=false ran on the simulator) or off.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "kernel/errors.h"
#include "scoped_environment.h"
#include "settings/environment.h"

namespace {

using kernel::runtime::switch_setting;
using kernel::runtime::whole_number_setting;

constexpr const char *variable = "KERNEL_SETTINGS_TEST_VALUE";

std::string error_of(auto read) {
  try {
    read();
  } catch (const kernel::error &e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Settings, SwitchesTakeTheUsualSpellingsAndNothingElse) {
  kernel_test::scoped_environment env(variable, nullptr);
  EXPECT_EQ(switch_setting(variable, "test"), std::nullopt);
  env.set("");
  EXPECT_EQ(switch_setting(variable, "test"), std::nullopt);
  for (const char *on : {"1", "true", "TRUE", "On", "yes"}) {
    env.set(on);
    EXPECT_EQ(switch_setting(variable, "test"), true) << on;
  }
  for (const char *off : {"0", "false", "False", "OFF", "no"}) {
    env.set(off);
    EXPECT_EQ(switch_setting(variable, "test"), false) << off;
  }
  for (const char *wrong : {"00", "2", "enable", " 1", "1 ", "tru", "-1"}) {
    env.set(wrong);
    EXPECT_EQ(error_of([] { switch_setting(variable, "run the test"); }),
              std::string(variable) + " is '" + wrong +
                  "': expected 1 or 0 (or true/false, on/off, yes/no) to run the test");
  }
}

// (The simulator's numeric settings: their errors are simulator_errors, a kind of kernel::error.)
TEST(Settings, WholeNumbersAreDigitsWithinTheirRange) {
  kernel_test::scoped_environment env(variable, "64");
  EXPECT_EQ(whole_number_setting(variable, 16, 1024, "a size"), 64u);
  for (const char *wrong : {"8", "2048", "0x40", "+64", "64k", "-1", "99999999999999999999999"}) {
    env.set(wrong);
    EXPECT_EQ(error_of([] { whole_number_setting(variable, 16, 1024, "a size"); }),
              std::string(variable) + " is '" + wrong + "': expected a size, a whole number from 16 to 1024");
  }
}

} // namespace
