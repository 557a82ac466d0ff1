// Runs a kernel's host copy over a launch grid: every simulated thread of every block.
#pragma once

#include "kernel/detail/device_api.h"

namespace kernel::runtime::sim {

/// Runs `invoke(params)` once per simulated thread of `config`. Blocks run in parallel on
/// all cores; the threads of a block run one after another, to completion.
void run_grid(void (*invoke)(const void *), const void *params, const detail::launch_config &config);

} // namespace kernel::runtime::sim
