// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The device that the device-path tests run on. By default the simulated device, so that
// the suite runs on every machine (CI has no GPU); under KERNEL_TEST_DEVICE=cuda the same
// tests run on CUDA device 0, which is how the GPU part of the suite runs
// (tests/gpu_suite.sh). Tests of what only the simulator checks (bounds, divergent
// barriers, races) use the simulator whatever this says.
#pragma once

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "kernel/kernel.h"

namespace kernel_test {

inline bool on_gpu() {
  const char *v = std::getenv("KERNEL_TEST_DEVICE");
  if (!v || !*v || std::string_view(v) == "simulator") return false;
  if (std::string_view(v) == "cuda") return true;
  throw std::invalid_argument("KERNEL_TEST_DEVICE is '" + std::string(v) + "'; it must be 'simulator' or 'cuda'");
}

/// The simulator, or the GPU under KERNEL_TEST_DEVICE=cuda (an error when there is none:
/// the run asked for the GPU).
inline kernel::device device() { return on_gpu() ? kernel::device::cuda() : kernel::device::simulator(); }

/// The target that runs on device().
inline kernel::target target() { return on_gpu() ? kernel::target::cuda : kernel::target::simulator; }

} // namespace kernel_test
