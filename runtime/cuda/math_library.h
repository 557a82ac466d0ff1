// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The toolkit's math libraries (cuFFT, cuBLAS, cuRAND, cuSPARSE) as the runtime loads them:
// on first use, so that a program that never calls one never loads it; from the path in the
// library's own environment variable alone when that is set, else as toolkit.h finds
// toolkit libraries. A library that cannot be loaded, or lacks a function, is a
// target_unavailable_error naming the library, every place it was looked for, and the fix.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "cuda/shared_library.h"
#include "cuda/toolkit.h"

namespace kernel::runtime::cuda {

/// Which library, and where to look for it.
struct math_library_spec {
  const char *title;    ///< "cuBLAS"
  const char *soname;   ///< "libcublas.so.13"
  const char *variable; ///< "KERNEL_CUBLAS_LIBRARY": a path that replaces the search
};

/// The environment settings that decide where `spec`'s library is looked for: its own
/// variable, then the toolkit roots' (null where unset). Reading them allocates nothing.
using math_library_settings = std::array<const char *, 1 + toolkit_root_variables.size()>;
math_library_settings current_math_library_settings(const math_library_spec &spec) noexcept;

/// A copy of math_library_settings that outlives the environment's strings.
class kept_math_library_settings {
public:
  bool matches(const math_library_settings &now) const noexcept;
  void keep(const math_library_settings &now);

private:
  std::array<std::optional<std::string>, std::tuple_size_v<math_library_settings>> values_;
  bool kept_ = false;
};

/// Where the settings of a library come from in the environment, in a few words: its array,
/// its length, its last entry, and the slot and entry of each of the library's variables. When
/// setenv, unsetenv or putenv set or remove one of those variables, or add or remove any
/// variable, one of these changes (a new value is a new entry in the variable's slot, a new
/// variable is a new last entry, a removal moves the entries after it), so a stamp that is
/// still current means the settings were not set since and need not be read again. Checking
/// one reads a few words, where each getenv, and a stamp of every entry, scans the whole
/// environment: hundreds of instructions per library call in a large one. Another variable
/// given a new value leaves the stamp current (unless its entry is the last); so does a
/// string given to putenv and then changed in place (see putenv(3)), which is seen when a
/// later call moves its entry.
class settings_stamp {
public:
  static settings_stamp of(const math_library_spec &spec) noexcept;
  bool current() const noexcept;

private:
  static constexpr std::size_t variables = std::tuple_size_v<math_library_settings>;
  char **array_ = nullptr;
  std::size_t entries_ = 0;
  const char *last_ = nullptr;
  std::array<std::ptrdiff_t, variables> slot_{}; // -1 where the variable is unset
  std::array<const char *, variables> entry_{};
  bool taken_ = false; // a default stamp is never current
};

/// Where `spec`'s library is looked for under the current environment, in order.
std::vector<std::string> math_library_candidates(const math_library_spec &spec);

/// "a, b, c".
std::string joined_names(const std::vector<std::string> &names);

/// Throws the target_unavailable_error for `spec`'s library, which could not be loaded from
/// `where` because of `why`; the message begins with `needs` ("fft2: transforms of CUDA
/// memory need").
[[noreturn]] void throw_missing_math_library(const math_library_spec &spec, const std::string &needs,
                                             const std::vector<std::string> &where, const std::string &why);

/// A loaded library and its function table `Functions`, a struct of function pointers with
/// `bool bind(const shared_library &)`, which binds them all or returns false.
template <class Functions> struct math_library : Functions {
  shared_library lib;
  std::string failure; ///< why it could not be used; empty when it can
};

/// What load_math_library keeps per function table: one per library, whatever the calls
/// that ask for it.
template <class Functions> struct loaded_math_libraries {
  std::mutex lock;
  std::map<std::vector<std::string>, std::shared_ptr<math_library<Functions>>> by_candidates;
  kept_math_library_settings last_settings;
  settings_stamp last_stamp;
  std::shared_ptr<math_library<Functions>> last;

  static loaded_math_libraries &instance() {
    static loaded_math_libraries table;
    return table;
  }
};

/// `spec`'s library under the current setting of its variable, or the error above, whose
/// message begins with `needs()`. Each setting is tried once per process, and what was
/// loaded stays loaded: handles and plans keep the library they were made by (a
/// shared_ptr), also when they outlive this table. Every library call asks for its library
/// here, so the common case (the settings of the last call, which loaded) compares the
/// environment's strings with the kept ones and builds no string: a lookup by the candidate
/// paths took a microsecond or more of host time per FFT or product.
template <class Functions, class Needs>
  requires std::is_invocable_r_v<std::string, const Needs &>
std::shared_ptr<const math_library<Functions>> load_math_library(const math_library_spec &spec, const Needs &needs) {
  loaded_math_libraries<Functions> &table = loaded_math_libraries<Functions>::instance();
  {
    std::lock_guard guard(table.lock);
    if (table.last && table.last_stamp.current()) return table.last;
  }
  const settings_stamp stamp = settings_stamp::of(spec);
  const math_library_settings now = current_math_library_settings(spec);
  // Kept under `stamp` only if the environment did not change while it was read (another
  // thread's setenv): else the next call reads it again.
  const bool settled = stamp.current();
  {
    std::lock_guard guard(table.lock);
    if (table.last && table.last_settings.matches(now)) {
      if (settled) table.last_stamp = stamp;
      return table.last;
    }
  }
  const std::vector<std::string> where = math_library_candidates(spec);
  std::lock_guard guard(table.lock);
  std::shared_ptr<math_library<Functions>> &lib = table.by_candidates[where];
  if (!lib) {
    lib = std::make_shared<math_library<Functions>>();
    lib->lib = shared_library(where);
    if (!lib->lib)
      lib->failure = lib->lib.error();
    else if (!lib->bind(lib->lib))
      lib->failure = "the library loaded from " + joined_names(where) + " lacks " + spec.title + "'s functions";
  }
  if (!lib->failure.empty()) throw_missing_math_library(spec, needs(), where, lib->failure);
  table.last_settings.keep(now);
  table.last_stamp = settled ? stamp : settings_stamp{};
  table.last = lib;
  return lib;
}

} // namespace kernel::runtime::cuda
