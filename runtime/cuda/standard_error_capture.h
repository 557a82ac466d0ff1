// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The process's standard error, captured while a library call runs that reports some of its
// failures only there. nvJitLink's device linker is one: a declaration whose parameters differ
// from its definition's ("@E@error   : Prototype doesn't match for 'f' in ...") is printed
// and the link still succeeds, making a program that reads its arguments from the wrong
// places.
#pragma once

#include <mutex>
#include <string>
#include <vector>

namespace kernel::runtime::cuda {

/// While alive, file descriptor 2 is an anonymous temporary file. finish() (or the
/// destructor) puts the real standard error back, writes to it everything captured except
/// the errors in it, and returns those: what follows `error_prefix` in a line, or a line's
/// text from any of `error_starts` on (the same errors untagged, as other library versions
/// print them, and fatal ones). Output other threads wrote meanwhile is delayed (and lost if the
/// process dies before the capture ends, or where a write is under way as it ends: nothing
/// orders other threads' writes with the capture's end). Captures are serialized by a lock of their own;
/// where the file cannot be made, or standard error is closed, nothing is captured and
/// finish() returns nothing.
class standard_error_capture {
public:
  explicit standard_error_capture(std::string error_prefix, std::vector<std::string> error_starts = {});
  ~standard_error_capture();
  standard_error_capture(const standard_error_capture &) = delete;
  standard_error_capture &operator=(const standard_error_capture &) = delete;

  std::vector<std::string> finish();

private:
  void restore() noexcept;

  std::string prefix_;
  std::vector<std::string> starts_;
  std::unique_lock<std::mutex> lock_;
  int saved_ = -1; ///< the real standard error, while captured
  int file_ = -1;  ///< what fd 2 points at meanwhile
};

} // namespace kernel::runtime::cuda
