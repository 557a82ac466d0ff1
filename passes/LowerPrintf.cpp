// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LowerPrintf.cpp - printf in GPU code -------------------------------===//

#include "LowerPrintf.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace kernel {
namespace passes {

PreservedAnalyses LowerPrintfPass::run(Module &M, ModuleAnalysisManager &) {
  Function *Printf = M.getFunction("printf");
  if (!Printf || !Printf->isDeclaration())
    return PreservedAnalyses::all();
  LLVMContext &Ctx = M.getContext();
  Type *Ptr = PointerType::getUnqual(Ctx);
  FunctionCallee VPrintf =
      M.getOrInsertFunction("vprintf", FunctionType::get(Type::getInt32Ty(Ctx), {Ptr, Ptr}, false));
  const DataLayout &DL = M.getDataLayout();

  for (User *U : make_early_inc_range(Printf->users())) {
    auto *Call = dyn_cast<CallInst>(U);
    if (!Call || Call->getCalledFunction() != Printf)
      continue;
    IRBuilder<> B(Call);
    Value *Buffer = ConstantPointerNull::get(cast<PointerType>(Ptr));
    if (Call->arg_size() > 1) {
      SmallVector<Type *, 8> Fields;
      for (unsigned I = 1; I < Call->arg_size(); ++I)
        Fields.push_back(Call->getArgOperand(I)->getType());
      // Each field at its natural alignment, as vprintf reads them.
      StructType *Args = StructType::get(Ctx, Fields);
      IRBuilder<> Entry(&Call->getFunction()->getEntryBlock(),
                        Call->getFunction()->getEntryBlock().begin());
      AllocaInst *Storage = Entry.CreateAlloca(Args);
      Storage->setAlignment(DL.getStructLayout(Args)->getAlignment());
      for (unsigned I = 1; I < Call->arg_size(); ++I)
        B.CreateStore(Call->getArgOperand(I), B.CreateStructGEP(Args, Storage, I - 1));
      Buffer = Storage;
    }
    CallInst *Replacement = B.CreateCall(VPrintf, {Call->getArgOperand(0), Buffer});
    Call->replaceAllUsesWith(Replacement);
    Call->eraseFromParent();
  }
  if (Printf->use_empty())
    Printf->eraseFromParent();
  return PreservedAnalyses::none();
}

} // namespace passes
} // namespace kernel
