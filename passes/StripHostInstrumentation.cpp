// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- StripHostInstrumentation.cpp - Host-only checks out of GPU code ----===//

#include "StripHostInstrumentation.h"
#include "EraseUnusedGlobals.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ValueHandle.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;

namespace kernel {
namespace passes {

// Calls to the runtimes of the host's instrumentation, which return nothing the code uses.
static bool isInstrumentationRuntime(const Function &F) {
  const StringRef Name = F.getName();
  return Name.starts_with("__ubsan_handle_") || Name.starts_with("__sanitizer_cov_") ||
         Name == "__cyg_profile_func_enter" || Name == "__cyg_profile_func_exit";
}

static bool isInstrumentationIntrinsic(Intrinsic::ID ID) {
  switch (ID) {
  case Intrinsic::instrprof_cover:
  case Intrinsic::instrprof_increment:
  case Intrinsic::instrprof_increment_step:
  case Intrinsic::instrprof_callsite:
  case Intrinsic::instrprof_timestamp:
  case Intrinsic::instrprof_value_profile:
  case Intrinsic::instrprof_mcdc_parameters:
  case Intrinsic::instrprof_mcdc_tvbitmap_update: return true;
  default: return false;
  }
}

PreservedAnalyses StripHostInstrumentationPass::run(Module &M, ModuleAnalysisManager &) {
  SmallVector<CallBase *, 16> Removed;
  SmallVector<LoadInst *, 4> PrologueReads;
  bool Changed = false;
  for (Function &F : M) {
    // -fsanitize=function's signature words, which the host puts before each function.
    if (F.hasMetadata(LLVMContext::MD_func_sanitize)) {
      F.setMetadata(LLVMContext::MD_func_sanitize, nullptr);
      Changed = true;
    }
    for (Instruction &I : instructions(F)) {
      // Its check before a call through a function pointer reads those words from the
      // callee's address: read as zero, they say the callee has none, and the check passes.
      if (auto *Load = dyn_cast<LoadInst>(&I)) {
        if (isa<Function>(getUnderlyingObject(Load->getPointerOperand())))
          PrologueReads.push_back(Load);
        continue;
      }
      auto *Call = dyn_cast<CallBase>(&I);
      const Function *Callee = Call ? Call->getCalledFunction() : nullptr;
      if (!Callee)
        continue;
      const Intrinsic::ID ID = Callee->getIntrinsicID();
      if (ID == Intrinsic::type_test || ID == Intrinsic::public_type_test) {
        Call->replaceAllUsesWith(ConstantInt::getTrue(M.getContext()));
        Removed.push_back(Call);
      } else if (isInstrumentationIntrinsic(ID) ||
                 (isInstrumentationRuntime(*Callee) && Call->use_empty())) {
        Removed.push_back(Call);
      }
    }
  }
  for (LoadInst *Load : PrologueReads) {
    Load->replaceAllUsesWith(Constant::getNullValue(Load->getType()));
    Load->eraseFromParent();
  }
  if (Removed.empty() && PrologueReads.empty())
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  for (CallBase *Call : Removed) {
    // A check that does not recover (-fno-sanitize-recover: __ubsan_handle_*_abort, then
    // unreachable) stops the kernel instead: without the call, the optimizer would take the
    // unreachable path as impossible, and the check as proof that the checked thing holds (an
    // unsigned wrap, which is no undefined behaviour, then miscompiles).
    if (isInstrumentationRuntime(*Call->getCalledFunction()) &&
        isa_and_nonnull<UnreachableInst>(Call->getNextNode()))
      CallInst::Create(Intrinsic::getDeclaration(&M, Intrinsic::trap), "", Call->getIterator());
    // An invoke has nowhere to go once its call is gone but its normal destination.
    if (auto *Invoke = dyn_cast<InvokeInst>(Call))
      BranchInst::Create(Invoke->getNormalDest(), Invoke->getIterator());
    // Tracked: deleting one operand's chain may delete another operand.
    SmallVector<WeakTrackingVH, 4> Operands(Call->arg_begin(), Call->arg_end());
    Call->eraseFromParent();
    // What only the call used (the values ubsan reports, widened for it).
    for (WeakTrackingVH &V : Operands)
      if (V)
        RecursivelyDeleteTriviallyDeadInstructions(V);
  }
  for (Function &F : llvm::make_early_inc_range(M.functions())) {
    // The addresses the checks took (constant expressions nothing uses now) must not keep a
    // kernel hook from being lowered, or look like a use of a host function.
    F.removeDeadConstantUsers();
    if (F.isDeclaration() && F.use_empty() && (isInstrumentationRuntime(F) || F.isIntrinsic()))
      F.eraseFromParent();
  }
  // Private globals nothing uses any more (the counters' names, ubsan's source locations and
  // type descriptors), and those only they used.
  eraseUnusedGlobals(
      M, [](const GlobalValue &GV) { return isa<GlobalVariable>(GV) && GV.hasLocalLinkage(); });
  return PreservedAnalyses::none();
}

} // namespace passes
} // namespace kernel
