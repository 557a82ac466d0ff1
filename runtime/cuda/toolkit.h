// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Where the runtime looks for the libraries of the CUDA toolkit (NVRTC, nvJitLink): the one
// place that knows the toolkit roots and their order.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace kernel::runtime::cuda {

/// The environment variables that name toolkit roots, in the order they are looked in.
inline constexpr std::array<const char *, 2> toolkit_root_variables{"CUDA_HOME", "CUDA_PATH"};

/// The CUDA toolkits to look in, in order: $CUDA_HOME and $CUDA_PATH where set, then
/// /usr/local/cuda.
std::vector<std::string> toolkit_roots();

/// What to dlopen for the toolkit library `soname` ("libnvrtc.so.13"), in order: the soname
/// itself (the dynamic loader's own search: LD_LIBRARY_PATH, the ld.so cache), then the
/// file in the lib64 directory of each toolkit root.
std::vector<std::string> toolkit_library_candidates(std::string_view soname);

/// The file that the dynamic loader opens first for `soname` from LD_LIBRARY_PATH, or else
/// the one in the first toolkit root that has it, as a canonical path; empty when only the
/// loader's own search (the ld.so cache, the system directories) can find the library.
std::string find_toolkit_library(std::string_view soname);

} // namespace kernel::runtime::cuda
