// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "internal_linkage_kernels.h"

std::vector<float> triple_then_add_in_second_unit(kernel::device d, const std::vector<float> &x, float offset) {
  return triple_then_add(d, x, offset);
}
