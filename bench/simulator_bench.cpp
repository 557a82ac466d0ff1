// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The kernel simulator on the kernels of the CUDA-style-kernels issue, each timed against
// the plain C++ loop that computes the same result in the same process (the ratio says what
// simulating every CUDA thread costs), and the barrier throughput check: 1024 blocks of 256
// threads, two barriers per thread, which must take under 2 s on a 2-core machine.
//
//   bazel run -c opt //bench:simulator_bench                      (the sizes of the issue)
//   bazel run -c opt //bench:simulator_bench -- 64 128 16         (matmul n, transpose n, log2 histogram)
//   KERNEL_SIMULATOR_RACES=0 bazel run -c opt //bench:simulator_bench  (without race checks)
//
// bench/numba_simulator_compare.py runs this program and Numba's simulator on the same
// kernels and sizes and prints the ratios.
//
// Output lines "kernel <name> <simulator ms> <loop ms>" are what the comparison script reads.
#include <kernel/algorithm.h>
#include <kernel/kernel.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <utility>
#include <vector>

#include "bench/timing.h"

using kernel::array_view;
using kernel::index_t;
using bench::best_ms;

namespace {

[[kernel::vectorize("float32(float32, float32)")]] float add(float a, float b) { return a + b; }
constexpr kernel::ufunc<add> vadd;                            // no identity: reduced in order
constexpr kernel::ufunc<add> vsum{kernel::identity::zero}; // order free: reduced in a tree

constexpr int tile = 16;
constexpr int bins = 64;

[[kernel::jit("void(float32[:, :], float32[:, :], float32[:, :])")]]
void matmul_tiled(array_view<const float, 2> a, array_view<const float, 2> b, array_view<float, 2> c) {
  auto sa = kernel::shared_array<float, tile, tile>();
  auto sb = kernel::shared_array<float, tile, tile>();
  auto [x, y] = kernel::grid<2>();
  const unsigned tx = kernel::threadIdx.x, ty = kernel::threadIdx.y;
  float sum = 0;
  for (unsigned i = 0; i < kernel::gridDim.x; ++i) {
    sa(tx, ty) = a(x, ty + index_t{i} * tile);
    sb(tx, ty) = b(tx + index_t{i} * tile, y);
    kernel::syncthreads();
    for (int j = 0; j < tile; ++j) sum += sa(tx, j) * sb(j, ty);
    kernel::syncthreads();
  }
  c(x, y) = sum;
}

[[kernel::jit]] void transpose_tiled(array_view<const float, 2> a, array_view<float, 2> t) {
  auto buf = kernel::shared_array<float, 32, 33>();
  const unsigned tx = kernel::threadIdx.x, ty = kernel::threadIdx.y;
  const index_t bx = kernel::blockIdx.x * 32, by = kernel::blockIdx.y * 32;
  buf(ty, tx) = a(by + ty, bx + tx);
  kernel::syncthreads();
  t(bx + ty, by + tx) = buf(tx, ty);
}

[[kernel::jit]] void histogram(array_view<const float> values, float low, float high, array_view<unsigned> counts) {
  auto local = kernel::shared_array<unsigned, bins>();
  for (unsigned b = kernel::threadIdx.x; b < bins; b += kernel::blockDim.x) local[b] = 0;
  kernel::syncthreads();
  const float scale = bins / (high - low);
  for (index_t i = kernel::grid<1>(); i < values.size(); i += kernel::gridsize<1>()) {
    int b = static_cast<int>((values[i] - low) * scale);
    b = b < 0 ? 0 : (b >= bins ? bins - 1 : b);
    kernel::atomic_add(local[b], 1u);
  }
  kernel::syncthreads();
  for (unsigned b = kernel::threadIdx.x; b < bins; b += kernel::blockDim.x) kernel::atomic_add(counts[b], local[b]);
}

// Two barriers per thread and a little shared-memory traffic between them: what the
// simulator's scheduler costs, with almost no arithmetic.
[[kernel::jit]] void two_barriers(array_view<float> out) {
  auto s = kernel::shared_array<float, 256>();
  const unsigned t = kernel::threadIdx.x;
  s[t] = static_cast<float>(t);
  kernel::syncthreads();
  const float v = s[(t + 1) % kernel::blockDim.x];
  kernel::syncthreads();
  out[kernel::grid<1>()] = v;
}

bool report(const char *name, double sim, double loop, bool ok) {
  std::printf("kernel %-14s %10.2f %10.3f   %8.0fx   %s\n", name, sim, loop, sim / loop, ok ? "ok" : "WRONG");
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  const index_t mm_n = argc > 1 ? std::atoll(argv[1]) : 256;
  const index_t tr_n = argc > 2 ? std::atoll(argv[2]) : 1024;
  const int hist_log2 = argc > 3 ? std::atoi(argv[3]) : 20;
  if (mm_n % tile || tr_n % 32) {
    std::fprintf(stderr, "the matmul size must be a multiple of %d and the transpose size of 32\n", tile);
    return 2;
  }
  const int runs = 3;
  const kernel::device sim = kernel::device::simulator();
  std::printf("simulator: best of %d runs; each kernel against the plain loop that computes the same\n", runs);
  std::printf("%-21s %10s %10s %10s\n", "", "sim ms", "loop ms", "sim/loop");
  bool ok = true;

  {
    kernel::ndarray<float, 2> a({mm_n, mm_n}), b({mm_n, mm_n}), ref({mm_n, mm_n});
    for (index_t i = 0; i < mm_n; ++i)
      for (index_t j = 0; j < mm_n; ++j) {
        a(i, j) = float((i * 7 + j * 3) % 11) * 0.25f;
        b(i, j) = float((i * 5 + j) % 13) * 0.5f - 2.0f;
      }
    auto da = kernel::to_device(a, sim), db = kernel::to_device(b, sim);
    kernel::device_array<float, 2> dc({mm_n, mm_n}, sim);
    const unsigned blocks = static_cast<unsigned>(mm_n / tile);
    const double t_sim = best_ms(runs, [&] {
      kernel::launch<matmul_tiled>(kernel::dim3(blocks, blocks), kernel::dim3(tile, tile)).on(sim)(da, db, dc);
    });
    const double t_loop = best_ms(runs, [&] {
      for (index_t i = 0; i < mm_n; ++i)
        for (index_t j = 0; j < mm_n; ++j) {
          float s = 0;
          for (index_t k = 0; k < mm_n; ++k) s += a(i, k) * b(k, j);
          ref(i, j) = s;
        }
    });
    const auto c = dc.copy_to_host();
    float worst = 0;
    for (index_t i = 0; i < mm_n; ++i)
      for (index_t j = 0; j < mm_n; ++j) worst = std::max(worst, std::abs(c(i, j) - ref(i, j)));
    ok &= report("matmul_tiled", t_sim, t_loop, worst <= 1e-2f);
  }
  {
    kernel::ndarray<float, 2> a({tr_n, tr_n}), ref({tr_n, tr_n});
    for (index_t i = 0; i < tr_n; ++i)
      for (index_t j = 0; j < tr_n; ++j) a(i, j) = static_cast<float>(i * tr_n + j);
    auto da = kernel::to_device(a, sim);
    kernel::device_array<float, 2> dt({tr_n, tr_n}, sim);
    const unsigned blocks = static_cast<unsigned>(tr_n / 32);
    const double t_sim = best_ms(runs, [&] {
      kernel::launch<transpose_tiled>(kernel::dim3(blocks, blocks), kernel::dim3(32, 32)).on(sim)(da, dt);
    });
    const double t_loop = best_ms(runs, [&] {
      for (index_t i = 0; i < tr_n; ++i)
        for (index_t j = 0; j < tr_n; ++j) ref(j, i) = a(i, j);
    });
    const auto t = dt.copy_to_host();
    bool same = true;
    for (index_t i = 0; i < tr_n && same; ++i)
      for (index_t j = 0; j < tr_n && same; ++j) same = t(i, j) == ref(i, j);
    ok &= report("transpose_tiled", t_sim, t_loop, same);
  }
  {
    std::vector<float> values(std::size_t{1} << hist_log2);
    std::mt19937 rng(11);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (float &v : values) v = normal(rng);
    auto dv = kernel::to_device(values, sim);
    kernel::device_array<unsigned> dcounts(bins, sim);
    std::vector<unsigned> ref(bins);
    const double t_sim = best_ms(runs, [&] {
      dcounts.copy_from_host(std::vector<unsigned>(bins, 0));
      kernel::launch<histogram>(32, 256).on(sim)(dv, -4.0f, 4.0f, dcounts);
    });
    const double t_loop = best_ms(runs, [&] {
      std::fill(ref.begin(), ref.end(), 0u);
      for (float v : values) {
        int b = static_cast<int>((v + 4.0f) * (bins / 8.0f));
        ++ref[static_cast<std::size_t>(b < 0 ? 0 : (b >= bins ? bins - 1 : b))];
      }
    });
    std::vector<unsigned> counts(bins);
    dcounts.copy_to_host(counts);
    ok &= report("histogram", t_sim, t_loop, counts == ref);
  }
  {
    const unsigned blocks = 1024, threads = 256;
    kernel::device_array<float> out(index_t{blocks} * threads, sim);
    const double t_sim = best_ms(runs, [&] { kernel::launch<two_barriers>(blocks, threads).on(sim)(out); });
    const auto h = out.copy_to_host();
    bool same = true;
    for (index_t i = 0; i < h.size() && same; ++i) same = h[i] == static_cast<float>((i % threads + 1) % threads);
    std::printf("\n1024 blocks x 256 threads, two barriers per thread: %.0f ms (%.0f ns per thread-barrier; "
                "target < 2000 ms) %s\n",
                t_sim, t_sim * 1e6 / (2.0 * blocks * threads), same ? "ok" : "WRONG");
    ok &= same;
  }
  {
    // ufunc.reduce of a device array along an axis of 4096: with an identity, a tree of 12
    // calls; without, 4095 calls in order. The same sums (small integers, exact either way).
    const index_t rows = 4096, cols = 256;
    kernel::ndarray<float, 2> m({rows, cols});
    for (index_t i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(i % 7);
    const auto dm = kernel::to_device(m, sim);
    kernel::device_array<float, 1> in_order, in_tree;
    const double t_steps = best_ms(3, [&] { in_order = vadd.reduce(dm, 0); });
    const double t_tree = best_ms(3, [&] { in_tree = vsum.reduce(dm, 0); });
    const bool same = in_order.copy_to_host().to_vector() == in_tree.copy_to_host().to_vector() &&
                      in_tree.copy_to_host().to_vector() == vadd.reduce(m, 0).to_vector();
    std::printf("\nadd.reduce of a 4096 x 256 device array along axis 0: in order %.1f ms, in a tree (an identity) "
                "%.1f ms: %.1fx %s\n",
                t_steps, t_tree, t_steps / t_tree, same ? "ok" : "WRONG");
    ok &= same;
    // One column: the calls' cost alone.
    const auto column = kernel::to_device(std::vector<float>(16384, 1.0f), sim);
    float a = 0, b = 0;
    const double t_column_steps = best_ms(3, [&] { a = vadd.reduce(column); });
    const double t_column_tree = best_ms(3, [&] { b = vsum.reduce(column); });
    std::printf("add.reduce of 16384 device elements: in order %.1f ms, in a tree %.1f ms: %.0fx %s\n", t_column_steps,
                t_column_tree, t_column_steps / t_column_tree, a == 16384 && b == 16384 ? "ok" : "WRONG");
    ok &= a == 16384 && b == 16384;
  }
  {
    // argsort on the simulator against the cpu target's: short rows are sorted in one launch
    // that counts each key's place; 4096 keys in a row take the radix passes (a launch per step).
    std::printf("\n");
    for (const auto [rows, cols] : {std::pair<index_t, index_t>{1, 100}, {1, 1000}, {64, 100}, {1, 4096}}) {
      kernel::ndarray<float, 2> keys({rows, cols});
      for (index_t i = 0; i < keys.size(); ++i) keys.data()[i] = static_cast<float>((i * 7919) % 101);
      const auto on_sim = kernel::to_device(keys, sim);
      kernel::ndarray<index_t, 2> host_order;
      kernel::device_array<index_t, 2> sim_order;
      const double t_cpu = best_ms(5, [&] { host_order = kernel::argsort(keys); });
      const double t_sim = best_ms(5, [&] { sim_order = kernel::argsort(on_sim); });
      const bool same = sim_order.copy_to_host().to_vector() == host_order.to_vector();
      std::printf("argsort of %lld x %lld keys: simulator %.2f ms, cpu %.3f ms (%.0fx) %s\n",
                  static_cast<long long>(rows), static_cast<long long>(cols), t_sim, t_cpu, t_sim / t_cpu,
                  same ? "ok" : "WRONG");
      ok &= same;
    }
  }
  return ok ? 0 : 1;
}
