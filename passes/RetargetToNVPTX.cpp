// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- RetargetToNVPTX.cpp - Host IR to NVPTX IR --------------------------===//

#include "RetargetToNVPTX.h"
#include "PTXCodeGen.h"

#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;

namespace kernel {
namespace passes {

static void stripHostAttributes(Function &F) {
  // -O0 puts optnone and noinline on everything; a user's own noinline (at -O1 and up)
  // is kept.
  if (F.hasFnAttribute(Attribute::OptimizeNone)) {
    F.removeFnAttr(Attribute::OptimizeNone);
    F.removeFnAttr(Attribute::NoInline);
  }
  for (Attribute::AttrKind Kind :
       {Attribute::UWTable, Attribute::StackProtect, Attribute::StackProtectReq,
        Attribute::StackProtectStrong, Attribute::NonLazyBind, Attribute::SanitizeAddress,
        Attribute::SanitizeThread, Attribute::SanitizeMemory, Attribute::SanitizeHWAddress,
        Attribute::SafeStack, Attribute::ShadowCallStack})
    F.removeFnAttr(Kind);
  for (StringRef Kind :
       {"target-cpu", "target-features", "tune-cpu", "frame-pointer", "stack-protector-buffer-size",
        "min-legal-vector-width", "probe-stack", "stack-probe-size", "prefer-vector-width",
        "indirect-tls-seg-refs", "zero-call-used-regs", "patchable-function-entry", "fentry-call",
        // -finstrument-functions and its -after-inlining form: calls to __cyg_profile_func_*,
        // which no GPU has, added by the device pipeline's own instrumenter if left.
        "instrument-function-entry", "instrument-function-exit",
        "instrument-function-entry-inlined", "instrument-function-exit-inlined"})
    F.removeFnAttr(Kind);
}

static void removeExceptionHandling(Function &F) {
  SmallVector<InvokeInst *, 8> Invokes;
  for (BasicBlock &BB : F)
    if (auto *II = dyn_cast<InvokeInst>(BB.getTerminator()))
      Invokes.push_back(II);
  for (InvokeInst *II : Invokes)
    changeToCall(II);
  if (!Invokes.empty())
    removeUnreachableBlocks(F);
  if (F.hasPersonalityFn())
    F.setPersonalityFn(nullptr);
}

PreservedAnalyses RetargetToNVPTXPass::run(Module &M, ModuleAnalysisManager &) {
  if (!Layout) {
    DeviceDiagnostics Diags(M.getContext());
    Layout = nvptxDataLayout(Diags);
    if (!Layout)
      return PreservedAnalyses::all();
  }
  M.setTargetTriple("nvptx64-nvidia-cuda");
  M.setDataLayout(*Layout);
  M.setModuleInlineAsm("");
  StripDebugInfo(M);
  for (StringRef Name : {"llvm.module.flags", "llvm.ident", "llvm.linker.options",
                         "llvm.commandline", "llvm.dependent-libraries"})
    if (NamedMDNode *MD = M.getNamedMetadata(Name))
      M.eraseNamedMetadata(MD);

  for (Function &F : M) {
    F.setComdat(nullptr);
    F.setDLLStorageClass(GlobalValue::DefaultStorageClass);
    F.setDSOLocal(false);
    F.setSection("");
    stripHostAttributes(F);
    if (!F.isDeclaration())
      removeExceptionHandling(F);
  }
  for (GlobalVariable &GV : M.globals()) {
    GV.setComdat(nullptr);
    GV.setDSOLocal(false);
    GV.setSection("");
  }
  return PreservedAnalyses::none();
}

} // namespace passes
} // namespace kernel
