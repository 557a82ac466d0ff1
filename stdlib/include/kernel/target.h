// Where a ufunc or kernel runs.
#pragma once

#include <string_view>

namespace kernel {

/// Execution targets, as Numba's `target=` argument.
enum class target {
  cpu,       ///< One core; the loop is vectorized by the compiler.
  parallel,  ///< All cores (oneTBB), each running the vectorized loop on a slice.
  cuda,      ///< An NVIDIA GPU through the CUDA driver.
};

constexpr std::string_view target_name(target t) noexcept {
  switch (t) {
  case target::cpu: return "cpu";
  case target::parallel: return "parallel";
  case target::cuda: return "cuda";
  }
  return "?";
}

} // namespace kernel
