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

/// Runs `body(context, begin, end)` on this thread; an integer division trap its code raises
/// here (SIGFPE: by zero, or the most negative value by -1) is an arithmetic_error naming
/// `callee` instead of the end of the process. For the user's functions run on the CPU
/// targets.
void run_trapping(std::string_view callee, void (*body)(void *, index_t, index_t), void *context, index_t begin,
                  index_t end);

/// `body` over [0, n) through run_trapping: on all cores in pieces of at least `grain`
/// (parallel_for) when `parallel`, else in one piece on this thread. The CPU targets' loops.
void loop_trapping(std::string_view callee, bool parallel, index_t n, index_t grain,
                   void (*body)(void *, index_t, index_t), void *context);

/// Runs `body(begin, end)` over pieces of [0, n) on all cores.
template <class Body> void parallel_over(index_t n, index_t grain, Body &body) {
  parallel_for(
      n, grain < 1 ? 1 : grain,
      [](void *context, index_t begin, index_t end) { (*static_cast<Body *>(context))(begin, end); }, &body);
}

/// `body(begin, end)` over [0, n): on all cores when `parallel`, else in one piece.
template <class Body> void maybe_parallel(bool parallel, index_t n, index_t grain, Body &&body) {
  if (!parallel || n <= grain) {
    if (n > 0) body(index_t{0}, n);
    return;
  }
  parallel_over(n, grain, body);
}

} // namespace kernel::detail
