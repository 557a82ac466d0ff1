// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How one pass of kernel/fft.h (a transform along one axis of a strided array) maps onto
// cuFFT's advanced data layout, which describes lines of `n` elements `stride` apart and a
// batch of such lines `dist` apart: one batch dimension per execution. The other lines are
// reached by more executions of the same plan, at offsets; the dimensions other than the
// axis are first merged where their strides allow, so that a C-contiguous array needs one
// execution unless the axis is in the middle (then the longer side is the batch).
#pragma once

#include <vector>

#include "kernel/detail/fft_api.h"

namespace kernel::detail {

struct cufft_layout {
  /// The transform's length (the real length for r2c and c2r), and the extents along the
  /// axis of the input and the output (they differ for r2c and c2r).
  index_t n = 0, in_extent = 0, out_extent = 0;
  index_t in_stride = 1, out_stride = 1; // between a line's elements
  index_t batch = 1;                     // lines per execution
  index_t in_dist = 0, out_dist = 0;     // between the lines of one execution

  /// The dimensions executions loop over (outermost first): extents and strides.
  struct loop {
    index_t extent, in_stride, out_stride;
  };
  std::vector<loop> loops;

  /// How many executions there are (0 when there are no lines).
  index_t executions() const noexcept;
  /// Where execution `e` starts, in elements of the input's and the output's types.
  void offsets(index_t e, index_t &in, index_t &out) const noexcept;
};

/// The layout of pass `p`; throws std::invalid_argument when its strides are not positive.
cufft_layout cufft_layout_of(const fft_pass &p);

} // namespace kernel::detail
