// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LinkLibdevice.h - libdevice in a GPU module ---------------*- C++ -*-===//
//
// Links into a GPU module the libdevice functions (__nv_expf ...) that MapMathToLibdevice
// made it call, and says that denormals are kept, as nvcc does by default: libdevice asks
// through NVVMReflect (the nvvm-reflect-ftz module flag).
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_LINKLIBDEVICE_H
#define KERNEL_PASSES_LINKLIBDEVICE_H

#include "DeviceDiagnostics.h"
#include "LinkDeviceLibraries.h"

#include "llvm/IR/PassManager.h"

#include <memory>

namespace kernel {
namespace passes {

class LinkLibdevicePass : public llvm::PassInfoMixin<LinkLibdevicePass> {
public:
  /// Errors go to `Diags` when given (the offload pass), else to the module's context.
  explicit LinkLibdevicePass(std::shared_ptr<LibdeviceSource> Libdevice,
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

#endif // KERNEL_PASSES_LINKLIBDEVICE_H
