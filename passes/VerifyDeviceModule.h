// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- VerifyDeviceModule.h - Last checks before code generation -*- C++ -*-===//
//
// After the libraries are linked, every function the GPU module calls must be defined in
// it, be an intrinsic the NVPTX backend lowers, or be one of the system functions the CUDA
// driver provides (vprintf, __assertfail, malloc, free); and no call may be indirect.
// The plugin rejects such code at the source line first; this names what remains. The
// declared CUDA-C functions, linked at run time, come from DeviceCodeAnalysis.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_VERIFYDEVICEMODULE_H
#define KERNEL_PASSES_VERIFYDEVICEMODULE_H

#include "DeviceDiagnostics.h"
#include "LinkDeviceLibraries.h"

#include "llvm/IR/PassManager.h"

#include <memory>

namespace kernel {
namespace passes {

class VerifyDeviceModulePass : public llvm::PassInfoMixin<VerifyDeviceModulePass> {
public:
  /// An unresolved-call error says so when `Libdevice` was missing (math may be why).
  /// Errors go to `Diags` when given (the offload pass), else to the module's context.
  explicit VerifyDeviceModulePass(std::shared_ptr<LibdeviceSource> Libdevice,
                                  DeviceDiagnostics *Diags = nullptr)
      : Libdevice(std::move(Libdevice)), Diags(Diags) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }

private:
  std::shared_ptr<LibdeviceSource> Libdevice;
  DeviceDiagnostics *Diags;
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_VERIFYDEVICEMODULE_H
