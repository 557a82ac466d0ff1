// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- KeepDivisionTraps.cpp - Integer divisions that trap on the CPU -----===//

#include "KeepDivisionTraps.h"
#include "DeviceCodeAnalysis.h"
#include "ExtractDeviceModule.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace kernel {
namespace passes {

namespace {

bool mayTrap(const BinaryOperator &Division) {
  const Instruction::BinaryOps Op = Division.getOpcode();
  if (Op != Instruction::SDiv && Op != Instruction::SRem && Op != Instruction::UDiv &&
      Op != Instruction::URem)
    return false;
  // x86 divides 8 to 64 bits in one instruction, which traps; wider integers and vectors
  // are divided otherwise.
  auto *T = dyn_cast<IntegerType>(Division.getType());
  if (!T || T->getBitWidth() < 8 || T->getBitWidth() > 64)
    return false;
  const bool Signed = Op == Instruction::SDiv || Op == Instruction::SRem;
  if (const auto *Divisor = dyn_cast<ConstantInt>(Division.getOperand(1)))
    return Divisor->isZero() || (Signed && Divisor->isMinusOne());
  return true;
}

// V, through an inline asm that gives back what it is given: a value the optimiser knows
// nothing of.
Value *hidden(IRBuilder<> &B, Value *V) {
  auto *Identity = InlineAsm::get(FunctionType::get(V->getType(), {V->getType()}, false), "",
                                  "=r,0", /*hasSideEffects=*/false);
  return B.CreateCall(Identity, {V});
}

} // namespace

bool keepDivisionTraps(Module &M, const SmallPtrSetImpl<const GlobalValue *> &Reached) {
  bool Changed = false;
  for (Function &F : M) {
    if (F.isDeclaration() || !Reached.contains(&F))
      continue;
    SmallVector<BinaryOperator *, 8> Divisions;
    for (Instruction &I : instructions(F))
      if (auto *BO = dyn_cast<BinaryOperator>(&I); BO && mayTrap(*BO))
        Divisions.push_back(BO);
    for (BinaryOperator *Division : Divisions) {
      IRBuilder<> B(Division);
      Division->setOperand(0, hidden(B, Division->getOperand(0)));
      Division->setOperand(1, hidden(B, Division->getOperand(1)));
      Changed = true;
    }
  }
  return Changed;
}

PreservedAnalyses KeepDivisionTrapsPass::run(Module &M, ModuleAnalysisManager &) {
  const DeviceSymbols Symbols = describeDeviceCode(M);
  return keepDivisionTraps(M, reachableFromDeviceCode(M, Symbols)) ? PreservedAnalyses::none()
                                                                   : PreservedAnalyses::all();
}

} // namespace passes
} // namespace kernel
