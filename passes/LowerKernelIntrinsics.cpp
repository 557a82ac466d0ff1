// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LowerKernelIntrinsics.cpp - Kernel hooks to NVVM intrinsics --------===//

#include "LowerKernelIntrinsics.h"
#include "DeviceCodeAnalysis.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"

#include <functional>

using namespace llvm;

namespace kernel {
namespace passes {

namespace {

constexpr unsigned SharedAddressSpace = 3;

/// Builds the replacement of one hook call; returns the value replacing the call's result
/// (null for void hooks).
using Lowering = std::function<Value *(IRBuilder<> &, CallInst &)>;

Value *callIntrinsic(IRBuilder<> &B, Intrinsic::ID ID, ArrayRef<Value *> Args = {}) {
  Module *M = B.GetInsertBlock()->getModule();
  return B.CreateCall(Intrinsic::getDeclaration(M, ID), Args);
}

Lowering specialRegister(Intrinsic::ID ID) {
  return [ID](IRBuilder<> &B, CallInst &) { return callIntrinsic(B, ID); };
}

Lowering noResult(Intrinsic::ID ID) {
  return [ID](IRBuilder<> &B, CallInst &) {
    callIntrinsic(B, ID);
    return nullptr;
  };
}

Value *predicate(IRBuilder<> &B, Value *V) {
  return B.CreateICmpNE(V, ConstantInt::get(V->getType(), 0));
}

// barrier0.popc/and/or take the predicate as i32 and answer an i32.
Lowering reducingBarrier(Intrinsic::ID ID) {
  return [ID](IRBuilder<> &B, CallInst &C) {
    return callIntrinsic(B, ID, {B.CreateZExt(predicate(B, C.getArgOperand(0)), B.getInt32Ty())});
  };
}

// shfl.sync.{idx,up,down,bfly}.i32(mask, value, lane, clamp): the clamp packs the segment
// mask ((32 - width) << 8) and, except for up, the maximum lane (31).
Lowering shuffle(Intrinsic::ID ID, bool Up) {
  return [ID, Up](IRBuilder<> &B, CallInst &C) {
    Value *Segment = B.CreateShl(B.CreateSub(B.getInt32(32), C.getArgOperand(3)), 8);
    Value *Clamp = Up ? Segment : B.CreateOr(Segment, B.getInt32(0x1f));
    return callIntrinsic(B, ID,
                         {C.getArgOperand(0), C.getArgOperand(1), C.getArgOperand(2), Clamp});
  };
}

Lowering vote(Intrinsic::ID ID, bool Ballot) {
  return [ID, Ballot](IRBuilder<> &B, CallInst &C) -> Value * {
    Value *R = callIntrinsic(B, ID, {C.getArgOperand(0), predicate(B, C.getArgOperand(1))});
    return Ballot ? R : B.CreateZExt(R, B.getInt32Ty());
  };
}

using SharedVariables = SetVector<const GlobalVariable *>;

const SharedVariables &sharedVariablesOf(const Function &F,
                                         DenseMap<const Function *, SharedVariables> &Memo);

/// Adds the shared variables operand `V` names, also inside a constant expression (an
/// element at a constant offset, once optimised), and those of a function it names.
void addSharedVariables(const Value *V, SharedVariables &Used,
                        DenseMap<const Function *, SharedVariables> &Memo) {
  V = V->stripPointerCasts();
  if (const auto *G = dyn_cast<GlobalVariable>(V)) {
    if (G->getAddressSpace() == SharedAddressSpace && !G->isDeclaration())
      Used.insert(G);
  } else if (const auto *Callee = dyn_cast<Function>(V); Callee && !Callee->isDeclaration()) {
    Used.set_union(sharedVariablesOf(*Callee, Memo));
  } else if (const auto *Expression = dyn_cast<ConstantExpr>(V)) {
    for (const Value *Operand : Expression->operands())
      addSharedVariables(Operand, Used, Memo);
  }
}

/// The shared variables `F` and the functions it calls use, each once.
const SharedVariables &sharedVariablesOf(const Function &F,
                                         DenseMap<const Function *, SharedVariables> &Memo) {
  if (auto It = Memo.find(&F); It != Memo.end())
    return It->second;
  SharedVariables Used;
  Memo[&F]; // a recursive call sees what is known so far
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB)
      for (const Value *Op : I.operands())
        addSharedVariables(Op, Used, Memo);
  return Memo[&F] = std::move(Used);
}

/// Kernels (functions nothing in the module calls) whose static shared memory exceeds PTX's
/// limit: ptxas would reject them only when the module is linked at run time.
void checkStaticSharedSize(Module &M, const DeviceSymbols &Code, DeviceDiagnostics &D) {
  // entry symbol -> the annotated function's name, and "file:line: " where it is
  StringMap<std::pair<std::string, std::string>> UserNames;
  for (const DeviceSymbols::Entry &E : Code.Entries)
    UserNames[E.Symbol] = {E.Info.Name,
                           E.Info.Location.empty() ? std::string() : E.Info.Location + ": "};
  const StringMap<uint64_t> Kernels = staticSharedBytesOfKernels(M);
  for (const Function &F : M) { // in the module's order
    const uint64_t Bytes = Kernels.lookup(F.getName());
    if (Bytes <= MaxStaticSharedBytes)
      continue;
    // Reported from the compiled module, after the source is gone: the message names where
    // the kernel is.
    auto Name = UserNames.find(F.getName());
    const bool Known = Name != UserNames.end();
    D.error(Twine(Known ? Name->second.second : std::string()) + "the kernel '" +
            (Known ? Name->second.first : demangle(F.getName())) + "' uses " + Twine(Bytes) +
            " bytes of static shared memory (shared_array), more than the " +
            Twine(MaxStaticSharedBytes) +
            " a GPU kernel may have; use dynamic_shared_array for more");
  }
}

// match.any.sync.b32/b64 (sm_70 and later): the lanes of `mask` holding the same value.
Lowering matchAny(Intrinsic::ID ID) {
  return [ID](IRBuilder<> &B, CallInst &C) {
    return callIntrinsic(B, ID, {C.getArgOperand(0), C.getArgOperand(1)});
  };
}

// match.all.sync answers {lanes, all equal}; the hook returns the lanes and stores the
// predicate, as an int, where its third argument points.
Lowering matchAll(Intrinsic::ID ID) {
  return [ID](IRBuilder<> &B, CallInst &C) {
    Value *Pair = callIntrinsic(B, ID, {C.getArgOperand(0), C.getArgOperand(1)});
    B.CreateStore(B.CreateZExt(B.CreateExtractValue(Pair, 1), B.getInt32Ty()), C.getArgOperand(2));
    return B.CreateExtractValue(Pair, 0);
  };
}

} // namespace

StringMap<uint64_t> staticSharedBytesOfKernels(const Module &M) {
  DenseMap<const Function *, SharedVariables> Memo;
  const DataLayout &DL = M.getDataLayout();
  StringMap<uint64_t> Kernels;
  for (const Function &F : M) {
    if (F.isDeclaration() || !F.use_empty())
      continue;
    uint64_t Bytes = 0;
    for (const GlobalVariable *G : sharedVariablesOf(F, Memo))
      Bytes = alignTo(Bytes, G->getAlign().valueOrOne()) + DL.getTypeAllocSize(G->getValueType());
    Kernels[F.getName()] = Bytes;
  }
  return Kernels;
}

PreservedAnalyses LowerKernelIntrinsicsPass::run(Module &M, ModuleAnalysisManager &AM) {
  LLVMContext &Ctx = M.getContext();
  Type *I8 = Type::getInt8Ty(Ctx);
  DeviceDiagnostics Own(Ctx);
  DeviceDiagnostics &D = Diags ? *Diags : Own;

  // One shared variable per shared_array site (the hook's first argument).
  DenseMap<Value *, GlobalVariable *> SharedBySite;
  Lowering SharedStatic = [&](IRBuilder<> &B, CallInst &C) -> Value * {
    Value *Site = C.getArgOperand(0)->stripPointerCasts();
    GlobalVariable *&G = SharedBySite[Site];
    if (!G) {
      const auto *Bytes = dyn_cast<ConstantInt>(C.getArgOperand(1));
      const auto *AlignArg = dyn_cast<ConstantInt>(C.getArgOperand(2));
      // kernel::shared_array's size is a template argument; a call that reaches the hook with
      // a run-time size would otherwise get a 0-byte array.
      if (!Bytes || !AlignArg)
        D.error("a shared array in '" + demangle(C.getFunction()->getName()) +
                "' has a size or alignment that is not a compile-time constant; static shared "
                "memory is sized when the kernel is compiled (use dynamic_shared_array for a "
                "size chosen at launch)");
      ArrayType *T = ArrayType::get(I8, Bytes ? Bytes->getZExtValue() : 0);
      G = new GlobalVariable(M, T, /*isConstant=*/false, GlobalValue::InternalLinkage,
                             UndefValue::get(T), "__kernel_shared", nullptr,
                             GlobalValue::NotThreadLocal, SharedAddressSpace);
      G->setAlignment(Align(std::max<uint64_t>(AlignArg ? AlignArg->getZExtValue() : 16, 16)));
    }
    return B.CreateAddrSpaceCast(G, C.getType());
  };
  Lowering SharedDynamic = [&](IRBuilder<> &B, CallInst &C) -> Value * {
    GlobalVariable *G = M.getGlobalVariable("__kernel_dynamic_shared", true);
    if (!G) {
      ArrayType *T = ArrayType::get(I8, 0);
      G = new GlobalVariable(M, T, false, GlobalValue::ExternalLinkage, nullptr,
                             "__kernel_dynamic_shared", nullptr, GlobalValue::NotThreadLocal,
                             SharedAddressSpace);
      G->setAlignment(Align(16));
    }
    return B.CreateAddrSpaceCast(G, C.getType());
  };
  Lowering SharedDynamicBytes = [](IRBuilder<> &B, CallInst &) -> Value * {
    // PTX has the register; LLVM 19 has no intrinsic for it.
    InlineAsm *Read =
        InlineAsm::get(FunctionType::get(B.getInt32Ty(), false), "mov.u32 $0, %dynamic_smem_size;",
                       "=r", /*hasSideEffects=*/false);
    return B.CreateCall(Read);
  };

  const std::pair<StringLiteral, Lowering> Hooks[] = {
      {"__kernel_tid_x", specialRegister(Intrinsic::nvvm_read_ptx_sreg_tid_x)},
      {"__kernel_tid_y", specialRegister(Intrinsic::nvvm_read_ptx_sreg_tid_y)},
      {"__kernel_tid_z", specialRegister(Intrinsic::nvvm_read_ptx_sreg_tid_z)},
      {"__kernel_ntid_x", specialRegister(Intrinsic::nvvm_read_ptx_sreg_ntid_x)},
      {"__kernel_ntid_y", specialRegister(Intrinsic::nvvm_read_ptx_sreg_ntid_y)},
      {"__kernel_ntid_z", specialRegister(Intrinsic::nvvm_read_ptx_sreg_ntid_z)},
      {"__kernel_ctaid_x", specialRegister(Intrinsic::nvvm_read_ptx_sreg_ctaid_x)},
      {"__kernel_ctaid_y", specialRegister(Intrinsic::nvvm_read_ptx_sreg_ctaid_y)},
      {"__kernel_ctaid_z", specialRegister(Intrinsic::nvvm_read_ptx_sreg_ctaid_z)},
      {"__kernel_nctaid_x", specialRegister(Intrinsic::nvvm_read_ptx_sreg_nctaid_x)},
      {"__kernel_nctaid_y", specialRegister(Intrinsic::nvvm_read_ptx_sreg_nctaid_y)},
      {"__kernel_nctaid_z", specialRegister(Intrinsic::nvvm_read_ptx_sreg_nctaid_z)},
      {"__kernel_laneid", specialRegister(Intrinsic::nvvm_read_ptx_sreg_laneid)},
      {"__kernel_activemask", specialRegister(Intrinsic::nvvm_activemask)},
      {"__kernel_syncthreads_at", noResult(Intrinsic::nvvm_barrier0)},
      {"__kernel_syncthreads_count_at", reducingBarrier(Intrinsic::nvvm_barrier0_popc)},
      {"__kernel_syncthreads_and_at", reducingBarrier(Intrinsic::nvvm_barrier0_and)},
      {"__kernel_syncthreads_or_at", reducingBarrier(Intrinsic::nvvm_barrier0_or)},
      {"__kernel_syncwarp",
       [](IRBuilder<> &B, CallInst &C) -> Value * {
         callIntrinsic(B, Intrinsic::nvvm_bar_warp_sync, {C.getArgOperand(0)});
         return nullptr;
       }},
      {"__kernel_threadfence", noResult(Intrinsic::nvvm_membar_gl)},
      {"__kernel_threadfence_block", noResult(Intrinsic::nvvm_membar_cta)},
      {"__kernel_threadfence_system", noResult(Intrinsic::nvvm_membar_sys)},
      {"__kernel_nanosleep",
       [](IRBuilder<> &B, CallInst &C) -> Value * {
         callIntrinsic(B, Intrinsic::nvvm_nanosleep, {C.getArgOperand(0)});
         return nullptr;
       }},
      {"__kernel_shfl_idx", shuffle(Intrinsic::nvvm_shfl_sync_idx_i32, false)},
      {"__kernel_shfl_up", shuffle(Intrinsic::nvvm_shfl_sync_up_i32, true)},
      {"__kernel_shfl_down", shuffle(Intrinsic::nvvm_shfl_sync_down_i32, false)},
      {"__kernel_shfl_xor", shuffle(Intrinsic::nvvm_shfl_sync_bfly_i32, false)},
      {"__kernel_vote_all", vote(Intrinsic::nvvm_vote_all_sync, false)},
      {"__kernel_vote_any", vote(Intrinsic::nvvm_vote_any_sync, false)},
      {"__kernel_vote_uni", vote(Intrinsic::nvvm_vote_uni_sync, false)},
      {"__kernel_vote_ballot", vote(Intrinsic::nvvm_vote_ballot_sync, true)},
      {"__kernel_lanemask_lt", specialRegister(Intrinsic::nvvm_read_ptx_sreg_lanemask_lt)},
      {"__kernel_match_any_32", matchAny(Intrinsic::nvvm_match_any_sync_i32)},
      {"__kernel_match_any_64", matchAny(Intrinsic::nvvm_match_any_sync_i64)},
      {"__kernel_match_all_32", matchAll(Intrinsic::nvvm_match_all_sync_i32p)},
      {"__kernel_match_all_64", matchAll(Intrinsic::nvvm_match_all_sync_i64p)},
      {"__kernel_shared_static", SharedStatic},
      {"__kernel_shared_dynamic", SharedDynamic},
      {"__kernel_shared_dynamic_bytes", SharedDynamicBytes},
  };

  bool Changed = false;
  // The simulator's bounds checks do not exist on the GPU: the flag that enables them is
  // zero there.
  // The flag is thread-local on the host: reached through llvm.threadlocal.address.
  if (GlobalVariable *Flag = M.getGlobalVariable("__kernel_simulating")) {
    auto FoldLoads = [&](Value *Address) {
      for (User *U : llvm::make_early_inc_range(Address->users()))
        if (auto *Load = dyn_cast<LoadInst>(U)) {
          Load->replaceAllUsesWith(Constant::getNullValue(Load->getType()));
          Load->eraseFromParent();
          Changed = true;
        }
    };
    FoldLoads(Flag);
    for (User *U : llvm::make_early_inc_range(Flag->users()))
      if (auto *TLS = dyn_cast<IntrinsicInst>(U);
          TLS && TLS->getIntrinsicID() == Intrinsic::threadlocal_address) {
        FoldLoads(TLS);
        if (TLS->use_empty())
          TLS->eraseFromParent();
      }
    if (Flag->use_empty())
      Flag->eraseFromParent();
  }
  // Nor do the hooks the flag guards: the bounds check, and the element an elementwise loop
  // is at, which the simulator's fault reports name.
  for (StringRef Name : {"__kernel_check_index", "__kernel_at_element"})
    if (Function *SimulatorOnly = M.getFunction(Name)) {
      for (User *U : llvm::make_early_inc_range(SimulatorOnly->users()))
        if (auto *Call = dyn_cast<CallInst>(U))
          Call->eraseFromParent();
      if (SimulatorOnly->use_empty())
        SimulatorOnly->eraseFromParent();
      Changed = true;
    }
  for (const auto &[Name, Lower] : Hooks) {
    Function *Hook = M.getFunction(Name);
    if (!Hook || !Hook->isDeclaration())
      continue;
    for (User *U : llvm::make_early_inc_range(Hook->users())) {
      auto *Call = dyn_cast<CallInst>(U);
      if (!Call || Call->getCalledFunction() != Hook)
        continue;
      IRBuilder<> B(Call);
      Value *Result = Lower(B, *Call);
      if (Result) {
        if (Result->getType() != Call->getType() && Result->getType()->isIntegerTy() &&
            Call->getType()->isIntegerTy())
          Result = B.CreateZExtOrTrunc(Result, Call->getType());
        Call->replaceAllUsesWith(Result);
      }
      Call->eraseFromParent();
      Changed = true;
    }
    if (Hook->use_empty())
      Hook->eraseFromParent();
  }
  if (!SharedBySite.empty())
    checkStaticSharedSize(M, AM.getResult<DeviceCodeAnalysis>(M), D);
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace passes
} // namespace kernel
