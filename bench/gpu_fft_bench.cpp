// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel/fft.h on a GPU against cuFFT called directly, same GPU, same data, same stream:
// fft_inplace of a 2048² complex64 image (the convolution lesson's size) and of 2^20 points,
// also with a normalisation (one more kernel: cuFFT does not scale). Device time per call
// (events) and host time per call, each as a ratio to the direct call's; the direct calls use
// plans of the same layout as the library's (a 2-D plan for the image, as cufftPlan2d makes),
// and the image is also timed as two passes of batched lines, rows then columns, which is
// what the library made before it planned several axes at once. Then rfft2 of a 2048² float32
// image and irfft2 back, new arrays each call and into arrays made once, against one 2-D R2C
// and one C2R plan called directly between buffers made once (cuFFT's C2R overwrites its
// input: the library's reads a copy). Prints "no GPU" without one.
#include <cufft.h>
#include <dlfcn.h>

#include <complex>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <kernel/fft.h>
#include <kernel/kernel.h>

#include "gpu_timing.h"

namespace {

struct cufft_calls : bench::loaded_library {
  cufft_calls() : loaded_library("libcufft.so.12", "cuFFT") {}
  decltype(&::cufftPlanMany) plan_many = get<decltype(&::cufftPlanMany)>("cufftPlanMany");
  decltype(&::cufftSetStream) set_stream = get<decltype(&::cufftSetStream)>("cufftSetStream");
  decltype(&::cufftExecC2C) c2c = get<decltype(&::cufftExecC2C)>("cufftExecC2C");
  decltype(&::cufftExecR2C) r2c = get<decltype(&::cufftExecR2C)>("cufftExecR2C");
  decltype(&::cufftExecC2R) c2r = get<decltype(&::cufftExecC2R)>("cufftExecC2R");
};

void check(cufftResult r, const char *what) {
  if (r != CUFFT_SUCCESS) throw std::runtime_error(std::string(what) + " failed with cufftResult " + std::to_string(r));
}

/// A plan of `batch` lines of n points, `stride` apart within a line and `dist` between lines.
cufftHandle plan(cufft_calls &cu, kernel::stream &s, int n, int stride, int dist, int batch) {
  cufftHandle h = 0;
  int embed = n;
  check(cu.plan_many(&h, 1, &n, &embed, stride, dist, &embed, stride, dist, CUFFT_C2C, batch), "cufftPlanMany");
  check(cu.set_stream(h, static_cast<cudaStream_t>(s.native_handle())), "cufftSetStream");
  return h;
}

/// One 2-D plan of an n x n C-ordered image.
cufftHandle plan_2d(cufft_calls &cu, kernel::stream &s, int n) {
  cufftHandle h = 0;
  int dims[2] = {n, n}, embed[2] = {n, n};
  check(cu.plan_many(&h, 2, dims, embed, 1, n * n, embed, 1, n * n, CUFFT_C2C, 1), "cufftPlanMany");
  check(cu.set_stream(h, static_cast<cudaStream_t>(s.native_handle())), "cufftSetStream");
  return h;
}

/// One 2-D real plan of an n x n C-ordered image (`type` CUFFT_R2C or CUFFT_C2R): n reals a
/// row on the real side, n/2+1 coefficients on the other.
cufftHandle plan_2d_real(cufft_calls &cu, kernel::stream &s, int n, cufftType type) {
  cufftHandle h = 0;
  int dims[2] = {n, n}, reals[2] = {n, n}, coefficients[2] = {n, n / 2 + 1};
  const int real_dist = n * n, complex_dist = n * (n / 2 + 1);
  if (type == CUFFT_R2C)
    check(cu.plan_many(&h, 2, dims, reals, 1, real_dist, coefficients, 1, complex_dist, type, 1), "cufftPlanMany");
  else
    check(cu.plan_many(&h, 2, dims, coefficients, 1, complex_dist, reals, 1, real_dist, type, 1), "cufftPlanMany");
  check(cu.set_stream(h, static_cast<cudaStream_t>(s.native_handle())), "cufftSetStream");
  return h;
}

void report(const char *what, double ours_ms, double direct_ms, double ours_us, double direct_us) {
  std::printf("%-34s device %8.3f ms vs %8.3f ms direct (%.3fx)   host %7.2f us vs %7.2f us direct (%.3fx)\n", what,
              ours_ms, direct_ms, ours_ms / direct_ms, ours_us, direct_us, ours_us / direct_us);
}

} // namespace

int main() {
  const std::optional<kernel::device> found = bench::cuda_device();
  if (!found) return 0;
  const kernel::device gpu = *found;
  kernel::stream s(gpu);
  using cf = std::complex<float>;
  // The library loads cuFFT at its first transform; the direct calls then find it loaded.
  auto warm = kernel::to_device(std::vector<cf>(8, cf(1, 0)), gpu);
  kernel::fft_inplace.on(s)(warm);
  cufft_calls cu;

  {
    // 2048² in place: one 2-D plan, as the library makes; and, for comparison, rows (one batch
    // of 2048 contiguous lines) then columns (2048 lines interleaved: stride 2048, distance 1).
    const int n = 2048;
    auto image = kernel::to_device(kernel::ndarray<cf, 2>({n, n}, cf(1, 0.5f)), gpu);
    auto *data = reinterpret_cast<cufftComplex *>(image.data());
    const cufftHandle whole = plan_2d(cu, s, n);
    const cufftHandle rows = plan(cu, s, n, 1, n, n), cols = plan(cu, s, n, n, 1, n);
    const auto direct = [&] { check(cu.c2c(whole, data, data, CUFFT_FORWARD), "cufftExecC2C"); };
    const auto passes = [&] {
      check(cu.c2c(rows, data, data, CUFFT_FORWARD), "cufftExecC2C");
      check(cu.c2c(cols, data, data, CUFFT_FORWARD), "cufftExecC2C");
    };
    const auto ours = [&] { kernel::fft_inplace.on(s)(image); };
    report("fft_inplace 2048^2 complex64", bench::gpu_ms(s, 20, ours), bench::gpu_ms(s, 20, direct),
           bench::host_us(s, ours), bench::host_us(s, direct));
    const double two_passes = bench::gpu_ms(s, 20, passes);
    std::printf("%-34s device %8.3f ms as rows then columns: the 2-D plan is %.2fx faster\n", "", two_passes,
                two_passes / bench::gpu_ms(s, 20, direct));
  }
  {
    const int n = 1 << 20;
    auto x = kernel::to_device(std::vector<cf>(n, cf(0.25f, -1)), gpu);
    auto *data = reinterpret_cast<cufftComplex *>(x.data());
    const cufftHandle one = plan(cu, s, n, 1, n, 1);
    const auto direct = [&] { check(cu.c2c(one, data, data, CUFFT_FORWARD), "cufftExecC2C"); };
    const auto ours = [&] { kernel::fft_inplace.on(s)(x); };
    report("fft_inplace 2^20 complex64", bench::gpu_ms(s, 50, ours), bench::gpu_ms(s, 50, direct),
           bench::host_us(s, ours), bench::host_us(s, direct));
    // With the normalisation: one more kernel (cuFFT has no scale).
    const auto ortho = [&] { kernel::fft_inplace.on(s)(x, kernel::fft_norm::ortho); };
    report("fft_inplace 2^20 complex64 ortho", bench::gpu_ms(s, 50, ortho), bench::gpu_ms(s, 50, direct),
           bench::host_us(s, ortho), bench::host_us(s, direct));
  }
  {
    const int n = 2048;
    auto image = kernel::to_device(kernel::ndarray<float, 2>({n, n}, 0.75f), gpu);
    auto spectrum = kernel::rfft2.on(s)(image);
    auto back = kernel::irfft2.on(s)(spectrum, {-2, -1}, {n, n});
    auto *reals = reinterpret_cast<cufftReal *>(back.data());
    auto *coefficients = reinterpret_cast<cufftComplex *>(spectrum.data());
    const cufftHandle forward = plan_2d_real(cu, s, n, CUFFT_R2C), inverse = plan_2d_real(cu, s, n, CUFFT_C2R);
    const auto direct_forward = [&] { check(cu.r2c(forward, reals, coefficients), "cufftExecR2C"); };
    const auto ours_forward = [&] { (void)kernel::rfft2.on(s)(image); };
    report("rfft2 2048^2 float32", bench::gpu_ms(s, 20, ours_forward), bench::gpu_ms(s, 20, direct_forward),
           bench::host_us(s, ours_forward), bench::host_us(s, direct_forward));
    const auto direct_inverse = [&] { check(cu.c2r(inverse, coefficients, reals), "cufftExecC2R"); };
    const auto ours_inverse = [&] { (void)kernel::irfft2.on(s)(spectrum, {-2, -1}, {n, n}); };
    report("irfft2 2048^2 float32", bench::gpu_ms(s, 20, ours_inverse), bench::gpu_ms(s, 20, direct_inverse),
           bench::host_us(s, ours_inverse), bench::host_us(s, direct_inverse));
    // cuFFT's C2R overwrites its input, which irfft2 keeps as NumPy does: the direct call that
    // keeps it copies the coefficients first (and then works on more memory than the L2 holds,
    // where the C2R alone, run again and again on the same 34 MB, stays in an H200's 60 MB).
    bench::driver cu_driver;
    kernel::device_array<std::complex<float>, 2> copied({n, n / 2 + 1}, s);
    const auto direct_kept = [&] {
      bench::check(cu_driver.copy(reinterpret_cast<CUdeviceptr>(copied.data()), reinterpret_cast<CUdeviceptr>(spectrum.data()),
                                  sizeof(std::complex<float>) * static_cast<std::size_t>(n) * (n / 2 + 1),
                                  static_cast<CUstream>(s.native_handle())),
                   "cuMemcpyDtoDAsync");
      check(cu.c2r(inverse, reinterpret_cast<cufftComplex *>(copied.data()), reals), "cufftExecC2R");
    };
    report("irfft2 vs a copy and C2R", bench::gpu_ms(s, 20, ours_inverse), bench::gpu_ms(s, 20, direct_kept),
           bench::host_us(s, ours_inverse), bench::host_us(s, direct_kept));
    // Into arrays made once (the second argument, NumPy's out), as the direct calls write.
    auto made_once = kernel::rfft2.on(s)(image);
    const auto ours_forward_into = [&] { kernel::rfft2.on(s)(image, made_once); };
    report("rfft2 into an array", bench::gpu_ms(s, 20, ours_forward_into), bench::gpu_ms(s, 20, direct_forward),
           bench::host_us(s, ours_forward_into), bench::host_us(s, direct_forward));
    auto reals_once = kernel::irfft2.on(s)(spectrum, {-2, -1}, {n, n});
    const auto ours_inverse_into = [&] { kernel::irfft2.on(s)(spectrum, reals_once, {-2, -1}, {n, n}); };
    report("irfft2 into an array vs copy+C2R", bench::gpu_ms(s, 20, ours_inverse_into),
           bench::gpu_ms(s, 20, direct_kept), bench::host_us(s, ours_inverse_into), bench::host_us(s, direct_kept));
  }
  s.synchronize();
  return 0;
}
