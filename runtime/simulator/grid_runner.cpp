#include "simulator/grid_runner.h"

#include <oneapi/tbb/parallel_for.h>

#include "simulator/thread_context.h"

namespace kernel::runtime::sim {

void run_grid(void (*invoke)(const void *), const void *params, const detail::launch_config &config) {
  const dim3 grid = config.grid, block = config.block;
  const std::uint64_t blocks = grid.count();
  auto run_block = [&](std::uint64_t b) {
    thread_context ctx;
    ctx.grid_dim = grid;
    ctx.block_dim = block;
    ctx.block_idx = dim3(static_cast<std::uint32_t>(b % grid.x),
                         static_cast<std::uint32_t>(b / grid.x % grid.y),
                         static_cast<std::uint32_t>(b / (std::uint64_t{grid.x} * grid.y)));
    thread_scope scope(ctx);
    for (std::uint32_t z = 0; z < block.z; ++z)
      for (std::uint32_t y = 0; y < block.y; ++y)
        for (std::uint32_t x = 0; x < block.x; ++x) {
          ctx.thread_idx = dim3(x, y, z);
          invoke(params);
        }
  };
  if (blocks == 1) {
    run_block(0);
    return;
  }
  oneapi::tbb::parallel_for(std::uint64_t{0}, blocks, run_block);
}

} // namespace kernel::runtime::sim
