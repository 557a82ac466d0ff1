// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- InstrumentForSimulator.cpp - Race checks for simulated kernels -----===//

#include "InstrumentForSimulator.h"

#include <algorithm>

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/KnownBits.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

using namespace llvm;

namespace kernel {
namespace passes {

namespace {

// Functions defined in this module that the entries call, directly or through other ones.
SetVector<Function *> reachableDefinitions(ArrayRef<Function *> Roots) {
  SetVector<Function *> Reached;
  SmallVector<Function *, 16> Worklist(Roots.begin(), Roots.end());
  while (!Worklist.empty()) {
    Function *F = Worklist.pop_back_val();
    if (F->isDeclaration() || !Reached.insert(F))
      continue;
    for (Instruction &I : instructions(*F))
      for (Use &Op : I.operands())
        if (auto *Callee = dyn_cast<Function>(Op.get()->stripPointerCasts()))
          if (!Callee->isDeclaration() && !Callee->isIntrinsic())
            Worklist.push_back(Callee);
  }
  return Reached;
}

class Instrumenter {
public:
  explicit Instrumenter(Module &M) : M(M), Ctx(M.getContext()) {
    Type *Ptr = PointerType::getUnqual(Ctx);
    Access = M.getOrInsertFunction(
        "__kernel_sim_access", FunctionType::get(Type::getVoidTy(Ctx),
                                                 {Ptr, Type::getInt64Ty(Ctx), Type::getInt32Ty(Ctx),
                                                  Type::getInt32Ty(Ctx), Ptr},
                                                 false));
    AtomicAccess = M.getOrInsertFunction(
        "__kernel_sim_atomic_access",
        FunctionType::get(Type::getVoidTy(Ctx),
                          {Ptr, Type::getInt32Ty(Ctx), Type::getInt32Ty(Ctx), Ptr}, false));
    AtomicDone = M.getOrInsertFunction("__kernel_sim_atomic_done",
                                       FunctionType::get(Type::getVoidTy(Ctx), {Ptr}, false));
    Fence =
        M.getOrInsertFunction("__kernel_sim_fence", FunctionType::get(Type::getVoidTy(Ctx), false));
    Yield =
        M.getOrInsertFunction("__kernel_sim_yield", FunctionType::get(Type::getVoidTy(Ctx), false));
  }

  // A thread spinning until another of its block sets a flag must let that one run: the
  // simulator's threads are fibers, switched only where they call into it. A loop can wait
  // for another thread only by reading what it writes: with an atomic or volatile access,
  // or in a function it calls (the kernel hooks aside: those that wait switch threads).
  void giveWayInWaitingLoops(Function &F) {
    DominatorTree DT(F);
    LoopInfo LI(DT);
    SmallPtrSet<BasicBlock *, 8> Latches;
    for (Loop *L : LI.getLoopsInPreorder()) {
      if (!mayWaitForOtherThreads(*L))
        continue;
      SmallVector<BasicBlock *, 4> LoopLatches;
      L->getLoopLatches(LoopLatches);
      for (BasicBlock *Latch : LoopLatches)
        if (Latches.insert(Latch).second) {
          Instruction *Term = Latch->getTerminator();
          CallInst::Create(Yield, {}, "", Term->getIterator())->setDebugLoc(Term->getDebugLoc());
        }
    }
  }

  // A conversion of a floating-point value to an integer is undefined in LLVM where the
  // value is out of the integer's range or NaN: x86 gives its "indefinite integer" (the sign
  // bit alone, of 32 or 64 bits), a GPU what its cvt.rzi gives, the nearest value of the range, and
  // for NaN 0 from a float to at most 32 bits, else the sign bit alone (as an H200 gives). The
  // copies convert as sm_90 code does, at the width NVPTX converts at: integers narrower than 16
  // bits are converted to 16 bits of their signedness and truncated ((int8_t)300.0f is 44 there,
  // (uint8_t)-1.5f 0; NVPTX's PTX for earlier GPUs converts to uint8_t through 16 signed bits,
  // giving 255).
  void convertAsGPU(Function &F) {
    SmallVector<CastInst *, 8> Conversions;
    for (Instruction &I : instructions(F))
      if (isa<FPToSIInst, FPToUIInst>(&I))
        Conversions.push_back(cast<CastInst>(&I));
    for (CastInst *C : Conversions) {
      IRBuilder<> B(C);
      Type *To = C->getType();
      Value *From = C->getOperand(0);
      const unsigned Bits = To->getScalarSizeInBits();
      Type *At = Bits < 16 ? To->getWithNewBitWidth(16) : To;
      const Intrinsic::ID Saturating =
          isa<FPToSIInst>(C) ? Intrinsic::fptosi_sat : Intrinsic::fptoui_sat;
      Value *Converted = B.CreateIntrinsic(Saturating, {At, From->getType()}, {From});
      const unsigned AtBits = At->getScalarSizeInBits();
      if (AtBits == 64 || From->getType()->getScalarType()->isDoubleTy())
        Converted = B.CreateSelect(B.CreateFCmpUNO(From, From),
                                   ConstantInt::get(At, APInt::getSignMask(AtBits)), Converted);
      if (Bits < 16)
        Converted = B.CreateTrunc(Converted, To);
      if (auto *I = dyn_cast<Instruction>(Converted))
        I->setDebugLoc(C->getDebugLoc());
      Converted->takeName(C);
      C->replaceAllUsesWith(Converted);
      C->eraseFromParent();
    }
  }

  // A shift by the integer's width or more is poison in LLVM: x86 masks the amount (a 32-bit
  // x << 32 is x), while a GPU's shl and shr clamp it to the width, giving 0 (the sign alone
  // for shr.s). The amount is a 32-bit register there: NVPTX keeps the low 32 bits of a
  // 64-bit shift's. Amounts known to be smaller than the width are left alone.
  void shiftAsGPU(Function &F) {
    SmallVector<BinaryOperator *, 8> Shifts;
    for (Instruction &I : instructions(F))
      if (I.isShift())
        Shifts.push_back(cast<BinaryOperator>(&I));
    const DataLayout &Layout = M.getDataLayout();
    for (BinaryOperator *S : Shifts) {
      Type *T = S->getType();
      const unsigned Bits = T->getScalarSizeInBits();
      if (Bits != 8 && Bits != 16 && Bits != 32 && Bits != 64)
        continue;
      Value *Amount = S->getOperand(1);
      if (computeKnownBits(Amount, Layout).getMaxValue().ult(Bits))
        continue;
      IRBuilder<> B(S);
      // Read twice below: an undef amount must be one value for both.
      Amount = B.CreateFreeze(Amount);
      Value *Register =
          Bits == 64 ? B.CreateZExt(B.CreateTrunc(Amount, T->getWithNewBitWidth(32)), T) : Amount;
      Value *Over = B.CreateICmpUGE(Register, ConstantInt::get(T, Bits));
      Value *Within = B.CreateSelect(Over, Constant::getNullValue(T), Register);
      Value *Shifted = B.CreateBinOp(S->getOpcode(), S->getOperand(0), Within);
      Value *Clamped = S->getOpcode() == Instruction::AShr
                           ? B.CreateAShr(S->getOperand(0), ConstantInt::get(T, Bits - 1))
                           : Constant::getNullValue(T);
      Value *Result = B.CreateSelect(Over, Clamped, Shifted);
      for (Value *V : {Amount, Register, Over, Within, Shifted, Clamped, Result})
        if (auto *I = dyn_cast<Instruction>(V))
          I->setDebugLoc(S->getDebugLoc());
      Result->takeName(S);
      S->replaceAllUsesWith(Result);
      S->eraseFromParent();
    }
  }

  // `IsEntry`: F is an entry's copy, whose argument is the launch's parameters: the same for
  // every thread and read-only, as CUDA's parameter space, so its loads cannot race.
  //
  // Each access also passes the alignment a GPU needs at its address: the width of the
  // access the NVPTX backend makes of it, which faults ("misaligned address") where the
  // address is not a multiple of it, while the host reads it anyway.
  void instrument(Function &F, bool IsEntry) {
    SmallVector<Instruction *, 32> Accesses, Atomics;
    SmallVector<FenceInst *, 4> Fences;
    const DataLayout &Layout = M.getDataLayout();
    // A volatile load or store of a word a GPU accesses in one operation is a relaxed atomic
    // there (PTX's memory model): it races with plain accesses only, and releases and acquires
    // as an atomic does. A wider one (a struct, a vector) is plain accesses.
    auto RelaxedAtomic = [&](Type *T, Align A, bool Volatile) {
      const uint64_t Size = Layout.getTypeStoreSize(T);
      return Volatile && (Size == 1 || Size == 2 || Size == 4 || Size == 8) && A.value() >= Size;
    };
    for (Instruction &I : instructions(F)) {
      if (auto *L = dyn_cast<LoadInst>(&I))
        (L->isAtomic() || RelaxedAtomic(L->getType(), L->getAlign(), L->isVolatile()) ? Atomics
                                                                                      : Accesses)
            .push_back(L);
      else if (auto *S = dyn_cast<StoreInst>(&I))
        (S->isAtomic() ||
                 RelaxedAtomic(S->getValueOperand()->getType(), S->getAlign(), S->isVolatile())
             ? Atomics
             : Accesses)
            .push_back(S);
      else if (isa<AtomicRMWInst>(&I) || isa<AtomicCmpXchgInst>(&I))
        Atomics.push_back(&I);
      else if (auto *FI = dyn_cast<FenceInst>(&I))
        Fences.push_back(FI);
      else if (isa<MemTransferInst>(&I) || isa<MemSetInst>(&I))
        Accesses.push_back(&I);
    }
    const DataLayout &DL = M.getDataLayout();
    auto Private = [&](Value *Address) {
      const Value *Object = getUnderlyingObject(Address);
      // The thread's own stack, and the host's globals: neither is memory threads share
      // on a GPU (device memory is the simulator's allocations).
      return isa<AllocaInst>(Object) || isa<GlobalVariable>(Object) ||
             (IsEntry && isa<Argument>(Object));
    };
    for (Instruction *I : Accesses) {
      IRBuilder<> B(I);
      auto Report = [&](Value *Address, Value *Bytes, uint64_t Needed, bool Write) {
        if (Private(Address))
          return;
        B.CreateCall(Access, {Address, B.CreateZExtOrTrunc(Bytes, B.getInt64Ty()),
                              B.getInt32(Write), B.getInt32(Needed), where(*I)});
      };
      if (auto *L = dyn_cast<LoadInst>(I)) {
        const uint64_t Size = DL.getTypeStoreSize(L->getType());
        Report(L->getPointerOperand(), B.getInt64(Size), widestAccess(L->getAlign(), Size), false);
      } else if (auto *S = dyn_cast<StoreInst>(I)) {
        const uint64_t Size = DL.getTypeStoreSize(S->getValueOperand()->getType());
        Report(S->getPointerOperand(), B.getInt64(Size), widestAccess(S->getAlign(), Size), true);
      } else if (auto *T = dyn_cast<MemTransferInst>(I)) {
        Report(T->getRawSource(), T->getLength(), copyAlignment(T->getSourceAlign(), *T), false);
        Report(T->getRawDest(), T->getLength(), copyAlignment(T->getDestAlign(), *T), true);
      } else if (auto *Set = dyn_cast<MemSetInst>(I)) {
        Report(Set->getRawDest(), Set->getLength(), copyAlignment(Set->getDestAlign(), *Set), true);
      }
    }
    // Atomics race only with plain accesses (they are how threads meet), and a GPU needs
    // them aligned to their size. They also order threads of different blocks (a fence, then an
    // atomic that writes, releases; an atomic that reads acquires): the hook before one
    // says whether it reads (1), writes (2) or both (3), and an atomic that reads is followed
    // by __kernel_sim_atomic_done, where it acquires what was released before it.
    //
    // C++'s orders say the same with fewer words (std::atomic_ref, std::atomic_thread_fence):
    // a fence that releases is a threadfence (the hook __kernel_sim_fence), and an atomic that
    // releases by its own order (release, acq_rel, seq_cst) carries its fence: Kind's bit 4.
    //
    // Bit 8 marks a volatile access (a load or store that is no atomic): the old
    // warp-synchronous code reads and writes through volatile shared memory and counts on
    // a warp's lanes making each access together, so the simulator lets the other threads
    // make theirs before it.
    for (FenceInst *FI : Fences)
      if (isReleaseOrStronger(FI->getOrdering()) && FI->getSyncScopeID() != SyncScope::SingleThread)
        CallInst::Create(Fence, {}, "", FI->getIterator())->setDebugLoc(FI->getDebugLoc());
    for (Instruction *I : Atomics) {
      Value *Address;
      Type *Accessed;
      int Kind = 3;
      AtomicOrdering Order;
      if (auto *L = dyn_cast<LoadInst>(I)) {
        Address = L->getPointerOperand();
        Accessed = L->getType();
        Kind = L->isAtomic() ? 1 : 1 | 8;
        Order = L->getOrdering();
      } else if (auto *S = dyn_cast<StoreInst>(I)) {
        Address = S->getPointerOperand();
        Accessed = S->getValueOperand()->getType();
        Kind = S->isAtomic() ? 2 : 2 | 8;
        Order = S->getOrdering();
      } else if (auto *RMW = dyn_cast<AtomicRMWInst>(I)) {
        Address = RMW->getPointerOperand();
        Accessed = RMW->getValOperand()->getType();
        Order = RMW->getOrdering();
      } else {
        auto *CX = cast<AtomicCmpXchgInst>(I);
        Address = CX->getPointerOperand();
        Accessed = CX->getNewValOperand()->getType();
        Order = CX->getSuccessOrdering();
      }
      if ((Kind & 2) && isReleaseOrStronger(Order))
        Kind |= 4;
      if (isa<AllocaInst>(getUnderlyingObject(Address)))
        continue;
      IRBuilder<> B(I);
      B.CreateCall(AtomicAccess, {Address, B.getInt32(DL.getTypeStoreSize(Accessed)),
                                  B.getInt32(Kind), where(*I)});
      if (Kind & 1) {
        B.SetInsertPoint(I->getNextNode());
        B.CreateCall(AtomicDone, {Address});
      }
    }
  }

private:
  // The widest access NVPTX makes of `Size` bytes known to be aligned to `A`: both powers of
  // two, at most a 16-byte vector.
  static uint64_t widestAccess(Align A, uint64_t Size) {
    if (Size == 0)
      return 1;
    return std::min<uint64_t>({A.value(), uint64_t{1} << Log2_64(Size), 16});
  }
  // A copy or fill of a constant length goes in accesses as wide as its alignment allows; one
  // of a length known only at run time, byte by byte.
  static uint64_t copyAlignment(MaybeAlign A, const MemIntrinsic &I) {
    auto *Length = dyn_cast<ConstantInt>(I.getLength());
    if (!A || !Length)
      return 1;
    return widestAccess(*A, Length->getZExtValue());
  }

  static bool mayWaitForOtherThreads(const Loop &L) {
    for (BasicBlock *BB : L.blocks())
      for (Instruction &I : *BB) {
        if (I.isAtomic() || (isa<LoadInst>(I) && cast<LoadInst>(I).isVolatile()))
          return true;
        if (auto *Call = dyn_cast<CallBase>(&I)) {
          // (Inline asm waits for no one: KeepDivisionTraps' hides values with it.)
          if (Call->isInlineAsm())
            continue;
          const Function *Callee = Call->getCalledFunction();
          if (!Callee || (!Callee->isIntrinsic() && !Callee->getName().starts_with("__kernel_")))
            return true;
        }
      }
    return false;
  }

  // "file.cpp:12" when the module has debug information, for race reports.
  Constant *where(const Instruction &I) {
    const DebugLoc &DL = I.getDebugLoc();
    if (!DL)
      return ConstantPointerNull::get(PointerType::getUnqual(Ctx));
    std::string Text = DL->getFilename().str() + ":" + std::to_string(DL.getLine());
    auto &G = Locations[Text];
    if (!G) {
      Constant *Init = ConstantDataArray::getString(Ctx, Text);
      auto *GV = new GlobalVariable(M, Init->getType(), true, GlobalValue::PrivateLinkage, Init,
                                    "__kernel_sim_where");
      GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
      G = GV;
    }
    return G;
  }

  Module &M;
  LLVMContext &Ctx;
  FunctionCallee Access;
  FunctionCallee AtomicAccess;
  FunctionCallee AtomicDone;
  FunctionCallee Fence;
  FunctionCallee Yield;
  StringMap<Constant *> Locations;
};

} // namespace

DenseMap<Function *, Function *> instrumentForSimulator(Module &Host, const DeviceCode &Code) {
  DenseMap<Function *, Function *> Copies;
  SmallVector<Function *, 8> Roots;
  for (const DeviceEntry &E : Code.Entries)
    Roots.push_back(E.HostFunction);
  if (Roots.empty())
    return Copies;
  SetVector<Function *> Reached = reachableDefinitions(Roots);

  // Declare every copy first, so that calls between them can be remapped.
  ValueToValueMapTy VMap;
  for (Function *F : Reached) {
    Function *Copy = Function::Create(F->getFunctionType(), GlobalValue::InternalLinkage,
                                      F->getName() + ".kernel_sim", &Host);
    VMap[F] = Copy;
  }
  Instrumenter Inst(Host);
  for (Function *F : Reached) {
    // A frame larger than the guard below a simulated thread's stack must fault in the
    // guard, not write past it: its pages are touched in order as it grows. The originals
    // too: a launch of one thread runs them, and only frames of more than a page pay.
    F->addFnAttr("probe-stack", "inline-asm");
    auto *Copy = cast<Function>(VMap[F]);
    auto Arg = Copy->arg_begin();
    for (Argument &A : F->args())
      VMap[&A] = &*Arg++;
    SmallVector<ReturnInst *, 4> Returns;
    CloneFunctionInto(Copy, F, VMap, CloneFunctionChangeType::LocalChangesOnly, Returns);
    // The original's visibility, storage class and dso_local came with its attributes; an
    // internal function is local and visible only here.
    Copy->setVisibility(GlobalValue::DefaultVisibility);
    Copy->setDLLStorageClass(GlobalValue::DefaultStorageClass);
    Copy->setDSOLocal(true);
    Inst.instrument(*Copy, is_contained(Roots, F));
    Inst.giveWayInWaitingLoops(*Copy);
    Inst.convertAsGPU(*Copy);
    Inst.shiftAsGPU(*Copy);
  }
  for (Function *Root : Roots)
    Copies[Root] = cast<Function>(VMap[Root]);
  return Copies;
}

PreservedAnalyses InstrumentForSimulatorPass::run(Module &M, ModuleAnalysisManager &) {
  if (instrumentForSimulator(M, collectDeviceCode(M)).empty())
    return PreservedAnalyses::all();
  return PreservedAnalyses::none();
}

} // namespace passes
} // namespace kernel
