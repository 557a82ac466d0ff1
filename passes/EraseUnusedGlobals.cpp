// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- EraseUnusedGlobals.cpp - What the device module no longer uses ---===//

#include "EraseUnusedGlobals.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace kernel {
namespace passes {

bool eraseUnusedGlobals(Module &M, function_ref<bool(const GlobalValue &)> Erasable) {
  auto Unused = [&](GlobalValue &GV) {
    if (!Erasable(GV))
      return false;
    GV.removeDeadConstantUsers();
    return GV.use_empty();
  };
  bool Erased = false;
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (GlobalAlias &A : make_early_inc_range(M.aliases()))
      if (Unused(A)) {
        A.eraseFromParent();
        Changed = true;
      }
    for (Function &F : make_early_inc_range(M.functions()))
      if (Unused(F)) {
        F.eraseFromParent();
        Changed = true;
      }
    for (GlobalVariable &GV : make_early_inc_range(M.globals()))
      if (Unused(GV)) {
        GV.eraseFromParent();
        Changed = true;
      }
    Erased |= Changed;
  }
  return Erased;
}

} // namespace passes
} // namespace kernel
