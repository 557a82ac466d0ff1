// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LinkDeviceRuntime.h - The device runtime in a GPU module --*- C++ -*-===//
//
// Links into a freshly retargeted GPU module the functions it uses from the device runtime
// embedded in the plugin (devicert/, LinkDeviceLibraries.h): what host IR expects from
// compiler-rt and libm that libdevice lacks. It runs before the kernel hooks are lowered,
// since the runtime's functions may call them.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_LINKDEVICERUNTIME_H
#define KERNEL_PASSES_LINKDEVICERUNTIME_H

#include "DeviceDiagnostics.h"

#include "llvm/IR/PassManager.h"

namespace kernel {
namespace passes {

class LinkDeviceRuntimePass : public llvm::PassInfoMixin<LinkDeviceRuntimePass> {
public:
  /// Errors go to `Diags` when given (the offload pass), else to the module's context.
  explicit LinkDeviceRuntimePass(DeviceDiagnostics *Diags = nullptr) : Diags(Diags) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }

private:
  DeviceDiagnostics *Diags;
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_LINKDEVICERUNTIME_H
