// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- KeepDivisionTraps.cpp - Integer divisions that trap on the CPU -----===//

#include "KeepDivisionTraps.h"
#include "DeviceCodeAnalysis.h"
#include "ExtractDeviceModule.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace llvm;

namespace kernel {
namespace passes {

namespace {

bool isSigned(Instruction::BinaryOps Op) {
  return Op == Instruction::SDiv || Op == Instruction::SRem;
}

// Whether x86 divides integers of type T in one instruction, which traps as C++'s division
// would: 8, 16, 32 and 64 bits. Others (_BitInt widths, vectors) are divided otherwise.
bool dividesNatively(const Type *T) {
  const auto *I = dyn_cast<IntegerType>(T);
  return I && (I->getBitWidth() == 8 || I->getBitWidth() == 16 || I->getBitWidth() == 32 ||
               I->getBitWidth() == 64);
}

// Whether a constant divisor (or one lane of a vector's) makes the division trap: 0, or -1
// for a signed one. A lane that is no integer constant (undef, poison) may be anything.
bool mayTrapFor(const Constant &Divisor, bool Signed) {
  if (const auto *I = dyn_cast<ConstantInt>(&Divisor))
    return I->isZero() || (Signed && I->isMinusOne());
  const auto *VT = dyn_cast<FixedVectorType>(Divisor.getType());
  if (!VT)
    return true;
  for (unsigned Lane = 0; Lane < VT->getNumElements(); ++Lane) {
    const auto *I = dyn_cast_or_null<ConstantInt>(Divisor.getAggregateElement(Lane));
    if (!I || I->isZero() || (Signed && I->isMinusOne()))
      return true;
  }
  return false;
}

bool mayTrap(const BinaryOperator &Division) {
  const Instruction::BinaryOps Op = Division.getOpcode();
  if (Op != Instruction::SDiv && Op != Instruction::SRem && Op != Instruction::UDiv &&
      Op != Instruction::URem)
    return false;
  // Integers of every width and vectors of them: a division C++ leaves undefined is an error
  // whatever the type (a _BitInt's or a vector's zero divisor gave 0 once optimised).
  if (!Division.getType()->isIntOrIntVectorTy() || isa<ScalableVectorType>(Division.getType()))
    return false;
  if (const auto *Divisor = dyn_cast<Constant>(Division.getOperand(1)))
    return mayTrapFor(*Divisor, isSigned(Op));
  return true;
}

// V, through an inline asm that gives back what it is given: a value the optimiser knows
// nothing of (it touches no memory, and returns).
Value *hidden(IRBuilder<> &B, Value *V) {
  auto *Identity = InlineAsm::get(FunctionType::get(V->getType(), {V->getType()}, false), "",
                                  "=r,0", /*hasSideEffects=*/false);
  CallInst *Call = B.CreateCall(Identity, {V});
  Call->setDoesNotAccessMemory();
  Call->setDoesNotThrow();
  Call->addFnAttr(Attribute::WillReturn);
  return Call;
}

// Before `Division`: if it would trap, a division the optimiser cannot see through, which
// traps; after the check the division is one C++ defines, optimised as it allows. For a
// vector, if it would trap in any lane.
void checkBefore(BinaryOperator &Division) {
  Value *A = Division.getOperand(0), *B = Division.getOperand(1);
  Type *T = Division.getType();
  auto *Element = cast<IntegerType>(T->getScalarType());
  IRBuilder<> Builder(&Division);
  Value *Traps = Builder.CreateICmpEQ(B, Constant::getNullValue(T));
  if (isSigned(Division.getOpcode()))
    Traps = Builder.CreateOr(
        Traps, Builder.CreateAnd(
                   Builder.CreateICmpEQ(B, Constant::getAllOnesValue(T)),
                   Builder.CreateICmpEQ(
                       A, ConstantInt::get(T, APInt::getSignedMinValue(Element->getBitWidth())))));
  if (T->isVectorTy())
    Traps = Builder.CreateOrReduce(Traps);
  MDNode *Rarely = MDBuilder(Division.getContext()).createUnlikelyBranchWeights();
  Instruction *Unreachable =
      SplitBlockAndInsertIfThen(Traps, Division.getIterator(), /*Unreachable=*/true, Rarely);
  IRBuilder<> Trap(Unreachable);
  Trap.SetCurrentDebugLocation(Division.getDebugLoc());
  // The division itself where x86 divides its type in one instruction; else one of 32 bits
  // by zero, which traps as it would (the runtime's error is the same for both causes).
  Value *Trapping =
      dividesNatively(T)
          ? Trap.CreateBinOp(Division.getOpcode(), hidden(Trap, A), hidden(Trap, B))
          : Trap.CreateUDiv(hidden(Trap, Trap.getInt32(1)), hidden(Trap, Trap.getInt32(0)));
  // Its result used where the optimiser cannot drop it.
  Trap.CreateCall(InlineAsm::get(FunctionType::get(Trap.getVoidTy(), {Trapping->getType()}, false),
                                 "", "r", /*hasSideEffects=*/true),
                  {Trapping});
}

// Whether the linker may take another translation unit's copy of `F`, the same function
// compiled without the test (an inline function, a template's instantiation, one declared
// extern template here). Not a weak function that is not ODR (__attribute__((weak))):
// another unit's definition replaces it on purpose, and calls must reach that one.
bool mayBeReplaced(const Function &F) {
  return F.hasLinkOnceODRLinkage() || F.hasWeakODRLinkage() || F.hasAvailableExternallyLinkage();
}

// The uses of `Callee` that calls make of it: directly, or through an alias of it (a
// constructor's, say), in module order. Not through an alias another unit's definition may
// replace on purpose (a weak one that is not ODR): calls must reach the one the linker takes.
SmallVector<Use *, 8> callsOf(GlobalValue &Callee) {
  SmallVector<Use *, 8> Calls;
  for (Use &U : Callee.uses()) {
    if (auto *Call = dyn_cast<CallBase>(U.getUser()); Call && Call->isCallee(&U))
      Calls.push_back(&U);
    else if (auto *Alias = dyn_cast<GlobalAlias>(U.getUser()); Alias && !Alias->isInterposable())
      Calls.append(callsOf(*Alias));
  }
  return Calls;
}

// The reached functions from which a division kept here is reached: those that hold one and,
// transitively, their reached callers; in an order that depends on the module alone.
SmallSetVector<Function *, 16>
reachingDivisions(ArrayRef<Function *> Holders,
                  const SmallPtrSetImpl<const GlobalValue *> &Reached) {
  SmallSetVector<Function *, 16> Reaching(Holders.begin(), Holders.end());
  for (std::size_t I = 0; I < Reaching.size(); ++I)
    for (Use *Call : callsOf(*Reaching[I]))
      if (Function *Caller = cast<CallBase>(Call->getUser())->getFunction();
          Reached.contains(Caller))
        Reaching.insert(Caller);
  return Reaching;
}

// Each of `Reaching` that another unit's copy may replace is called, in this module, through
// a copy of its own with internal linkage, which keeps the tests. The original stays for
// what takes its address, so that it is the same function in every unit.
void callOwnCopies(ArrayRef<Function *> Reaching) {
  SmallVector<std::pair<Function *, Function *>, 4> Copies;
  for (Function *F : Reaching) {
    if (!mayBeReplaced(*F))
      continue;
    ValueToValueMapTy VMap;
    Function *Copy = CloneFunction(F, VMap);
    Copy->setName(F->getName() + ".kernel_traps");
    Copy->setLinkage(GlobalValue::InternalLinkage);
    Copy->setComdat(nullptr);
    Copy->setVisibility(GlobalValue::DefaultVisibility);
    Copy->setDLLStorageClass(GlobalValue::DefaultStorageClass);
    Copy->setDSOLocal(true);
    Copies.emplace_back(F, Copy);
  }
  for (auto [F, Copy] : Copies)
    for (Use *Call : callsOf(*F))
      Call->set(Copy);
}

} // namespace

bool keepDivisionTraps(Module &M, const SmallPtrSetImpl<const GlobalValue *> &Reached) {
  SmallVector<Function *, 8> Holders;
  for (Function &F : M) {
    if (F.isDeclaration() || !Reached.contains(&F))
      continue;
    SmallVector<BinaryOperator *, 8> Divisions;
    for (Instruction &I : instructions(F))
      if (auto *BO = dyn_cast<BinaryOperator>(&I); BO && mayTrap(*BO))
        Divisions.push_back(BO);
    for (BinaryOperator *Division : Divisions)
      checkBefore(*Division);
    if (!Divisions.empty())
      Holders.push_back(&F);
  }
  if (Holders.empty())
    return false;
  callOwnCopies(reachingDivisions(Holders, Reached).getArrayRef());
  return true;
}

PreservedAnalyses KeepDivisionTrapsPass::run(Module &M, ModuleAnalysisManager &) {
  const DeviceSymbols Symbols = describeDeviceCode(M);
  return keepDivisionTraps(M, reachableFromDeviceCode(M, Symbols)) ? PreservedAnalyses::none()
                                                                   : PreservedAnalyses::all();
}

} // namespace passes
} // namespace kernel
