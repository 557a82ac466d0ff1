// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LowerAtomicOrderings.cpp - C++ memory orders on the GPU ------------===//

#include "LowerAtomicOrderings.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace kernel {
namespace passes {

namespace {

/// The membar that orders memory for the threads of `Scope` (none for a single thread).
std::optional<Intrinsic::ID> membarFor(LLVMContext &Ctx, SyncScope::ID Scope) {
  if (Scope == SyncScope::SingleThread)
    return std::nullopt;
  if (Scope == SyncScope::System)
    return Intrinsic::nvvm_membar_sys;
  SmallVector<StringRef, 8> Names;
  Ctx.getSyncScopeNames(Names);
  const StringRef Name = Scope < Names.size() ? Names[Scope] : StringRef();
  if (Name == "workgroup" || Name == "wavefront" || Name == "block" || Name == "cta" ||
      Name == "warp")
    return Intrinsic::nvvm_membar_cta;
  if (Name == "agent" || Name == "device")
    return Intrinsic::nvvm_membar_gl;
  return Intrinsic::nvvm_membar_sys; // unknown: the strongest
}

void insertMembar(Module &M, Instruction *Before, SyncScope::ID Scope) {
  if (std::optional<Intrinsic::ID> ID = membarFor(M.getContext(), Scope)) {
    IRBuilder<> B(Before);
    B.CreateCall(Intrinsic::getDeclaration(&M, *ID));
  }
}

bool acquires(AtomicOrdering O) {
  return O == AtomicOrdering::Acquire || O == AtomicOrdering::AcquireRelease ||
         O == AtomicOrdering::SequentiallyConsistent;
}
bool releases(AtomicOrdering O) {
  return O == AtomicOrdering::Release || O == AtomicOrdering::AcquireRelease ||
         O == AtomicOrdering::SequentiallyConsistent;
}

/// Fences on the sides `O` needs around `I`: before it to release, after it to acquire
/// (a seq_cst access both, which also orders it with other seq_cst accesses).
void fenceAround(Module &M, Instruction *I, AtomicOrdering O, SyncScope::ID Scope) {
  if (releases(O))
    insertMembar(M, I, Scope);
  if (acquires(O))
    insertMembar(M, I->getNextNode(), Scope);
}

} // namespace

PreservedAnalyses LowerAtomicOrderingsPass::run(Module &M, ModuleAnalysisManager &) {
  SmallVector<Instruction *, 16> Work;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (isa<FenceInst>(I) || isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I) ||
          (isa<LoadInst>(I) && cast<LoadInst>(I).isAtomic()) ||
          (isa<StoreInst>(I) && cast<StoreInst>(I).isAtomic()))
        Work.push_back(&I);
  bool Changed = false;
  for (Instruction *I : Work) {
    if (auto *Fence = dyn_cast<FenceInst>(I)) {
      insertMembar(M, Fence, Fence->getSyncScopeID());
      Fence->eraseFromParent();
      Changed = true;
    } else if (auto *L = dyn_cast<LoadInst>(I)) {
      if (L->getOrdering() == AtomicOrdering::Monotonic ||
          L->getOrdering() == AtomicOrdering::Unordered)
        continue;
      fenceAround(M, L, L->getOrdering(), L->getSyncScopeID());
      L->setOrdering(AtomicOrdering::Monotonic);
      Changed = true;
    } else if (auto *S = dyn_cast<StoreInst>(I)) {
      if (S->getOrdering() == AtomicOrdering::Monotonic ||
          S->getOrdering() == AtomicOrdering::Unordered)
        continue;
      fenceAround(M, S, S->getOrdering(), S->getSyncScopeID());
      S->setOrdering(AtomicOrdering::Monotonic);
      Changed = true;
    } else if (auto *RMW = dyn_cast<AtomicRMWInst>(I)) {
      if (RMW->getOrdering() == AtomicOrdering::Monotonic)
        continue;
      fenceAround(M, RMW, RMW->getOrdering(), RMW->getSyncScopeID());
      RMW->setOrdering(AtomicOrdering::Monotonic);
      Changed = true;
    } else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(I)) {
      if (CX->getSuccessOrdering() == AtomicOrdering::Monotonic &&
          CX->getFailureOrdering() == AtomicOrdering::Monotonic)
        continue;
      fenceAround(M, CX, CX->getMergedOrdering(), CX->getSyncScopeID());
      CX->setSuccessOrdering(AtomicOrdering::Monotonic);
      CX->setFailureOrdering(AtomicOrdering::Monotonic);
      Changed = true;
    }
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace passes
} // namespace kernel
