//===- ExtractDeviceModule.cpp - The code a GPU module needs --------------===//

#include "ExtractDeviceModule.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/Transforms/Utils/Cloning.h"

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

} // namespace

std::unique_ptr<Module> extractDeviceModule(const Module &Host, ArrayRef<const GlobalValue *> Roots) {
  Reachability R;
  for (const GlobalValue *Root : Roots)
    R.addRoot(Root);
  SmallPtrSet<const GlobalValue *, 32> Reached = R.compute();

  ValueToValueMapTy VMap;
  std::unique_ptr<Module> Device =
      CloneModule(Host, VMap, [&](const GlobalValue *GV) { return Reached.contains(GV); });

  // The special arrays (llvm.used, llvm.global_ctors, annotations) name host code.
  for (StringRef Name : {"llvm.used", "llvm.compiler.used", "llvm.global_ctors",
                         "llvm.global_dtors", "llvm.global.annotations"})
    if (GlobalVariable *GV = Device->getGlobalVariable(Name, /*AllowInternal=*/true))
      GV->eraseFromParent();

  // CloneModule declared everything it did not define; drop what nothing uses.
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (GlobalAlias &A : llvm::make_early_inc_range(Device->aliases()))
      if (A.use_empty()) {
        A.eraseFromParent();
        Changed = true;
      }
    for (Function &F : llvm::make_early_inc_range(Device->functions()))
      if (F.isDeclaration() && F.use_empty()) {
        F.eraseFromParent();
        Changed = true;
      }
    for (GlobalVariable &GV : llvm::make_early_inc_range(Device->globals()))
      if (GV.isDeclaration() && GV.use_empty()) {
        GV.eraseFromParent();
        Changed = true;
      }
  }
  return Device;
}

} // namespace passes
} // namespace kernel
