// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel/sparse.h on the CPU targets against a baseline in the same process: the CSR loops
// a user would write (one row after another). Cases: spmv of a 2^20 x 2^20 float32 matrix
// with 16 entries per row at random columns, spmm of the same matrix by a 2^20 x 8 matrix,
// and csr_from_dense of a 4096 x 4096 matrix with 1% nonzeros. Prints times, ratios
// (baseline / ours: above 1 is faster) and `result` lines for bench/scipy_sparse_compare.py.
//
//   bazel run --config=ci -c opt //bench:sparse_cpu_bench -- [runs]
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "kernel/sparse.h"
#include "timing.h"

namespace {

namespace sp = kernel::sparse;
using kernel::index_t;

void report(const char *what, double baseline, double cpu, double parallel, const char *result_name) {
  std::printf("%-34s plain loop %8.2f ms  cpu %8.2f ms  parallel %8.2f ms  ratios: cpu %.2fx  parallel %.2fx\n", what,
              baseline, cpu, parallel, baseline / cpu, baseline / parallel);
  std::printf("result %s cpu %.3f\nresult %s parallel %.3f\n", result_name, cpu, result_name, parallel);
}

} // namespace

int main(int argc, char **argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 5;
  const index_t n = index_t{1} << 20, per_row = 16;
  std::mt19937 g(1);
  std::uniform_int_distribution<int> column(0, static_cast<int>(n) - 1);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<int> offsets(n + 1), columns(n * per_row);
  std::vector<float> values(n * per_row);
  for (index_t r = 0; r < n; ++r) {
    offsets[r + 1] = static_cast<int>((r + 1) * per_row);
    int *row = columns.data() + r * per_row;
    for (index_t k = 0; k < per_row; ++k) row[k] = column(g);
    std::sort(row, row + per_row);
  }
  for (float &v : values) v = u(g);
  const sp::csr_matrix<float> a(n, n, offsets, columns, values);
  std::vector<float> x(n), y(n);
  for (float &v : x) v = u(g);

  const double plain = bench::best_ms(runs, [&] {
    for (index_t r = 0; r < n; ++r) {
      float s = 0;
      for (int k = offsets[r]; k < offsets[r + 1]; ++k) s += values[k] * x[columns[k]];
      y[r] = s;
    }
  });
  const std::vector<float> want_y = y;
  // Each call's result against the loop's (per row, sums of 16 products in any order).
  const auto near = [](const float *got, const float *want, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i)
      if (!(std::abs(got[i] - want[i]) <= 1e-5f * (1 + std::abs(want[i])))) return false;
    return true;
  };
  const auto checked = [&](bool same, const char *what) {
    if (!same) {
      std::printf("%s differs from the plain loop's result\n", what);
      std::exit(1);
    }
  };
  // Checked once each before timing, into an output of NaNs: a call that wrote nothing fails.
  std::fill(y.begin(), y.end(), std::nanf(""));
  sp::spmv(a, x, y);
  checked(near(y.data(), want_y.data(), y.size()), "spmv on cpu");
  std::fill(y.begin(), y.end(), std::nanf(""));
  sp::spmv.on(kernel::target::parallel)(a, x, y);
  checked(near(y.data(), want_y.data(), y.size()), "spmv on parallel");
  const double cpu = bench::best_ms(runs, [&] { sp::spmv(a, x, y); });
  const double parallel = bench::best_ms(runs, [&] { sp::spmv.on(kernel::target::parallel)(a, x, y); });
  report("spmv 2^20 x 2^20, 16/row, float32", plain, cpu, parallel, "spmv");

  const index_t cols = 8;
  kernel::ndarray<float, 2> b({n, cols}), c({n, cols});
  for (index_t i = 0; i < b.size(); ++i) b.data()[i] = u(g);
  const double plain_mm = bench::best_ms(runs, [&] {
    for (index_t r = 0; r < n; ++r) {
      float *out = c.data() + r * cols;
      std::fill(out, out + cols, 0.0f);
      for (int k = offsets[r]; k < offsets[r + 1]; ++k)
        for (index_t j = 0; j < cols; ++j) out[j] += values[k] * b.data()[columns[k] * cols + j];
    }
  });
  const std::vector<float> want_c(c.data(), c.data() + c.size());
  std::fill(c.data(), c.data() + c.size(), std::nanf(""));
  sp::spmm(a, b, c);
  checked(near(c.data(), want_c.data(), want_c.size()), "spmm on cpu");
  std::fill(c.data(), c.data() + c.size(), std::nanf(""));
  sp::spmm.on(kernel::target::parallel)(a, b, c);
  checked(near(c.data(), want_c.data(), want_c.size()), "spmm on parallel");
  const double cpu_mm = bench::best_ms(runs, [&] { sp::spmm(a, b, c); });
  const double parallel_mm = bench::best_ms(runs, [&] { sp::spmm.on(kernel::target::parallel)(a, b, c); });
  report("spmm by 2^20 x 8", plain_mm, cpu_mm, parallel_mm, "spmm");

  const index_t m = 4096;
  kernel::ndarray<float, 2> d({m, m});
  std::bernoulli_distribution keep(0.01);
  for (index_t i = 0; i < d.size(); ++i) d.data()[i] = keep(g) ? u(g) : 0.0f;
  std::vector<int> o, cl; // the last run's result, for the checks
  std::vector<float> vl;
  const double plain_fd = bench::best_ms(runs, [&] {
    std::vector<int> o_run{0}, cl_run; // grown from empty each run, as the library's
    std::vector<float> vl_run;
    for (index_t i = 0; i < m; ++i) {
      for (index_t j = 0; j < m; ++j)
        if (float v = d(i, j); v != 0) {
          cl_run.push_back(static_cast<int>(j));
          vl_run.push_back(v);
        }
      o_run.push_back(static_cast<int>(cl_run.size()));
    }
    o.swap(o_run);
    cl.swap(cl_run);
    vl.swap(vl_run);
  });
  const auto same_csr = [&](const sp::csr_matrix<float> &got) {
    return got.nnz() == static_cast<index_t>(vl.size()) && std::equal(vl.begin(), vl.end(), got.values().data()) &&
           std::equal(cl.begin(), cl.end(), got.column_indices().data()) &&
           std::equal(o.begin(), o.end(), got.row_offsets().data());
  };
  checked(same_csr(sp::csr_from_dense(d)), "csr_from_dense on cpu");
  checked(same_csr(sp::csr_from_dense.on(kernel::target::parallel)(d)), "csr_from_dense on parallel");
  const double cpu_fd = bench::best_ms(runs, [&] { (void)sp::csr_from_dense(d); });
  const double parallel_fd = bench::best_ms(runs, [&] { (void)sp::csr_from_dense.on(kernel::target::parallel)(d); });
  report("csr_from_dense 4096^2, 1%", plain_fd, cpu_fd, parallel_fd, "from_dense");
  return 0;
}
