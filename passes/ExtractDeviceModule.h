// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- ExtractDeviceModule.h - The code a GPU module needs -------*- C++ -*-===//
//
// Reduces a copy of the host module to what the GPU roots (kernel entries, device
// functions) reach: functions they call or take the address of and globals they read,
// transitively. Everything else is removed, so host-only code never meets the NVPTX
// backend. The module then describes its device code in `kernel.device_code`
// (DeviceCodeAnalysis.h), since llvm.global.annotations, which named host code, is gone.
//
// The pass changes the module it runs on: the offload pass runs it on a copy of the host
// module, made with only what reachableFromDeviceCode returns.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_EXTRACTDEVICEMODULE_H
#define KERNEL_PASSES_EXTRACTDEVICEMODULE_H

#include "DeviceCodeAnalysis.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/PassManager.h"

namespace kernel {
namespace passes {

/// The globals of `M` that the entries and device functions of `Symbols` reach, them
/// included: what ExtractDeviceModulePass keeps.
llvm::SmallPtrSet<const llvm::GlobalValue *, 32>
reachableFromDeviceCode(const llvm::Module &M, const DeviceSymbols &Symbols);

class ExtractDeviceModulePass : public llvm::PassInfoMixin<ExtractDeviceModulePass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_EXTRACTDEVICEMODULE_H
