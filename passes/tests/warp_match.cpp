// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The warp matches, lanemask_lt and nanosleep compiled for the GPU: the offload test assembles
// the PTX (match.any.sync and match.all.sync, b32 and b64, and nanosleep.u32, which need sm_70
// or later).
#include <cstdint>
#include <kernel/kernel.h>

using kernel::array_view;

[[kernel::jit]] void matches(array_view<std::uint32_t> out, array_view<const double> values) {
  const kernel::index_t i = kernel::grid<1>();
  kernel::nanosleep(static_cast<std::uint32_t>(i % 64));
  bool equal = false;
  out[i] = kernel::match_any_sync(kernel::full_mask, int(i % 3)) ^
           kernel::match_any_sync(kernel::full_mask, values[i]) ^
           kernel::match_all_sync(kernel::activemask(), float(values[i]), equal) ^
           kernel::match_all_sync(kernel::full_mask, std::uint64_t(i / 4), equal) ^
           kernel::lanemask_lt() ^ equal;
}
