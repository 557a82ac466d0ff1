// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What one kernel launch may ask of a device. Both device backends check a launch here
// before running it, the CUDA device against what its driver reports and the simulator
// against an sm_90 GPU, so that a launch a GPU would refuse fails alike on both.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "kernel/detail/device_api.h"

namespace kernel::runtime {

struct launch_limits {
  /// Threads in one block, and who sets that limit, as messages name it: "this kernel" on
  /// a GPU, where the limit depends on the kernel's registers; "a GPU" on the simulator.
  std::uint64_t threads_per_block = 0;
  std::string_view threads_limited_by;
  /// Block and grid dimensions (x, y, z), and who sets them: "the device", "a GPU".
  std::uint32_t block[3] = {};
  std::uint32_t grid[3] = {};
  std::string_view dimensions_limited_by;
  /// Shared memory of one block, static and dynamic together.
  std::uint64_t shared_per_block = 0;
  /// The kernel's static shared memory, when it is known before the launch: from the driver
  /// on a GPU, from the plugin's descriptor on the simulator (not for a kernel the plugin did
  /// not compile, whose arrays are counted as its threads reach them).
  std::optional<std::uint64_t> static_shared;
};

/// Throws argument_error(kernel, 0, "<what is wrong> on <device>") unless `config` has at
/// least one block of one thread and keeps within `limits`.
void check_launch(std::string_view kernel, const detail::launch_config &config, const launch_limits &limits,
                  std::string_view device);

} // namespace kernel::runtime
