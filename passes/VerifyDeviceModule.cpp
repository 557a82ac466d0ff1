// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- VerifyDeviceModule.cpp - Last checks before code generation --------===//

#include "VerifyDeviceModule.h"
#include "DeviceCodeAnalysis.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace kernel {
namespace passes {

// System calls the CUDA driver resolves, and __nvvm_reflect, which NVVMReflect folds
// during optimisation.
static bool isResolvedLater(StringRef Name) {
  return StringSwitch<bool>(Name)
      .Cases("vprintf", "__assertfail", "malloc", "free", "__nvvm_reflect", true)
      .Default(false);
}

static bool isExternal(const DeviceSymbols &Code, StringRef Name) {
  return llvm::any_of(Code.Externals,
                      [&](const DeviceSymbols::External &E) { return E.Symbol == Name; });
}

PreservedAnalyses VerifyDeviceModulePass::run(Module &M, ModuleAnalysisManager &AM) {
  DeviceDiagnostics Own(M.getContext());
  DeviceDiagnostics &D = Diags ? *Diags : Own;
  const DeviceSymbols &Code = AM.getResult<DeviceCodeAnalysis>(M);
  for (Function &F : M) {
    if (F.isDeclaration()) {
      if (F.use_empty() || isResolvedLater(F.getName()) || isExternal(Code, F.getName()))
        continue;
      if (F.isIntrinsic() && !F.getName().starts_with("llvm.x86."))
        continue;
      std::string Callers;
      for (const User *U : F.users())
        if (const auto *I = dyn_cast<Instruction>(U)) {
          std::string Caller = demangle(I->getFunction()->getName());
          if (Callers.find(Caller) == std::string::npos)
            Callers += (Callers.empty() ? "" : "', '") + Caller;
        }
      D.error("GPU code calls '" + demangle(F.getName()) + "', which has no GPU implementation" +
              (Callers.empty() ? std::string() : " (called from '" + Callers + "')") +
              Libdevice->missingHint(M.getContext(), D));
      continue;
    }
    for (Instruction &I : instructions(F))
      if (auto *Call = dyn_cast<CallBase>(&I);
          Call && Call->isIndirectCall() && !Call->isInlineAsm())
        D.error("GPU code makes an indirect call in '" + demangle(F.getName()) + "'");
  }
  return PreservedAnalyses::all();
}

} // namespace passes
} // namespace kernel
