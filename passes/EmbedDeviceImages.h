// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- EmbedDeviceImages.h - GPU code inside the host object -----*- C++ -*-===//
//
// Stores the PTX of a translation unit in its host object and registers it with the
// runtime before main: constant PTX strings (in the __kernel_ptx section, where tools and
// tests find them), a kernel_module descriptor (kernel/detail/module_abi.h) naming each
// entry by the address of its host copy, and a constructor that hands the descriptor to
// __kernel_register_module. That function is referenced weakly: an object compiled with
// the plugin still links into a program without the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_EMBEDDEVICEIMAGES_H
#define KERNEL_PASSES_EMBEDDEVICEIMAGES_H

#include "DeviceEntries.h"
#include "ExternalDeviceCode.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/Module.h"

#include <string>
#include <vector>

namespace kernel {
namespace passes {

struct DeviceImage {
  std::string Arch;
  std::string PTX;
};

/// The section holding every embedded PTX image, NUL-terminated.
inline constexpr llvm::StringLiteral PTXSection = "__kernel_ptx";

/// `StaticSharedBytes` holds each kernel's static shared memory by PTX symbol;
/// `SimulatorEntries` maps an entry's host function to its instrumented copy, if any.
void embedDeviceImages(llvm::Module &Host, llvm::ArrayRef<DeviceImage> Images,
                       const DeviceCode &Code, const ExternalDeviceCode &External,
                       llvm::StringRef Hash, const llvm::StringMap<uint64_t> &StaticSharedBytes,
                       const llvm::DenseMap<llvm::Function *, llvm::Function *> &SimulatorEntries);

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_EMBEDDEVICEIMAGES_H
