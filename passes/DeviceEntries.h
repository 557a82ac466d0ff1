// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- DeviceEntries.h - Finding what to compile for the GPU -----*- C++ -*-===//
//
// Reads llvm.global.annotations of the host module for the functions the plugin marked:
// kernel entries (with their EntryAnnotation) and [[kernel::device]] functions, which are
// kept in the GPU module even when no kernel of this translation unit calls them.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_DEVICEENTRIES_H
#define KERNEL_PASSES_DEVICEENTRIES_H

#include "KernelAnnotations.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

#include <string>

namespace kernel {
namespace passes {

struct DeviceEntry {
  llvm::Function *HostFunction; ///< kernel::detail::ufunc_kernel<&f> etc. in the host module
  EntryAnnotation Info;
};

struct DeviceCode {
  llvm::SmallVector<DeviceEntry, 4> Entries;
  llvm::SmallVector<llvm::Function *, 4> DeviceFunctions;
  bool empty() const { return Entries.empty() && DeviceFunctions.empty(); }
};

/// The name a host symbol has in PTX: itself, with every byte outside ASCII (a mangled name
/// keeps the UTF-8 of identifiers such as `µscale`, which PTX identifiers cannot hold) written
/// as `$` and two hex digits. The GPU module's entries are named so, and the registry looks
/// them up by the same name.
std::string ptxSymbolName(llvm::StringRef HostName);

/// The entries and device functions defined in `M`, in a stable order (by symbol name).
DeviceCode collectDeviceCode(llvm::Module &M);

/// Calls `Visit` with each function of `M` that carries an `annotate` string, and the
/// string, in the order of llvm.global.annotations.
void forEachFunctionAnnotation(llvm::Module &M,
                               llvm::function_ref<void(llvm::Function &, llvm::StringRef)> Visit);

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_DEVICEENTRIES_H
