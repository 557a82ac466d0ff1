// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cuda/math_library.h"

#include <cstdlib>
#include <string_view>
#include <unistd.h>

#include "cuda/toolkit.h"
#include "kernel/errors.h"

namespace kernel::runtime::cuda {

settings_stamp settings_stamp::of(const math_library_spec &spec) noexcept {
  settings_stamp s;
  s.taken_ = true;
  s.array_ = environ;
  s.slot_.fill(-1);
  if (!environ) return s;
  std::array<std::string_view, variables> names{spec.variable};
  for (std::size_t i = 0; i < toolkit_root_variables.size(); ++i) names[i + 1] = toolkit_root_variables[i];
  for (char **e = environ; *e; ++e, ++s.entries_) {
    const std::string_view entry(*e);
    for (std::size_t k = 0; k < variables; ++k)
      // The first entry of the name, as getenv finds it.
      if (s.slot_[k] < 0 && entry.size() > names[k].size() && entry.starts_with(names[k]) &&
          entry[names[k].size()] == '=') {
        s.slot_[k] = static_cast<std::ptrdiff_t>(s.entries_);
        s.entry_[k] = *e;
      }
  }
  s.last_ = s.entries_ > 0 ? environ[s.entries_ - 1] : nullptr;
  return s;
}

bool settings_stamp::current() const noexcept {
  if (!taken_ || environ != array_) return false;
  if (!array_) return true; // still no environment
  // The same length (read only within it, or at its end), the same last entry, and each
  // variable's entry where it was.
  if (entries_ > 0 && array_[entries_ - 1] != last_) return false;
  if (array_[entries_] != nullptr) return false;
  for (std::size_t k = 0; k < variables; ++k)
    if (slot_[k] >= 0 && array_[slot_[k]] != entry_[k]) return false;
  return true;
}

math_library_settings current_math_library_settings(const math_library_spec &spec) noexcept {
  math_library_settings now{};
  now[0] = std::getenv(spec.variable);
  for (std::size_t i = 0; i < toolkit_root_variables.size(); ++i) now[i + 1] = std::getenv(toolkit_root_variables[i]);
  return now;
}

bool kept_math_library_settings::matches(const math_library_settings &now) const noexcept {
  if (!kept_) return false;
  for (std::size_t i = 0; i < now.size(); ++i) {
    const std::optional<std::string> &kept = values_[i];
    if (!now[i] ? kept.has_value() : !kept || *kept != now[i]) return false;
  }
  return true;
}

void kept_math_library_settings::keep(const math_library_settings &now) {
  for (std::size_t i = 0; i < now.size(); ++i) values_[i] = now[i] ? std::optional<std::string>(now[i]) : std::nullopt;
  kept_ = true;
}

std::vector<std::string> math_library_candidates(const math_library_spec &spec) {
  const char *chosen = std::getenv(spec.variable);
  if (chosen && *chosen) return {chosen};
  return toolkit_library_candidates(spec.soname);
}

std::string joined_names(const std::vector<std::string> &names) {
  std::string s;
  for (const std::string &n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

void throw_missing_math_library(const math_library_spec &spec, const std::string &needs,
                                const std::vector<std::string> &where, const std::string &why) {
  const std::string_view soname(spec.soname);
  const std::string_view stem = soname.substr(0, soname.find(".so"));
  throw target_unavailable_error(needs + " " + spec.title + ", which could not be loaded from " + joined_names(where) +
                                 " (" + why + "); install the CUDA toolkit's " + std::string(stem) + " or set " +
                                 spec.variable + " to its path");
}

} // namespace kernel::runtime::cuda
