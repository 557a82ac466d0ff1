// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The SDK's version (also in kernelConfigVersion.cmake and kernel.pc, written from here by
// tools/install).
#pragma once

#define KERNEL_VERSION_MAJOR 0
#define KERNEL_VERSION_MINOR 1
#define KERNEL_VERSION_PATCH 0

namespace kernel {
inline constexpr int version_major = KERNEL_VERSION_MAJOR;
inline constexpr int version_minor = KERNEL_VERSION_MINOR;
inline constexpr int version_patch = KERNEL_VERSION_PATCH;
} // namespace kernel
