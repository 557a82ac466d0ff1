// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The array algorithms on the CPU targets against the standard library and oneTBB on the
// same data in the same process: sort (float32, uint32) vs std::sort and
// oneapi::tbb::parallel_sort, cumsum vs a hand loop, top-k vs std::nth_element (one long array,
// and each column of a matrix as sparse PCA selects). Prints
// times and ratios (baseline time / ours: above 1 is faster).
//
//   bazel run --config=ci //bench:algorithm_cpu_bench -- [log2 n] [runs]
#include <oneapi/tbb/parallel_sort.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

#include "kernel/algorithm.h"
#include "timing.h"

namespace {

template <class T> std::vector<T> data(std::size_t n) {
  std::mt19937 g(1);
  std::vector<T> v(n);
  for (T &x : v) {
    if constexpr (std::is_floating_point_v<T>)
      x = std::uniform_real_distribution<T>(-1e6, 1e6)(g);
    else
      x = static_cast<T>(g());
  }
  return v;
}

template <class T> void sorts(const char *type, std::size_t n, int runs) {
  const std::vector<T> input = data<T>(n);
  std::vector<T> work;
  const auto timed = [&](auto &&f) {
    return bench::best_ms(runs, [&] {
      work = input;
      f();
    }) - bench::best_ms(runs, [&] { work = input; });
  };
  const double std_sort = timed([&] { std::sort(work.begin(), work.end()); });
  const double tbb_sort = timed([&] { oneapi::tbb::parallel_sort(work.begin(), work.end()); });
  const double cpu = timed([&] { kernel::sort(work); });
  const double parallel = timed([&] { kernel::sort.on(kernel::target::parallel)(work); });
  std::printf("sort %-8s std::sort %8.1f ms  tbb::parallel_sort %8.1f ms  cpu %7.1f ms  parallel %7.1f ms\n", type,
              std_sort, tbb_sort, cpu, parallel);
  std::printf("  ratios: cpu/std::sort %.2fx  parallel/cpu %.2fx  parallel/tbb::parallel_sort %.2fx\n", std_sort / cpu,
              cpu / parallel, tbb_sort / parallel);
  std::printf("result sort_%s cpu %.3f\nresult sort_%s parallel %.3f\n", type, cpu, type, parallel);
}

} // namespace

int main(int argc, char **argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 24;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 5;
  const std::size_t n = std::size_t{1} << log2n;
  std::printf("n = 2^%d, best of %d\n", log2n, runs);
  sorts<float>("float32", n, runs);
  sorts<std::uint32_t>("uint32", n, runs);

  const std::vector<float> x = data<float>(n);
  std::vector<float> out(n);
  const double loop = bench::best_ms(runs, [&] {
    float s = 0;
    for (std::size_t i = 0; i < n; ++i) out[i] = s += x[i];
  });
  const double cpu = bench::best_ms(runs, [&] { kernel::cumsum(x, out); });
  const double parallel = bench::best_ms(runs, [&] { kernel::cumsum.on(kernel::target::parallel)(x, out); });
  std::printf("cumsum float32  hand loop %7.2f ms  cpu %7.2f ms  parallel %7.2f ms  ratios: cpu/loop %.2fx  "
              "parallel/loop %.2fx\n",
              loop, cpu, parallel, loop / cpu, loop / parallel);
  std::printf("result cumsum_float32 cpu %.3f\nresult cumsum_float32 parallel %.3f\n", cpu, parallel);

  const kernel::index_t k = 10;
  std::vector<float> copy;
  const double nth = bench::best_ms(runs, [&] {
    copy = x;
    std::nth_element(copy.begin(), copy.begin() + k, copy.end(), std::greater<>());
    std::sort(copy.begin(), copy.begin() + k, std::greater<>());
  });
  const double topk = bench::best_ms(runs, [&] { (void)kernel::top_k(x, k); });
  const double topk_parallel = bench::best_ms(runs, [&] { (void)kernel::top_k.on(kernel::target::parallel)(x, k); });
  std::printf("top-10 of 2^%d  nth_element+sort %7.2f ms  top_k cpu %7.2f ms  parallel %7.2f ms  ratio cpu %.2fx\n",
              log2n, nth, topk, topk_parallel, nth / topk);
  std::printf("result top10 cpu %.3f\nresult top10 parallel %.3f\n", topk, topk_parallel);

  // The sparse PCA case: the 10 largest of each column of a 1000 x 32000 matrix.
  const kernel::index_t rows = 1000, cols = 32000;
  const std::vector<float> flat = data<float>(static_cast<std::size_t>(rows * cols));
  kernel::ndarray<float, 2> matrix({rows, cols});
  std::copy(flat.begin(), flat.end(), matrix.data());
  std::vector<float> column(static_cast<std::size_t>(rows));
  std::vector<float> best(static_cast<std::size_t>(k * cols));
  const double columns_nth = bench::best_ms(runs, [&] {
    for (kernel::index_t c = 0; c < cols; ++c) {
      for (kernel::index_t r = 0; r < rows; ++r) column[static_cast<std::size_t>(r)] = flat[r * cols + c];
      std::nth_element(column.begin(), column.begin() + k, column.end(), std::greater<>());
      std::sort(column.begin(), column.begin() + k, std::greater<>());
      std::copy(column.begin(), column.begin() + k, best.begin() + c * k);
    }
  });
  const double columns_cpu = bench::best_ms(runs, [&] { (void)kernel::top_k(matrix, k, 0); });
  const double columns_parallel =
      bench::best_ms(runs, [&] { (void)kernel::top_k.on(kernel::target::parallel)(matrix, k, 0); });
  std::printf("top-10 of each column, %lld x %lld  nth_element+sort %7.2f ms  cpu %7.2f ms  parallel %7.2f ms  "
              "ratios: cpu %.2fx  parallel %.2fx\n",
              static_cast<long long>(rows), static_cast<long long>(cols), columns_nth, columns_cpu,
              columns_parallel, columns_nth / columns_cpu, columns_nth / columns_parallel);
  std::printf("result top10_columns cpu %.3f\nresult top10_columns parallel %.3f\n", columns_cpu, columns_parallel);
  return 0;
}
