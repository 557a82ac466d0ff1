// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Which onesweep tile CUB's radix sort of 32-bit keys should use on the GPU at hand: CUB's
// own choice for its architecture (cub::DeviceRadixSort::SortKeys on a DoubleBuffer, as
// runtime/cub/ calls it), thrust::sort (what CuPy's sort calls), and the same dispatch with
// other onesweep tiles. Prints each one's time as a ratio to CUB's own, every result checked
// against CUB's. Built and run by hand on a GPU machine:
//   nvcc -O3 -std=c++17 -arch=sm_90 bench/cuda/radix_sort_tuning.cu -o radix_sort_tuning
//   ./radix_sort_tuning [log2n]
#include <cub/device/device_radix_sort.cuh>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

using sort_key = std::uint32_t;
using offset_t = std::uint32_t;
using default_hub = cub::detail::radix::policy_hub<sort_key, cub::NullType, offset_t>;

/// CUB's sm_90 policy with another onesweep tile, ranking and store.
template <int Threads, int Items, cub::RadixRankAlgorithm Rank, cub::BlockScanAlgorithm Scan,
          cub::RadixSortStoreAlgorithm Store, class Offset = offset_t>
struct tile_hub {
  using base = cub::detail::radix::policy_hub<sort_key, cub::NullType, Offset>;
  struct policy : cub::ChainedPolicy<900, policy, policy>,
                  base::template OnesweepSmallKeyTunedPolicy<
                      cub::detail::radix::sm90_small_key_tuning<4, 0, sizeof(Offset)>> {
    using OnesweepPolicy =
        cub::AgentRadixSortOnesweepPolicy<Threads, Items, sort_key, 1, Rank, Scan, Store, 8>;
  };
  using MaxPolicy = policy;
};

template <class Hub, class Offset = offset_t>
cudaError_t sort_with(void *temp, std::size_t &bytes, cub::DoubleBuffer<sort_key> &keys, offset_t n, cudaStream_t s) {
  cub::DoubleBuffer<cub::NullType> values;
  return cub::DispatchRadixSort<cub::SortOrder::Ascending, sort_key, cub::NullType, Offset,
                                cub::detail::identity_decomposer_t, Hub>::Dispatch(temp, bytes, keys, values,
                                                                                   static_cast<Offset>(n), 0, 32, true,
                                                                                   s);
}

struct timer {
  cudaEvent_t a, b;
  timer() {
    check(cudaEventCreate(&a), "event");
    check(cudaEventCreate(&b), "event");
  }
  template <class F> float best_ms(cudaStream_t s, int reps, F &&f) {
    float best = 1e30f;
    for (int r = 0; r < reps; ++r) {
      check(cudaEventRecord(a, s), "record");
      f();
      check(cudaEventRecord(b, s), "record");
      check(cudaEventSynchronize(b), "sync");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, a, b), "elapsed");
      best = ms < best ? ms : best;
    }
    return best;
  }
};

} // namespace

int main(int argc, char **argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 28;
  const offset_t n = offset_t{1} << log2n;
  std::vector<sort_key> host(n);
  std::mt19937 rng(1);
  for (auto &k : host) k = static_cast<sort_key>(rng());
  cudaStream_t s;
  check(cudaStreamCreate(&s), "stream");
  sort_key *pristine, *a, *b, *want;
  check(cudaMalloc(&pristine, n * sizeof(sort_key)), "malloc");
  check(cudaMalloc(&a, n * sizeof(sort_key)), "malloc");
  check(cudaMalloc(&b, n * sizeof(sort_key)), "malloc");
  check(cudaMalloc(&want, n * sizeof(sort_key)), "malloc");
  check(cudaMemcpy(pristine, host.data(), n * sizeof(sort_key), cudaMemcpyHostToDevice), "copy");
  void *temp = nullptr;
  std::size_t temp_bytes = 0;
  const auto restore = [&] { check(cudaMemcpyAsync(a, pristine, n * sizeof(sort_key), cudaMemcpyDeviceToDevice, s), "restore"); };
  timer t;
  const int reps = 8;
  const float copy_ms = t.best_ms(s, reps, restore);

  // CUB's own choice: the baseline every other row is a ratio to.
  const auto cub_sort = [&](void *tmp, std::size_t &bytes, cub::DoubleBuffer<sort_key> &keys) {
    return cub::DeviceRadixSort::SortKeys(tmp, bytes, keys, n, 0, 32, s);
  };
  {
    cub::DoubleBuffer<sort_key> keys(a, b);
    check(cub_sort(nullptr, temp_bytes, keys), "size");
    check(cudaMalloc(&temp, temp_bytes + (std::size_t{64} << 20)), "temp");
  }
  const auto timed = [&](const char *name, auto &&sort, float base) {
    sort_key *out = nullptr;
    const float ms = t.best_ms(s, reps, [&] {
                       restore();
                       cub::DoubleBuffer<sort_key> keys(a, b);
                       std::size_t bytes = temp_bytes + (std::size_t{64} << 20);
                       check(sort(temp, bytes, keys), name);
                       out = keys.Current();
                     }) -
                     copy_ms;
    check(cudaStreamSynchronize(s), name);
    if (base == 0) check(cudaMemcpy(want, out, n * sizeof(sort_key), cudaMemcpyDeviceToDevice), "want");
    std::vector<sort_key> got(n), expect(n);
    check(cudaMemcpy(got.data(), out, n * sizeof(sort_key), cudaMemcpyDeviceToHost), "got");
    check(cudaMemcpy(expect.data(), want, n * sizeof(sort_key), cudaMemcpyDeviceToHost), "expect");
    const bool same = got == expect;
    std::printf("%-44s %8.3f ms  %5.3fx CUB's choice%s\n", name, ms, base == 0 ? 1.0 : base / ms,
                same ? "" : "  WRONG RESULT");
    return ms;
  };
  std::printf("radix sort of 2^%d uint32 keys; copy restoring them %.3f ms (taken off)\n", log2n, copy_ms);
  const float base = timed("cub::DeviceRadixSort::SortKeys (DoubleBuffer)", cub_sort, 0);
  timed("thrust::sort", [&](void *, std::size_t &, cub::DoubleBuffer<sort_key> &keys) {
    thrust::sort(thrust::cuda::par.on(s), keys.Current(), keys.Current() + n);
    return cudaGetLastError();
  }, base);
  timed("SortKeys of a 64-bit count (as thrust calls it)",
        [&](void *tmp, std::size_t &bytes, cub::DoubleBuffer<sort_key> &keys) {
          return cub::DeviceRadixSort::SortKeys(tmp, bytes, keys, static_cast<long long>(n), 0, 32, s);
        },
        base);
#define KERNEL_TILE(T, I, RANK, SCAN, STORE)                                                                          \
  timed(#T " x " #I " " #RANK " " #SCAN " " #STORE,                                                                  \
        [&](void *tmp, std::size_t &bytes, cub::DoubleBuffer<sort_key> &keys) {                                          \
          return sort_with<tile_hub<T, I, cub::RADIX_RANK_MATCH_EARLY_COUNTS_##RANK, cub::BLOCK_SCAN_##SCAN,           \
                                    cub::RADIX_SORT_STORE_##STORE>>(tmp, bytes, keys, n, s);                          \
        },                                                                                                            \
        base)
  KERNEL_TILE(384, 16, ANY, RAKING_MEMOIZE, DIRECT);
  KERNEL_TILE(384, 17, ANY, RAKING_MEMOIZE, DIRECT);
  KERNEL_TILE(384, 18, ANY, RAKING_MEMOIZE, DIRECT);
  KERNEL_TILE(384, 19, ANY, RAKING_MEMOIZE, DIRECT);
  KERNEL_TILE(384, 20, ANY, RAKING_MEMOIZE, DIRECT);
  KERNEL_TILE(384, 21, ANY, RAKING_MEMOIZE, DIRECT);
  KERNEL_TILE(384, 22, ANY, RAKING_MEMOIZE, DIRECT);
  KERNEL_TILE(384, 19, ANY, RAKING_MEMOIZE, ALIGNED);
  KERNEL_TILE(384, 19, ATOMIC_OR, RAKING_MEMOIZE, DIRECT);
  KERNEL_TILE(384, 19, ANY, WARP_SCANS, DIRECT);
  KERNEL_TILE(256, 19, ANY, RAKING_MEMOIZE, DIRECT);
  KERNEL_TILE(256, 23, ANY, RAKING_MEMOIZE, DIRECT);
  KERNEL_TILE(320, 19, ANY, RAKING_MEMOIZE, DIRECT);
  KERNEL_TILE(448, 17, ANY, RAKING_MEMOIZE, DIRECT);
  KERNEL_TILE(512, 15, ANY, RAKING_MEMOIZE, DIRECT);
  KERNEL_TILE(512, 17, ANY, RAKING_MEMOIZE, DIRECT);
  timed("384 x 19, 64-bit offsets (thrust's tile)",
        [&](void *tmp, std::size_t &bytes, cub::DoubleBuffer<sort_key> &keys) {
          return sort_with<tile_hub<384, 19, cub::RADIX_RANK_MATCH_EARLY_COUNTS_ANY, cub::BLOCK_SCAN_RAKING_MEMOIZE,
                                    cub::RADIX_SORT_STORE_DIRECT, unsigned long long>,
                           unsigned long long>(tmp, bytes, keys, n, s);
        },
        base);
#undef KERNEL_TILE
  return 0;
}
