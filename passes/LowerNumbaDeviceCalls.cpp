// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LowerNumbaDeviceCalls.cpp - Numba's device-function convention -----===//

#include "LowerNumbaDeviceCalls.h"
#include "DeviceCodeAnalysis.h"
#include "ExternalDeviceCode.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace kernel {
namespace passes {

namespace {
constexpr unsigned GlobalAddressSpace = 1;
} // namespace

PreservedAnalyses LowerNumbaDeviceCallsPass::run(Module &M, ModuleAnalysisManager &AM) {
  // The runtime names a failed function by its position in this list.
  const std::vector<DeviceSymbols::External> &Externals =
      AM.getResult<DeviceCodeAnalysis>(M).Externals;
  LLVMContext &Ctx = M.getContext();
  DeviceDiagnostics Own(Ctx);
  DeviceDiagnostics &D = Diags ? *Diags : Own;
  Type *I32 = Type::getInt32Ty(Ctx);
  Type *I64 = Type::getInt64Ty(Ctx);
  GlobalVariable *Status = nullptr;
  bool Changed = false;

  for (size_t Index = 0; Index < Externals.size(); ++Index) {
    if (!Externals[Index].Info.NumbaConvention)
      continue;
    Function *Declared = M.getFunction(Externals[Index].Symbol);
    if (!Declared || !Declared->isDeclaration() || Declared->use_empty())
      continue;
    // Only direct calls can be given the result slot; the address of the C++ declaration
    // would call the CUDA-C function with the wrong arguments.
    if (any_of(Declared->users(), [&](const User *U) {
          const auto *Call = dyn_cast<CallInst>(U);
          return !Call || Call->getCalledFunction() != Declared;
        })) {
      D.error("GPU code uses the address of the CUDA-C device function '" +
              Externals[Index].Info.Signature + "' (Numba convention, declared at " +
              Externals[Index].Info.Location +
              "); such functions can only be called directly, because the compiler adds the "
              "result pointer and the status to each call");
      continue;
    }
    if (!Status) {
      // Externally visible, so that the runtime finds it with cuModuleGetGlobal.
      Status = new GlobalVariable(M, I64, /*isConstant=*/false, GlobalValue::ExternalLinkage,
                                  ConstantInt::get(I64, 0), StatusGlobalName, nullptr,
                                  GlobalValue::NotThreadLocal, GlobalAddressSpace);
      Status->setAlignment(Align(8));
    }
    Type *Result = Declared->getReturnType();
    SmallVector<Type *, 8> Params{PointerType::getUnqual(Ctx)};
    for (Type *P : Declared->getFunctionType()->params())
      Params.push_back(P);
    std::string Name = Declared->getName().str();
    Declared->setName(Name + ".as_declared");
    Function *Actual = Function::Create(FunctionType::get(I32, Params, false),
                                        GlobalValue::ExternalLinkage, Name, M);
    Actual->setCallingConv(Declared->getCallingConv());

    SmallVector<CallInst *, 8> Calls;
    for (User *U : Declared->users())
      if (auto *Call = dyn_cast<CallInst>(U); Call && Call->getCalledFunction() == Declared)
        Calls.push_back(Call);
    for (CallInst *Call : Calls) {
      Function *Caller = Call->getFunction();
      IRBuilder<> Entry(&*Caller->getEntryBlock().getFirstInsertionPt());
      AllocaInst *Slot = Entry.CreateAlloca(Result, nullptr, "numba.result");

      IRBuilder<> B(Call);
      SmallVector<Value *, 8> Args{Slot};
      for (Value *A : Call->args())
        Args.push_back(A);
      CallInst *Code = B.CreateCall(Actual, Args, "numba.status");
      // Failure is rare: it is recorded off the main path, and the first one wins.
      Value *Failed = B.CreateICmpNE(Code, ConstantInt::get(I32, 0));
      Instruction *Then = SplitBlockAndInsertIfThen(Failed, Call, /*Unreachable=*/false);
      IRBuilder<> T(Then);
      Value *Record =
          T.CreateOr(ConstantInt::get(I64, uint64_t(Index + 1) << 32), T.CreateZExt(Code, I64));
      T.CreateAtomicCmpXchg(Status, ConstantInt::get(I64, 0), Record, MaybeAlign(8),
                            AtomicOrdering::Monotonic, AtomicOrdering::Monotonic);
      B.SetInsertPoint(Call);
      Value *Loaded = B.CreateLoad(Result, Slot, "numba.result.value");
      Call->replaceAllUsesWith(Loaded);
      Call->eraseFromParent();
    }
    Declared->eraseFromParent();
    Changed = true;
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace passes
} // namespace kernel
