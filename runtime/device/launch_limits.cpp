// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "device/launch_limits.h"

#include <string>

#include "kernel/errors.h"

namespace kernel::runtime {

void check_launch(std::string_view kernel, const detail::launch_config &c, const launch_limits &limits,
                  std::string_view device) {
  auto fail = [&](const std::string &what) {
    throw argument_error(std::string(kernel), 0, what + " on " + std::string(device));
  };
  const std::uint64_t threads = c.block.count();
  if (threads == 0 || c.grid.count() == 0) fail("a launch needs at least one block of one thread");
  if (threads > limits.threads_per_block)
    fail("a block of " + std::to_string(threads) + " threads is more than " + std::string(limits.threads_limited_by) +
         " can run (" + std::to_string(limits.threads_per_block) + ")");
  const std::uint32_t block[3] = {c.block.x, c.block.y, c.block.z};
  const std::uint32_t grid[3] = {c.grid.x, c.grid.y, c.grid.z};
  const char *axis = "xyz";
  for (int d = 0; d < 3; ++d) {
    if (block[d] > limits.block[d])
      fail(std::string("block dimension ") + axis[d] + " of " + std::to_string(block[d]) + " is more than " +
           std::string(limits.dimensions_limited_by) + " allows (" + std::to_string(limits.block[d]) + ")");
    if (grid[d] > limits.grid[d])
      fail(std::string("grid dimension ") + axis[d] + " of " + std::to_string(grid[d]) + " is more than " +
           std::string(limits.dimensions_limited_by) + " allows (" + std::to_string(limits.grid[d]) + ")");
  }
  const std::uint64_t static_shared = limits.static_shared.value_or(0);
  if (c.shared_bytes + static_shared > limits.shared_per_block)
    fail(std::to_string(c.shared_bytes) + " bytes of dynamic shared memory" +
         (static_shared ? " (with " + std::to_string(static_shared) + " static)" : "") +
         " is more than a block can have (" + std::to_string(limits.shared_per_block) + ")");
}

} // namespace kernel::runtime
