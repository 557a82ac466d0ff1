// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The runtime library's entry points that the header templates call. Kept narrow and free
// of third-party types so that user code needs no TBB or CUDA headers.
#pragma once

#include <string_view>

#include "kernel/types.h"

namespace kernel::detail {

/// Runs `body(context, begin, end)` over pieces of [0, n) on all cores (oneTBB), each piece
/// at least `grain` elements long. Exceptions thrown by `body` reach the caller.
void parallel_for(index_t n, index_t grain, void (*body)(void *, index_t, index_t), void *context);

} // namespace kernel::detail
