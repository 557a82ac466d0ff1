// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The seed's matrix transpose: the naive kernel (reads coalesced, writes strided) and the tiled
// one that goes through a 32x33 shared tile (padded by a column so that the strided reads of
// the tile hit 32 different banks). Checked on the simulator and, when there is one, the GPU.
#include <kernel/kernel.h>

#include <cstdio>
#include <cstdlib>
#include <string>

using kernel::array_view;
using kernel::index_t;

[[kernel::jit]] void transpose_naive(array_view<const int, 2> a, array_view<int, 2> transposed) {
  auto [x, y] = kernel::grid<2>();
  if (x < a.shape(1) && y < a.shape(0)) transposed(x, y) = a(y, x);
}

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

bool check(const char *what, const std::string &where, const kernel::ndarray<int, 2> &t,
           const kernel::ndarray<int, 2> &a) {
  bool ok = true;
  for (index_t i = 0; i < a.shape(0) && ok; ++i)
    for (index_t j = 0; j < a.shape(1) && ok; ++j) ok = t(j, i) == a(i, j);
  std::printf("%-6s on %-40s T[1,2] = %d (A[2,1] = %d) %s\n", what, where.c_str(), t(1, 2), a(2, 1),
              ok ? "ok" : "WRONG");
  return ok;
}

bool run(kernel::device d, const kernel::ndarray<int, 2> &a) {
  const index_t n = a.shape(0);
  const kernel::dim3 block(32, 32), grid(static_cast<unsigned>(n / 32), static_cast<unsigned>(n / 32));
  auto da = kernel::to_device(a, d);
  kernel::device_array<int, 2> dt({n, n}, d);
  kernel::launch<transpose_naive>(grid, block).on(d)(da, dt);
  bool ok = check("naive", d.name(), dt.copy_to_host(), a);
  kernel::launch<transpose_tiled>(grid, block).on(d)(da, dt);
  ok &= check("tiled", d.name(), dt.copy_to_host(), a);
  return ok;
}

int main() {
  const index_t n = 128; // a multiple of the 32x32 tile
  kernel::ndarray<int, 2> a({n, n});
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) a(i, j) = static_cast<int>(i * n + j);
  bool ok = run(kernel::device::simulator(), a);
  try {
    ok &= run(kernel::device::cuda(), a);
  } catch (const kernel::target_unavailable_error &e) {
    std::printf("cuda: not run here (%s)\n", e.what());
  }
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
