//===- PassPlugin.cpp - The offload pass for opt -----------------------------===//
//
// `opt -load-pass-plugin=libkernel_passes.so -passes=kernel-offload` runs the offload pass
// on a host module, for testing the pass without the clang plugin. Options come from
// -kernel-arch and -kernel-libdevice.
//
//===----------------------------------------------------------------------===//

#include "KernelOffload.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/CommandLine.h"

using namespace llvm;

static cl::opt<std::string> KernelArch("kernel-arch", cl::init("sm_75,sm_90"),
                                       cl::desc("GPU architectures to emit PTX for"));
static cl::opt<std::string> KernelLibdevice("kernel-libdevice", cl::init(""),
                                            cl::desc("libdevice bitcode file"));

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "kernel-offload", "1", [](PassBuilder &PB) {
            PB.registerPipelineParsingCallback(
                [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
                  if (Name != "kernel-offload")
                    return false;
                  kernel::passes::OffloadOptions Options;
                  Options.Archs.clear();
                  SmallVector<StringRef, 4> Archs;
                  StringRef(KernelArch).split(Archs, ',', -1, false);
                  for (StringRef A : Archs)
                    Options.Archs.push_back(A.str());
                  Options.LibdevicePath = KernelLibdevice;
                  MPM.addPass(kernel::passes::KernelOffloadPass(Options));
                  return true;
                });
          }};
}
