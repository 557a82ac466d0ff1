// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- CreateHostFallbacks.cpp - Declared device functions on the host ----===//

#include "CreateHostFallbacks.h"

#include "llvm/IR/IRBuilder.h"

using namespace llvm;

namespace kernel {
namespace passes {

void createHostFallbacks(Module &Host, ArrayRef<ExternalFunction> Functions) {
  LLVMContext &Ctx = Host.getContext();
  Type *Ptr = PointerType::getUnqual(Ctx);
  // [[noreturn]] void __kernel_missing_host_function(signature, location, convention):
  // the runtime throws, or fails the simulated thread.
  FunctionCallee Report =
      Host.getOrInsertFunction("__kernel_missing_host_function",
                               FunctionType::get(Type::getVoidTy(Ctx), {Ptr, Ptr, Ptr}, false));
  if (auto *R = dyn_cast<Function>(Report.getCallee()))
    R->setDoesNotReturn();
  for (const ExternalFunction &F : Functions) {
    Function *Fn = F.HostDeclaration;
    if (!Fn->isDeclaration())
      continue;
    Fn->setLinkage(GlobalValue::WeakAnyLinkage);
    // With -g at -O1 and above clang attaches a declaration's DISubprogram (for call-site
    // information); a definition must have a distinct one of its own, or the backend's lexical
    // scopes crash. The body is generated and has no source lines: give it none.
    Fn->setSubprogram(nullptr);
    // The report unwinds (a C++ exception) through this frame.
    Fn->setUWTableKind(UWTableKind::Default);
    Fn->removeFnAttr(Attribute::NoUnwind);
    BasicBlock *Body = BasicBlock::Create(Ctx, "entry", Fn);
    IRBuilder<> B(Body);
    // The report tells the user what to define: with C linkage where the declaration has it
    // (a C++ definition of the same name would not replace this one).
    const std::string Definition =
        Fn->getName().starts_with("_Z") ? F.Signature : "extern \"C\" " + F.Signature;
    B.CreateCall(Report, {B.CreateGlobalStringPtr(Definition, "kernel.host_fallback.signature"),
                          B.CreateGlobalStringPtr(F.Location, "kernel.host_fallback.location"),
                          B.CreateGlobalStringPtr(F.NumbaConvention ? "numba" : "c",
                                                  "kernel.host_fallback.abi")});
    B.CreateUnreachable();
  }
}

PreservedAnalyses CreateHostFallbacksPass::run(Module &M, ModuleAnalysisManager &) {
  SmallVector<ExternalFunction, 4> Functions = collectExternalFunctions(M);
  if (Functions.empty())
    return PreservedAnalyses::all();
  createHostFallbacks(M, Functions);
  return PreservedAnalyses::none();
}

} // namespace passes
} // namespace kernel
