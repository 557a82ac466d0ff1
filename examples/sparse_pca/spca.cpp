// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Sparse PCA with the high-level layer: per batch, random normals, a gufunc making each
// direction a unit vector, one matrix product, top_k down every column, a gufunc for the
// norms, top_k of the norms. One code for every target: host arrays on cpu and parallel,
// device arrays (which every call keeps on the device) on the simulator and CUDA.
#include <cmath>

#include <kernel/algorithm.h>
#include <kernel/linalg.h>
#include <kernel/random_arrays.h>

#include "spca.h"

[[kernel::guvectorize("(d)->(d)")]]
void unit(kernel::array_view<const float> c, kernel::array_view<float> out) {
  float squares = 0;
  for (kernel::index_t t = 0; t < c.size(); ++t) squares += c[t] * c[t];
  for (kernel::index_t t = 0; t < c.size(); ++t) out[t] = c[t] / std::sqrt(squares);
}

[[kernel::guvectorize("(k)->()")]]
void norm(kernel::array_view<const float> v, float &out) {
  float squares = 0;
  for (kernel::index_t t = 0; t < v.size(); ++t) squares += v[t] * v[t];
  out = std::sqrt(squares);
}

namespace spca {

namespace la = kernel::linalg;
constexpr kernel::gufunc<"(d)->(d)", unit> units;
constexpr kernel::gufunc<"(k)->()", norm> norms;

template <class Array>
static result search(const problem &pr, const Array &vd, kernel::target t, const progress &report) {
  const kernel::index_t m = pr.directions(), batches = (m + pr.batch - 1) / pr.batch;
  const kernel::random::philox rng(pr.seed);
  result best;
  for (kernel::index_t b = 0; b < batches; ++b) {
    const kernel::index_t n = std::min(pr.batch, m - b * pr.batch);
    Array c = kernel::empty_like(vd, {n, pr.d}), u = kernel::empty_like(c);
    rng.on(t).normal(c);
    units.on(t)(c, u);
    const auto a = la::matrix_product.on(t)(vd, la::transposed(u)); // p x n
    const auto top = kernel::top_k.on(t)(a, pr.k, /*axis=*/0);      // k x n
    const auto winner = kernel::top_k.on(t)(norms.on(t)(la::transposed(top.values)), 1);
    if (const float val = kernel::to_host(winner.values)(0); val > best.value) {
      const kernel::index_t j = kernel::to_host(winner.indices)(0);
      best = finish(pr, val, b * pr.batch + j, kernel::to_host(top.values), kernel::to_host(top.indices), j);
    }
    if (report) report(b + 1, batches);
  }
  return best;
}

result high_level(const problem &pr, const kernel::ndarray<float, 2> &vd, kernel::target t, const progress &report) {
  if (t == kernel::target::cpu || t == kernel::target::parallel) return search(pr, vd, t, report);
  return search(pr, kernel::to_device(vd, kernel::device::of(t)), t, report);
}

} // namespace spca
