// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Turns a registered module into a cubin for a device architecture: picks the PTX image
// generated for the newest architecture the device runs, links it with nvJitLink, and keeps
// the result in the disk cache.
#pragma once

#include <string>
#include <vector>

#include "cache/cubin_cache.h"
#include "kernel/detail/module_abi.h"

namespace kernel::runtime::cuda {

/// The image of `m` for the newest architecture not above `arch` (PTX JIT-compiles forward,
/// never backward); null if every image is newer than the device.
const kernel_image *select_image(const kernel_module &m, int arch);

struct built_module {
  std::vector<char> cubin;
  std::string ptx_arch;
  bool from_cache = false;
};

/// The cubin of `m` for sm_<arch>, from `cache` or linked now (and stored). `what` names
/// the module in errors. Throws cuda_error or target_unavailable_error.
built_module build_cubin(const kernel_module &m, int arch, const cubin_cache &cache, int driver_version,
                         const std::string &what);

/// The names of the functions a cubin defines (its ELF symbol table), for checks.
std::vector<std::string> cubin_symbols(const std::vector<char> &cubin);

} // namespace kernel::runtime::cuda
