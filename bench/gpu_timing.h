// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the GPU benchmarks share: the few driver calls their CUDA-C baselines need (from the
// driver the runtime already loaded), and timing on the GPU (events) and on the host.
#pragma once

#include <kernel/kernel.h>

#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>

namespace bench {

/// Functions of a shared library this process has already loaded (the runtime loads the
/// driver and the math libraries; a baseline then calls the same ones directly).
class loaded_library {
public:
  loaded_library(const char *soname, const char *what) : lib_(dlopen(soname, RTLD_NOW | RTLD_NOLOAD)), what_(what) {}
  template <class F> F get(const char *name) const {
    void *p = lib_ ? dlsym(lib_, name) : nullptr;
    if (!p) throw std::runtime_error(std::string(what_) + " function " + name + " not found");
    return reinterpret_cast<F>(p);
  }

private:
  void *lib_;
  const char *what_;
};

struct driver : loaded_library {
  driver() : loaded_library("libcuda.so.1", "driver") {}
  decltype(&::cuDevicePrimaryCtxRetain) retain = get<decltype(&::cuDevicePrimaryCtxRetain)>("cuDevicePrimaryCtxRetain");
  decltype(&::cuCtxSetCurrent) set_current = get<decltype(&::cuCtxSetCurrent)>("cuCtxSetCurrent");
  decltype(&::cuModuleLoadData) load = get<decltype(&::cuModuleLoadData)>("cuModuleLoadData");
  decltype(&::cuModuleGetFunction) function = get<decltype(&::cuModuleGetFunction)>("cuModuleGetFunction");
  decltype(&::cuLaunchKernel) launch = get<decltype(&::cuLaunchKernel)>("cuLaunchKernel");
  decltype(&::cuMemcpyDtoDAsync) copy = get<decltype(&::cuMemcpyDtoDAsync)>("cuMemcpyDtoDAsync_v2");
  decltype(&::cuMemcpyDtoHAsync) copy_to_host = get<decltype(&::cuMemcpyDtoHAsync)>("cuMemcpyDtoHAsync_v2");
  decltype(&::cuMemsetD8Async) memset = get<decltype(&::cuMemsetD8Async)>("cuMemsetD8Async");
};

/// The first CUDA device, or nothing, having printed "no GPU" and why, without one.
inline std::optional<kernel::device> cuda_device() {
  try {
    return kernel::device::cuda();
  } catch (const kernel::target_unavailable_error &e) {
    std::printf("no GPU: %s\n", e.what());
    return std::nullopt;
  }
}

inline void check(CUresult r, const char *what) {
  if (r != CUDA_SUCCESS) throw std::runtime_error(std::string(what) + " failed with CUresult " + std::to_string(r));
}

/// A module of nvcc-compiled kernels (a fatbin), loaded into device 0's primary context.
inline CUmodule load_module(driver &cu, const void *fatbin) {
  CUcontext ctx = nullptr;
  check(cu.retain(&ctx, 0), "cuDevicePrimaryCtxRetain");
  check(cu.set_current(ctx), "cuCtxSetCurrent");
  CUmodule m = nullptr;
  check(cu.load(&m, fatbin), "cuModuleLoadData");
  return m;
}

/// Milliseconds per repetition of `f` on stream `s`, by events, after a warm-up; best of
/// `trials` batches.
template <class F> double gpu_ms(kernel::stream &s, int reps, F &&f, int trials = 3) {
  f();
  kernel::event start(s.device()), stop(s.device());
  double best = 1e300;
  for (int trial = 0; trial < trials; ++trial) {
    start.record(s);
    for (int r = 0; r < reps; ++r) f();
    stop.record(s);
    stop.synchronize();
    best = std::min(best, double(stop.elapsed_ms(start)) / reps);
  }
  return best;
}

/// Host microseconds per call: batches short enough not to fill the launch queue, with the
/// GPU drained between batches, best batch.
template <class F> double host_us(kernel::stream &s, F &&f) {
  const int batch = 500;
  double best = 1e300;
  for (int trial = 0; trial < 30; ++trial) {
    s.synchronize();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i) f();
    const std::chrono::duration<double, std::micro> dt = std::chrono::steady_clock::now() - t0;
    best = std::min(best, dt.count() / batch);
  }
  s.synchronize();
  return best;
}

} // namespace bench
