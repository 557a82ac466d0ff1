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
#include <algorithm>
#include <exception>
#include <thread>
#include <vector>
#endif

namespace kernel::detail {

#ifdef KERNEL_RUNTIME_TSAN
// Under TSan the work goes to threads of our own rather than to oneTBB: the system's oneTBB is
// not instrumented, and its inline templates copy task objects on both sides of hand-overs
// TSan cannot see, which it reports as races in every parallel loop. Plain threads, started
// and joined where TSan sees it, leave it the bodies' own accesses to check.
void parallel_for(index_t n, index_t grain, void (*body)(void *, index_t, index_t), void *context) {
  if (n <= grain) {
    body(context, 0, n);
    return;
  }
  const index_t cores = std::max<index_t>(2, static_cast<index_t>(std::thread::hardware_concurrency()));
  const index_t pieces = std::min<index_t>((n + grain - 1) / grain, cores);
  std::vector<std::exception_ptr> failed(static_cast<std::size_t>(pieces));
  const auto piece = [&](index_t p) {
    try {
      body(context, n * p / pieces, n * (p + 1) / pieces);
    } catch (...) {
      failed[static_cast<std::size_t>(p)] = std::current_exception();
    }
  };
  {
    std::vector<std::jthread> workers;
    for (index_t p = 1; p < pieces; ++p) workers.emplace_back(piece, p);
    piece(0);
  }
  for (const std::exception_ptr &e : failed)
    if (e) std::rethrow_exception(e);
}
#else
void parallel_for(index_t n, index_t grain, void (*body)(void *, index_t, index_t), void *context) {
  if (n <= grain) {
    body(context, 0, n);
    return;
  }
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<index_t>(0, n, grain),
                            [&](const oneapi::tbb::blocked_range<index_t> &r) { body(context, r.begin(), r.end()); });
}
#endif

} // namespace kernel::detail
