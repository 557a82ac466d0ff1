// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cuda/math_library.h"

#include <cstdlib>
#include <string_view>
#include <unistd.h>

#include "cuda/toolkit.h"
#include "kernel/errors.h"

namespace kernel::runtime::cuda {

environment_stamp environment_stamp::now() noexcept {
  environment_stamp s;
  s.array = environ;
  if (!environ) return s;
  for (char **e = environ; *e; ++e) {
    // Position-dependent, so that two entries trading places also change it.
    s.folded = (s.folded * 31) ^ reinterpret_cast<std::uintptr_t>(*e);
    ++s.entries;
  }
  return s;
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
