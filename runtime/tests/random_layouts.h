// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Random array layouts for the differential tests (ufunc_methods_layouts_test,
// algorithm_layouts_test): a view of rank R into a buffer, its dimensions in a random order in
// memory, some spread apart or reversed, extents of 0 and 1 included.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kernel/kernel.h"

namespace kernel_test {

template <std::size_t R> struct layout {
  std::array<kernel::index_t, R> shape{}, strides{};
  kernel::index_t offset = 0;

  kernel::index_t at(const std::array<kernel::index_t, R> &i) const {
    kernel::index_t p = offset;
    for (std::size_t d = 0; d < R; ++d) p += i[d] * strides[d];
    return p;
  }
  kernel::index_t size() const {
    kernel::index_t n = 1;
    for (kernel::index_t e : shape) n *= e;
    return n;
  }
  // Elements the buffer must have for the view to lie in it.
  kernel::index_t buffer_size() const {
    kernel::index_t hi = offset;
    for (std::size_t d = 0; d < R; ++d)
      if (shape[d] > 0 && strides[d] > 0) hi += (shape[d] - 1) * strides[d];
    return hi + 1;
  }
  std::string text() const {
    std::ostringstream s;
    const auto list = [&](const std::array<kernel::index_t, R> &a) {
      s << "(";
      for (std::size_t d = 0; d < R; ++d) s << (d ? ", " : "") << a[d];
      s << ")";
    };
    s << "shape ";
    list(shape);
    s << " strides ";
    list(strides);
    s << " offset " << offset;
    return s.str();
  }
};

/// Calls `visit` with every index of `shape`, in C order (none where an extent is 0).
template <std::size_t R, class Visit> void each_index(const std::array<kernel::index_t, R> &shape, const Visit &visit) {
  for (kernel::index_t e : shape)
    if (e == 0) return;
  std::array<kernel::index_t, R> i{};
  while (true) {
    visit(i);
    std::size_t d = R;
    while (true) {
      if (d == 0) return;
      --d;
      if (++i[d] < shape[d]) break;
      i[d] = 0;
    }
  }
}

/// The elements of the view `l` of `buffer`, in C order (NumPy's flat order).
template <class T, std::size_t R> std::vector<T> elements(const std::vector<T> &buffer, const layout<R> &l) {
  std::vector<T> r;
  each_index(l.shape,
             [&](const std::array<kernel::index_t, R> &i) { r.push_back(buffer[static_cast<std::size_t>(l.at(i))]); });
  return r;
}

/// A layout of `shape`: the dimensions in a random order in memory, now and then one step
/// apart more than they need, or reversed; with `zero_strides`, a dimension of one element is
/// given stride 0 half the time (a broadcast input's).
template <std::size_t R>
layout<R> layout_of_shape(std::mt19937 &rng, const std::array<kernel::index_t, R> &shape, bool zero_strides) {
  layout<R> l;
  l.shape = shape;
  std::array<std::size_t, R> order;
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin(), order.end(), rng);
  kernel::index_t step = 1 + (rng() % 4 == 0);
  for (std::size_t k = R; k-- > 0;) {
    const std::size_t d = order[k];
    l.strides[d] = zero_strides && shape[d] == 1 && rng() % 2 ? 0 : step;
    step *= std::max<kernel::index_t>(shape[d], 1) + (rng() % 4 == 0);
  }
  for (std::size_t d = 0; d < R; ++d)
    if (rng() % 4 == 0 && l.shape[d] > 0) {
      l.offset += (l.shape[d] - 1) * l.strides[d];
      l.strides[d] = -l.strides[d];
    }
  return l;
}

/// A layout of random extents in [0, most] (0 one time in four where `empty` allows it, else 1
/// and up).
template <std::size_t R> layout<R> random_layout(std::mt19937 &rng, kernel::index_t most, bool empty) {
  std::array<kernel::index_t, R> shape{};
  for (auto &e : shape) {
    e = static_cast<kernel::index_t>(rng() % static_cast<unsigned>(most + 1));
    if (e == 0 && !(empty && rng() % 4 == 0)) e = 1 + static_cast<kernel::index_t>(rng() % static_cast<unsigned>(most));
  }
  return layout_of_shape(rng, shape, false);
}

} // namespace kernel_test
