// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- KernelOffload.h - GPU code from the host compile ----------*- C++ -*-===//
//
// The pass the plugin adds at the start of the host pipeline (so it runs at -O0 too, on IR
// no host optimisation has touched). If the module has GPU entries it:
//   1. runs the device pipeline on a clone of the host module: reduces it to the GPU code
//      (ExtractDeviceModule), makes it an NVPTX module (RetargetToNVPTX), links the device
//      runtime (LinkDeviceRuntime), lowers the kernel hooks (LowerKernelIntrinsics) and
//      printf (LowerPrintf), maps the math to libdevice (MapMathToLibdevice) and links it
//      (LinkLibdevice), adds the PTX kernels (CreateKernelEntries), lowers the calls to
//      Numba-convention functions (LowerNumbaDeviceCalls) and checks what is left
//      (VerifyDeviceModule),
//   2. optimises and emits PTX for each architecture (PTXCodeGen),
//   3. adds copies of the entries instrumented for the simulator (InstrumentForSimulator),
//   4. embeds the PTX and its registration in the host module (EmbedDeviceImages), under a
//      content hash (ContentHash), and gives the declared CUDA-C functions their host
//      fallbacks (CreateHostFallbacks).
// The host code itself is not changed.
//
// Each step is also a pass of its own, registered by name for opt (PassPlugin.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_KERNELOFFLOAD_H
#define KERNEL_PASSES_KERNELOFFLOAD_H

#include "DeviceDiagnostics.h"
#include "OffloadOptions.h"

#include "llvm/IR/DataLayout.h"
#include "llvm/IR/PassManager.h"

#include <optional>

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

/// Registers the analyses the device passes use (DeviceCodeAnalysis).
void registerKernelAnalyses(llvm::ModuleAnalysisManager &MAM);

/// The device pipeline of step 1, from ExtractDeviceModule to VerifyDeviceModule. `Layout`
/// is the NVPTX data layout when known; errors go to `Diags` when given, else to the
/// module's context.
llvm::ModulePassManager buildDevicePipeline(const OffloadOptions &Options,
                                            std::optional<llvm::DataLayout> Layout,
                                            DeviceDiagnostics *Diags);

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_KERNELOFFLOAD_H
