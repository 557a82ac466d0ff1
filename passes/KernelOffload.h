//===- KernelOffload.h - GPU code from the host compile ----------*- C++ -*-===//
//
// The pass the plugin adds at the start of the host pipeline (so it runs at -O0 too, on IR
// no host optimisation has touched). If the module has GPU entries it:
//   1. extracts them and what they reach into a new module (ExtractDeviceModule),
//   2. makes it an NVPTX module (RetargetToNVPTX), links the device runtime, lowers the
//      kernel hooks (LowerKernelIntrinsics) and printf (LowerPrintf), maps the math to
//      libdevice (MapMathToLibdevice) and links it,
//   3. adds the PTX kernels (CreateKernelEntries) and checks what is left
//      (VerifyDeviceModule),
//   4. optimises and emits PTX for each architecture (PTXCodeGen),
//   5. adds copies of the entries instrumented for the simulator (InstrumentForSimulator),
//   6. embeds the PTX and its registration in the host module (EmbedDeviceImages), under a
//      content hash (ContentHash).
// The host code itself is not changed.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_KERNELOFFLOAD_H
#define KERNEL_PASSES_KERNELOFFLOAD_H

#include "OffloadOptions.h"

#include "llvm/IR/PassManager.h"

namespace kernel {
namespace passes {

class KernelOffloadPass : public llvm::PassInfoMixin<KernelOffloadPass> {
public:
  explicit KernelOffloadPass(OffloadOptions Options) : Options(std::move(Options)) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }

private:
  OffloadOptions Options;
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_KERNELOFFLOAD_H
