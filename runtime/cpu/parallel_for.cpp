// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include "kernel/detail/runtime_api.h"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define KERNEL_RUNTIME_TSAN 1
#endif
#endif

#ifdef KERNEL_RUNTIME_TSAN
// The system's oneTBB is not instrumented: TSan sees neither the hand-over of a task to a
// worker nor the join, so the work is told to it as release/acquire on one token (the
// simulator's block loop does the same). The task objects of TBB's inline templates are
// written and read on both sides of the hand-over, below any annotation: races whose top
// frame is in TBB are its own.
extern "C" {
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
const char *__tsan_default_suppressions() { return "race_top:tbb::detail::\n"; }
}
#endif

namespace kernel::detail {

void parallel_for(index_t n, index_t grain, void (*body)(void *, index_t, index_t), void *context) {
  if (n <= grain) {
    body(context, 0, n);
    return;
  }
#ifdef KERNEL_RUNTIME_TSAN
  int handover = 0;
  __tsan_release(&handover);
#endif
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<index_t>(0, n, grain),
                            [&](const oneapi::tbb::blocked_range<index_t> &r) {
#ifdef KERNEL_RUNTIME_TSAN
                              __tsan_acquire(&handover);
#endif
                              body(context, r.begin(), r.end());
#ifdef KERNEL_RUNTIME_TSAN
                              __tsan_release(&handover);
#endif
                            });
#ifdef KERNEL_RUNTIME_TSAN
  __tsan_acquire(&handover);
#endif
}

} // namespace kernel::detail
