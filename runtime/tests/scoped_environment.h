// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A variable of the environment set for a scope and put back as it was after it, also when an
// assertion returns early or the test throws: a test's setting must not leak into the tests
// after it, which would then test something else.
#pragma once

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>

namespace kernel_test {

class scoped_environment {
public:
  /// Sets `name` to `value`, or removes it where `value` is null.
  scoped_environment(const char *name, const char *value) : name_(name) {
    if (const char *before = std::getenv(name)) before_ = before;
    set(value);
  }
  scoped_environment(const scoped_environment &) = delete;
  scoped_environment &operator=(const scoped_environment &) = delete;
  ~scoped_environment() {
    if (before_)
      ::setenv(name_.c_str(), before_->c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }

  /// Another value for the rest of the scope (null: removed).
  void set(const char *value) {
    if ((value ? ::setenv(name_.c_str(), value, 1) : ::unsetenv(name_.c_str())) != 0)
      throw std::runtime_error("could not set the environment variable " + name_);
  }

private:
  std::string name_;
  std::optional<std::string> before_;
};

} // namespace kernel_test
