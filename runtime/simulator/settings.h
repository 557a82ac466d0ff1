// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The simulator's numeric settings from the environment (KERNEL_SIMULATOR_STACK_KB,
// KERNEL_SIMULATOR_MEMORY_MB), read by one rule.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kernel::runtime::sim {

/// The environment variable `name` as a whole number from `min` to `max`: nullopt where it is
/// unset or empty; a simulator_error naming the variable, its value, `meaning` ("each simulated
/// thread's stack in KiB") and the range where it is anything else. Digits only: strtoull
/// would take spaces, a sign and "0x", and a number too large to hold would wrap into a small
/// one.
std::optional<std::uint64_t> whole_number_setting(const char *name, std::uint64_t min, std::uint64_t max,
                                                  std::string_view meaning);

} // namespace kernel::runtime::sim
