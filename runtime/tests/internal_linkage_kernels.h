// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Kernels with internal linkage in a header that two translation units include: each unit
// has its own host entries (their own keys) for the same GPU code, registered once. Each
// unit's calls must find their own kernels on every device.
#pragma once

#include <vector>

#include "kernel/kernel.h"

namespace {

[[kernel::vectorize("float32(float32)")]] float triple(float x) { return 3 * x; }

[[kernel::jit]] void add_offset(kernel::array_view<float, 1> out, float offset) {
  const kernel::index_t i = kernel::grid<1>();
  if (i < out.size()) out[i] += offset;
}

// `x` tripled then shifted by `offset`, on `d`: one ufunc and one kernel launch.
inline std::vector<float> triple_then_add(kernel::device d, const std::vector<float> &x, float offset) {
  constexpr kernel::ufunc<triple> vtriple;
  kernel::stream s(d);
  auto dx = kernel::to_device(x, s);
  kernel::device_array<float, 1> out(static_cast<kernel::index_t>(x.size()), s);
  vtriple.on(s)(dx, out);
  kernel::launch<add_offset>(kernel::dim3(4), kernel::dim3(64), s)(out, offset);
  return out.copy_to_host().to_vector();
}

} // namespace

std::vector<float> triple_then_add_in_first_unit(kernel::device d, const std::vector<float> &x, float offset);
std::vector<float> triple_then_add_in_second_unit(kernel::device d, const std::vector<float> &x, float offset);
