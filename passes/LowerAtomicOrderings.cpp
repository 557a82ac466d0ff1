// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LowerAtomicOrderings.cpp - C++ memory orders on the GPU ------------===//

#include "LowerAtomicOrderings.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/AtomicOrdering.h"

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

/// Fences on the sides `O` needs around `I`: before it to release, after it to acquire
/// (a seq_cst access both, which also orders it with other seq_cst accesses).
void fenceAround(Module &M, Instruction *I, AtomicOrdering O, SyncScope::ID Scope) {
  if (isReleaseOrStronger(O))
    insertMembar(M, I, Scope);
  if (isAcquireOrStronger(O))
    insertMembar(M, I->getNextNode(), Scope);
}

/// A load, store or read-modify-write stronger than relaxed becomes a relaxed one between
/// fences; false when it was relaxed (or no atomic) already.
template <class Access> bool relax(Module &M, Access *A) {
  if (!isStrongerThanMonotonic(A->getOrdering()))
    return false;
  fenceAround(M, A, A->getOrdering(), A->getSyncScopeID());
  A->setOrdering(AtomicOrdering::Monotonic);
  return true;
}

} // namespace

PreservedAnalyses LowerAtomicOrderingsPass::run(Module &M, ModuleAnalysisManager &) {
  bool Changed = false;
  for (Function &F : M)
    // (The membars inserted around an access are no atomics: visiting them changes nothing.)
    for (Instruction &I : make_early_inc_range(instructions(F))) {
      if (auto *Fence = dyn_cast<FenceInst>(&I)) {
        insertMembar(M, Fence, Fence->getSyncScopeID());
        Fence->eraseFromParent();
        Changed = true;
      } else if (auto *L = dyn_cast<LoadInst>(&I)) {
        Changed |= relax(M, L);
      } else if (auto *S = dyn_cast<StoreInst>(&I)) {
        Changed |= relax(M, S);
      } else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
        Changed |= relax(M, RMW);
      } else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I)) {
        if (!isStrongerThanMonotonic(CX->getMergedOrdering()))
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
