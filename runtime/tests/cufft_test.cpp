// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel/fft.h's cuFFT path without a GPU: the layouts its passes are given to cuFFT in
// (every line of every pass reached once, at the right place, checked against a direct walk
// of the array) and the loading of libcufft, with its errors. The transforms themselves run
// on CUDA devices in fft_test (KERNEL_TEST_DEVICE=cuda, //tests:gpu_suite_test).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cuda/math_library.h"
#include "fft/cufft_layout.h"
#include "kernel/detail/fft_api.h"
#include "kernel/errors.h"
#include "scoped_environment.h"

namespace {

using kernel::index_t;
using kernel::detail::cufft_layout;
using kernel::detail::fft_pass;
using kernel::detail::fft_transform;

struct array_layout {
  std::vector<index_t> shape, strides;
};

array_layout c_contiguous(std::vector<index_t> shape) {
  std::vector<index_t> strides(shape.size());
  index_t s = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    strides[d] = s;
    s *= shape[d];
  }
  return {std::move(shape), std::move(strides)};
}

fft_pass pass_of(fft_transform t, const array_layout &in, const array_layout &out, int axis, index_t n) {
  fft_pass p;
  p.transform = t;
  p.rank = static_cast<int>(in.shape.size());
  p.in_shape = in.shape.data();
  p.in_strides = in.strides.data();
  p.out_shape = out.shape.data();
  p.out_strides = out.strides.data();
  p.axis = axis;
  p.n = n;
  return p;
}

/// Where each transform of a plan over `axes` starts, in the input and the output, by
/// walking the array's other dimensions.
std::vector<std::pair<index_t, index_t>> transforms_walked(const array_layout &in, const array_layout &out,
                                                           const std::vector<int> &axes) {
  std::vector<std::pair<index_t, index_t>> bases{{0, 0}};
  for (std::size_t d = 0; d < in.shape.size(); ++d) {
    if (std::find(axes.begin(), axes.end(), static_cast<int>(d)) != axes.end()) continue;
    std::vector<std::pair<index_t, index_t>> more;
    for (const auto &[i, o] : bases)
      for (index_t k = 0; k < in.shape[d]; ++k) more.emplace_back(i + k * in.strides[d], o + k * out.strides[d]);
    bases = std::move(more);
  }
  std::sort(bases.begin(), bases.end());
  return bases;
}

/// Where each line along `axis` starts in the input and the output, by walking the array.
std::vector<std::pair<index_t, index_t>> lines_walked(const array_layout &in, const array_layout &out, int axis) {
  return transforms_walked(in, out, {axis});
}

/// The same from the layout: each execution's batch of lines.
std::vector<std::pair<index_t, index_t>> lines_planned(const cufft_layout &l) {
  std::vector<std::pair<index_t, index_t>> lines;
  for (index_t e = 0; e < l.executions(); ++e) {
    index_t in = 0, out = 0;
    l.offsets(e, in, out);
    for (index_t b = 0; b < l.batch; ++b) lines.emplace_back(in + b * l.in_dist, out + b * l.out_dist);
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

void expect_every_line(fft_transform t, const array_layout &in, const array_layout &out, int axis, index_t n) {
  const cufft_layout l = kernel::detail::cufft_layout_of(pass_of(t, in, out, axis, n));
  const auto a = static_cast<std::size_t>(axis);
  EXPECT_EQ(l.n, n);
  EXPECT_EQ(l.in_stride, in.strides[a]);
  EXPECT_EQ(l.out_stride, out.strides[a]);
  EXPECT_EQ(l.in_extent, in.shape[a]);
  EXPECT_EQ(l.out_extent, out.shape[a]);
  EXPECT_EQ(lines_planned(l), lines_walked(in, out, axis));
}

TEST(CufftLayout, ContiguousArraysNeedOneExecutionUnlessTheAxisIsInside) {
  // The last axis: lines one after the other.
  cufft_layout l = kernel::detail::cufft_layout_of(
      pass_of(fft_transform::c2c_forward, c_contiguous({3, 4, 8}), c_contiguous({3, 4, 8}), 2, 8));
  EXPECT_EQ(l.executions(), 1);
  EXPECT_EQ(l.batch, 12);
  EXPECT_EQ(l.in_dist, 8);
  EXPECT_EQ(l.in_stride, 1);
  // The first: lines interleaved.
  l = kernel::detail::cufft_layout_of(
      pass_of(fft_transform::c2c_forward, c_contiguous({8, 3, 4}), c_contiguous({8, 3, 4}), 0, 8));
  EXPECT_EQ(l.executions(), 1);
  EXPECT_EQ(l.batch, 12);
  EXPECT_EQ(l.in_dist, 1);
  EXPECT_EQ(l.in_stride, 12);
  // One in the middle: the longer side is the batch, the other the executions.
  l = kernel::detail::cufft_layout_of(
      pass_of(fft_transform::c2c_inverse, c_contiguous({5, 8, 3}), c_contiguous({5, 8, 3}), 1, 8));
  EXPECT_EQ(l.batch, 5);
  EXPECT_EQ(l.in_dist, 24);
  EXPECT_EQ(l.executions(), 3);
  // Extents of 1 are no dimension.
  l = kernel::detail::cufft_layout_of(
      pass_of(fft_transform::c2c_forward, c_contiguous({1, 8, 1}), c_contiguous({1, 8, 1}), 1, 8));
  EXPECT_EQ(l.executions(), 1);
  EXPECT_EQ(l.batch, 1);
  // No lines at all.
  l = kernel::detail::cufft_layout_of(
      pass_of(fft_transform::c2c_forward, c_contiguous({0, 8}), c_contiguous({0, 8}), 1, 8));
  EXPECT_EQ(l.executions(), 0);
}

TEST(CufftLayout, RealTransformsHaveTheirOwnExtents) {
  const cufft_layout l =
      kernel::detail::cufft_layout_of(pass_of(fft_transform::r2c, c_contiguous({4, 10}), c_contiguous({4, 6}), 1, 10));
  EXPECT_EQ(l.in_extent, 10);
  EXPECT_EQ(l.out_extent, 6);
  EXPECT_EQ(l.in_dist, 10);
  EXPECT_EQ(l.out_dist, 6);
  EXPECT_EQ(l.batch, 4);
}

// Every axis of every shape up to rank 4 (extents 1 to 3, and the axis 1 to 4 long), C-
// contiguous and with strides that no merging may cross: each line once, at its place.
TEST(CufftLayout, EveryLineOfEveryPassOnce) {
  for (int rank = 1; rank <= 4; ++rank) {
    std::vector<index_t> shape(static_cast<std::size_t>(rank), 1);
    for (;;) {
      for (int axis = 0; axis < rank; ++axis) {
        for (index_t n = 1; n <= 4; ++n) {
          std::vector<index_t> s = shape;
          s[static_cast<std::size_t>(axis)] = n;
          std::vector<index_t> half = s;
          half[static_cast<std::size_t>(axis)] = n / 2 + 1;
          SCOPED_TRACE("rank " + std::to_string(rank) + ", axis " + std::to_string(axis) + ", n " + std::to_string(n));
          expect_every_line(fft_transform::c2c_forward, c_contiguous(s), c_contiguous(s), axis, n);
          expect_every_line(fft_transform::r2c, c_contiguous(s), c_contiguous(half), axis, n);
          expect_every_line(fft_transform::c2r, c_contiguous(half), c_contiguous(s), axis, n);
          // A view: every other element of a larger array, its dimensions in reverse order.
          array_layout view{s, std::vector<index_t>(s.size())};
          index_t stride = 2;
          for (std::size_t d = 0; d < s.size(); ++d) {
            view.strides[d] = stride;
            stride *= s[d] + 1;
          }
          expect_every_line(fft_transform::c2c_forward, view, c_contiguous(s), axis, n);
        }
      }
      std::size_t d = 0;
      while (d < shape.size() && shape[d] == 3) shape[d++] = 1;
      if (d == shape.size()) break;
      ++shape[d];
    }
  }
}

/// Checks a plan over `axes` against cuFFT's definition of its advanced layout: transform b
/// of an execution reads element (x0, x1[, x2]) at b idist + ((x0 inembed[1] + x1) inembed[2]
/// + x2) istride from the execution's start, and so for the output; that must be the
/// element the array has there, and every transform of the array must be planned once. A
/// real transform (r2c, c2r) is real along `real_axis`, of length `n`; its input and output
/// differ in extent there.
void expect_plan_over(const array_layout &in, const array_layout &out, const std::vector<int> &axes,
                      fft_transform t = fft_transform::c2c_forward, int real_axis = -1, index_t n = 0) {
  const bool real = real_axis >= 0;
  const fft_pass p = pass_of(t, in, out, real ? real_axis : axes[0], real ? n : 0);
  const std::optional<cufft_layout> l = kernel::detail::cufft_layout_of_axes(p, axes);
  ASSERT_TRUE(l.has_value());
  ASSERT_EQ(l->rank(), static_cast<int>(axes.size()));
  std::vector<int> planned(l->axes.begin(), l->axes.end()), wanted = axes;
  std::sort(planned.begin(), planned.end());
  std::sort(wanted.begin(), wanted.end());
  ASSERT_EQ(planned, wanted);
  if (real) ASSERT_EQ(l->axes.back(), real_axis); // cuFFT's real axis is the innermost
  // The arrays the plan is made with.
  const cufft_layout::plan_arrays arrays = l->arrays();
  const auto rank = static_cast<std::size_t>(l->rank());
  const std::vector<index_t> lengths(arrays.n.begin(), arrays.n.begin() + rank),
      in_embed(arrays.in_embed.begin(), arrays.in_embed.begin() + rank),
      out_embed(arrays.out_embed.begin(), arrays.out_embed.begin() + rank);
  // The extents each side has along the plan's axes.
  std::vector<index_t> in_n, out_n;
  for (int a : l->axes) {
    in_n.push_back(in.shape[static_cast<std::size_t>(a)]);
    out_n.push_back(out.shape[static_cast<std::size_t>(a)]);
  }
  for (std::size_t k = 0; k < rank; ++k) {
    ASSERT_EQ(lengths[k], real && k + 1 == rank ? n : in_n[k]);
    if (k > 0) {
      ASSERT_GE(in_embed[k], in_n[k]); // as cuFFT requires
      ASSERT_GE(out_embed[k], out_n[k]);
    }
  }
  EXPECT_EQ(l->in_extent, in_n.back());
  EXPECT_EQ(l->out_extent, out_n.back());
  // Every element of one side of a transform, cuFFT's place for it against the array's.
  // The furthest element of an execution from its start, each side (in_span, out_span).
  index_t furthest_in = -1, furthest_out = -1;
  const auto expect_side = [&](index_t base, const std::vector<index_t> &extents, const std::vector<index_t> &embed,
                               index_t stride, const std::vector<index_t> &strides, index_t start, index_t &furthest) {
    std::vector<index_t> x(extents.size(), 0);
    for (;;) {
      index_t cufft = 0, array = 0;
      for (std::size_t k = 0; k < x.size(); ++k) {
        cufft = (k ? cufft * embed[k] : 0) + x[k];
        array += x[k] * strides[static_cast<std::size_t>(l->axes[k])];
      }
      ASSERT_EQ(base + cufft * stride, base + array);
      furthest = std::max(furthest, base + array - start);
      std::size_t k = x.size();
      while (k > 0 && ++x[k - 1] == extents[k - 1]) x[--k] = 0;
      if (k == 0) break;
    }
  };
  // The transforms planned.
  std::vector<std::pair<index_t, index_t>> starts;
  for (index_t e = 0; e < l->executions(); ++e) {
    index_t in_at = 0, out_at = 0;
    l->offsets(e, in_at, out_at);
    for (index_t b = 0; b < l->batch; ++b) {
      const index_t in_base = in_at + b * l->in_dist, out_base = out_at + b * l->out_dist;
      starts.emplace_back(in_base, out_base);
      expect_side(in_base, in_n, in_embed, l->in_stride, in.strides, in_at, furthest_in);
      expect_side(out_base, out_n, out_embed, l->out_stride, out.strides, out_at, furthest_out);
    }
  }
  if (l->executions() > 0) {
    EXPECT_EQ(l->in_span(), furthest_in + 1);
    EXPECT_EQ(l->out_span(), furthest_out + 1);
  }
  std::sort(starts.begin(), starts.end());
  EXPECT_EQ(starts, transforms_walked(in, out, axes));
}

/// `shape` with `extent` along `axis`.
array_layout with_extent(std::vector<index_t> shape, int axis, index_t extent) {
  shape[static_cast<std::size_t>(axis)] = extent;
  return c_contiguous(std::move(shape));
}

TEST(CufftLayout, SeveralAxesOfAContiguousArrayAreOnePlan) {
  expect_plan_over(c_contiguous({6, 8}), c_contiguous({6, 8}), {0, 1});
  expect_plan_over(c_contiguous({4, 6, 8}), c_contiguous({4, 6, 8}), {1, 2});
  expect_plan_over(c_contiguous({4, 6, 8}), c_contiguous({4, 6, 8}), {2, 1}); // any order
  expect_plan_over(c_contiguous({3, 4, 5, 6}), c_contiguous({3, 4, 5, 6}), {1, 2, 3});
  expect_plan_over(c_contiguous({4, 5, 6}), c_contiguous({4, 5, 6}), {0, 1, 2});
  // The leading axes: the last dimension is a batch inside the innermost stride.
  expect_plan_over(c_contiguous({5, 4, 6}), c_contiguous({5, 4, 6}), {0, 1});
  const array_layout a = c_contiguous({4, 6, 8});
  const auto l =
      kernel::detail::cufft_layout_of_axes(pass_of(fft_transform::c2c_forward, a, a, 1, 6), std::vector<int>{1, 2});
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->executions(), 1);
  EXPECT_EQ(l->batch, 4);
  EXPECT_EQ(l->in_dist, 48);
  EXPECT_EQ(l->n, 8);
  EXPECT_EQ(l->outer[0].n, 6);
  EXPECT_EQ(l->outer[0].in_ratio, 8);
}

TEST(CufftLayout, NestedViewsAreOnePlanAndOthersAreNot) {
  // Padded rows, a Fortran-ordered (transposed) array: strides that nest.
  expect_plan_over({{4, 6}, {10, 1}}, c_contiguous({4, 6}), {0, 1});
  expect_plan_over({{6, 8}, {1, 6}}, {{6, 8}, {1, 6}}, {0, 1});
  const auto none = [](const array_layout &in, const array_layout &out, std::vector<int> axes) {
    const fft_pass p =
        pass_of(fft_transform::c2c_forward, in, out, axes[0], in.shape[static_cast<std::size_t>(axes[0])]);
    return !kernel::detail::cufft_layout_of_axes(p, axes).has_value();
  };
  // A dimension between the axes, strides that do not divide, an output of another order,
  // an axis of one point, rows closer than their length, one axis, four axes.
  EXPECT_TRUE(none(c_contiguous({4, 3, 5}), c_contiguous({4, 3, 5}), {0, 2}));
  EXPECT_TRUE(none({{4, 6}, {9, 2}}, c_contiguous({4, 6}), {0, 1}));
  EXPECT_TRUE(none(c_contiguous({6, 8}), {{6, 8}, {1, 6}}, {0, 1}));
  EXPECT_TRUE(none(c_contiguous({1, 8}), c_contiguous({1, 8}), {0, 1}));
  EXPECT_TRUE(none({{4, 6}, {4, 1}}, {{4, 6}, {4, 1}}, {0, 1}));
  EXPECT_TRUE(none(c_contiguous({6, 8}), c_contiguous({6, 8}), {1}));
  EXPECT_TRUE(none(c_contiguous({2, 2, 2, 2}), c_contiguous({2, 2, 2, 2}), {0, 1, 2, 3}));
}

// Every shape up to rank 4 (extents 1 to 3) and every set of two or three axes, C-contiguous
// and a strided view: where a plan is made, it is right.
TEST(CufftLayout, EveryPlanOfSeveralAxesIsRight) {
  int plans = 0, real_plans = 0;
  for (int rank = 2; rank <= 4; ++rank) {
    std::vector<index_t> shape(static_cast<std::size_t>(rank), 1);
    for (;;) {
      for (unsigned mask = 0; mask < (1u << rank); ++mask) {
        std::vector<int> axes;
        for (int d = 0; d < rank; ++d)
          if (mask & (1u << d)) axes.push_back(d);
        if (axes.size() < 2 || axes.size() > 3) continue;
        array_layout view{shape, std::vector<index_t>(shape.size())};
        index_t stride = 2;
        for (std::size_t d = shape.size(); d-- > 0;) {
          view.strides[d] = stride;
          stride *= shape[d] + 1;
        }
        const array_layout out = c_contiguous(shape);
        for (const array_layout &in : {out, view}) {
          const fft_pass p =
              pass_of(fft_transform::c2c_forward, in, out, axes[0], shape[static_cast<std::size_t>(axes[0])]);
          if (!kernel::detail::cufft_layout_of_axes(p, axes)) continue;
          ++plans;
          SCOPED_TRACE("rank " + std::to_string(rank) + ", axes mask " + std::to_string(mask));
          expect_plan_over(in, out, axes);
        }
        // Real along the innermost axis: n values one side, n/2+1 coefficients the other.
        const int real = axes.back();
        const index_t n = shape[static_cast<std::size_t>(real)];
        const array_layout half = with_extent(shape, real, n / 2 + 1);
        for (auto [t, in, out] : {std::tuple{fft_transform::r2c, c_contiguous(shape), half},
                                  std::tuple{fft_transform::c2r, half, c_contiguous(shape)}}) {
          if (!kernel::detail::cufft_layout_of_axes(pass_of(t, in, out, real, n), axes)) continue;
          ++real_plans;
          SCOPED_TRACE("real, rank " + std::to_string(rank) + ", axes mask " + std::to_string(mask));
          expect_plan_over(in, out, axes, t, real, n);
        }
      }
      std::size_t d = 0;
      while (d < shape.size() && shape[d] == 3) shape[d++] = 1;
      if (d == shape.size()) break;
      ++shape[d];
    }
  }
  EXPECT_GT(plans, 100);
  EXPECT_GT(real_plans, 50);
}

// rfftn's passes (real along the last axis, then complex in place along the others) and
// irfftn's (complex from the input into a work array, then real from it) are one plan each.
TEST(CufftLayout, RealTransformsOfSeveralAxesAreOnePlan) {
  const array_layout real = c_contiguous({4, 6, 8}), half = c_contiguous({4, 6, 5});
  char input = 0, work = 0, output = 0; // distinct addresses; nothing is read or written
  fft_pass forward[3] = {pass_of(fft_transform::r2c, real, half, 2, 8),
                         pass_of(fft_transform::c2c_forward, half, half, 0, 4),
                         pass_of(fft_transform::c2c_forward, half, half, 1, 6)};
  forward[0].in = &input;
  for (fft_pass &p : forward) p.out = &output;
  forward[1].in = forward[2].in = &output;
  kernel::detail::cufft_plan_choice c = kernel::detail::cufft_plan_of_passes(forward, 3);
  EXPECT_EQ(c.passes, 3);
  EXPECT_EQ(c.pass.transform, fft_transform::r2c);
  EXPECT_EQ(std::vector<int>(c.layout.axes.begin(), c.layout.axes.end()), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(c.layout.n, 8);
  EXPECT_EQ(c.layout.out_extent, 5);
  EXPECT_EQ(c.layout.executions(), 1);
  EXPECT_EQ(c.layout.batch, 1);
  expect_plan_over(real, half, {0, 1, 2}, fft_transform::r2c, 2, 8);

  fft_pass inverse[3] = {pass_of(fft_transform::c2c_inverse, half, half, 0, 4),
                         pass_of(fft_transform::c2c_inverse, half, half, 1, 6),
                         pass_of(fft_transform::c2r, half, real, 2, 8)};
  inverse[0].in = &input;
  inverse[0].out = inverse[1].out = &work;
  inverse[1].in = inverse[2].in = &work;
  inverse[2].out = &output;
  c = kernel::detail::cufft_plan_of_passes(inverse, 3);
  EXPECT_EQ(c.passes, 3);
  EXPECT_EQ(c.pass.transform, fft_transform::c2r);
  EXPECT_EQ(c.pass.in, &input); // the caller's coefficients (cuFFT's C2R writes a copy of them)
  EXPECT_EQ(c.pass.out, &output);
  EXPECT_EQ(std::vector<int>(c.layout.axes.begin(), c.layout.axes.end()), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(c.layout.in_extent, 5);
  EXPECT_EQ(c.layout.out_extent, 8);
  expect_plan_over(half, real, {0, 1, 2}, fft_transform::c2r, 2, 8);

  // A real axis that is not the innermost stays a pass of its own, as does a real pass whose
  // input is not the complex passes' output; the complex passes are then one plan.
  const array_layout half_middle = c_contiguous({4, 4, 8});
  fft_pass middle[2] = {pass_of(fft_transform::r2c, real, half_middle, 1, 6),
                        pass_of(fft_transform::c2c_forward, half_middle, half_middle, 2, 8)};
  middle[0].in = &input;
  middle[0].out = middle[1].out = &output;
  middle[1].in = &output;
  EXPECT_EQ(kernel::detail::cufft_plan_of_passes(middle, 2).passes, 1);
  inverse[2].in = &input;
  c = kernel::detail::cufft_plan_of_passes(inverse, 3);
  EXPECT_EQ(c.passes, 2);
  EXPECT_EQ(c.pass.transform, fft_transform::c2c_inverse);
}

TEST(CufftLayout, StridesMustBePositive) {
  array_layout reversed = c_contiguous({4, 8});
  reversed.strides[1] = -1;
  EXPECT_THROW(
      kernel::detail::cufft_layout_of(pass_of(fft_transform::c2c_forward, reversed, c_contiguous({4, 8}), 1, 8)),
      std::invalid_argument);
  reversed = c_contiguous({4, 8});
  reversed.strides[0] = 0;
  EXPECT_THROW(
      kernel::detail::cufft_layout_of(pass_of(fft_transform::c2c_forward, reversed, c_contiguous({4, 8}), 1, 8)),
      std::invalid_argument);
}

// The layouts hold at most max_dims dimensions in place: a pass of more is refused, where a
// list would overflow (kernel/fft.h makes none: its arrays have at most 32 dimensions).
TEST(CufftLayout, RankAboveMaxDimsIsRefused) {
  const array_layout wide = c_contiguous(std::vector<index_t>(33, 2));
  const fft_pass p = pass_of(fft_transform::c2c_forward, wide, wide, 32, 2);
  EXPECT_THROW(kernel::detail::cufft_layout_of(p), std::invalid_argument);
  EXPECT_THROW((void)kernel::detail::cufft_layout_of_axes(p, std::vector<int>{31, 32}), std::invalid_argument);
  // At max_dims, every dimension but the axis a loop or the batch.
  const array_layout most = c_contiguous(std::vector<index_t>(32, 2));
  const cufft_layout l = kernel::detail::cufft_layout_of(pass_of(fft_transform::c2c_forward, most, most, 0, 2));
  EXPECT_EQ(l.executions() * l.batch, index_t{1} << 31);
}

// libcufft is looked for where KERNEL_CUFFT_LIBRARY says: a missing file and a library
// without cuFFT's functions are target_unavailable_error naming the call and the path.
TEST(CufftLibrary, MissingOrWrongLibrary) {
  kernel_test::scoped_environment library("KERNEL_CUFFT_LIBRARY", nullptr);
  for (const char *where : {"/nonexistent/libcufft.so.12", "libm.so.6"}) {
    library.set(where);
    try {
      kernel::detail::cufft_require("fft2");
      ADD_FAILURE() << "cuFFT loaded from " << where;
    } catch (const kernel::target_unavailable_error &e) {
      const std::string m = e.what();
      EXPECT_EQ(
          m.rfind("fft2: transforms of CUDA memory need cuFFT, which could not be loaded from " + std::string(where),
                  0),
          0u)
          << m;
      EXPECT_NE(m.find("KERNEL_CUFFT_LIBRARY"), std::string::npos) << m;
    }
  }
  library.set(nullptr);
}

// The toolkit's libcufft loads (no GPU needed for that).
TEST(CufftLibrary, TheToolkitsLoads) { EXPECT_NO_THROW(kernel::detail::cufft_require("fft")); }

// A library once loaded is not looked for again while the environment is as it was, but a
// change to the variable after that load is seen by the next call, and so is its removal.
TEST(CufftLibrary, TheVariableIsReadAgainWhenItChanges) {
  ASSERT_NO_THROW(kernel::detail::cufft_require("fft"));
  kernel_test::scoped_environment library("KERNEL_CUFFT_LIBRARY", "/nonexistent/libcufft.so.12");
  EXPECT_THROW(kernel::detail::cufft_require("fft"), kernel::target_unavailable_error);
  EXPECT_THROW(kernel::detail::cufft_require("fft"), kernel::target_unavailable_error);
  library.set(nullptr);
  EXPECT_NO_THROW(kernel::detail::cufft_require("fft"));
  // An unrelated variable set and removed leaves the library as it is.
  kernel_test::scoped_environment unrelated("KERNEL_CUFFT_TEST_UNRELATED", "1");
  EXPECT_NO_THROW(kernel::detail::cufft_require("fft"));
  unrelated.set(nullptr);
  EXPECT_NO_THROW(kernel::detail::cufft_require("fft"));
}

// A library's settings stamp is no longer current after every way its variables are set or
// removed, and after any variable is added or removed; another variable's new value leaves it.
TEST(SettingsStamp, FollowsTheLibrarysVariables) {
  using kernel::runtime::cuda::settings_stamp;
  const kernel::runtime::cuda::math_library_spec spec{"a test", "libnothing.so", "KERNEL_STAMP_TEST"};
  ASSERT_EQ(setenv("KERNEL_STAMP_OTHER", "1", 1), 0);
  ASSERT_EQ(setenv("KERNEL_STAMP_AFTER", "1", 1), 0);
  settings_stamp stamp = settings_stamp::of(spec);
  EXPECT_TRUE(stamp.current());
  EXPECT_FALSE(settings_stamp().current()); // a default stamp never is
  // Another variable's new value (not the last entry's, which is watched as the length is).
  ASSERT_EQ(setenv("KERNEL_STAMP_OTHER", "2", 1), 0);
  EXPECT_TRUE(stamp.current());
  ASSERT_EQ(setenv("KERNEL_STAMP_ADDED", "1", 1), 0); // any new variable
  EXPECT_FALSE(stamp.current());
  stamp = settings_stamp::of(spec);
  ASSERT_EQ(setenv("KERNEL_STAMP_TEST", "a", 1), 0); // the library's variable, new
  EXPECT_FALSE(stamp.current());
  stamp = settings_stamp::of(spec);
  ASSERT_EQ(setenv("KERNEL_STAMP_TEST", "b", 1), 0); // a new value
  EXPECT_FALSE(stamp.current());
  stamp = settings_stamp::of(spec);
  ASSERT_EQ(setenv("KERNEL_STAMP_TEST", "c", 0), 0); // not replaced: still current
  EXPECT_TRUE(stamp.current());
  static char entry[] = "KERNEL_STAMP_TEST=d";
  ASSERT_EQ(putenv(entry), 0);
  EXPECT_FALSE(stamp.current());
  stamp = settings_stamp::of(spec);
  ASSERT_EQ(unsetenv("KERNEL_STAMP_ADDED"), 0); // any removal (it moves the entries after it)
  EXPECT_FALSE(stamp.current());
  stamp = settings_stamp::of(spec);
  ASSERT_EQ(unsetenv("KERNEL_STAMP_TEST"), 0);
  EXPECT_FALSE(stamp.current());
  // A removal and an addition between two checks: the same length, another last entry.
  stamp = settings_stamp::of(spec);
  ASSERT_EQ(unsetenv("KERNEL_STAMP_OTHER"), 0);
  ASSERT_EQ(setenv("KERNEL_STAMP_TEST", "e", 1), 0);
  EXPECT_FALSE(stamp.current());
  ASSERT_EQ(unsetenv("KERNEL_STAMP_TEST"), 0);
  ASSERT_EQ(unsetenv("KERNEL_STAMP_AFTER"), 0);
}

} // namespace
