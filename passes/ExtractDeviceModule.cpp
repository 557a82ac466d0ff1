// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- ExtractDeviceModule.cpp - The code a GPU module needs --------------===//

#include "ExtractDeviceModule.h"
#include "EraseUnusedGlobals.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace kernel {
namespace passes {

namespace {

class Reachability {
public:
  void addRoot(const GlobalValue *GV) { Worklist.push_back(GV); }

  SmallPtrSet<const GlobalValue *, 32> compute() {
    while (!Worklist.empty()) {
      const GlobalValue *GV = Worklist.pop_back_val();
      if (!Reached.insert(GV).second)
        continue;
      if (const auto *F = dyn_cast<Function>(GV)) {
        for (const Instruction &I : instructions(*F))
          for (const Use &Op : I.operands())
            visit(Op.get());
      } else if (const auto *Var = dyn_cast<GlobalVariable>(GV)) {
        if (Var->hasInitializer())
          visit(Var->getInitializer());
      } else if (const auto *Alias = dyn_cast<GlobalAlias>(GV)) {
        visit(Alias->getAliasee());
      }
    }
    return Reached;
  }

private:
  void visit(const Value *V) {
    if (const auto *GV = dyn_cast<GlobalValue>(V)) {
      Worklist.push_back(GV);
      return;
    }
    const auto *C = dyn_cast<Constant>(V);
    if (!C || isa<ConstantData>(C) || !SeenConstants.insert(C).second)
      return;
    for (const Use &Op : C->operands())
      visit(Op.get());
  }

  SmallVector<const GlobalValue *, 64> Worklist;
  SmallPtrSet<const GlobalValue *, 32> Reached;
  SmallPtrSet<const Constant *, 32> SeenConstants;
};

// Leaves in `M` only the globals in `Reached`. What is not reached is only used by what is
// not reached (or by the special arrays): without their bodies and initializers, and without
// the special arrays, nothing uses it any more.
void keepOnly(Module &M, const SmallPtrSet<const GlobalValue *, 32> &Reached) {
  for (Function &F : M)
    if (!Reached.contains(&F) && !F.isDeclaration()) {
      F.deleteBody();
      F.setComdat(nullptr);
    }
  for (GlobalVariable &GV : M.globals())
    if (!Reached.contains(&GV) && GV.hasInitializer()) {
      GV.setInitializer(nullptr);
      GV.setLinkage(GlobalValue::ExternalLinkage);
      GV.setComdat(nullptr);
    }

  // The special arrays (llvm.used, llvm.global_ctors, annotations) name host code.
  for (StringRef Name : {"llvm.used", "llvm.compiler.used", "llvm.global_ctors",
                         "llvm.global_dtors", "llvm.global.annotations"})
    if (GlobalVariable *GV = M.getGlobalVariable(Name, /*AllowInternal=*/true))
      GV->eraseFromParent();

  // The arrays' initializers outlive them as constants that still use what they named
  // (eraseUnusedGlobals does not count those): aliases, and the declarations they used.
  eraseUnusedGlobals(
      M, [](const GlobalValue &GV) { return isa<GlobalAlias>(GV) || GV.isDeclaration(); });
}

} // namespace

SmallPtrSet<const GlobalValue *, 32> reachableFromDeviceCode(const Module &M,
                                                             const DeviceSymbols &Symbols) {
  Reachability R;
  for (const DeviceSymbols::Entry &E : Symbols.Entries)
    if (const Function *F = M.getFunction(E.Symbol))
      R.addRoot(F);
  for (const std::string &Name : Symbols.DeviceFunctions)
    if (const Function *F = M.getFunction(Name))
      R.addRoot(F);
  return R.compute();
}

PreservedAnalyses ExtractDeviceModulePass::run(Module &M, ModuleAnalysisManager &AM) {
  const DeviceSymbols &Symbols = AM.getResult<DeviceCodeAnalysis>(M);
  keepOnly(M, reachableFromDeviceCode(M, Symbols));
  recordDeviceSymbols(M, Symbols);
  return PreservedAnalyses::none();
}

} // namespace passes
} // namespace kernel
