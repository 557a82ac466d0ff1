// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Sparse PCA by the spannogram (the problem every version here solves): given Vd (p x d,
// the leading d eigenvectors of a covariance, or any p x d matrix), draw M = (4/epsilon)^d
// random unit directions c in R^d; for each, a = Vd c, keep the k largest entries of a; the
// direction whose k entries have the largest norm wins, and x is zero but for those entries
// divided by their norm.
//
// Every version draws its directions from one kernel::random::philox sequence, a batch at a
// time (batch x d standard normals, one row per direction), so all of them examine the same
// directions and must return the same x. Each fill starts at a block of four draws: the
// directions do not depend on the batch size where batch x d is a multiple of four (main
// rounds it up so).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <kernel/kernel.h>

namespace spca {

struct problem {
  kernel::index_t p = 1000, d = 3, k = 10;
  double epsilon = 0.1;
  kernel::index_t batch = 32000;
  std::uint64_t seed = 1;

  /// M = ceil((4/epsilon)^d), at least 1.
  kernel::index_t directions() const;
  /// Throws std::invalid_argument saying what is wrong where the versions cannot solve the
  /// problem as given: p, d, k, batch not positive, k above p, epsilon not positive, more
  /// than 2^53 directions; with `vd`, also `vd` not p x d or a value of it not finite (the
  /// versions compare norms, which a NaN makes incomparable). The versions take it as checked.
  void check() const;
  void check(const kernel::ndarray<float, 2> &vd) const;
};

/// The largest k of the kernel version (its selection's per-thread arrays).
inline constexpr kernel::index_t max_kernel_k = 64;

struct result {
  float value = -1;                     // ||a[I]|| of the best direction
  kernel::index_t direction = -1;       // its number, 0 .. M-1
  std::vector<kernel::index_t> support; // I, largest entry first
  std::vector<float> x;                 // p values, zero off the support
};

/// Called after each batch with (batches done, batches in all).
using progress = std::function<void(kernel::index_t, kernel::index_t)>;

/// A p x d input: standard normals from the seed's second sequence.
kernel::ndarray<float, 2> example_input(const problem &pr);

/// Plain C++ loops, one direction at a time.
result reference(const problem &pr, const kernel::ndarray<float, 2> &vd, const progress &report = {});
/// The value ||a[I]|| of one direction, by the reference's arithmetic (for near-ties).
float reference_value(const problem &pr, const kernel::ndarray<float, 2> &vd, kernel::index_t direction);

/// The high-level layer: random arrays, a gufunc, matrix_product, top_k (spca.cpp).
result high_level(const problem &pr, const kernel::ndarray<float, 2> &vd, kernel::target t,
                  const progress &report = {});

/// [[kernel::jit]] kernels and device arrays, as a CUDA programmer writes it
/// (spca_kernels.cpp); on the simulator or a CUDA device.
result with_kernels(const problem &pr, const kernel::ndarray<float, 2> &vd, kernel::device dev,
                    const progress &report = {});

/// x from the best direction's k values and positions.
result finish(const problem &pr, float value, kernel::index_t direction, const std::vector<float> &values,
              const std::vector<kernel::index_t> &positions);
/// The same from column `column` of k x n arrays of each direction's values and positions.
result finish(const problem &pr, float value, kernel::index_t direction, const kernel::ndarray<float, 2> &values,
              const kernel::ndarray<kernel::index_t, 2> &positions, kernel::index_t column);

} // namespace spca
