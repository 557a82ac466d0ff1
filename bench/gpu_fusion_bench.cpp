// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Fusion on the GPU, device arrays of 2^16 .. 2^28 float32:
//
//   chain       min(exp(0.5 x + 0.25), 2) * 0.5 as five ufuncs: fused (one kernel) against
//               the eager chain (five kernels, four temporaries) and against one hand-written
//               nvcc -O3 kernel (bench/cuda/fusion.cu), in GB/s of the bytes the expression
//               must move (read x, write out);
//   map-reduce  sum(exp(0.5 x + 0.25)): fused kernel::reduce over the expression against
//               the eager chain and the hand-written kernel.
//
//   bazel run -c opt //bench:gpu_fusion_bench [-- 16 20 24 26 28]
//
// bench/gpu_fusion_compare.py adds cupy.fuse. Without a GPU it says so and exits 0.
#include <kernel/kernel.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/fusion_fatbin.h"
#include "bench/gpu_timing.h"

[[kernel::vectorize("float32(float32, float32)")]] float scale(float x, float a) { return a * x; }
[[kernel::vectorize("float32(float32, float32)")]] float shift(float x, float b) { return x + b; }
[[kernel::vectorize("float32(float32)")]] float fexp(float x) { return std::exp(x); }
[[kernel::vectorize("float32(float32, float32)")]] float clamp_max(float x, float m) { return x < m ? x : m; }
[[kernel::reduce]] float add(float a, float b) { return a + b; }

namespace {
using bench::check;
using bench::gpu_ms;

constexpr kernel::ufunc<scale> vscale;
constexpr kernel::ufunc<shift> vshift;
constexpr kernel::ufunc<fexp> vexp;
constexpr kernel::ufunc<clamp_max> vclamp;
constexpr kernel::reduce<add> sum;
} // namespace

int main(int argc, char **argv) {
  try {
    std::vector<int> sizes;
    for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
    if (sizes.empty()) sizes = {16, 20, 24, 26, 28};
    kernel::device gpu = kernel::device::cuda();
    kernel::stream s(gpu);
    bench::driver cu;
    CUfunction chain = nullptr, sum_exp = nullptr;
    const CUmodule module = bench::load_module(cu, fusion_fatbin);
    check(cu.function(&chain, module, "chain"), "cuModuleGetFunction");
    check(cu.function(&sum_exp, module, "sum_exp"), "cuModuleGetFunction");
    auto *stream = static_cast<CUstream>(s.native_handle());
    std::printf("%s\n%-9s %11s %11s %11s %12s %12s | %11s %11s %11s %12s %12s\n", gpu.name().c_str(), "n",
                "fused GB/s", "eager GB/s", "nvcc GB/s", "fused/eager", "fused/nvcc", "mr fused", "mr eager", "mr nvcc",
                "mr f/eager", "mr f/nvcc");
    for (int log2n : sizes) {
      const long long n = 1LL << log2n;
      kernel::device_array<float> x(n, s), out(n, s), result(1, s);
      const int reps = static_cast<int>(std::min<long long>(std::max<long long>((1LL << 30) / n, 5), 1000));
      const double bytes = 2.0 * 4 * n;
      const auto e = vscale(vclamp(vexp(vshift(vscale(kernel::lazy(x), 0.5f), 0.25f)), 2.0f), 0.5f);
      const double t_fused = gpu_ms(s, reps, [&] { kernel::eval(s, kernel::assign(out, e)); });
      const double t_eager = gpu_ms(s, reps, [&] {
        auto on = [&](auto u) { return u.on(s); };
        on(vscale)(on(vclamp)(on(vexp)(on(vshift)(on(vscale)(x, 0.5f), 0.25f)), 2.0f), 0.5f, out);
      });
      const double t_nvcc = gpu_ms(s, reps, [&] {
        const float *px = x.data();
        float *po = out.data();
        long long count = n;
        void *params[] = {&px, &po, &count};
        const unsigned block = 256, grid = static_cast<unsigned>((n + block - 1) / block);
        check(cu.launch(chain, grid, 1, 1, block, 1, 1, 0, stream, params, nullptr), "cuLaunchKernel");
      });
      // Map-reduce: each includes reading the value back, as a reduction returning a value does.
      const auto m = vexp(vshift(vscale(kernel::lazy(x), 0.5f), 0.25f));
      const double r_fused = gpu_ms(s, reps, [&] { (void)sum.on(s)(m); });
      const double r_eager = gpu_ms(s, reps, [&] { (void)sum.on(s)(vexp.on(s)(vshift.on(s)(vscale.on(s)(x, 0.5f), 0.25f))); });
      const double r_nvcc = gpu_ms(s, reps, [&] {
        check(cu.memset(reinterpret_cast<CUdeviceptr>(result.data()), 0, 4, stream), "cuMemsetD8Async");
        const float *px = x.data();
        float *pr = result.data();
        long long count = n;
        void *params[] = {&px, &pr, &count};
        const unsigned block = 256;
        const unsigned grid = static_cast<unsigned>(std::min<long long>((n + block - 1) / block, 132 * 8));
        check(cu.launch(sum_exp, grid, 1, 1, block, 1, 1, 0, stream, params, nullptr), "cuLaunchKernel");
        float value = 0;
        check(cu.copy_to_host(&value, reinterpret_cast<CUdeviceptr>(result.data()), 4, stream), "cuMemcpyDtoHAsync");
        s.synchronize();
      });
      const double rb = 4.0 * n;
      std::printf("2^%-7d %11.1f %11.1f %11.1f %12.2f %12.2f | %11.1f %11.1f %11.1f %12.2f %12.2f\n", log2n,
                  bytes / t_fused / 1e6, bytes / t_eager / 1e6, bytes / t_nvcc / 1e6, t_eager / t_fused,
                  t_nvcc / t_fused, rb / r_fused / 1e6, rb / r_eager / 1e6, rb / r_nvcc / 1e6, r_eager / r_fused,
                  r_nvcc / r_fused);
    }
    return 0;
  } catch (const kernel::target_unavailable_error &e) {
    std::printf("no GPU here, nothing measured: %s\n", e.what());
    return 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "gpu_fusion_bench: %s\n", e.what());
    return 1;
  }
}
