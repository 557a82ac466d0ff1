// The CUDA driver API, loaded at run time. Programs must start, and run their CPU targets,
// on machines without an NVIDIA driver, so nothing links libcuda directly.
#pragma once

#include <cuda.h>

#include <string>

#include "cuda/shared_library.h"

namespace kernel::runtime::cuda {

class driver {
public:
  /// The process's driver, loaded and initialised (cuInit) on first use.
  static const driver &get();

  bool available() const noexcept { return available_; }
  /// Why the driver cannot be used ("libcuda.so.1: cannot open shared object file ...").
  const std::string &unavailable_reason() const noexcept { return reason_; }
  int version() const noexcept { return version_; }
  int device_count() const noexcept { return device_count_; }

  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDriverGetVersion)(int *) = nullptr;
  CUresult (*cuDeviceGetCount)(int *) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char **) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char **) = nullptr;

  /// "CUDA_ERROR_NO_DEVICE (100)".
  std::string error_name(CUresult code) const;

private:
  driver();
  shared_library lib_;
  bool available_ = false;
  std::string reason_;
  int version_ = 0;
  int device_count_ = 0;
};

} // namespace kernel::runtime::cuda
