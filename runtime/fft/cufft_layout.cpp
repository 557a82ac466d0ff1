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

cufft_layout::plan_arrays cufft_layout::arrays() const noexcept {
  plan_arrays a;
  const auto r = static_cast<std::size_t>(rank());
  for (std::size_t i = 0; i + 1 < r; ++i) a.n[i] = outer[i].n;
  a.n[r - 1] = n;
  if (r == 1) {
    a.in_embed[0] = in_extent;
    a.out_embed[0] = out_extent;
    return a;
  }
  a.in_embed[0] = a.out_embed[0] = a.n[0];
  for (std::size_t i = 1; i < r; ++i) {
    a.in_embed[i] = outer[i - 1].in_ratio;
    a.out_embed[i] = outer[i - 1].out_ratio;
  }
  return a;
}

namespace {

/// The span of one execution on one side: its batch of transforms, each over the outer axes
/// (strides nested by `ratio`) and the innermost one.
index_t execution_span(const cufft_layout &l, index_t extent, index_t stride, index_t dist,
                       index_t cufft_layout::outer_axis::*ratio) {
  if (l.batch == 0 || extent == 0) return 0;
  index_t last = (l.batch - 1) * dist + (extent - 1) * stride, axis_stride = stride;
  for (auto o = l.outer.rbegin(); o != l.outer.rend(); ++o) {
    axis_stride *= (*o).*ratio;
    last += (o->n - 1) * axis_stride;
  }
  return last + 1;
}

} // namespace

index_t cufft_layout::in_span() const noexcept {
  return execution_span(*this, in_extent, in_stride, in_dist, &outer_axis::in_ratio);
}
index_t cufft_layout::out_span() const noexcept {
  return execution_span(*this, out_extent, out_stride, out_dist, &outer_axis::out_ratio);
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

namespace {

/// The dimensions other than `transformed` (extents above 1), merged where stepping one to its
/// end is stepping the one before it by one, as the batch (the longest) and the executions'
/// loops of `c`. Returns false when there is no element at all.
bool batch_the_others(const fft_pass &p, const plan_axes &transformed, cufft_layout &c) {
  fixed_list<cufft_layout::loop, max_dims> others;
  for (int d = 0; d < p.rank; ++d) {
    const auto u = static_cast<std::size_t>(d);
    if (p.in_shape[u] == 0) {
      c.batch = 0;
      return false;
    }
    if (std::find(transformed.begin(), transformed.end(), d) != transformed.end() || p.in_shape[u] == 1) continue;
    cufft_layout::loop l{p.in_shape[u], p.in_strides[u], p.out_strides[u]};
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
    return true;
  }
  const auto longest =
      std::max_element(others.begin(), others.end(), [](const auto &a, const auto &b) { return a.extent < b.extent; });
  c.batch = longest->extent;
  c.in_dist = longest->in_stride;
  c.out_dist = longest->out_stride;
  others.erase(longest);
  c.loops = others;
  return true;
}

/// Whether pass `q` reads an array laid out as `first`'s output is, at `at`.
bool reads_output_of(const fft_pass &first, const fft_pass &q, const void *at) {
  if (q.double_precision != first.double_precision || q.rank != first.rank || q.in != at || q.scale != 1 ||
      q.real_input)
    return false;
  for (int d = 0; d < first.rank; ++d) {
    const auto u = static_cast<std::size_t>(d);
    if (q.in_shape[u] != first.out_shape[u] || q.in_strides[u] != first.out_strides[u]) return false;
  }
  return true;
}

/// Whether pass `q` is a complex transform of kind `t` of the output that pass `first`
/// writes, in place, as cuFFT can do with `first` in one plan.
bool continues(const fft_pass &first, const fft_pass &q, fft_transform t) {
  if (q.transform != t || q.out != first.out || !reads_output_of(first, q, first.out)) return false;
  for (int d = 0; d < first.rank; ++d) {
    const auto u = static_cast<std::size_t>(d);
    if (q.out_shape[u] != first.out_shape[u] || q.out_strides[u] != first.out_strides[u]) return false;
  }
  return true;
}

} // namespace

namespace {

/// A pass's rank, which the layouts' fixed lists hold: at most max_dims, as kernel/fft.h's
/// arrays (fft_cuda takes any pass).
void require_rank(const fft_pass &p) {
  if (p.rank < 1 || p.rank > max_dims)
    throw std::invalid_argument("cuFFT pass: rank " + std::to_string(p.rank) + " is not between 1 and " +
                                std::to_string(max_dims));
}

} // namespace

cufft_layout cufft_layout_of(const fft_pass &p) {
  require_rank(p);
  cufft_layout c;
  const auto axis = static_cast<std::size_t>(p.axis);
  c.n = p.n;
  c.in_extent = p.in_shape[axis];
  c.out_extent = p.out_shape[axis];
  c.in_stride = p.in_strides[axis];
  c.out_stride = p.out_strides[axis];
  c.axes = {p.axis};
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
  }
  batch_the_others(p, c.axes, c);
  return c;
}

std::optional<cufft_layout> cufft_layout_of_axes(const fft_pass &p, std::span<const int> axes) {
  if (axes.size() < 2 || axes.size() > 3) return std::nullopt;
  require_rank(p);
  const bool real = p.transform == fft_transform::r2c || p.transform == fft_transform::c2r;
  for (int d = 0; d < p.rank; ++d) {
    const auto u = static_cast<std::size_t>(d);
    if (p.in_shape[u] != p.out_shape[u] && !(real && d == p.axis)) return std::nullopt;
    if (p.in_shape[u] == 0) return std::nullopt;
    if (p.in_shape[u] > 1 && (p.in_strides[u] <= 0 || p.out_strides[u] <= 0)) return std::nullopt;
  }
  // Outermost first: by the input's strides, which the output's must follow.
  plan_axes order;
  for (int a : axes) order.push_back(a);
  for (int a : order)
    if (a < 0 || a >= p.rank || p.in_shape[static_cast<std::size_t>(a)] < 2) return std::nullopt;
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return p.in_strides[static_cast<std::size_t>(a)] > p.in_strides[static_cast<std::size_t>(b)];
  });
  // cuFFT's real transforms of several axes are real along the innermost.
  if (real && order.back() != p.axis) return std::nullopt;
  const auto at = [](const index_t *v, int a) { return v[static_cast<std::size_t>(a)]; };
  cufft_layout c;
  for (std::size_t k = 0; k + 1 < order.size(); ++k) {
    const int a = order[k], b = order[k + 1];
    // Each a multiple of the next inner one's stride, and far enough apart for its lines.
    if (at(p.in_strides, a) % at(p.in_strides, b) != 0 || at(p.out_strides, a) % at(p.out_strides, b) != 0)
      return std::nullopt;
    const index_t in_ratio = at(p.in_strides, a) / at(p.in_strides, b);
    const index_t out_ratio = at(p.out_strides, a) / at(p.out_strides, b);
    if (in_ratio < at(p.in_shape, b) || out_ratio < at(p.out_shape, b)) return std::nullopt;
    c.outer.push_back({at(p.in_shape, a), in_ratio, out_ratio});
  }
  const int inner = order.back(), outermost = order.front();
  // The other dimensions: wholly outside the transformed block, or wholly inside its
  // innermost stride, in the input and the output.
  const auto span = [&](const index_t *strides, int a) { return at(strides, a) * at(p.in_shape, a); };
  for (int d = 0; d < p.rank; ++d) {
    if (std::find(order.begin(), order.end(), d) != order.end() || at(p.in_shape, d) == 1) continue;
    const bool outside_in = at(p.in_strides, d) >= span(p.in_strides, outermost);
    const bool outside_out = at(p.out_strides, d) >= span(p.out_strides, outermost);
    const bool inside_in = span(p.in_strides, d) <= at(p.in_strides, inner);
    const bool inside_out = span(p.out_strides, d) <= at(p.out_strides, inner);
    if (!((outside_in && outside_out) || (inside_in && inside_out))) return std::nullopt;
  }
  c.n = real ? p.n : at(p.in_shape, inner);
  c.in_extent = at(p.in_shape, inner);
  c.out_extent = at(p.out_shape, inner);
  c.in_stride = at(p.in_strides, inner);
  c.out_stride = at(p.out_strides, inner);
  c.axes = order;
  batch_the_others(p, order, c);
  return c;
}

cufft_plan_choice cufft_plan_of_passes(const fft_pass *passes, int count) {
  const fft_pass &first = passes[0];
  const bool complex = first.transform == fft_transform::c2c_forward || first.transform == fft_transform::c2c_inverse;
  if (complex || first.transform == fft_transform::r2c) {
    // The complex passes that go on in place from the first (after a real one, forward).
    const fft_transform then = complex ? first.transform : fft_transform::c2c_forward;
    int along = 1;
    plan_axes axes{first.axis};
    const auto new_axis = [&](const fft_pass &q) { return std::find(axes.begin(), axes.end(), q.axis) == axes.end(); };
    while (along < count && along < 3 && continues(first, passes[along], then) && new_axis(passes[along])) {
      axes.push_back(passes[along].axis);
      ++along;
    }
    // Inverse complex passes followed by a real pass of their output (irfftn): one C2R plan
    // of them all from the first one's input, or none.
    if (first.transform == fft_transform::c2c_inverse && along < count && along < 3) {
      const fft_pass &last = passes[along];
      if (last.transform == fft_transform::c2r && reads_output_of(first, last, first.out) && new_axis(last)) {
        fft_pass whole = last;
        whole.in = first.in;
        whole.in_strides = first.in_strides;
        plan_axes all = axes;
        all.push_back(last.axis);
        if (std::optional<cufft_layout> l = cufft_layout_of_axes(whole, {all.begin(), all.size()}))
          return {along + 1, whole, std::move(*l)};
      }
    }
    // The most axes one plan takes: all of them, else the first two.
    for (; along >= 2; --along, axes.pop_back())
      if (std::optional<cufft_layout> l = cufft_layout_of_axes(first, {axes.begin(), axes.size()}))
        return {along, first, std::move(*l)};
  }
  return {1, first, cufft_layout_of(first)};
}

} // namespace kernel::detail
