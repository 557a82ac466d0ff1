// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// CUDA-style kernels against the same kernels in CUDA-C compiled by nvcc -O3
// (bench/cuda/kernels.cu), on the same device, stream and data:
//
//   matmul     the seed's tiled matmul (16x16 tiles), 2048x2048 float32; ms per launch
//   transpose  the seed's tiled transpose (32x33 tile), 8192x8192 int32; ms and GB/s
//   overhead   host time per launch of a 4-argument kernel on device arrays, against a raw
//              cuLaunchKernel of the nvcc kernel with the same arguments (µs per launch)
//   bar        a kernel calling the CUDA-C `bar` over 2^20 elements, `bar` linked as a
//              relocatable object and as LTO-IR (1 and 64 dependent calls per element)
//
//   bazel run -c opt //bench:gpu_kernel_bench
//
// Without a GPU it says so and exits 0: there is nothing to measure.
#include <kernel/kernel.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/gpu_timing.h"
#include "bench/kernels_fatbin.h"

using kernel::array_view;
using kernel::index_t;

constexpr int tpb = 16;

// As examples/square_matrix_mult.cpp.
[[kernel::jit("void(float32[:, :], float32[:, :], float32[:, :])")]]
void matmul_tiled(array_view<const float, 2> a, array_view<const float, 2> b, array_view<float, 2> c) {
  auto sa = kernel::shared_array<float, tpb, tpb>();
  auto sb = kernel::shared_array<float, tpb, tpb>();
  auto [x, y] = kernel::grid<2>();
  const unsigned tx = kernel::threadIdx.x, ty = kernel::threadIdx.y;
  float sum = 0;
  for (unsigned i = 0; i < kernel::gridDim.x; ++i) {
    sa(tx, ty) = a(x, ty + index_t{i} * tpb);
    sb(tx, ty) = b(tx + index_t{i} * tpb, y);
    kernel::syncthreads();
    for (int j = 0; j < tpb; ++j) sum += sa(tx, j) * sb(j, ty);
    kernel::syncthreads();
  }
  c(x, y) = sum;
}

// As examples/transpose.cpp.
[[kernel::jit]] void transpose_tiled(array_view<const int, 2> a, array_view<int, 2> transposed) {
  auto tile = kernel::shared_array<int, 32, 33>();
  const unsigned tx = kernel::threadIdx.x, ty = kernel::threadIdx.y;
  const index_t a_col = index_t{kernel::blockIdx.x} * kernel::blockDim.x + tx;
  const index_t a_row = index_t{kernel::blockIdx.y} * kernel::blockDim.y + ty;
  tile(ty, tx) = a(a_row, a_col);
  kernel::syncthreads();
  const index_t t_col = index_t{kernel::blockIdx.y} * kernel::blockDim.y + tx;
  const index_t t_row = index_t{kernel::blockIdx.x} * kernel::blockDim.x + ty;
  transposed(t_row, t_col) = tile(tx, ty);
}

[[kernel::jit]] void axpb(float a, array_view<const float> x, float b, array_view<float> out) {
  const index_t i = kernel::grid<1>();
  out[i] = a * x[i] + b;
}

// bench/device_calls: the same kernel with `bar` linked two ways.
void call_bar_object(array_view<const int> in, array_view<int> out, int calls);
void call_bar_lto(array_view<const int> in, array_view<int> out, int calls);

namespace {

using bench::check;

struct nvcc_kernels {
  bench::driver cu;
  CUfunction matmul = nullptr, transpose = nullptr, axpb = nullptr;
  nvcc_kernels() {
    CUmodule m = bench::load_module(cu, kernels_fatbin);
    check(cu.function(&matmul, m, "matmul_tiled"), "cuModuleGetFunction");
    check(cu.function(&transpose, m, "transpose_tiled"), "cuModuleGetFunction");
    check(cu.function(&axpb, m, "axpb"), "cuModuleGetFunction");
  }
  void launch(CUfunction f, kernel::dim3 grid, kernel::dim3 block, void **params, CUstream s) const {
    check(cu.launch(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, 0, s, params, nullptr), "cuLaunchKernel");
  }
};

template <class F> double gpu_ms(kernel::stream &s, int reps, F &&f) { return bench::gpu_ms(s, reps, f, 5); }
using bench::host_us;

template <class T> bool same(const kernel::device_array<T, 2> &a, const kernel::device_array<T, 2> &b) {
  return a.copy_to_host().to_vector() == b.copy_to_host().to_vector();
}

void matmul(kernel::stream &s, const nvcc_kernels &nv) {
  const int n = 2048;
  kernel::ndarray<float, 2> ha({n, n}), hb({n, n});
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) {
      ha(i, j) = float((i * 7 + j) % 13) / 13;
      hb(i, j) = float((i + 3 * j) % 11) / 11;
    }
  auto a = kernel::to_device(ha, s), b = kernel::to_device(hb, s);
  kernel::device_array<float, 2> c({n, n}, s), c_nvcc({n, n}, s);
  const kernel::dim3 grid(n / tpb, n / tpb), block(tpb, tpb);
  auto ours = kernel::launch<matmul_tiled>(grid, block, s);
  const float *pa = a.data(), *pb = b.data();
  float *pc = c_nvcc.data();
  int nn = n;
  void *params[] = {&pa, &pb, &pc, &nn};
  auto *cs = static_cast<CUstream>(s.native_handle());
  const double t_ours = gpu_ms(s, 20, [&] { ours(a, b, c); });
  const double t_nvcc = gpu_ms(s, 20, [&] { nv.launch(nv.matmul, grid, block, params, cs); });
  const double flops = 2.0 * n * n * n;
  std::printf("matmul 2048x2048 tiled: %.3f ms (%.0f GFLOP/s), nvcc %.3f ms (%.0f GFLOP/s): nvcc/ours %.3f %s\n", t_ours,
              flops / t_ours / 1e6, t_nvcc, flops / t_nvcc / 1e6, t_nvcc / t_ours,
              same(c, c_nvcc) ? "(same results)" : "(RESULTS DIFFER)");
}

void transpose(kernel::stream &s, const nvcc_kernels &nv) {
  const int n = 8192;
  kernel::ndarray<int, 2> ha({n, n});
  std::iota(ha.begin(), ha.end(), 0);
  auto a = kernel::to_device(ha, s);
  kernel::device_array<int, 2> t({n, n}, s), t_by_nvcc({n, n}, s);
  const kernel::dim3 grid(n / 32, n / 32), block(32, 32);
  auto ours = kernel::launch<transpose_tiled>(grid, block, s);
  const int *pa = a.data();
  int *pt = t_by_nvcc.data();
  int nn = n;
  void *params[] = {&pa, &pt, &nn};
  auto *cs = static_cast<CUstream>(s.native_handle());
  const double t_ours = gpu_ms(s, 20, [&] { ours(a, t); });
  const double t_nvcc = gpu_ms(s, 20, [&] { nv.launch(nv.transpose, grid, block, params, cs); });
  const double bytes = 2.0 * 4 * n * n;
  std::printf("transpose 8192x8192 tiled: %.3f ms (%.0f GB/s), nvcc %.3f ms (%.0f GB/s): nvcc/ours %.3f %s\n", t_ours,
              bytes / t_ours / 1e6, t_nvcc, bytes / t_nvcc / 1e6, t_nvcc / t_ours,
              same(t, t_by_nvcc) ? "(same results)" : "(RESULTS DIFFER)");
}

void overhead(kernel::stream &s, const nvcc_kernels &nv) {
  const int n = 1024;
  kernel::device_array<float> x(n, s), out(n, s);
  auto ours = kernel::launch<axpb>(n / 256, 256, s);
  float a = 2, b = 1;
  const float *px = x.data();
  float *po = out.data();
  void *params[] = {&a, &px, &b, &po};
  auto *cs = static_cast<CUstream>(s.native_handle());
  const double t_ours = host_us(s, [&] { ours(2.0f, x, 1.0f, out); });
  const double t_raw = host_us(s, [&] { nv.launch(nv.axpb, kernel::dim3(n / 256), kernel::dim3(256), params, cs); });
  std::printf("overhead %.2f us per launch of a 4-argument kernel, %.2f us per raw cuLaunchKernel: %.2fx\n", t_ours,
              t_raw, t_ours / t_raw);
}

void device_calls(kernel::stream &s) {
  const int n = 1 << 20;
  std::vector<int> h(n);
  std::iota(h.begin(), h.end(), 0);
  auto in = kernel::to_device(h, s);
  kernel::device_array<int> out_object(n, s), out_lto(n, s);
  auto object = kernel::launch<call_bar_object>(n / 256, 256, s);
  auto lto = kernel::launch<call_bar_lto>(n / 256, 256, s);
  for (int calls : {1, 64}) {
    const double t_object = gpu_ms(s, 50, [&] { object(in, out_object, calls); });
    const double t_lto = gpu_ms(s, 50, [&] { lto(in, out_lto, calls); });
    const bool ok = out_object.copy_to_host().to_vector() == out_lto.copy_to_host().to_vector();
    std::printf("bar x%-2d over 2^20: object %.4f ms, LTO-IR %.4f ms: object/LTO %.3f %s\n", calls, t_object, t_lto,
                t_object / t_lto, ok ? "(same results)" : "(RESULTS DIFFER)");
  }
}

} // namespace

int main() {
  try {
    kernel::device gpu = kernel::device::cuda();
    kernel::stream s(gpu);
    nvcc_kernels nv;
    std::printf("%s\n", gpu.name().c_str());
    matmul(s, nv);
    transpose(s, nv);
    overhead(s, nv);
    device_calls(s);
    return 0;
  } catch (const kernel::target_unavailable_error &e) {
    std::printf("no GPU here, nothing measured: %s\n", e.what());
    return 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "gpu_kernel_bench: %s\n", e.what());
    return 1;
  }
}
