// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "settings/environment.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <string>

#include "kernel/errors.h"

namespace kernel::runtime {

std::optional<std::uint64_t> whole_number_setting(const char *name, std::uint64_t min, std::uint64_t max,
                                                  std::string_view meaning) {
  const char *text = std::getenv(name);
  if (!text || !*text) return std::nullopt;
  std::uint64_t value = 0;
  bool valid = true;
  for (const char *c = text; *c && valid; ++c) {
    const auto digit = static_cast<std::uint64_t>(*c - '0');
    valid = *c >= '0' && *c <= '9' && value <= (max - digit) / 10;
    if (valid) value = value * 10 + digit;
  }
  if (!valid || value < min)
    throw simulator_error(std::string(name) + " is '" + text + "': expected " + std::string(meaning) +
                          ", a whole number from " + std::to_string(min) + " to " + std::to_string(max));
  return value;
}

namespace {
constexpr std::array<std::string_view, 4> on_spellings = {"1", "true", "on", "yes"},
                                          off_spellings = {"0", "false", "off", "no"};

std::string lower_case(std::string_view text) {
  std::string value(text);
  std::transform(value.begin(), value.end(), value.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return value;
}
} // namespace

bool means_off(std::string_view value) {
  const std::string lower = lower_case(value);
  return std::find(off_spellings.begin(), off_spellings.end(), lower) != off_spellings.end();
}

std::optional<bool> switch_setting(const char *name, std::string_view meaning) {
  const char *text = std::getenv(name);
  if (!text || !*text) return std::nullopt;
  const std::string value = lower_case(text);
  if (std::find(on_spellings.begin(), on_spellings.end(), value) != on_spellings.end()) return true;
  if (means_off(value)) return false;
  throw error(std::string(name) + " is '" + text + "': expected 1 or 0 (or true/false, on/off, yes/no) to " +
              std::string(meaning));
}

} // namespace kernel::runtime
