// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel/fft.h's cuFFT path without a GPU: the layouts its passes are given to cuFFT in
// (every line of every pass reached once, at the right place, checked against a direct walk
// of the array) and the loading of libcufft, with its errors. The transforms themselves run
// on CUDA devices in fft_test (KERNEL_TEST_DEVICE=cuda, //tests:gpu_suite_test).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fft/cufft_layout.h"
#include "kernel/detail/fft_api.h"
#include "kernel/errors.h"

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

/// Where each line along `axis` starts in the input and the output, by walking the array.
std::vector<std::pair<index_t, index_t>> lines_walked(const array_layout &in, const array_layout &out, int axis) {
  std::vector<std::pair<index_t, index_t>> lines{{0, 0}};
  for (std::size_t d = 0; d < in.shape.size(); ++d) {
    if (static_cast<int>(d) == axis) continue;
    std::vector<std::pair<index_t, index_t>> more;
    for (const auto &[i, o] : lines)
      for (index_t k = 0; k < in.shape[d]; ++k) more.emplace_back(i + k * in.strides[d], o + k * out.strides[d]);
    lines = std::move(more);
  }
  std::sort(lines.begin(), lines.end());
  return lines;
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

// libcufft is looked for where KERNEL_CUFFT_LIBRARY says: a missing file and a library
// without cuFFT's functions are target_unavailable_error naming the call and the path.
TEST(CufftLibrary, MissingOrWrongLibrary) {
  for (const char *where : {"/nonexistent/libcufft.so.12", "libm.so.6"}) {
    ASSERT_EQ(setenv("KERNEL_CUFFT_LIBRARY", where, 1), 0);
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
  ASSERT_EQ(unsetenv("KERNEL_CUFFT_LIBRARY"), 0);
}

// The toolkit's libcufft loads (no GPU needed for that).
TEST(CufftLibrary, TheToolkitsLoads) { EXPECT_NO_THROW(kernel::detail::cufft_require("fft")); }

} // namespace
