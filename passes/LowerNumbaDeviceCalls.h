// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LowerNumbaDeviceCalls.h - Numba's device-function convention -*- C++ -*-===//
//
// A CUDA-C function in the Numba convention is `int f(T *result, args...)`: the value
// comes back through the first argument and the int is a status, 0 for success. Kernels
// call it as declared in C++, `T f(args...)`; this pass rewrites each call in the device
// module to pass a result slot, and to record the first non-zero status (with which
// function returned it) in the device global the runtime reads after the kernel. The
// declared functions and their conventions come from DeviceCodeAnalysis.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_LOWERNUMBADEVICECALLS_H
#define KERNEL_PASSES_LOWERNUMBADEVICECALLS_H

#include "DeviceDiagnostics.h"

#include "llvm/IR/PassManager.h"

namespace kernel {
namespace passes {

class LowerNumbaDeviceCallsPass : public llvm::PassInfoMixin<LowerNumbaDeviceCallsPass> {
public:
  /// Errors go to `Diags` when given (the offload pass), else to the module's context.
  explicit LowerNumbaDeviceCallsPass(DeviceDiagnostics *Diags = nullptr) : Diags(Diags) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }

private:
  DeviceDiagnostics *Diags;
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_LOWERNUMBADEVICECALLS_H
