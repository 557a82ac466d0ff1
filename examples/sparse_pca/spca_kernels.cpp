// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Sparse PCA with CUDA-style kernels and device arrays, shaped as the original GPU code
// (norm_random_nums, batch_matmul, batch_k_selection, batch_scatter_norm), with the random
// numbers made in the kernel from the same Philox sequence the array generator uses.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <kernel/random.h>

#include "spca.h"

using kernel::array_view;
using kernel::index_t;

namespace {

constexpr index_t max_k = spca::max_kernel_k; // the selection's per-thread arrays

}

// Direction j: d standard normals (elements j*d .. j*d+d-1 of a Philox fill starting at
// block `first_block`, as kernel::random::philox::normal lays them out), scaled to unit length.
[[kernel::jit]] void norm_random_nums(array_view<float, 2> c, std::uint64_t seed, std::uint64_t first_block) {
  const index_t j = kernel::grid<1>();
  if (j >= c.shape(0)) return;
  const index_t d = c.shape(1);
  float squares = 0;
  for (index_t t = 0; t < d; ++t) {
    const index_t e = j * d + t, q = e % 4;
    const auto w = kernel::random::philox_block(seed, first_block + static_cast<std::uint64_t>(e / 4));
    const auto z = kernel::random::normal2_float32(w[q & 2], w[(q & 2) + 1]);
    c(j, t) = z[q & 1];
    squares += c(j, t) * c(j, t);
  }
  const float norm = std::sqrt(squares);
  for (index_t t = 0; t < d; ++t) c(j, t) = c(j, t) / norm;
}

// a(i, j) = sum_t vd(i, t) c(j, t): one thread per element.
[[kernel::jit]] void batch_matmul(array_view<const float, 2> vd, array_view<const float, 2> c, array_view<float, 2> a) {
  const index_t j = kernel::grid<1>();
  const index_t i = static_cast<index_t>(kernel::blockIdx.y);
  if (j >= a.shape(1) || i >= a.shape(0)) return;
  float s = 0;
  for (index_t t = 0; t < vd.shape(1); ++t) s += vd(i, t) * c(j, t);
  a(i, j) = s;
}

// The k largest entries of column j of a (ties: the first position), largest first.
[[kernel::jit]] void batch_k_selection(array_view<const float, 2> a, index_t k, array_view<float, 2> values,
                                       array_view<index_t, 2> positions) {
  const index_t j = kernel::grid<1>();
  if (j >= a.shape(1)) return;
  kernel::local_array<float, max_k> v;
  kernel::local_array<index_t, max_k> at;
  index_t count = 0;
  for (index_t i = 0; i < a.shape(0); ++i) {
    const float x = a(i, j);
    if (count == k && !(x > v(k - 1))) continue;
    index_t slot = count < k ? count++ : k - 1;
    while (slot > 0 && x > v(slot - 1)) {
      v(slot) = v(slot - 1);
      at(slot) = at(slot - 1);
      --slot;
    }
    v(slot) = x;
    at(slot) = i;
  }
  for (index_t q = 0; q < k; ++q) {
    values(q, j) = v(q);
    positions(q, j) = at(q);
  }
}

// The norm of each column's k values.
[[kernel::jit]] void batch_scatter_norm(array_view<const float, 2> values, array_view<float> norms) {
  const index_t j = kernel::grid<1>();
  if (j >= values.shape(1)) return;
  float squares = 0;
  for (index_t q = 0; q < values.shape(0); ++q) squares += values(q, j) * values(q, j);
  norms[j] = std::sqrt(squares);
}

namespace spca {

result with_kernels(const problem &pr, const kernel::ndarray<float, 2> &vd, kernel::device dev,
                    const progress &report) {
  if (pr.k < 1 || pr.k > max_k || pr.k > pr.p)
    throw std::invalid_argument("with_kernels: k must be between 1 and min(p, " + std::to_string(max_k) + ")");
  const index_t m = pr.directions(), batches = (m + pr.batch - 1) / pr.batch;
  const unsigned threads = 128;
  const auto dvd = kernel::to_device(vd, dev);
  result best;
  std::uint64_t first_block = 0;
  for (index_t b = 0; b < batches; ++b) {
    const index_t n = std::min(pr.batch, m - b * pr.batch);
    const unsigned blocks = static_cast<unsigned>((n + threads - 1) / threads);
    kernel::device_array<float, 2> c({n, pr.d}, dev), a({pr.p, n}, dev), values({pr.k, n}, dev);
    kernel::device_array<index_t, 2> positions({pr.k, n}, dev);
    kernel::device_array<float, 1> norms(n, dev);
    kernel::launch<norm_random_nums>(blocks, threads).on(dev)(c, pr.seed, first_block);
    first_block += static_cast<std::uint64_t>((n * pr.d + 3) / 4);
    kernel::launch<batch_matmul>(kernel::dim3(blocks, static_cast<unsigned>(pr.p)), threads).on(dev)(dvd, c, a);
    kernel::launch<batch_k_selection>(blocks, threads).on(dev)(a, pr.k, values, positions);
    kernel::launch<batch_scatter_norm>(blocks, threads).on(dev)(values, norms);
    const auto host_norms = norms.copy_to_host();
    const index_t j = std::max_element(host_norms.data(), host_norms.data() + n) - host_norms.data();
    if (host_norms(j) > best.value)
      best = finish(pr, host_norms(j), b * pr.batch + j, values.copy_to_host(), positions.copy_to_host(), j);
    if (report) report(b + 1, batches);
  }
  return best;
}

} // namespace spca
