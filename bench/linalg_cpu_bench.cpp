// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel/linalg.h on the CPU targets against OpenBLAS called directly in the same process
// (the same library, the same thread count): a 2048 x 2048 float32 product, a transposed
// one (no copy on either side), a batch of 512 64 x 64 products, and a 4096 x 4096 matrix
// times a vector. Ratios above 1 mean our call was faster; the target is 0.95 or better
// (the call's own cost is its shape checks and the thread-count gate).
//
//   bazel run --config=ci //bench:linalg_cpu_bench -- [runs]
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

#include "kernel/linalg.h"
#include "timing.h"

extern "C" {
// OpenBLAS's CBLAS and thread count, declared here (the bench links -lopenblas).
void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc);
void cblas_sgemv(int order, int trans, int m, int n, float alpha, const float *a, int lda, const float *x, int incx,
                 float beta, float *y, int incy);
void openblas_set_num_threads(int threads);
}

namespace {

namespace la = kernel::linalg;
constexpr int row_major = 101, no_trans = 111, trans = 112;

void report(const char *what, const char *target, double direct, double ours) {
  std::printf("%-28s %-8s OpenBLAS direct %9.3f ms  ours %9.3f ms  ratio %.3f\n", what, target, direct, ours,
              direct / ours);
}

} // namespace

int main(int argc, char **argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 5;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::mt19937 g(1);
  std::uniform_real_distribution<float> u(-1, 1);
  const int n = 2048;
  kernel::ndarray<float, 2> a({n, n}), b({n, n}), c({n, n});
  for (kernel::index_t i = 0; i < a.size(); ++i) {
    a.data()[i] = u(g);
    b.data()[i] = u(g);
  }
  const int nb = 512, s = 64;
  kernel::ndarray<float, 3> as({nb, s, s}), bs({nb, s, s}), cs({nb, s, s});
  for (kernel::index_t i = 0; i < as.size(); ++i) {
    as.data()[i] = u(g);
    bs.data()[i] = u(g);
  }
  const int mv = 4096;
  kernel::ndarray<float, 2> big({mv, mv});
  std::vector<float> x(mv), y(mv);
  for (kernel::index_t i = 0; i < big.size(); ++i) big.data()[i] = u(g);
  for (float &v : x) v = u(g);

  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
    const int threads = t == kernel::target::cpu ? 1 : cores;
    const char *name = kernel::target_name(t).data();
    la::matrix_product.on(t)(a, b, c); // loads OpenBLAS
    double direct = bench::best_ms(runs, [&] {
      openblas_set_num_threads(threads);
      cblas_sgemm(row_major, no_trans, no_trans, n, n, n, 1, a.data(), n, b.data(), n, 0, c.data(), n);
    });
    double ours = bench::best_ms(runs, [&] { la::matrix_product.on(t)(a, b, c); });
    report("gemm 2048^2 float32", name, direct, ours);
    std::printf("result gemm_2048 %s %.3f\n", name, ours);

    direct = bench::best_ms(runs, [&] {
      openblas_set_num_threads(threads);
      cblas_sgemm(row_major, trans, no_trans, n, n, n, 1, a.data(), n, b.data(), n, 0, c.data(), n);
    });
    ours = bench::best_ms(runs, [&] { la::matrix_product.on(t)(la::transposed(a), b, c); });
    report("gemm 2048^2 A^T B float32", name, direct, ours);

    direct = bench::best_ms(runs, [&] {
      openblas_set_num_threads(threads);
      for (int q = 0; q < nb; ++q)
        cblas_sgemm(row_major, no_trans, no_trans, s, s, s, 1, as.data() + q * s * s, s, bs.data() + q * s * s, s, 0,
                    cs.data() + q * s * s, s);
    });
    ours = bench::best_ms(runs, [&] { la::matrix_product.on(t)(as, bs, cs); });
    report("batch 512 x 64^2 float32", name, direct, ours);

    direct = bench::best_ms(runs, [&] {
      openblas_set_num_threads(threads);
      cblas_sgemv(row_major, no_trans, mv, mv, 1, big.data(), mv, x.data(), 1, 0, y.data(), 1);
    });
    ours = bench::best_ms(runs, [&] { la::matrix_vector_product.on(t)(big, x, y); });
    report("gemv 4096^2 float32", name, direct, ours);
  }
  return 0;
}
