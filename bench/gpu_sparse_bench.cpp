// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel/sparse.h's spmv and spmm on a GPU against the same cuSPARSE calls made directly,
// same GPU, same matrix, same stream: a 2^20 x 2^20 float32 matrix with 16 entries per row
// (spmv), and a 2^16 x 2^16 one by 64 dense columns (spmm, row-major). Device time per call
// (events), and host time per call of a small spmv, as ratios to the direct call's (the
// direct call makes its descriptors and work area per call, as the library does). Prints
// "no GPU" without one.
#include <cusparse.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <kernel/kernel.h>
#include <kernel/sparse.h>

#include "direct_library_calls.h"
#include "gpu_timing.h"

namespace {

namespace sp = kernel::sparse;

using bench::check;
using bench::cusparse_calls;
using bench::direct_spmv;
using bench::scattered;

void report(const char *what, const char *unit, double ours, double direct) {
  std::printf("%-34s %s %9.3f vs %9.3f direct (%.3fx)\n", what, unit, ours, direct, ours / direct);
}

void direct_spmm(cusparse_calls &cu, cusparseHandle_t h, const sp::device_csr_matrix<float> &a, const float *b,
                 float *c, std::int64_t n, kernel::stream &s) {
  const float one = 1, zero = 0;
  cusparseSpMatDescr_t m = bench::csr_descriptor(cu, a);
  cusparseDnMatDescr_t mb = nullptr, mc = nullptr;
  check(cu.create_matrix(&mb, a.cols(), n, n, const_cast<float *>(b), CUDA_R_32F, CUSPARSE_ORDER_ROW),
        "cusparseCreateDnMat");
  check(cu.create_matrix(&mc, a.rows(), n, n, c, CUDA_R_32F, CUSPARSE_ORDER_ROW), "cusparseCreateDnMat");
  std::size_t bytes = 0;
  check(cu.spmm_work(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, m, mb, &zero, mc,
                     CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, &bytes),
        "cusparseSpMM_bufferSize");
  kernel::device_array<unsigned char, 1> work(static_cast<kernel::index_t>(bytes), s);
  check(cu.spmm(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, m, mb, &zero, mc,
                CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, work.data()),
        "cusparseSpMM");
  cu.destroy_matrix(mc);
  cu.destroy_matrix(mb);
  cu.destroy_sparse(m);
}

} // namespace

int main() {
  const std::optional<kernel::device> found = bench::cuda_device();
  if (!found) return 0;
  const kernel::device gpu = *found;
  kernel::stream s(gpu);
  {
    // The library loads cuSPARSE at its first product; the direct calls then find it loaded.
    const auto warm = scattered(64, 64, 4).to_device(s);
    auto x = kernel::to_device(std::vector<float>(64, 1.0f), s);
    (void)sp::spmv.on(s)(warm, x);
  }
  cusparse_calls cu;
  cusparseHandle_t h = nullptr;
  check(cu.create(&h), "cusparseCreate");
  check(cu.set_stream(h, static_cast<cudaStream_t>(s.native_handle())), "cusparseSetStream");

  const std::int64_t big = std::int64_t{1} << 20;
  const auto a = scattered(big, big, 16).to_device(s);
  auto x = kernel::to_device(std::vector<float>(static_cast<std::size_t>(big), 1.0f), s);
  kernel::device_array<float, 1> y(big, s);
  report("spmv 2^20 rows, 16 per row", "device ms", bench::gpu_ms(s, 20, [&] { sp::spmv.on(s)(a, x, y); }),
         bench::gpu_ms(s, 20, [&] { direct_spmv(cu, h, a, x.data(), y.data(), s); }));

  const std::int64_t mid = std::int64_t{1} << 16, n = 64;
  const auto am = scattered(mid, mid, 16).to_device(s);
  auto b = kernel::to_device(kernel::ndarray<float, 2>({mid, n}, 1.0f), s);
  kernel::device_array<float, 2> c({mid, n}, s);
  report("spmm 2^16 rows x 64 columns", "device ms", bench::gpu_ms(s, 10, [&] { sp::spmm.on(s)(am, b, c); }),
         bench::gpu_ms(s, 10, [&] { direct_spmm(cu, h, am, b.data(), c.data(), n, s); }));

  const auto small = scattered(256, 256, 8).to_device(s);
  auto sx = kernel::to_device(std::vector<float>(256, 1.0f), s);
  kernel::device_array<float, 1> sy(256, s);
  report("spmv 256 rows (host time per call)", "host us", bench::host_us(s, [&] { sp::spmv.on(s)(small, sx, sy); }),
         bench::host_us(s, [&] { direct_spmv(cu, h, small, sx.data(), sy.data(), s); }));
  s.synchronize();
  return 0;
}
