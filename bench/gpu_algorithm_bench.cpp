// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel/algorithm.h's primitives on a GPU against CUB called directly (nvcc-compiled,
// cuda/cub_baseline.cu), same GPU, same data, same stream: radix sort of 2^28 uint32 keys
// and 2^26 key-value pairs, inclusive scan, reduce and select_if of 2^28 float32, the 10
// largest of each column of a 1000 x 32000 float32 matrix; and kernel::random::philox's
// normals against cuRAND's Philox generator. Device time per call (events); speed as CUB's
// time over ours (the target is at least 0.9). The first call of each primitive in
// the process is timed on its own: run with an empty KERNEL_CACHE_DIR for the cold figure.
// Every result is checked against the direct call's (a difference is printed and fails the
// exit status). Prints "no GPU" without one.
//
// select_if is timed twice: returning a new array of the kept elements (which is copied to
// memory of its size when it fills less than half of the pass's), and into a buffer with room
// for every element, as CUB's caller gives it.
//
// "ours" is what kernel/algorithm.h does: sorts and sums of built-in types through CUB
// compiled ahead of time (runtime/cub/), the rest through kernels of its own; for the rows
// CUB takes, the library's own kernels are timed too (KERNEL_CUB=0).
//
//   bazel run -c opt //bench:gpu_algorithm_bench [-- log2n]    (default 28; pairs use n/4)
#include <curand.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <kernel/algorithm.h>
#include <kernel/detail/cub_api.h>
#include <kernel/kernel.h>
#include <kernel/random_arrays.h>
#include <kernel/random_generators.h>

#include "cuda/cub_baseline.h"
#include "gpu_timing.h"

[[kernel::vectorize("bool_(float32)")]] bool positive(float x) { return x > 0; }
constexpr kernel::ufunc<positive> is_positive;

[[kernel::reduce]] float add(float a, float b) { return a + b; }
constexpr kernel::reduce<add> sum;

namespace {

void check_cuda(int status, const char *what) {
  if (status != 0) throw std::runtime_error(std::string(what) + " failed with cudaError " + std::to_string(status));
}

/// CUB's work area for a call, as a CUB user sizes it: the call once without memory.
template <class Call> kernel::device_array<std::uint8_t> work_area(const kernel::stream &s, Call &&call) {
  std::size_t bytes = 0;
  check_cuda(call(nullptr, &bytes), "CUB's size query");
  return kernel::device_array<std::uint8_t>(static_cast<kernel::index_t>(bytes > 0 ? bytes : 1), s);
}

std::vector<std::uint32_t> random_bits(std::size_t n, std::uint64_t seed) {
  std::vector<std::uint32_t> v(n);
  for (std::uint32_t &x : v) {
    seed += 0x9e3779b97f4a7c15ull; // splitmix64
    std::uint64_t z = seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    x = static_cast<std::uint32_t>((z ^ (z >> 31)) >> 32);
  }
  return v;
}

std::vector<float> random_floats(std::size_t n, std::uint64_t seed) {
  std::vector<float> v(n);
  const std::vector<std::uint32_t> bits = random_bits(n, seed);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(static_cast<std::int32_t>(bits[i])) * 0x1p-31f;
  return v;
}

template <class T> std::vector<T> to_host(const kernel::device_array<T> &d) {
  std::vector<T> v(static_cast<std::size_t>(d.size()));
  d.copy_to_host(v);
  return v;
}

// A wrong result is reported and makes the exit status 1, but the other figures are still
// taken: GPU time is scarce.
int status = 0;

void require(bool same, const char *what) {
  if (same) return;
  std::printf("WRONG RESULT: %s differs from the direct call's\n", what);
  status = 1;
}

/// Milliseconds of the first call of `f` in this process, waited for: module loading included.
template <class F> double first_call_ms(kernel::stream &s, F &&f) {
  s.synchronize();
  const auto t0 = std::chrono::steady_clock::now();
  f();
  s.synchronize();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// Milliseconds per call of `f` with the library's own kernels where it would use CUB.
template <class F> double own_kernels_ms(kernel::stream &s, int reps, F &&f) {
  setenv("KERNEL_CUB", "0", 1);
  const double ms = bench::gpu_ms(s, reps, f);
  unsetenv("KERNEL_CUB");
  return ms;
}

void report_own(double own, double cub) {
  std::printf("  %-36s own kernels %8.3f ms  speed vs CUB %.3fx\n", "", own, cub / own);
}

void report(const char *what, double first_ours, double first_cub, double ours, double cub) {
  std::printf("%-38s ours %8.3f ms  CUB %8.3f ms  speed vs CUB %.3fx   first call: ours %7.2f ms, CUB %7.2f ms\n", what,
              ours, cub, cub / ours, first_ours, first_cub);
}

struct curand_calls : bench::loaded_library {
  curand_calls() : loaded_library("libcurand.so.10", "cuRAND") {}
  decltype(&::curandCreateGenerator) create = get<decltype(&::curandCreateGenerator)>("curandCreateGenerator");
  decltype(&::curandSetStream) set_stream = get<decltype(&::curandSetStream)>("curandSetStream");
  decltype(&::curandSetPseudoRandomGeneratorSeed) seed =
      get<decltype(&::curandSetPseudoRandomGeneratorSeed)>("curandSetPseudoRandomGeneratorSeed");
  decltype(&::curandGenerateNormal) normal = get<decltype(&::curandGenerateNormal)>("curandGenerateNormal");
  decltype(&::curandDestroyGenerator) destroy = get<decltype(&::curandDestroyGenerator)>("curandDestroyGenerator");
};

void check_curand(curandStatus_t r, const char *what) {
  if (r != CURAND_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed with curandStatus " + std::to_string(r));
}

} // namespace

int main(int argc, char **argv) {
  const std::optional<kernel::device> found = bench::cuda_device();
  if (!found) return 0;
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 28;
  if (log2n < 12 || log2n > 30) {
    std::fprintf(stderr, "usage: gpu_algorithm_bench [log2n, 12 to 30]\n");
    return 2;
  }
  const kernel::index_t n = kernel::index_t{1} << log2n, pairs = n / 4;
  const kernel::device gpu = *found;
  kernel::stream s(gpu);
  bench::driver cu;
  CUcontext context = nullptr;
  bench::check(cu.retain(&context, 0), "cuDevicePrimaryCtxRetain");
  bench::check(cu.set_current(context), "cuCtxSetCurrent");
  void *const stream = s.native_handle();
  const auto copy = [&](auto &to, const auto &from) {
    bench::check(cu.copy(reinterpret_cast<CUdeviceptr>(to.data()), reinterpret_cast<CUdeviceptr>(from.data()),
                         static_cast<std::size_t>(from.size()) * sizeof(*from.data()), static_cast<CUstream>(stream)),
                 "cuMemcpyDtoDAsync");
  };
  std::printf("n = 2^%d (key-value pairs: 2^%d), %s\n", log2n, log2n - 2, gpu.name().c_str());
  const std::string no_cub = kernel::detail::cub_unavailable(gpu.state());
  std::printf("sorts and sums through %s\n", no_cub.empty() ? "CUB (runtime/cub)" : ("own kernels: " + no_cub).c_str());
  const int reps = 10;

  {
    // Ours sorts in place, so each call first copies the keys back; the copy's time is taken
    // off. CUB sorts from one array into another.
    const auto keys = kernel::to_device(random_bits(static_cast<std::size_t>(n), 1), s);
    kernel::device_array<std::uint32_t> work(n, s), sorted(n, s);
    auto area = work_area(
        s, [&](void *t, std::size_t *b) { return cub_sort_keys(t, b, keys.data(), sorted.data(), n, stream); });
    const auto ours = [&] {
      copy(work, keys);
      kernel::sort.on(s)(work);
    };
    std::size_t bytes = static_cast<std::size_t>(area.size());
    const auto cub = [&] {
      check_cuda(cub_sort_keys(area.data(), &bytes, keys.data(), sorted.data(), n, stream), "SortKeys");
    };
    const double first_ours = first_call_ms(s, ours), first_cub = first_call_ms(s, cub);
    require(to_host(work) == to_host(sorted), "sort");
    const double copy_ms = bench::gpu_ms(s, reps, [&] { copy(work, keys); });
    const double cub_ms = bench::gpu_ms(s, reps, cub);
    report("sort uint32 keys", first_ours, first_cub, bench::gpu_ms(s, reps, ours) - copy_ms, cub_ms);
    report_own(own_kernels_ms(s, reps, ours) - copy_ms, cub_ms);
  }
  {
    const auto keys = kernel::to_device(random_bits(static_cast<std::size_t>(pairs), 2), s);
    const auto values = kernel::to_device(random_bits(static_cast<std::size_t>(pairs), 3), s);
    kernel::device_array<std::uint32_t> work_keys(pairs, s), work_values(pairs, s), sorted_keys(pairs, s),
        sorted_values(pairs, s);
    auto area = work_area(s, [&](void *t, std::size_t *b) {
      return cub_sort_pairs(t, b, keys.data(), sorted_keys.data(), values.data(), sorted_values.data(), pairs, stream);
    });
    std::size_t bytes = static_cast<std::size_t>(area.size());
    const auto ours = [&] {
      copy(work_keys, keys);
      copy(work_values, values);
      kernel::sort_by_key.on(s)(work_keys, work_values);
    };
    const auto cub = [&] {
      check_cuda(cub_sort_pairs(area.data(), &bytes, keys.data(), sorted_keys.data(), values.data(),
                                sorted_values.data(), pairs, stream),
                 "SortPairs");
    };
    const double first_ours = first_call_ms(s, ours), first_cub = first_call_ms(s, cub);
    // Both sorts are stable, so equal keys keep their values' order and the results agree.
    require(to_host(work_keys) == to_host(sorted_keys) && to_host(work_values) == to_host(sorted_values),
            "sort_by_key");
    const double copy_ms = bench::gpu_ms(s, reps, [&] {
      copy(work_keys, keys);
      copy(work_values, values);
    });
    const double cub_ms = bench::gpu_ms(s, reps, cub);
    report("sort_by_key uint32 -> uint32", first_ours, first_cub, bench::gpu_ms(s, reps, ours) - copy_ms, cub_ms);
    report_own(own_kernels_ms(s, reps, ours) - copy_ms, cub_ms);
  }

  const std::vector<float> host_x = random_floats(static_cast<std::size_t>(n), 4);
  const auto x = kernel::to_device(host_x, s);
  // The sums are checked exactly, every one: they are of steps of -2 .. 2 (mean 0), whose
  // sums over the elements a reduction or scan adds together (a tile, a thread's strided
  // share, a prefix of tiles) stay far below 2^24, where float adds integers exactly. (Not
  // in every conceivable order: all the +2s first would pass it; no GPU sum takes that one.
  // Random floats' sums differ by rounding, and a bound loose enough for that let a dropped
  // tile through.)
  std::vector<float> host_steps(host_x.size());
  for (std::size_t i = 0; i < host_x.size(); ++i) host_steps[i] = std::round(host_x[i] * 2);
  const auto steps = kernel::to_device(host_steps, s);
  std::vector<double> prefix(host_steps.size());
  for (std::size_t i = 0; i < host_steps.size(); ++i) prefix[i] = (i ? prefix[i - 1] : 0.0) + host_steps[i];
  const auto exact = [&](double got, std::size_t i) { return got == prefix[i]; };
  {
    kernel::device_array<float> ours_out(n, s), cub_out(n, s);
    auto area = work_area(
        s, [&](void *t, std::size_t *b) { return cub_inclusive_sum(t, b, steps.data(), cub_out.data(), n, stream); });
    std::size_t bytes = static_cast<std::size_t>(area.size());
    const auto ours = [&] { kernel::cumsum.on(s)(steps, ours_out); };
    const auto cub = [&] {
      check_cuda(cub_inclusive_sum(area.data(), &bytes, steps.data(), cub_out.data(), n, stream), "InclusiveSum");
    };
    const double first_ours = first_call_ms(s, ours), first_cub = first_call_ms(s, cub);
    const std::vector<float> a = to_host(ours_out), b = to_host(cub_out);
    for (std::size_t i = 0; i < a.size(); ++i) require(exact(a[i], i) && exact(b[i], i), "cumsum");
    const double cub_ms = bench::gpu_ms(s, reps, cub);
    report("cumsum float32", first_ours, first_cub, bench::gpu_ms(s, reps, ours), cub_ms);
    report_own(own_kernels_ms(s, reps, ours), cub_ms);
  }
  {
    // Both return the sum to the host, as a caller of reduce gets it.
    kernel::device_array<float> total(1, s);
    auto area = work_area(s, [&](void *t, std::size_t *b) { return cub_sum(t, b, steps.data(), total.data(), n, stream); });
    std::size_t bytes = static_cast<std::size_t>(area.size());
    float ours_total = 0, cub_total = 0;
    const auto ours = [&] { ours_total = sum.on(s)(steps); };
    const auto cub = [&] {
      check_cuda(cub_sum(area.data(), &bytes, steps.data(), total.data(), n, stream), "Sum");
      bench::check(cu.copy_to_host(&cub_total, reinterpret_cast<CUdeviceptr>(total.data()), sizeof(float),
                                   static_cast<CUstream>(stream)),
                   "cuMemcpyDtoHAsync");
      s.synchronize();
    };
    const double first_ours = first_call_ms(s, ours), first_cub = first_call_ms(s, cub);
    require(exact(ours_total, host_steps.size() - 1) && exact(cub_total, host_steps.size() - 1), "reduce");
    report("reduce float32 (sum to the host)", first_ours, first_cub, bench::gpu_ms(s, reps, ours),
           bench::gpu_ms(s, reps, cub));
  }
  {
    // select_if returns an array of the kept elements, so it reads their count; CUB's caller
    // reads it too to know the result's size.
    kernel::device_array<float> kept(n, s);
    kernel::device_array<std::int64_t> count(1, s);
    auto area = work_area(s, [&](void *t, std::size_t *b) {
      return cub_select_positive(t, b, x.data(), kept.data(), count.data(), n, stream);
    });
    std::size_t bytes = static_cast<std::size_t>(area.size());
    std::int64_t cub_count = 0;
    kernel::device_array<float> ours_kept;
    const auto ours = [&] { ours_kept = kernel::select_if.on(s)(x, is_positive); };
    const auto cub = [&] {
      check_cuda(cub_select_positive(area.data(), &bytes, x.data(), kept.data(), count.data(), n, stream), "If");
      bench::check(cu.copy_to_host(&cub_count, reinterpret_cast<CUdeviceptr>(count.data()), sizeof(cub_count),
                                   static_cast<CUstream>(stream)),
                   "cuMemcpyDtoHAsync");
      s.synchronize();
    };
    const double first_ours = first_call_ms(s, ours), first_cub = first_call_ms(s, cub);
    std::vector<float> theirs = to_host(kept);
    theirs.resize(static_cast<std::size_t>(cub_count));
    require(to_host(ours_kept) == theirs, "select_if");
    const double cub_ms = bench::gpu_ms(s, reps, cub);
    report("select_if float32 > 0", first_ours, first_cub, bench::gpu_ms(s, reps, ours), cub_ms);
    // As CUB's caller: into a buffer with room for every element, the count returned.
    kernel::device_array<float> into(n, s);
    kernel::index_t into_count = 0;
    const auto ours_into = [&] { into_count = kernel::select_if.on(s)(x, is_positive, into); };
    const double first_into = first_call_ms(s, ours_into);
    std::vector<float> got = to_host(into);
    got.resize(static_cast<std::size_t>(into_count));
    require(got == theirs, "select_if into a buffer");
    report("select_if float32 > 0, into a buffer", first_into, first_cub, bench::gpu_ms(s, reps, ours_into), cub_ms);
  }
  {
    // The sparse PCA case. CUB has no top-k: its user sorts each segment (descending) with
    // DeviceSegmentedSort and keeps the first 10, and needs the columns contiguous, so CUB is
    // given the transposed matrix (its transpose is not timed) while ours reads the columns
    // in place.
    const kernel::index_t rows = 1000, cols = 32000, k = 10;
    const std::vector<float> flat = random_floats(static_cast<std::size_t>(rows * cols), 5);
    std::vector<float> transposed(flat.size());
    for (kernel::index_t r = 0; r < rows; ++r)
      for (kernel::index_t c = 0; c < cols; ++c)
        transposed[static_cast<std::size_t>(c * rows + r)] = flat[static_cast<std::size_t>(r * cols + c)];
    kernel::ndarray<float, 2> host({rows, cols});
    std::copy(flat.begin(), flat.end(), host.data());
    const auto matrix = kernel::to_device(host, gpu);
    const auto segments = kernel::to_device(transposed, s);
    std::vector<std::int32_t> positions(flat.size());
    for (std::size_t i = 0; i < positions.size(); ++i) positions[i] = static_cast<std::int32_t>(i % rows);
    const auto position = kernel::to_device(positions, s);
    kernel::device_array<float> sorted(rows * cols, s);
    kernel::device_array<std::int32_t> sorted_positions(rows * cols, s);
    auto area = work_area(s, [&](void *t, std::size_t *b) {
      return cub_segmented_sort_descending(t, b, segments.data(), sorted.data(), position.data(),
                                           sorted_positions.data(), cols, rows, stream);
    });
    std::size_t bytes = static_cast<std::size_t>(area.size());
    std::optional<decltype(kernel::top_k(matrix, k, 0))> best;
    const auto ours = [&] { best.emplace(kernel::top_k.on(s)(matrix, k, 0)); };
    const auto cub = [&] {
      check_cuda(cub_segmented_sort_descending(area.data(), &bytes, segments.data(), sorted.data(), position.data(),
                                               sorted_positions.data(), cols, rows, stream),
                 "SortPairsDescending");
    };
    const double first_ours = first_call_ms(s, ours), first_cub = first_call_ms(s, cub);
    kernel::ndarray<float, 2> values({k, cols});
    best->values.copy_to_host(values);
    const auto indices = kernel::to_host(best->indices);
    const std::vector<float> theirs = to_host(sorted);
    // The values as CUB's sort orders them, and each index where its value is (ties may
    // order indices otherwise).
    bool same = true;
    for (kernel::index_t c = 0; c < cols; ++c)
      for (kernel::index_t j = 0; j < k; ++j) {
        const kernel::index_t at = indices(j, c);
        same = same && values(j, c) == theirs[static_cast<std::size_t>(c * rows + j)] && at >= 0 && at < rows &&
               values(j, c) == flat[static_cast<std::size_t>(at * cols + c)];
      }
    require(same, "top_k");
    const double cub_ms = bench::gpu_ms(s, reps, cub);
    report("top-10 of each column, 1000 x 32000", first_ours, first_cub, bench::gpu_ms(s, reps, ours), cub_ms);
    report_own(own_kernels_ms(s, reps, ours), cub_ms);
  }
  {
    // kernel::random::philox is cuRAND's Philox-4x32-10: the same numbers, so the same work.
    // The cuRAND-backed generator's first fill loads libcurand for the direct calls.
    kernel::device_array<float> ours_out(n, s), theirs(n, s);
    kernel::random::generator(kernel::random::engine::philox4_32_10, 7).on(s).normal(theirs);
    curand_calls cr;
    curandGenerator_t g = nullptr;
    check_curand(cr.create(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10), "curandCreateGenerator");
    check_curand(cr.set_stream(g, static_cast<cudaStream_t>(stream)), "curandSetStream");
    check_curand(cr.seed(g, 7), "curandSetPseudoRandomGeneratorSeed");
    const kernel::random::philox rng(7);
    const auto ours = [&] { rng.on(s).normal(ours_out); };
    const auto direct = [&] {
      check_curand(cr.normal(g, theirs.data(), static_cast<std::size_t>(n), 0.0f, 1.0f), "curandGenerateNormal");
    };
    const double first_ours = first_call_ms(s, ours);
    direct();
    const std::vector<float> a = to_host(ours_out), b = to_host(theirs);
    for (std::size_t i = 0; i < a.size(); i += a.size() / 4096 + 1)
      require(std::abs(a[i] - b[i]) <= 1e-4f + 1e-5f * std::abs(b[i]), "philox normal");
    const double ours_ms = bench::gpu_ms(s, reps, ours), curand_ms = bench::gpu_ms(s, reps, direct);
    std::printf("%-38s ours %8.3f ms  cuRAND %8.3f ms  speed vs cuRAND %.3fx   first call: ours %7.2f ms\n",
                "random normal float32 (Philox)", ours_ms, curand_ms, curand_ms / ours_ms, first_ours);
    s.synchronize();
    check_curand(cr.destroy(g), "curandDestroyGenerator");
  }
  s.synchronize();
  return status;
}
