// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- PTXCodeGen.cpp - Optimising and emitting PTX -----------------------===//

#include "PTXCodeGen.h"

#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/Transforms/Utils/Cloning.h"

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

std::optional<CompiledModule> emitPTX(const Module &Prepared, StringRef Arch, StringRef Features,
                                      bool KeepIR, DeviceDiagnostics &Diags) {
  std::unique_ptr<TargetMachine> TM = createTargetMachine(Arch, Features, Diags);
  if (!TM)
    return std::nullopt;
  std::unique_ptr<Module> M = CloneModule(Prepared);
  M->setDataLayout(TM->createDataLayout());

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
