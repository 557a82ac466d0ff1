// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A dlopen'ed shared library, closed when the owner goes away.
#pragma once

#include <initializer_list>
#include <span>
#include <string>
#include <utility>

namespace kernel::runtime {

class shared_library {
public:
  shared_library() = default;
  /// Opens the first of `names` that loads; on failure `error()` says why for each, in
  /// order, separated by "; ".
  explicit shared_library(std::initializer_list<const char *> names);
  explicit shared_library(std::span<const std::string> names);
  shared_library(shared_library &&other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)), error_(std::move(other.error_)),
        loaded_until_exit_(other.loaded_until_exit_) {}
  shared_library &operator=(shared_library &&other) noexcept;
  shared_library(const shared_library &) = delete;
  shared_library &operator=(const shared_library &) = delete;
  ~shared_library();

  explicit operator bool() const noexcept { return handle_ != nullptr; }
  const std::string &error() const noexcept { return error_; }

  /// Never closes the library: for one that carries a runtime of its own (a static CUDA
  /// runtime), whose exit handlers must run at the process's exit, not at a dlclose during
  /// static destruction.
  void keep_loaded_until_exit() noexcept { loaded_until_exit_ = true; }

  /// The address of `name`, or nullptr.
  void *symbol(const char *name) const noexcept;

  /// Binds `fn` to symbol `name`; false when the library lacks it.
  template <class Fn> bool bind(Fn *&fn, const char *name) const noexcept {
    fn = reinterpret_cast<Fn *>(symbol(name));
    return fn != nullptr;
  }

private:
  /// Tries `name`; on failure appends why to error().
  bool open(const char *name);

  void *handle_ = nullptr;
  std::string error_;
  bool loaded_until_exit_ = false;
};

} // namespace kernel::runtime
