// What was compiled for the GPU: the analogue of Numba's inspect_types / inspect_asm.
//
//   for (const kernel::kernel_info &k : vsaxpy.inspect())
//     std::cout << k.name << " " << k.signature << "\n" << k.ptx.at(0).text;
//
// The same information is written at compile time by the plugin argument
// -fplugin-arg-kernel-inspect=DIR (kernel-clang++ --kernel-inspect=DIR).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kernel {

/// The PTX of a kernel's module for one architecture.
struct ptx_image {
  std::string arch;      ///< "sm_75", "sm_90"
  std::string_view text; ///< PTX source, embedded in the program
};

/// One GPU kernel compiled into this program.
struct kernel_info {
  std::string name;        ///< the annotated function ("saxpy")
  std::string signature;   ///< source-level signature ("float32(float32, float32, float32)")
  std::string kind;        ///< "ufunc", "gufunc", "reduce" or "jit"
  std::string symbol;      ///< the PTX .entry name
  std::string location;    ///< "file:line" of the annotated function
  std::string module_hash; ///< content hash of the module it belongs to
  std::vector<ptx_image> ptx;
};

/// Every kernel registered by the translation units of this program that were compiled with
/// the plugin, in registration order.
std::vector<kernel_info> compiled_kernels();

namespace detail {
/// The kernel whose host entry is `host_key`, if its translation unit was compiled with the
/// plugin.
std::optional<kernel_info> find_kernel(const void *host_key);
/// Modules the runtime could not register, with the reason (an incompatible plugin).
std::vector<std::string> rejected_modules();
} // namespace detail

} // namespace kernel
