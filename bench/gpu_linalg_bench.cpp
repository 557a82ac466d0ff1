// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel/linalg.h's matrix_product and dot on a GPU against cuBLAS called directly, same
// GPU, same data, same stream: 4096² float32 and 2048² complex64, a batch of 512 products of
// 64² float32, and dots of 2^10 and 2^24 float32. Device time per call (events), and host
// time per call for the small products and the dots, as ratios to the direct call's (the
// same cublasGemmStridedBatchedEx the library makes, row-major operands as the transposed
// product; the same cublasDotEx). Prints "no GPU" without one.
#include <cublas_v2.h>
#include <dlfcn.h>

#include <complex>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <kernel/kernel.h>
#include <kernel/linalg.h>

#include "direct_library_calls.h"
#include "gpu_timing.h"

namespace {

using bench::check;
using bench::cublas_calls;

void report(const char *what, double ours_ms, double direct_ms) {
  std::printf("%-36s device %8.3f ms vs %8.3f ms direct (%.3fx)\n", what, ours_ms, direct_ms, ours_ms / direct_ms);
}

/// C = A B for row-major n x n matrices (a batch of them), directly: C^T = B^T A^T in cuBLAS's
/// column-major terms.
template <class T>
void compare(const char *what, cublas_calls &cu, cublasHandle_t h, kernel::stream &s, kernel::device gpu, int n,
             int batch, cudaDataType type, cublasComputeType_t compute, int reps) {
  kernel::ndarray<T, 3> host({batch, n, n}, T(1));
  auto a = kernel::to_device(host, gpu), b = kernel::to_device(host, gpu), c = kernel::to_device(host, gpu);
  const T one(1), zero(0);
  const long long stride = static_cast<long long>(n) * n;
  const auto direct = [&] {
    check(cu.gemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b.data(), type, n, stride, a.data(), type, n, stride,
                  &zero, c.data(), type, n, stride, batch, compute, CUBLAS_GEMM_DEFAULT),
          "cublasGemmStridedBatchedEx");
  };
  const auto ours = [&] { kernel::linalg::matrix_product.on(s)(a, b, c); };
  report(what, bench::gpu_ms(s, reps, ours), bench::gpu_ms(s, reps, direct));
  // Host time per call only where the GPU keeps up with the launches.
  if (n <= 64) {
    const double ours_us = bench::host_us(s, ours), direct_us = bench::host_us(s, direct);
    std::printf("%-36s host   %8.2f us vs %8.2f us direct (%.3fx)\n", what, ours_us, direct_us, ours_us / direct_us);
  }
}

} // namespace

int main() {
  const std::optional<kernel::device> found = bench::cuda_device();
  if (!found) return 0;
  const kernel::device gpu = *found;
  kernel::stream s(gpu);
  {
    // The library loads cuBLAS at its first product; the direct calls then find it loaded.
    auto warm = kernel::to_device(kernel::ndarray<float, 2>({4, 4}, 1.0f), gpu);
    auto out = kernel::to_device(kernel::ndarray<float, 2>({4, 4}, 0.0f), gpu);
    kernel::linalg::matrix_product.on(s)(warm, warm, out);
  }
  cublas_calls cu;
  cublasHandle_t h = nullptr;
  check(cu.create(&h), "cublasCreate");
  check(cu.set_stream(h, static_cast<cudaStream_t>(s.native_handle())), "cublasSetStream");
  compare<float>("matrix_product 4096^2 float32", cu, h, s, gpu, 4096, 1, CUDA_R_32F, CUBLAS_COMPUTE_32F, 10);
  compare<std::complex<float>>("matrix_product 2048^2 complex64", cu, h, s, gpu, 2048, 1, CUDA_C_32F,
                               CUBLAS_COMPUTE_32F, 10);
  compare<float>("matrix_product 512 x 64^2 float32", cu, h, s, gpu, 64, 512, CUDA_R_32F, CUBLAS_COMPUTE_32F, 50);
  // dot returns its value: the host waits for each call, so host time is the figure.
  for (const int n : {1 << 10, 1 << 24}) {
    auto x = kernel::to_device(std::vector<float>(static_cast<std::size_t>(n), 0.5f), s);
    float direct_result = 0, ours_result = 0;
    const double ours = bench::host_us(s, [&] { ours_result = kernel::linalg::dot.on(s)(x, x); });
    const double direct = bench::host_us(s, [&] {
      check(cu.dot(h, n, x.data(), CUDA_R_32F, 1, x.data(), CUDA_R_32F, 1, &direct_result, CUDA_R_32F, CUDA_R_32F),
            "cublasDotEx");
    });
    std::printf("dot 2^%-2d float32 (%g, %g)%*s host   %8.2f us vs %8.2f us direct (%.3fx)\n", n == 1 << 10 ? 10 : 24,
                ours_result, direct_result, 4, "", ours, direct, ours / direct);
  }
  s.synchronize();
  return 0;
}
