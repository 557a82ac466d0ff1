// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- PTXCodeGen.cpp - Optimising and emitting PTX -----------------------===//

#include "PTXCodeGen.h"
#include "LowerKernelIntrinsics.h"

#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Metadata.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>
#include <mutex>

extern "C" void LLVMInitializeNVPTXTargetInfo();
extern "C" void LLVMInitializeNVPTXTarget();
extern "C" void LLVMInitializeNVPTXTargetMC();
extern "C" void LLVMInitializeNVPTXAsmPrinter();

using namespace llvm;

namespace kernel {
namespace passes {

static constexpr StringLiteral NVPTXTriple = "nvptx64-nvidia-cuda";

// clang initialises only the host target; the NVPTX backend is in the same libLLVM.
static const Target *nvptxTarget(DeviceDiagnostics &Diags) {
  static std::once_flag Once;
  std::call_once(Once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  std::string Error;
  const Target *T = TargetRegistry::lookupTarget(NVPTXTriple.str(), Error);
  if (!T)
    Diags.error("the NVPTX backend is not available in this LLVM: " + Error);
  return T;
}

static std::unique_ptr<TargetMachine> createTargetMachine(StringRef Arch, StringRef Features,
                                                          DeviceDiagnostics &Diags) {
  const Target *T = nvptxTarget(Diags);
  if (!T)
    return nullptr;
  std::unique_ptr<TargetMachine> TM(
      T->createTargetMachine(NVPTXTriple.str(), Arch, Features, TargetOptions(), std::nullopt,
                             std::nullopt, CodeGenOptLevel::Aggressive));
  if (!TM)
    Diags.error("cannot create an NVPTX target machine for " + Arch);
  return TM;
}

std::optional<DataLayout> nvptxDataLayout(DeviceDiagnostics &Diags) {
  std::unique_ptr<TargetMachine> TM = createTargetMachine("sm_75", "", Diags);
  if (!TM)
    return std::nullopt;
  return TM->createDataLayout();
}

/// The threads a multiprocessor of `Arch` holds at once: 2048 from Volta on, except Turing's
/// 1024 and the 1536 of the consumer parts of Ampere and Ada.
static unsigned residentThreadsPerSM(StringRef Arch) {
  if (Arch == "sm_75")
    return 1024;
  if (Arch == "sm_86" || Arch == "sm_87" || Arch == "sm_89")
    return 1536;
  return 2048;
}

/// An entry's blocks per multiprocessor (CreateKernelEntries' minctasm) count blocks on a
/// multiprocessor of 2048 threads: one of `Arch` holding fewer asks for proportionally fewer,
/// at least one, so that the entry asks for the same share of each multiprocessor's threads
/// (two blocks of 512 fill Turing's, and at the 64 registers a thread that leaves, the
/// compaction's sm_75 code spilled; one block may have 128).
static void scaleBlocksPerSM(Module &M, StringRef Arch) {
  const unsigned Threads = residentThreadsPerSM(Arch);
  NamedMDNode *Annotations = M.getNamedMetadata("nvvm.annotations");
  if (!Annotations || Threads == 2048)
    return;
  for (unsigned I = 0; I < Annotations->getNumOperands(); ++I) {
    MDNode *Node = Annotations->getOperand(I);
    if (Node->getNumOperands() != 3)
      continue;
    auto *Name = dyn_cast<MDString>(Node->getOperand(1));
    auto *Value = mdconst::dyn_extract<ConstantInt>(Node->getOperand(2));
    if (!Name || Name->getString() != "minctasm" || !Value)
      continue;
    const uint64_t Blocks = std::max<uint64_t>(Value->getZExtValue() * Threads / 2048, 1);
    Annotations->setOperand(
        I, MDNode::get(M.getContext(),
                       {Node->getOperand(0), Node->getOperand(1),
                        ConstantAsMetadata::get(ConstantInt::get(Value->getType(), Blocks))}));
  }
}

std::optional<CompiledModule> emitPTX(const Module &Prepared, StringRef Arch, StringRef Features,
                                      bool KeepIR, DeviceDiagnostics &Diags) {
  std::unique_ptr<TargetMachine> TM = createTargetMachine(Arch, Features, Diags);
  if (!TM)
    return std::nullopt;
  std::unique_ptr<Module> M = CloneModule(Prepared);
  M->setDataLayout(TM->createDataLayout());
  scaleBlocksPerSM(*M, Arch);

  {
    LoopAnalysisManager LAM;
    FunctionAnalysisManager FAM;
    CGSCCAnalysisManager CGAM;
    ModuleAnalysisManager MAM;
    PassBuilder PB(TM.get());
    TM->registerPassBuilderCallbacks(PB);
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
    ModulePassManager MPM = PB.buildPerModuleDefaultPipeline(OptimizationLevel::O3);
    MPM.run(*M, MAM);
  }

  CompiledModule Result;
  Result.StaticSharedBytes = staticSharedBytesOfKernels(*M);
  if (KeepIR) {
    raw_string_ostream IR(Result.OptimizedIR);
    M->print(IR, nullptr);
  }
  SmallString<0> PTX;
  raw_svector_ostream OS(PTX);
  legacy::PassManager CodeGen;
  if (TM->addPassesToEmitFile(CodeGen, OS, nullptr, CodeGenFileType::AssemblyFile)) {
    Diags.error("the NVPTX backend cannot emit PTX for " + Arch);
    return std::nullopt;
  }
  CodeGen.run(*M);
  Result.PTX = std::string(PTX.str());
  return Result;
}

} // namespace passes
} // namespace kernel
