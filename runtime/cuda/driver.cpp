#include "cuda/driver.h"

namespace kernel::runtime::cuda {

const driver &driver::get() {
  static const driver d;
  return d;
}

driver::driver() : lib_({"libcuda.so.1", "libcuda.so"}) {
  if (!lib_) {
    reason_ = "the CUDA driver could not be loaded (" + lib_.error() + ")";
    return;
  }
  const bool bound = lib_.bind(cuInit, "cuInit") && lib_.bind(cuDriverGetVersion, "cuDriverGetVersion") &&
                     lib_.bind(cuDeviceGetCount, "cuDeviceGetCount") &&
                     lib_.bind(cuGetErrorName, "cuGetErrorName") &&
                     lib_.bind(cuGetErrorString, "cuGetErrorString");
  if (!bound) {
    reason_ = "the loaded libcuda lacks basic driver API functions; is it a CUDA driver?";
    return;
  }
  if (CUresult r = cuInit(0); r != CUDA_SUCCESS) {
    reason_ = "cuInit failed with " + error_name(r);
    if (r == CUDA_ERROR_STUB_LIBRARY)
      reason_ += ": the toolkit's stub libcuda was found instead of an NVIDIA driver";
    else if (r == CUDA_ERROR_NO_DEVICE)
      reason_ += ": no CUDA GPU is visible to this process";
    return;
  }
  cuDriverGetVersion(&version_);
  if (CUresult r = cuDeviceGetCount(&device_count_); r != CUDA_SUCCESS || device_count_ == 0) {
    reason_ = "no CUDA GPU is visible to this process";
    return;
  }
  available_ = true;
}

std::string driver::error_name(CUresult code) const {
  const char *name = nullptr;
  if (cuGetErrorName && cuGetErrorName(code, &name) == CUDA_SUCCESS && name)
    return std::string(name) + " (" + std::to_string(static_cast<int>(code)) + ")";
  return "CUDA error " + std::to_string(static_cast<int>(code));
}

} // namespace kernel::runtime::cuda
