// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// NVRTC, loaded at run time: compiles the user's .cu device code to relocatable PTX for
// the GPU in hand, so that nvJitLink can link it with a kernel module. Works without a GPU.
#pragma once

#include <memory>
#include <string>

#include "cuda/shared_library.h"

namespace kernel::runtime::cuda {

class nvrtc {
public:
  static const nvrtc &get();

  bool available() const noexcept { return available_; }
  const std::string &unavailable_reason() const noexcept { return reason_; }
  /// "13.0": part of the cache key of modules linked with NVRTC output.
  const std::string &version() const noexcept { return version_; }

  /// PTX for compute_<arch> with relocatable device code (extern functions are kept and
  /// resolvable). Throws kernel::link_error with NVRTC's log, naming `name`, on failure.
  std::string compile(const std::string &source, const std::string &name, int arch) const;

  ~nvrtc();
  nvrtc(const nvrtc &) = delete;
  nvrtc &operator=(const nvrtc &) = delete;

private:
  nvrtc();
  shared_library lib_;
  bool available_ = false;
  std::string reason_, version_;
  struct api;
  std::unique_ptr<api> api_;
};

} // namespace kernel::runtime::cuda
