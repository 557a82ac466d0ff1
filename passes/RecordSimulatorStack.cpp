// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- RecordSimulatorStack.cpp - The stack simulated threads need --------===//

#include "RecordSimulatorStack.h"
#include "ModuleAbiTypes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"

#include <algorithm>
#include <cstdint>

using namespace llvm;

namespace kernel {
namespace passes {

namespace {

class MinimumStack {
public:
  explicit MinimumStack(const DataLayout &DL) : DL(DL) {}

  uint64_t of(Function &F) {
    if (auto Known = Bytes.find(&F); Known != Bytes.end())
      return Known->second;
    // Another definition may be the one that runs; recursion is cut.
    if (F.isDeclaration() || F.isInterposable() || F.hasAvailableExternallyLinkage() ||
        !InProgress.insert(&F).second)
      return 0;
    uint64_t Largest = 0;
    for (Instruction &I : F.getEntryBlock())
      if (auto *A = dyn_cast<AllocaInst>(&I); A && A->isStaticAlloca())
        if (std::optional<TypeSize> Size = A->getAllocationSize(DL); Size && !Size->isScalable())
          Largest = std::max<uint64_t>(Largest, Size->getFixedValue());
    uint64_t Need = Largest;
    for (BasicBlock *BB : blocksOnEveryPath(F))
      for (Instruction &I : *BB)
        if (auto *Call = dyn_cast<CallInst>(&I))
          if (Function *Callee = Call->getCalledFunction(); Callee && !Callee->isIntrinsic()) {
            const uint64_t Inner = of(*Callee);
            Need = std::max(Need, Call->isTailCall() ? Inner : Largest + Inner);
          }
    InProgress.erase(&F);
    return Bytes[&F] = Need;
  }

private:
  // The blocks every call of F that returns runs through: those dominating each reachable
  // return (the entry block alone when none is reachable).
  static SmallVector<BasicBlock *, 8> blocksOnEveryPath(Function &F) {
    DominatorTree DT(F);
    SmallVector<BasicBlock *, 4> Exits;
    for (BasicBlock &BB : F)
      if (isa<ReturnInst>(BB.getTerminator()) && DT.isReachableFromEntry(&BB))
        Exits.push_back(&BB);
    SmallVector<BasicBlock *, 8> Blocks;
    for (BasicBlock &BB : F)
      if (DT.isReachableFromEntry(&BB) &&
          (!Exits.empty() ? all_of(Exits, [&](BasicBlock *E) { return DT.dominates(&BB, E); })
                          : &BB == &F.getEntryBlock()))
        Blocks.push_back(&BB);
    return Blocks;
  }

  const DataLayout &DL;
  DenseMap<Function *, uint64_t> Bytes;
  SmallPtrSet<Function *, 8> InProgress;
};

unsigned fieldIndex(size_t Offset) {
  for (unsigned I = 0; I < std::size(EntryFields); ++I)
    if (EntryFields[I].Offset == Offset)
      return I;
  llvm_unreachable("not a field of kernel_entry");
}

} // namespace

PreservedAnalyses RecordSimulatorStackPass::run(Module &M, ModuleAnalysisManager &) {
  const unsigned HostKey = fieldIndex(offsetof(kernel_entry, host_key));
  const unsigned Copy = fieldIndex(offsetof(kernel_entry, simulator_entry));
  const unsigned MinStack = fieldIndex(offsetof(kernel_entry, simulator_min_stack));
  MinimumStack Stack(M.getDataLayout());
  bool Changed = false;
  // The descriptors EmbedDeviceImages made: __kernel.<hash>.entries.
  for (GlobalVariable &G : M.globals()) {
    if (!G.getName().starts_with("__kernel.") || !G.getName().ends_with(".entries") ||
        !G.hasInitializer())
      continue;
    auto *Entries = dyn_cast<ConstantArray>(G.getInitializer());
    if (!Entries)
      continue;
    SmallVector<Constant *, 8> Updated;
    for (Use &Element : Entries->operands()) {
      auto *Entry = cast<ConstantStruct>(Element.get());
      auto *Original = dyn_cast<Function>(Entry->getOperand(HostKey)->stripPointerCasts());
      auto *Instrumented = dyn_cast<Function>(Entry->getOperand(Copy)->stripPointerCasts());
      uint64_t Need = Original ? Stack.of(*Original) : 0;
      if (Instrumented)
        Need = std::min(Need, Stack.of(*Instrumented));
      SmallVector<Constant *, 12> Fields;
      for (Use &F : Entry->operands())
        Fields.push_back(cast<Constant>(F.get()));
      Fields[MinStack] =
          ConstantInt::get(Fields[MinStack]->getType(), std::min<uint64_t>(Need, UINT32_MAX));
      Updated.push_back(ConstantStruct::get(Entry->getType(), Fields));
    }
    G.setInitializer(ConstantArray::get(Entries->getType(), Updated));
    Changed = true;
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace passes
} // namespace kernel
