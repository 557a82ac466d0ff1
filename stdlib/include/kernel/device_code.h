// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// CUDA-C device code that kernels call, chosen at run time.
//
// Most programs name their device code when they are compiled: [[kernel::link("bar.o")]]
// in the source, -fplugin-arg-kernel-link=FILE (kernel-clang++ --kernel-link=FILE), or a
// cuda_device_library in a kernel_cc_* target's device_deps; those files are embedded in
// the program. These calls add code chosen at run time:
//
//   kernel::link_device_code("plugins/libfilters.a");      // .o .a .ptx .cubin .fatbin .ltoir .cu
//   kernel::link_device_source("bar.cu", R"(extern "C" __device__ int bar(int a, int b) { ... })");
//
// The code is read (or copied) at once and linked, with nvJitLink, into every GPU module
// built afterwards; call them before the first launch. `.cu` sources are compiled with
// NVRTC for the GPU in hand. The linked code is part of the disk cache's key.
#pragma once

#include <string>
#include <vector>

namespace kernel {

/// Adds a file of device code; throws kernel::link_error if it cannot be read or its kind
/// (from the extension) is not one nvJitLink or NVRTC takes. A std::filesystem::path converts
/// to the string (a string keeps <filesystem> out of every user's compile).
void link_device_code(const std::string &file);

/// Adds CUDA-C source, compiled with NVRTC when a module is built; `name` is shown in errors.
void link_device_source(const std::string &name, const std::string &cuda_source);

/// The names of the device code added at run time, in order.
std::vector<std::string> linked_device_code();

} // namespace kernel
