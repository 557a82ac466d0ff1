// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How one pass of kernel/fft.h (a transform along one axis of a strided array) maps onto
// cuFFT's advanced data layout, which describes lines of `n` elements `stride` apart and a
// batch of such lines `dist` apart: one batch dimension per execution. The other lines are
// reached by more executions of the same plan, at offsets; the dimensions other than the
// axis are first merged where their strides allow, so that a C-contiguous array needs one
// execution unless the axis is in the middle (then the longer side is the batch). Transforms
// along two or three axes of one array (complex, or real along the innermost and complex
// along the others) are one plan of that rank where cuFFT's nested layout can describe them.
#pragma once

#include <array>
#include <optional>
#include <span>

#include "kernel/detail/broadcast.h"
#include "kernel/detail/fft_api.h"
#include "kernel/detail/fixed_list.h"

namespace kernel::detail {

/// The axes of one plan (at most three, cuFFT's largest rank), in the plan's order.
using plan_axes = fixed_list<int, 3>;

struct cufft_layout {
  /// The transform's length (the real length for r2c and c2r), and the extents along the
  /// axis of the input and the output (they differ for r2c and c2r). For a plan of several
  /// axes: the innermost one's.
  index_t n = 0, in_extent = 0, out_extent = 0;
  index_t in_stride = 1, out_stride = 1; // between a line's elements

  /// Plans of two or three axes: the axes outside the innermost one, outermost first, each
  /// with its length and its stride as a multiple of the next inner transformed axis' stride,
  /// in the input and the output (cuFFT's inembed and onembed of that next axis). `axes`
  /// holds every transformed axis in the plan's order.
  struct outer_axis {
    index_t n, in_ratio, out_ratio;
  };
  fixed_list<outer_axis, 2> outer;
  plan_axes axes;
  int rank() const noexcept { return static_cast<int>(outer.size()) + 1; }
  /// cuFFT's n, inembed and onembed, outermost axis first (rank() of each used; for several
  /// axes inembed[k], k > 0, is axis k - 1's stride in units of axis k's, and inembed[0],
  /// which cuFFT does not read, the outermost length).
  struct plan_arrays {
    std::array<long long, 3> n{}, in_embed{}, out_embed{};
  };
  plan_arrays arrays() const noexcept;
  index_t batch = 1;                 // lines per execution
  index_t in_dist = 0, out_dist = 0; // between the lines of one execution

  /// The dimensions executions loop over (outermost first): extents and strides.
  struct loop {
    index_t extent, in_stride, out_stride;
  };
  fixed_list<loop, max_dims> loops;

  /// The elements from the first of one execution's input (output) to just past its last.
  index_t in_span() const noexcept;
  index_t out_span() const noexcept;

  /// How many executions there are (0 when there are no lines).
  index_t executions() const noexcept;
  /// Where execution `e` starts, in elements of the input's and the output's types.
  void offsets(index_t e, index_t &in, index_t &out) const noexcept;
};

/// The layout of pass `p`; throws std::invalid_argument when its strides are not positive or
/// its rank is above max_dims.
cufft_layout cufft_layout_of(const fft_pass &p);

/// One plan for the transforms of `p`'s arrays along `axes` (two or three, distinct, each
/// longer than 1), or nothing where cuFFT's layout cannot hold them: their strides must nest
/// (each a multiple of the next inner one's, at least its extent times, in the input and the
/// output alike) and every other dimension must lie wholly outside them or wholly inside the
/// innermost stride. Complex transforms do not read `p.axis` and `p.n`; real ones (r2c, c2r:
/// complex along the other axes) are real along `p.axis`, of length `p.n`, which must be the
/// innermost of the axes, as cuFFT's are.
std::optional<cufft_layout> cufft_layout_of_axes(const fft_pass &p, std::span<const int> axes);

/// What one cuFFT plan does of a call's passes: the first `passes` of them, as `pass` (the
/// first, or for irfftn's passes a real pass from the first's input to the last's output)
/// laid out as `layout`.
struct cufft_plan_choice {
  int passes = 1;
  fft_pass pass;
  cufft_layout layout;
};

/// The leading passes of `passes[0..count)` that one plan takes (see fft_cuda_passes).
cufft_plan_choice cufft_plan_of_passes(const fft_pass *passes, int count);

} // namespace kernel::detail
