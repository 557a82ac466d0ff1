#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include "kernel/detail/runtime_api.h"

namespace kernel::detail {

void parallel_for(index_t n, index_t grain, void (*body)(void *, index_t, index_t), void *context) {
  if (n <= grain) {
    body(context, 0, n);
    return;
  }
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<index_t>(0, n, grain),
                            [&](const oneapi::tbb::blocked_range<index_t> &r) { body(context, r.begin(), r.end()); });
}

} // namespace kernel::detail
