// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// nvJitLink, loaded at run time: links generated PTX, and the user's device code, into a
// cubin for the architecture of the GPU in hand. Works without a GPU, so CI links every
// generated module too.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cuda/shared_library.h"
#include "kernel/detail/link_inputs.h"

namespace kernel::runtime::cuda {

/// How nvJitLink's error log names a function no input defines ("error   : Undefined
/// reference to 'bar' in '<input>'"): the runtime finds the function's name after it to
/// explain the failure. Pinned by runtime/tests:nvjitlink_log_test.
inline constexpr std::string_view undefined_reference_marker = "Undefined reference to '";

/// How nvJitLink's device linker marks the errors it prints on standard error, and how it
/// words a declaration that differs from its definition ("Prototype doesn't match for 'bar'
/// in 'a.ptx', first defined in 'lib.ptx'", the last input the definition's). Pinned by
/// runtime/tests:nvjitlink_log_test.
inline constexpr std::string_view linker_error_prefix = "@E@";
/// The same errors as the nvJitLink of another CUDA 13 release prints them, untagged
/// ("error   : Prototype doesn't match ...": seen on an H200 machine, where the tagged form
/// alone let the link pass).
inline constexpr std::string_view linker_error_start = "error   : ";
/// How it prints a file it cannot read at all ("fatal   : unexpected archive format"): on
/// standard error only, while its log says "library processing".
inline constexpr std::string_view linker_fatal_start = "fatal   : ";
inline constexpr std::string_view prototype_mismatch_marker = "Prototype doesn't match for '";
inline constexpr std::string_view prototype_definition_marker = "first defined in '";
/// How it words a function two inputs define ("Multiple definition of 'bar' in 'b.ptx', first
/// defined in 'a.ptx'"). Pinned by runtime/tests:nvjitlink_log_test.
inline constexpr std::string_view multiple_definition_marker = "Multiple definition of '";
/// How it words a function the caller declares as a device function and an input defines as a
/// kernel ("Function 'bar' not declared __global__ in all source files"): the name is quoted
/// after kernel_definition_start, the sentence ends with kernel_definition_end. Pinned by
/// runtime/tests:nvjitlink_log_test.
inline constexpr std::string_view kernel_definition_start = "Function '";
inline constexpr std::string_view kernel_definition_end = "' not declared __global__ in all source files";
/// How it words a name one input declares as a function and another as a variable, where it
/// reports it rather than crashing ("Memory space doesn't match for 'bar' in 'a.ptx', first
/// specified in 'b.ltoir'"). Pinned by runtime/tests:nvjitlink_log_test.
inline constexpr std::string_view memory_space_marker = "Memory space doesn't match for '";

struct link_input {
  /// Anything but link_format::cuda, which NVRTC compiles to PTX first.
  kernel::detail::link_format kind;
  std::string name;       ///< shown in errors: a file name, or "<kernel module 1a2b...>"
  std::string_view bytes; ///< PTX text or binary contents
};

class nvjitlink {
public:
  /// The process's nvJitLink, loaded on first use.
  static const nvjitlink &get();

  bool available() const noexcept { return available_; }
  const std::string &unavailable_reason() const noexcept { return reason_; }
  /// "13.0", as the library reports it.
  const std::string &version() const noexcept { return version_; }

  /// Which nvJitLink this process links with, for the cache key (another version makes
  /// other code), without loading it: the library file that get() loads, its size and its
  /// modification time; or, where the file is only found by the dynamic loader, the
  /// version of the loaded library. Loading nvJitLink (100 MB) costs more than reading a
  /// cached cubin, so a cache hit must not need it.
  static const std::string &identity();

  /// Links `inputs` into a cubin for sm_<arch>. Throws cuda_error with nvJitLink's log,
  /// prefixed by `what` (the kernel or module being built), when linking fails, and when
  /// it succeeds but printed errors (see standard_error_capture.h).
  std::vector<char> link(int arch, std::span<const link_input> inputs, std::string_view what,
                         std::span<const std::string> options = {}) const;

  ~nvjitlink();
  nvjitlink(const nvjitlink &) = delete;
  nvjitlink &operator=(const nvjitlink &) = delete;

private:
  nvjitlink();
  std::vector<char> link_on_this_thread(int arch, std::span<const link_input> inputs, std::string_view what,
                                        std::span<const std::string> options) const;

  shared_library lib_;
  bool available_ = false;
  std::string reason_;
  std::string version_;

  // The function table, defined in the .cpp so that this header needs no nvJitLink.h.
  struct api;
  std::unique_ptr<api> api_;
};

} // namespace kernel::runtime::cuda
