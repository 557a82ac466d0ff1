// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- CreateKernelEntries.cpp - PTX entry points -------------------------===//

#include "CreateKernelEntries.h"
#include "DeviceCodeAnalysis.h"
#include "DeviceEntries.h"
#include "EraseUnusedGlobals.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace kernel {
namespace passes {

PreservedAnalyses CreateKernelEntriesPass::run(Module &M, ModuleAnalysisManager &AM) {
  LLVMContext &Ctx = M.getContext();
  DeviceDiagnostics Own(Ctx);
  DeviceDiagnostics &D = Diags ? *Diags : Own;
  const DeviceSymbols &Code = AM.getResult<DeviceCodeAnalysis>(M);
  StringSet<> Exported;

  for (const DeviceSymbols::Entry &E : Code.Entries) {
    const std::string &Symbol = E.Symbol;
    Function *Body = M.getFunction(Symbol);
    if (!Body || Body->isDeclaration() || Body->arg_size() != 1 ||
        !Body->getArg(0)->getType()->isPointerTy()) {
      D.error("the GPU entry of '" + E.Info.Name +
              "' does not have the expected shape (one parameter block)");
      continue;
    }
    Body->setName(Symbol + ".body");
    Body->setLinkage(GlobalValue::InternalLinkage);
    Body->removeFnAttr(Attribute::NoInline);
    Body->addFnAttr(Attribute::AlwaysInline);

    Type *Ptr = PointerType::getUnqual(Ctx);
    auto *Kernel = Function::Create(FunctionType::get(Type::getVoidTy(Ctx), {Ptr}, false),
                                    GlobalValue::ExternalLinkage, ptxSymbolName(Symbol), M);
    Kernel->setCallingConv(CallingConv::PTX_Kernel);
    Kernel->addFnAttr(Attribute::NoUnwind);
    Kernel->addFnAttr(Attribute::MustProgress);
    Argument *Block = Kernel->getArg(0);
    Block->setName("params");
    Type *BlockType = ArrayType::get(Type::getInt8Ty(Ctx), std::max<uint64_t>(E.Info.ParamSize, 1));
    Kernel->addParamAttr(0, Attribute::getWithByValType(Ctx, BlockType));
    Kernel->addParamAttr(0, Attribute::getWithAlignment(Ctx, Align(E.Info.ParamAlign)));
    Kernel->addParamAttr(0, Attribute::NoAlias);

    // The block is read-only: as a grid constant (PTX 7.7, sm_70), the kernel reads it in
    // place even where the optimiser takes its address, instead of first copying all of it
    // to local memory in every thread.
    NamedMDNode *Annotations = M.getOrInsertNamedMetadata("nvvm.annotations");
    Type *I32 = Type::getInt32Ty(Ctx);
    Annotations->addOperand(
        MDNode::get(Ctx, {ValueAsMetadata::get(Kernel), MDString::get(Ctx, "grid_constant"),
                          MDNode::get(Ctx, {ConstantAsMetadata::get(ConstantInt::get(I32, 1))})}));
    // Blocks larger than ptxas would otherwise plan for: .maxntid and .minnctapersm make it
    // keep the registers within what that many such blocks may have (for sm_75 it gave a
    // 512-thread compaction tile 144 a thread, more than one block of 512 can have, and the
    // launch would have failed; with .maxntid alone, 80 on sm_90, one block a multiprocessor).
    auto Bound = [&](StringRef Name, uint64_t Value) {
      Annotations->addOperand(
          MDNode::get(Ctx, {ValueAsMetadata::get(Kernel), MDString::get(Ctx, Name),
                            ConstantAsMetadata::get(ConstantInt::get(I32, Value))}));
    };
    if (E.Info.MaxThreads > 0)
      Bound("maxntidx", E.Info.MaxThreads);
    if (E.Info.MaxThreads > 0 && E.Info.MinBlocks > 0)
      Bound("minctasm", E.Info.MinBlocks);

    IRBuilder<> B(BasicBlock::Create(Ctx, "entry", Kernel));
    B.CreateCall(Body, {Block});
    B.CreateRetVoid();
    Exported.insert(Kernel->getName());
  }
  for (const std::string &F : Code.DeviceFunctions)
    Exported.insert(F);

  for (Function &F : M)
    if (!F.isDeclaration() && !Exported.contains(F.getName()))
      F.setLinkage(GlobalValue::InternalLinkage);
  for (GlobalVariable &GV : M.globals())
    if (!GV.isDeclaration())
      GV.setLinkage(GlobalValue::InternalLinkage);
  // Every other definition with a name PTX cannot hold (a function or constant named in
  // UTF-8), as its entries: the backend stops at such a symbol.
  for (GlobalValue &G : M.global_values())
    if (!G.isDeclaration() && !G.getName().empty() && G.getName() != ptxSymbolName(G.getName()))
      G.setName(ptxSymbolName(G.getName()));

  // What only host exception handling used (__clang_call_terminate after the invokes that
  // reached it became calls) is dead now; drop it before it is checked or compiled.
  eraseUnusedGlobals(M, [](const GlobalValue &GV) {
    if (const auto *F = dyn_cast<Function>(&GV))
      return (F->hasLocalLinkage() || F->isDeclaration()) && !F->isIntrinsic();
    return isa<GlobalVariable>(GV) && GV.hasLocalLinkage();
  });
  return PreservedAnalyses::none();
}

} // namespace passes
} // namespace kernel
