// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "fft/cufft_layout.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace kernel::detail {

index_t cufft_layout::executions() const noexcept {
  if (batch == 0) return 0;
  index_t e = 1;
  for (const loop &l : loops) e *= l.extent;
  return e;
}

void cufft_layout::offsets(index_t e, index_t &in, index_t &out) const noexcept {
  in = out = 0;
  for (auto l = loops.rbegin(); l != loops.rend(); ++l) {
    const index_t i = e % l->extent;
    e /= l->extent;
    in += i * l->in_stride;
    out += i * l->out_stride;
  }
}

cufft_layout cufft_layout_of(const fft_pass &p) {
  cufft_layout c;
  const auto axis = static_cast<std::size_t>(p.axis);
  c.n = p.n;
  c.in_extent = p.in_shape[axis];
  c.out_extent = p.out_shape[axis];
  c.in_stride = p.in_strides[axis];
  c.out_stride = p.out_strides[axis];
  std::vector<cufft_layout::loop> others;
  for (int d = 0; d < p.rank; ++d) {
    const auto u = static_cast<std::size_t>(d);
    if (p.in_shape[u] != p.out_shape[u] && u != axis)
      throw std::invalid_argument("cuFFT pass: the input and output shapes differ off the axis");
    if (p.in_shape[u] == 0) {
      c.batch = 0;
      return c;
    }
    if ((p.in_shape[u] > 1 || u == axis) && (p.in_strides[u] <= 0 || p.out_strides[u] <= 0))
      throw std::invalid_argument("cuFFT pass: strides must be positive, not " + std::to_string(p.in_strides[u]) +
                                  " and " + std::to_string(p.out_strides[u]) + " along axis " + std::to_string(d));
    if (u == axis || p.in_shape[u] == 1) continue;
    cufft_layout::loop l{p.in_shape[u], p.in_strides[u], p.out_strides[u]};
    // Merged into the dimension before it when stepping this one to its end is stepping that
    // one by one, in the input and in the output.
    if (!others.empty() && others.back().in_stride == l.in_stride * l.extent &&
        others.back().out_stride == l.out_stride * l.extent)
      others.back() = {others.back().extent * l.extent, l.in_stride, l.out_stride};
    else
      others.push_back(l);
  }
  if (others.empty()) {
    c.batch = 1;
    c.in_dist = c.in_stride * c.in_extent;
    c.out_dist = c.out_stride * c.out_extent;
    return c;
  }
  const auto longest =
      std::max_element(others.begin(), others.end(), [](const auto &a, const auto &b) { return a.extent < b.extent; });
  c.batch = longest->extent;
  c.in_dist = longest->in_stride;
  c.out_dist = longest->out_stride;
  others.erase(longest);
  c.loops = std::move(others);
  return c;
}

} // namespace kernel::detail
