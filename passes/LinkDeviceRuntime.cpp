// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LinkDeviceRuntime.cpp - The device runtime in a GPU module ---------===//

#include "LinkDeviceRuntime.h"
#include "LinkDeviceLibraries.h"

using namespace llvm;

namespace kernel {
namespace passes {

PreservedAnalyses LinkDeviceRuntimePass::run(Module &M, ModuleAnalysisManager &) {
  DeviceDiagnostics Own(M.getContext());
  DeviceDiagnostics &D = Diags ? *Diags : Own;
  std::unique_ptr<Module> Runtime = loadDeviceRuntime(M.getContext(), D);
  if (!Runtime)
    return PreservedAnalyses::all();
  linkNeeded(M, std::move(Runtime), D);
  return PreservedAnalyses::none();
}

} // namespace passes
} // namespace kernel
