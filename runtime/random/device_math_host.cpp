// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host versions of the libdevice functions that the library's kernels call by their C names
// (the device module maps `name` to libdevice's `__nv_name`): the simulator and the host
// fallbacks of those kernels run these.
#include <cmath>
#include <cstdint>

#include "kernel/random.h"

namespace kernel::random::detail {

// C linkage, from the declaration.
void fast_sincosf(float x, float *sine, float *cosine) noexcept {
  *sine = std::sin(x);
  *cosine = std::cos(x);
}

std::uint32_t umulhi(std::uint32_t a, std::uint32_t b) noexcept {
  return static_cast<std::uint32_t>((std::uint64_t{a} * b) >> 32);
}

} // namespace kernel::random::detail
