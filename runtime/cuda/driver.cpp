// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cuda/driver.h"
#include "device/immortal.h"

#include "kernel/errors.h"

namespace kernel::runtime::cuda {

const driver &driver::get() {
  // Never unloaded: device memory in static objects is freed through it while the program exits.
  static immortal<const driver> d;
  return d.get();
}

#define KERNEL_STRINGIFY_EXPANDED(x) KERNEL_STRINGIFY(x)
#define KERNEL_STRINGIFY(x) #x

bool driver::bind_all(std::string &missing) {
  // cuGetProcAddress (CUDA 12+) returns the entry point matching the API version of our
  // headers; older drivers are found by the versioned symbol names the headers use.
  using get_proc_t = CUresult (*)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
  get_proc_t get_proc = nullptr;
  lib_.bind(get_proc, "cuGetProcAddress_v2");
  auto resolve = [&](auto &fn, const char *base, const char *versioned) {
    void *p = nullptr;
    CUdriverProcAddressQueryResult status{};
    if (get_proc && get_proc(base, &p, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &status) == CUDA_SUCCESS &&
        status == CU_GET_PROC_ADDRESS_SUCCESS && p) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
      return;
    }
    if (!lib_.bind(fn, versioned)) missing += (missing.empty() ? "" : ", ") + std::string(base);
  };
#define KERNEL_CUDA_DRIVER_BIND(name) resolve(name, #name, KERNEL_STRINGIFY_EXPANDED(name));
  KERNEL_CUDA_DRIVER_FUNCTIONS(KERNEL_CUDA_DRIVER_BIND)
#undef KERNEL_CUDA_DRIVER_BIND
  return missing.empty();
}

driver::driver() : lib_({"libcuda.so.1", "libcuda.so"}) {
  if (!lib_) {
    reason_ = "the CUDA driver could not be loaded (" + lib_.error() + ")";
    return;
  }
  // cuInit first, by symbol: the stub library of the toolkit has it and answers with
  // CUDA_ERROR_STUB_LIBRARY, which says more than any missing symbol would.
  CUresult (*init)(unsigned) = nullptr;
  if (!lib_.bind(init, "cuInit")) {
    reason_ = "the loaded libcuda has no cuInit; it is not a CUDA driver";
    return;
  }
  cuGetErrorName = nullptr;
  lib_.bind(cuGetErrorName, "cuGetErrorName");
  if (CUresult r = init(0); r != CUDA_SUCCESS) {
    reason_ = "cuInit failed with " + error_name(r);
    if (r == CUDA_ERROR_STUB_LIBRARY)
      reason_ += ": the toolkit's stub libcuda was found instead of an NVIDIA driver";
    else if (r == CUDA_ERROR_NO_DEVICE)
      reason_ += ": no CUDA GPU is visible to this process";
    return;
  }
  std::string missing;
  if (!bind_all(missing)) {
    reason_ = "the CUDA driver is too old for this runtime: it lacks " + missing + " (CUDA 12 or newer is needed)";
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

void driver::check(CUresult code, std::string_view call, std::string_view context) const {
  if (code == CUDA_SUCCESS) return;
  std::string what = std::string(call) + " failed: " + error_name(code);
  const char *description = nullptr;
  if (cuGetErrorString && cuGetErrorString(code, &description) == CUDA_SUCCESS && description)
    what += ": " + std::string(description);
  if (!context.empty()) what += " (" + std::string(context) + ")";
  throw cuda_error(what, static_cast<int>(code));
}

} // namespace kernel::runtime::cuda
