// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The reference: the algorithm as written in the original talk's spca_unopt, in plain loops,
// on directions from the same random sequence as every other version.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include <kernel/random_arrays.h>

#include "spca.h"

namespace spca {

kernel::index_t problem::directions() const {
  // At least one: a large epsilon's (4/epsilon)^d is below 1e-9.
  return std::max<kernel::index_t>(
      1, static_cast<kernel::index_t>(std::ceil(std::pow(4.0 / epsilon, static_cast<double>(d)) - 1e-9)));
}

void problem::check() const {
  if (p < 1 || d < 1 || k < 1 || batch < 1)
    throw std::invalid_argument("p, d, k and batch must be positive");
  if (k > p) throw std::invalid_argument("k must be at most p");
  if (!(epsilon > 0)) throw std::invalid_argument("epsilon must be positive");
  const double m = std::ceil(std::pow(4.0 / epsilon, static_cast<double>(d)) - 1e-9);
  if (!(m <= 0x1p53))
    throw std::invalid_argument("(4/epsilon)^d directions are more than 2^53: take a larger epsilon or a smaller d");
}

void problem::check(const kernel::ndarray<float, 2> &vd) const {
  check();
  if (vd.shape(0) != p || vd.shape(1) != d)
    throw std::invalid_argument("the input is " + std::to_string(vd.shape(0)) + " x " + std::to_string(vd.shape(1)) +
                                ", not p x d");
  for (kernel::index_t i = 0; i < p; ++i)
    for (kernel::index_t t = 0; t < d; ++t)
      if (!std::isfinite(vd(i, t)))
        throw std::invalid_argument("the input's value at (" + std::to_string(i) + ", " + std::to_string(t) +
                                    ") is not finite");
}

kernel::ndarray<float, 2> example_input(const problem &pr) {
  kernel::ndarray<float, 2> vd({pr.p, pr.d});
  kernel::random::philox(pr.seed + 1).normal(vd);
  return vd;
}

result finish(const problem &pr, float value, kernel::index_t direction, const std::vector<float> &values,
              const std::vector<kernel::index_t> &positions) {
  result r;
  r.value = value;
  r.direction = direction;
  r.support = positions;
  r.x.assign(static_cast<std::size_t>(pr.p), 0.0f);
  // A value of 0 (Vd zero): every unit vector on the support is as good; this one is even.
  const float even = 1 / std::sqrt(static_cast<float>(positions.size()));
  for (std::size_t i = 0; i < positions.size(); ++i)
    r.x[static_cast<std::size_t>(positions[i])] = value > 0 ? values[i] / value : even;
  return r;
}

result finish(const problem &pr, float value, kernel::index_t direction, const kernel::ndarray<float, 2> &values,
              const kernel::ndarray<kernel::index_t, 2> &positions, kernel::index_t column) {
  std::vector<float> v;
  std::vector<kernel::index_t> at;
  for (kernel::index_t q = 0; q < values.shape(0); ++q) {
    v.push_back(values(q, column));
    at.push_back(positions(q, column));
  }
  return finish(pr, value, direction, v, at);
}

namespace {

/// The unit direction `c` (d values) from the normals `raw`, then a = Vd c, the k largest
/// entries of a (by value, ties by position) and their norm.
float examine(const problem &pr, const kernel::ndarray<float, 2> &vd, const float *raw, std::vector<float> &a,
              std::vector<kernel::index_t> &order) {
  float squares = 0;
  for (kernel::index_t t = 0; t < pr.d; ++t) squares += raw[t] * raw[t];
  const float norm = std::sqrt(squares);
  for (kernel::index_t i = 0; i < pr.p; ++i) {
    float s = 0;
    for (kernel::index_t t = 0; t < pr.d; ++t) s += vd(i, t) * (raw[t] / norm);
    a[static_cast<std::size_t>(i)] = s;
  }
  std::iota(order.begin(), order.end(), kernel::index_t{0});
  std::partial_sort(order.begin(), order.begin() + pr.k, order.end(), [&](kernel::index_t x, kernel::index_t y) {
    const float ax = a[static_cast<std::size_t>(x)], ay = a[static_cast<std::size_t>(y)];
    return ax > ay || (ax == ay && x < y);
  });
  float val = 0;
  for (kernel::index_t j = 0; j < pr.k; ++j)
    val += a[static_cast<std::size_t>(order[j])] * a[static_cast<std::size_t>(order[j])];
  return std::sqrt(val);
}

} // namespace

result reference(const problem &pr, const kernel::ndarray<float, 2> &vd, const progress &report) {
  const kernel::index_t m = pr.directions(), batches = (m + pr.batch - 1) / pr.batch;
  kernel::random::philox rng(pr.seed);
  std::vector<float> a(static_cast<std::size_t>(pr.p));
  std::vector<kernel::index_t> order(static_cast<std::size_t>(pr.p));
  float best = -1;
  kernel::index_t best_direction = -1;
  std::vector<float> best_values(static_cast<std::size_t>(pr.k));
  std::vector<kernel::index_t> best_positions(static_cast<std::size_t>(pr.k));
  for (kernel::index_t b = 0; b < batches; ++b) {
    const kernel::index_t n = std::min(pr.batch, m - b * pr.batch);
    kernel::ndarray<float, 2> raw({n, pr.d});
    rng.normal(raw);
    for (kernel::index_t j = 0; j < n; ++j) {
      const float val = examine(pr, vd, &raw(j, 0), a, order);
      if (val > best) {
        best = val;
        best_direction = b * pr.batch + j;
        for (kernel::index_t q = 0; q < pr.k; ++q) {
          best_positions[static_cast<std::size_t>(q)] = order[static_cast<std::size_t>(q)];
          best_values[static_cast<std::size_t>(q)] = a[static_cast<std::size_t>(order[static_cast<std::size_t>(q)])];
        }
      }
    }
    if (report) report(b + 1, batches);
  }
  return finish(pr, best, best_direction, best_values, best_positions);
}

float reference_value(const problem &pr, const kernel::ndarray<float, 2> &vd, kernel::index_t direction) {
  // The same draws as the batch holding `direction`: skip the fills before it.
  const kernel::index_t b = direction / pr.batch;
  kernel::random::philox rng(pr.seed);
  const kernel::index_t m = pr.directions();
  for (kernel::index_t q = 0; q <= b; ++q) {
    const kernel::index_t n = std::min(pr.batch, m - q * pr.batch);
    kernel::ndarray<float, 2> raw({n, pr.d});
    rng.normal(raw);
    if (q == b) {
      std::vector<float> a(static_cast<std::size_t>(pr.p));
      std::vector<kernel::index_t> order(static_cast<std::size_t>(pr.p));
      return examine(pr, vd, &raw(direction - b * pr.batch, 0), a, order);
    }
  }
  return -1;
}

} // namespace spca
