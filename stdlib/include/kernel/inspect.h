// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
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

/// A module of this program linked by nvJitLink for one architecture, with its user
/// device code: what a GPU of that architecture would load.
struct linked_module {
  std::string module_hash;
  std::string arch;                   ///< "sm_90"
  std::vector<std::string> kernels;   ///< the annotated functions
  std::vector<std::string> externals; ///< CUDA-C functions it calls ([[kernel::declare_device]])
  std::vector<std::string> linked;    ///< the device code linked in (embedded, then run-time)
  std::vector<std::string> symbols;   ///< every symbol the cubin defines
  std::size_t cubin_bytes = 0;
  bool from_cache = false; ///< read from the disk cache rather than linked now
};

/// Links every module of the program for sm_<arch>, as the cuda target does on first use,
/// without needing a GPU (nvJitLink runs on the CPU): checks ahead of time that the user's
/// device code resolves, and fills the disk cache. Throws kernel::link_error and the like
/// (also when a module could not be registered, compiled for another runtime's ABI);
/// an `arch` below 75 (CUDA 13 builds for sm_75 and newer: 75, 80, 86, 89, 90, ...) is an
/// argument_error.
std::vector<linked_module> link_modules(int arch);

namespace detail {
/// The kernel whose host entry is `host_key`, if its translation unit was compiled with the
/// plugin.
std::optional<kernel_info> find_kernel(const void *host_key);
/// The order its signature declares for each parameter, one character each: 'C' for
/// "float32[:, ::1]" (and "float32[::1]"), 'F' for "float32[::1, :]", 'A' for any other
/// (an array of any strides, or a scalar); empty when no such kernel is registered.
std::string declared_array_orders(const void *host_key);
/// Modules the runtime could not register, with the reason (an incompatible plugin).
std::vector<std::string> rejected_modules();
} // namespace detail

} // namespace kernel
