// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What kernel code tells the simulator and only the simulator: the runtime defines these
// hooks for the host, and the pass deletes every call of them from GPU code, where the flag
// that guards them is folded to zero.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernel/config.h"
#include "kernel/types.h"

namespace kernel::detail {
extern "C" {
// Nonzero on a thread while it runs simulated GPU threads: their element accesses check
// indices. Thread-local, so host code on other threads never sees it change (no data race
// with the simulator) and its loops keep the test hoisted. constinit: no TLS wrapper call.
extern thread_local constinit int __kernel_simulating;
void __kernel_check_index(const void *data, std::size_t rank, const index_t *shape, const index_t *index) noexcept;
// The element, of `size`, that an elementwise loop is about to compute: its flat index in C
// order over the call's loop dimensions (broadcasting and the merging of dimensions keep that
// order). The simulator runs such a loop whole on one simulated thread (a thread per element
// would cost a fiber switch each), so a fault names this element rather than that thread.
void __kernel_at_element(index_t i, index_t size) noexcept;
}

/// Tells the simulator which element of the loop the calling thread computes next; nothing
/// on the GPU or outside a simulated launch.
KERNEL_ALWAYS_INLINE void at_element(index_t i, index_t size) noexcept {
  if (__kernel_simulating) [[unlikely]]
    __kernel_at_element(i, size);
}
} // namespace kernel::detail
