// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Where a ufunc or kernel runs.
#pragma once

#include <string_view>

namespace kernel {

/// Execution targets, as Numba's `target=` argument.
enum class target {
  cpu,       ///< One core; the loop is vectorized by the compiler.
  parallel,  ///< All cores (oneTBB), each running the vectorized loop on a slice.
  cuda,      ///< An NVIDIA GPU through the CUDA driver (the simulator under
             ///< KERNEL_ENABLE_SIMULATOR=1).
  simulator, ///< The simulated device: GPU code run on the CPU, device memory in host memory.
};

constexpr std::string_view target_name(target t) noexcept {
  switch (t) {
  case target::cpu: return "cpu";
  case target::parallel: return "parallel";
  case target::cuda: return "cuda";
  case target::simulator: return "simulator";
  }
  return "?";
}

} // namespace kernel
