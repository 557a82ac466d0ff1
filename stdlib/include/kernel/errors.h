// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Exceptions thrown by ufuncs, kernels and the runtime. Every message names what failed (the
// ufunc or kernel and, where there is one, the argument) and what was expected.
#pragma once

#include <new>
#include <stdexcept>
#include <string>
#include <utility>

namespace kernel {

/// Base of every error the library throws.
class error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A call's arguments do not fit the ufunc or kernel: shapes, element types, aliasing.
class argument_error : public error {
public:
  /// `argument` is 1-based; 0 when the error is about the call as a whole.
  argument_error(std::string callee, int argument, const std::string &what)
      : error(format(callee, argument, what)), callee_(std::move(callee)), argument_(argument) {}

  /// The ufunc or kernel that was called.
  const std::string &callee() const noexcept { return callee_; }
  /// The 1-based position of the offending argument, 0 for the call as a whole.
  int argument() const noexcept { return argument_; }

private:
  static std::string format(const std::string &callee, int argument, const std::string &what) {
    std::string m = "'" + callee + "': ";
    if (argument > 0) m += "argument " + std::to_string(argument) + ": ";
    return m + what;
  }
  std::string callee_;
  int argument_;
};

/// The requested target cannot run here: no CUDA driver or GPU, or no GPU code was compiled.
class target_unavailable_error : public error {
public:
  using error::error;
};

/// A kernel run by the simulator failed one of its checks (an index out of bounds, threads
/// of a block at different barriers, a data race); the message names the kernel, the block
/// and the threads.
class simulator_error : public error {
public:
  using error::error;
};

/// Code run on the cpu or parallel target divided an integer by zero, or the most negative
/// value by -1 (the CPU traps on both; the simulator reports them as simulator_error, and a GPU
/// gives an undefined result). The message names the call. Objects the code was building
/// when it trapped are not destroyed.
class arithmetic_error : public error {
public:
  using error::error;
};

/// A CUDA driver, nvJitLink or NVRTC call failed; the message carries the call and its code.
/// Linking the user's device code failed: a function no input defines, an input for
/// another architecture, a .cu file NVRTC rejects.
class link_error : public error {
public:
  using error::error;
};

/// A CUDA-C device function of the Numba convention returned a non-zero status.
class device_function_error : public error {
public:
  device_function_error(const std::string &what, std::string function, int status)
      : error(what), function_(std::move(function)), status_(status) {}
  /// "int bar(int, int)", as declared with [[kernel::declare_device("numba")]].
  const std::string &function() const noexcept { return function_; }
  int status() const noexcept { return status_; }

private:
  std::string function_;
  int status_;
};

/// A host array found no room: the message names the call that allocated it, its shape and
/// bytes. A std::bad_alloc, as operator new's, so that code catching that sees it too.
class host_memory_error : public std::bad_alloc {
public:
  explicit host_memory_error(const std::string &what) : what_(what) {}
  const char *what() const noexcept override { return what_.what(); }

private:
  std::runtime_error what_; // copied without throwing, as an exception must be
};

class cuda_error : public error {
public:
  /// The driver's CUDA_ERROR_OUT_OF_MEMORY: an allocation found no room on the device (on the
  /// simulator, within KERNEL_SIMULATOR_MEMORY_MB when that is set).
  static constexpr int out_of_memory_code = 2;

  cuda_error(const std::string &what, int code) : error(what), code_(code) {}
  int code() const noexcept { return code_; }
  bool out_of_memory() const noexcept { return code_ == out_of_memory_code; }

private:
  int code_;
};

} // namespace kernel
