// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// GPU ufuncs against what a CUDA programmer gets by hand, on the same device, stream and data:
//
//   bandwidth  saxpy ufunc on device arrays, the same saxpy in CUDA-C compiled by nvcc -O3
//              (bench/cuda/saxpy.cu) launched with cuLaunchKernel, and cuMemcpyDtoD; GB/s
//              counting bytes read + written, timed with events, for 2^16 .. 2^28 float32.
//   overhead   host time per call of the ufunc on three device arrays, against a raw
//              cuLaunchKernel of the nvcc kernel with the same arguments (µs per call).
//   first-call the first ufunc call of the process, module build (nvJitLink or disk cache)
//              and load included: run in a fresh process (bench/gpu_cold_start.sh).
//
//   bazel run -c opt //bench:gpu_ufunc_bench [-- 16 20 24 28]
//   bazel run -c opt //bench:gpu_ufunc_bench -- first-call
//
// Lines starting "bandwidth", "overhead" and "first_call" are read by bench/gpu_compare.py.
// Without a GPU it says so and exits 0: there is nothing to measure.
#include <kernel/kernel.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/gpu_timing.h"
#include "bench/saxpy_fatbin.h"

[[kernel::vectorize("float32(float32, float32, float32)")]]
float saxpy(float a, float x, float y) { return a * x + y; }

namespace {

using bench::check;

struct nvcc_saxpy {
  bench::driver &cu;
  CUfunction f = nullptr;
  explicit nvcc_saxpy(bench::driver &d) : cu(d) {
    check(cu.function(&f, bench::load_module(cu, saxpy_fatbin), "saxpy"), "cuModuleGetFunction");
  }
  void operator()(float a, const float *x, const float *y, float *out, long long n, CUstream s) const {
    void *params[] = {&a, &x, &y, &out, &n};
    const unsigned block = 256, grid = static_cast<unsigned>((n + block - 1) / block);
    check(cu.launch(f, grid, 1, 1, block, 1, 1, 0, s, params, nullptr), "cuLaunchKernel");
  }
};

using bench::gpu_ms;
using bench::host_us;

int first_call() {
  kernel::device gpu = kernel::device::cuda();
  kernel::device_array<float> x(1 << 20, gpu), y(1 << 20, gpu), out(1 << 20, gpu);
  gpu.synchronize();
  constexpr kernel::ufunc<saxpy> vsaxpy;
  const auto t0 = std::chrono::steady_clock::now();
  vsaxpy.on(kernel::target::cuda)(2.0f, x, y, out);
  gpu.synchronize();
  const std::chrono::duration<double, std::milli> dt = std::chrono::steady_clock::now() - t0;
  std::printf("first_call %.2f ms  (module build or cache read, load, launch, synchronize; %s)\n", dt.count(),
              gpu.name().c_str());
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  try {
    if (argc > 1 && std::string(argv[1]) == "first-call") return first_call();
    std::vector<int> sizes;
    for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
    if (sizes.empty()) sizes = {16, 20, 24, 28};

    kernel::device gpu = kernel::device::cuda();
    kernel::stream s(gpu);
    bench::driver cu;
    nvcc_saxpy baseline(cu);
    constexpr kernel::ufunc<saxpy> vsaxpy;
    const auto on_s = vsaxpy.on(s);
    auto *stream = static_cast<CUstream>(s.native_handle());
    std::printf("%s\n%-8s %12s %12s %12s %10s %10s\n", gpu.name().c_str(), "n", "ufunc GB/s", "nvcc GB/s",
                "copy GB/s", "ufunc/nvcc", "ufunc/copy");
    for (int log2n : sizes) {
      const long long n = 1LL << log2n;
      kernel::device_array<float> x(n, s), y(n, s), out(n, s);
      const int reps = static_cast<int>(std::clamp(((1LL << 30) / n), 5LL, 2000LL));
      const double bytes = 3.0 * 4 * n, copy_bytes = 2.0 * 4 * n;
      const double t_ufunc = gpu_ms(s, reps, [&] { on_s(2.0f, x, y, out); });
      const double t_nvcc = gpu_ms(s, reps, [&] { baseline(2.0f, x.data(), y.data(), out.data(), n, stream); });
      const double t_copy = gpu_ms(s, reps, [&] {
        check(cu.copy(reinterpret_cast<CUdeviceptr>(out.data()), reinterpret_cast<CUdeviceptr>(x.data()), 4 * n, stream),
              "cuMemcpyDtoDAsync");
      });
      const double bw_ufunc = bytes / t_ufunc / 1e6, bw_nvcc = bytes / t_nvcc / 1e6, bw_copy = copy_bytes / t_copy / 1e6;
      std::printf("bandwidth 2^%-2d %10.1f %12.1f %12.1f %10.3f %10.3f\n", log2n, bw_ufunc, bw_nvcc, bw_copy,
                  bw_ufunc / bw_nvcc, bw_ufunc / bw_copy);
    }
    {
      const long long n = 1 << 10;
      kernel::device_array<float> x(n, s), y(n, s), out(n, s);
      const double ours = host_us(s, [&] { on_s(2.0f, x, y, out); });
      const double raw = host_us(s, [&] { baseline(2.0f, x.data(), y.data(), out.data(), n, stream); });
      std::printf("overhead %.2f us per ufunc call, %.2f us per raw cuLaunchKernel: %.2fx\n", ours, raw, ours / raw);
    }
    return 0;
  } catch (const kernel::target_unavailable_error &e) {
    std::printf("no GPU here, nothing measured: %s\n", e.what());
    return 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "gpu_ufunc_bench: %s\n", e.what());
    return 1;
  }
}
