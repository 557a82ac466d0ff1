// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LinkLibdevice.cpp - libdevice in a GPU module ----------------------===//

#include "LinkLibdevice.h"

#include "llvm/IR/Module.h"

using namespace llvm;

namespace kernel {
namespace passes {

PreservedAnalyses LinkLibdevicePass::run(Module &M, ModuleAnalysisManager &) {
  DeviceDiagnostics Own(M.getContext());
  DeviceDiagnostics &D = Diags ? *Diags : Own;
  if (std::unique_ptr<Module> Library = Libdevice->take(M.getContext(), D))
    linkNeeded(M, std::move(Library), D);
  M.addModuleFlag(Module::Override, "nvvm-reflect-ftz", uint32_t(0));
  return PreservedAnalyses::none();
}

} // namespace passes
} // namespace kernel
