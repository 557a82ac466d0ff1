// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The CUDA driver API, loaded at run time. Programs must start, and run their CPU targets,
// on machines without an NVIDIA driver, so nothing links libcuda directly.
//
// Functions are resolved through cuGetProcAddress for the CUDA version of the headers we
// compile against, which picks the right versioned entry point (cuMemAlloc_v2 ...); the
// members carry the API's names so that calls read like the CUDA documentation.
#pragma once

#include <cuda.h>

#include <string>
#include <string_view>

#include "cuda/shared_library.h"
#include "device/immortal.h"

namespace kernel::runtime::cuda {

// Every driver function the runtime uses.
#define KERNEL_CUDA_DRIVER_FUNCTIONS(X)                                                                                \
  X(cuInit)                                                                                                            \
  X(cuDriverGetVersion)                                                                                                \
  X(cuGetErrorName)                                                                                                    \
  X(cuGetErrorString)                                                                                                  \
  X(cuDeviceGetCount)                                                                                                  \
  X(cuDeviceGet)                                                                                                       \
  X(cuDeviceGetName)                                                                                                   \
  X(cuDeviceGetAttribute)                                                                                              \
  X(cuDeviceTotalMem)                                                                                                  \
  X(cuDevicePrimaryCtxRetain)                                                                                          \
  X(cuDevicePrimaryCtxRelease)                                                                                         \
  X(cuDeviceGetDefaultMemPool)                                                                                         \
  X(cuMemPoolSetAttribute)                                                                                             \
  X(cuCtxSetCurrent)                                                                                                   \
  X(cuCtxSynchronize)                                                                                                  \
  X(cuMemAllocAsync)                                                                                                   \
  X(cuMemFreeAsync)                                                                                                    \
  X(cuMemHostAlloc)                                                                                                    \
  X(cuMemFreeHost)                                                                                                     \
  X(cuMemcpyHtoDAsync)                                                                                                 \
  X(cuMemcpyDtoHAsync)                                                                                                 \
  X(cuMemcpyDtoDAsync)                                                                                                 \
  X(cuMemsetD8Async)                                                                                                   \
  X(cuStreamCreate)                                                                                                    \
  X(cuStreamDestroy)                                                                                                   \
  X(cuStreamSynchronize)                                                                                               \
  X(cuStreamQuery)                                                                                                     \
  X(cuStreamWaitEvent)                                                                                                 \
  X(cuLaunchHostFunc)                                                                                                  \
  X(cuEventCreate)                                                                                                     \
  X(cuEventDestroy)                                                                                                    \
  X(cuEventRecord)                                                                                                     \
  X(cuEventSynchronize)                                                                                                \
  X(cuEventQuery)                                                                                                      \
  X(cuEventElapsedTime)                                                                                                \
  X(cuModuleLoadData)                                                                                                  \
  X(cuModuleUnload)                                                                                                    \
  X(cuModuleGetFunction)                                                                                               \
  X(cuModuleGetGlobal)                                                                                                 \
  X(cuFuncGetAttribute)                                                                                                \
  X(cuFuncSetAttribute)                                                                                                \
  X(cuOccupancyMaxPotentialBlockSize)                                                                                  \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                                                                       \
  X(cuLaunchKernel)

class driver {
public:
  /// The process's driver, loaded and initialised (cuInit) on first use.
  static const driver &get();

  bool available() const noexcept { return available_; }
  /// Why the driver cannot be used ("libcuda.so.1: cannot open shared object file ...").
  const std::string &unavailable_reason() const noexcept { return reason_; }
  int version() const noexcept { return version_; }
  int device_count() const noexcept { return device_count_; }

  /// "CUDA_ERROR_NO_DEVICE (100)".
  std::string error_name(CUresult code) const;

  /// Throws cuda_error("<call> failed: <name>: <description> (<context>)") unless `code`
  /// is CUDA_SUCCESS.
  void check(CUresult code, std::string_view call, std::string_view context = {}) const;

#define KERNEL_CUDA_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  KERNEL_CUDA_DRIVER_FUNCTIONS(KERNEL_CUDA_DRIVER_MEMBER)
#undef KERNEL_CUDA_DRIVER_MEMBER

private:
  friend class immortal<const driver>;
  driver();
  bool bind_all(std::string &missing);

  shared_library lib_;
  bool available_ = false;
  std::string reason_;
  int version_ = 0;
  int device_count_ = 0;
};

} // namespace kernel::runtime::cuda
