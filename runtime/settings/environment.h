// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The runtime's settings from the environment (KERNEL_SIMULATOR_STACK_KB, KERNEL_CUB, ...),
// each kind read by one rule, so that a mistyped value is an error rather than the opposite
// of what was meant.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kernel::runtime {

/// The environment variable `name` as a whole number from `min` to `max`: nullopt where it is
/// unset or empty; a kernel::simulator_error (the numeric settings are the simulator's) naming
/// the variable, its value, `meaning` ("each simulated thread's stack in KiB") and the range
/// where it is anything else. Digits only: strtoull
/// would take spaces, a sign and "0x", and a number too large to hold would wrap into a small
/// one.
std::optional<std::uint64_t> whole_number_setting(const char *name, std::uint64_t min, std::uint64_t max,
                                                  std::string_view meaning);

/// The environment variable `name` as a switch: 1, true, on or yes (in any case) is true; 0,
/// false, off or no is false; unset or empty is nullopt; anything else is a kernel::error
/// naming the variable, its value and `meaning` ("run the simulator's race checks").
std::optional<bool> switch_setting(const char *name, std::string_view meaning);

/// Whether `value` is one of the switches' spellings of off (0, false, off or no, in any case):
/// for settings that are a value or off, as KERNEL_CACHE_DIR.
bool means_off(std::string_view value);

} // namespace kernel::runtime
