//===- LowerKernelIntrinsics.cpp - Kernel hooks to NVVM intrinsics --------===//

#include "LowerKernelIntrinsics.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace kernel {
namespace passes {

namespace {
struct HookLowering {
  StringLiteral Hook;
  Intrinsic::ID Register;
};

constexpr HookLowering SpecialRegisters[] = {
    {"__kernel_tid_x", Intrinsic::nvvm_read_ptx_sreg_tid_x},
    {"__kernel_tid_y", Intrinsic::nvvm_read_ptx_sreg_tid_y},
    {"__kernel_tid_z", Intrinsic::nvvm_read_ptx_sreg_tid_z},
    {"__kernel_ntid_x", Intrinsic::nvvm_read_ptx_sreg_ntid_x},
    {"__kernel_ntid_y", Intrinsic::nvvm_read_ptx_sreg_ntid_y},
    {"__kernel_ntid_z", Intrinsic::nvvm_read_ptx_sreg_ntid_z},
    {"__kernel_ctaid_x", Intrinsic::nvvm_read_ptx_sreg_ctaid_x},
    {"__kernel_ctaid_y", Intrinsic::nvvm_read_ptx_sreg_ctaid_y},
    {"__kernel_ctaid_z", Intrinsic::nvvm_read_ptx_sreg_ctaid_z},
    {"__kernel_nctaid_x", Intrinsic::nvvm_read_ptx_sreg_nctaid_x},
    {"__kernel_nctaid_y", Intrinsic::nvvm_read_ptx_sreg_nctaid_y},
    {"__kernel_nctaid_z", Intrinsic::nvvm_read_ptx_sreg_nctaid_z},
};
} // namespace

PreservedAnalyses LowerKernelIntrinsicsPass::run(Module &M, ModuleAnalysisManager &) {
  bool Changed = false;
  for (const HookLowering &L : SpecialRegisters) {
    Function *Hook = M.getFunction(L.Hook);
    if (!Hook)
      continue;
    Function *Register = Intrinsic::getDeclaration(&M, L.Register);
    for (User *U : llvm::make_early_inc_range(Hook->users())) {
      auto *Call = dyn_cast<CallInst>(U);
      if (!Call || Call->getCalledFunction() != Hook)
        continue;
      IRBuilder<> B(Call);
      Value *Read = B.CreateCall(Register);
      if (Read->getType() != Call->getType())
        Read = B.CreateZExtOrTrunc(Read, Call->getType());
      Call->replaceAllUsesWith(Read);
      Call->eraseFromParent();
      Changed = true;
    }
    if (Hook->use_empty())
      Hook->eraseFromParent();
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace passes
} // namespace kernel
