// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The seed's square matrix multiplication as CUDA-style kernels: the naive one (one thread per
// output element, a 2-d grid) and the tiled one (blocks stage 16x16 tiles of A and B in
// shared memory between barriers). Each runs on the simulator, and on the GPU when there is
// one, and is checked against a plain loop.
#include <kernel/kernel.h>

#include "worst_error.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

using kernel::array_view;
using kernel::index_t;

constexpr int tpb = 16; // threads per block along each dimension: the tile size

[[kernel::jit("void(float32[:, :], float32[:, :], float32[:, :])")]]
void matmul_naive(array_view<const float, 2> a, array_view<const float, 2> b, array_view<float, 2> c) {
  auto [column, row] = kernel::grid<2>();
  if (row >= c.shape(0) || column >= c.shape(1)) return;
  float sum = 0;
  for (index_t i = 0; i < a.shape(1); ++i) sum += a(row, i) * b(i, column);
  c(row, column) = sum;
}

[[kernel::jit("void(float32[:, :], float32[:, :], float32[:, :])")]]
void matmul_tiled(array_view<const float, 2> a, array_view<const float, 2> b, array_view<float, 2> c) {
  auto sa = kernel::shared_array<float, tpb, tpb>();
  auto sb = kernel::shared_array<float, tpb, tpb>();
  auto [x, y] = kernel::grid<2>();
  const unsigned tx = kernel::threadIdx.x, ty = kernel::threadIdx.y;
  float sum = 0;
  for (unsigned i = 0; i < kernel::gridDim.x; ++i) {
    // The matrix size is a multiple of the tile here; a general kernel would guard these.
    sa(tx, ty) = a(x, ty + index_t{i} * tpb);
    sb(tx, ty) = b(tx + index_t{i} * tpb, y);
    kernel::syncthreads();
    for (int j = 0; j < tpb; ++j) sum += sa(tx, j) * sb(j, ty);
    kernel::syncthreads();
  }
  c(x, y) = sum;
}

bool check(const char *what, const std::string &where, const kernel::ndarray<float, 2> &c,
           const kernel::ndarray<float, 2> &expected) {
  float worst = 0;
  for (index_t i = 0; i < c.shape(0); ++i)
    for (index_t j = 0; j < c.shape(1); ++j) worst = worse(worst, std::abs(c(i, j) - expected(i, j)));
  const bool ok = worst <= 1e-3f;
  std::printf("%-6s on %-40s C[3,5] = %9.3f, worst error %.1e %s\n", what, where.c_str(), c(3, 5), worst,
              ok ? "ok" : "WRONG");
  return ok;
}

bool run(kernel::device d, const kernel::ndarray<float, 2> &a, const kernel::ndarray<float, 2> &b,
         const kernel::ndarray<float, 2> &expected) {
  const index_t n = a.shape(0);
  const unsigned blocks = static_cast<unsigned>((n + tpb - 1) / tpb);
  auto da = kernel::to_device(a, d), db = kernel::to_device(b, d);
  kernel::device_array<float, 2> dc({n, n}, d);
  kernel::launch<matmul_naive>(kernel::dim3(blocks, blocks), kernel::dim3(tpb, tpb)).on(d)(da, db, dc);
  bool ok = check("naive", d.name(), dc.copy_to_host(), expected);
  kernel::launch<matmul_tiled>(kernel::dim3(blocks, blocks), kernel::dim3(tpb, tpb)).on(d)(da, db, dc);
  ok &= check("tiled", d.name(), dc.copy_to_host(), expected);
  return ok;
}

int main() {
  const index_t n = 64;
  kernel::ndarray<float, 2> a({n, n}), b({n, n}), expected({n, n});
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) {
      a(i, j) = float((i * 7 + j * 3) % 11) * 0.25f;
      b(i, j) = float((i * 5 + j) % 13) * 0.5f - 2.0f;
    }
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) {
      float s = 0;
      for (index_t k = 0; k < n; ++k) s += a(i, k) * b(k, j);
      expected(i, j) = s;
    }
  bool ok = run(kernel::device::simulator(), a, b, expected);
  try {
    ok &= run(kernel::device::cuda(), a, b, expected);
  } catch (const kernel::target_unavailable_error &e) {
    std::printf("cuda: not run here (%s)\n", e.what());
  }
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
